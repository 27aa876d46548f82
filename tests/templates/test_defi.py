"""Hand checks for crypto_finance/defi: every answer recomputed from the question's own numbers."""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/defi/"
SEEDS = [0, 7, 123, 4242]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_staking_reward_by_daily_ledger(seed):
    p = get(T + "staking_reward_daily_compounding").generate(seed)
    stake, apr, per_year = nums(p.question)[:3]
    assert per_year == 365
    balance = stake
    for _ in range(365):  # restake every day's reward
        balance += balance * apr / 100 / 365
    assert p.answer == pytest.approx(balance - stake, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_constant_product_swap_keeps_k(seed):
    p = get(T + "constant_product_swap").generate(seed)
    x, y, dx, fee = nums(p.question)[:4]
    x_after = x + dx * (1 - fee / 100)  # the fee is not priced, so k is preserved on the net input
    out = y - x * y / x_after
    assert p.answer == pytest.approx(out, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_liquidity_provider_apr_by_day_loop(seed):
    p = get(T + "liquidity_provider_fee_income").generate(seed)
    tvl, deposit, volume, fee, days = nums(p.question)[:5]
    earned = sum(volume * fee / 100 * deposit / (tvl + deposit) for _ in range(int(days)))
    assert p.answer == pytest.approx(earned / deposit * 365 / days * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_yield_farming_roi_by_cash_ledger(seed):
    p = get(T + "yield_farming_net_roi").generate(seed)
    invest, apr, months, drop, gas, txs = nums(p.question)[:6]
    monthly_tokens_usd = invest * apr / 100 / 12
    cash = -invest - gas * txs
    cash += sum(monthly_tokens_usd for _ in range(int(months))) * (1 - drop / 100) + invest
    assert p.answer == pytest.approx(cash / invest * 100, rel=1e-5)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_impermanent_loss_by_pool_reserves(seed):
    p = get(T + "impermanent_loss_vs_hold").generate(seed)
    deposit, p0, p1, fees = nums(p.question)[:4]
    eth, usdc = deposit / 2 / p0, deposit / 2
    k = eth * usdc
    eth_after = math.sqrt(k / p1)  # arbitrage moves the pool to price p1 = usdc/eth
    usdc_after = k / eth_after
    pool = eth_after * p1 + usdc_after
    hold = eth * p1 + usdc
    assert p.steps[2].value == pytest.approx(pool, abs=0.05)  # the solution rounds amounts to the cent
    assert p.steps[3].value == pytest.approx((pool / hold - 1) * 100, rel=1e-9)
    assert p.answer == pytest.approx(pool + fees - hold, abs=0.05)  # the solution rounds amounts to the cent
