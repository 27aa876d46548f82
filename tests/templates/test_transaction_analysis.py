"""Hand checks for crypto_finance/transaction_analysis, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/transaction_analysis/"
SEEDS = [0, 13, 404, 77777]
GWEI = 1e-9  # ETH per gwei


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_eip1559_cost_split_into_burn_and_tip(seed):
    p = get(T + "eip1559_gas_cost").generate(seed)
    gas, base, tip, eth = nums(p.question)[:4]
    burned, to_validator = gas * base * GWEI * eth, gas * tip * GWEI * eth
    assert p.answer == pytest.approx(burned + to_validator, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_fee_share_from_net_amount(seed):
    p = get(T + "exchange_fee_percent_plus_fixed").generate(seed)
    amount, fee, withdrawal = nums(p.question)[:3]
    kept = amount - round(amount * fee / 100, 2) - withdrawal
    assert p.answer == pytest.approx((amount - kept) / amount * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_batch_saving_per_payee_loop(seed):
    p = get(T + "batched_transfers_saving").generate(seed)
    payees, single, overhead, per_payee, gwei, eth = nums(p.question)[:6]
    saved = -overhead
    for _ in range(int(payees)):
        saved += single - per_payee
    assert p.answer == pytest.approx(saved * gwei * GWEI * eth, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_bridge_cost_share(seed):
    p = get(T + "cross_chain_bridge_cost").generate(seed)
    amount, source_gas, fee, dest_gas = nums(p.question)[:4]
    arrived = amount - round(amount * fee / 100, 2)
    spent = amount + source_gas + dest_gas
    assert p.answer == pytest.approx((spent - arrived) / amount * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_rollup_saving_per_payment(seed):
    p = get(T + "rollup_vs_mainnet_payments").generate(seed)
    q = p.question.replace("16 gas", "").replace("layer-2", "").replace("layer-1", "")
    payments, l1_gas, l1_gwei, eth, l2_gas, l2_gwei, size, deposit_gas = nums(q)[:8]
    mainnet = l1_gas * l1_gwei * GWEI * eth
    rollup = (l2_gas * l2_gwei + size * 16 * l1_gwei) * GWEI * eth
    net = payments * (mainnet - rollup) - deposit_gas * l1_gwei * GWEI * eth
    assert p.steps[4].value * GWEI * eth == pytest.approx(net, rel=1e-9)
    assert p.answer == pytest.approx(net, rel=1e-9)
