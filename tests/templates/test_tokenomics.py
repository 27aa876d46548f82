"""Hand checks for crypto_finance/tokenomics, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/tokenomics/"
SEEDS = [0, 9, 321, 5000]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_overhang_is_price_times_locked_tokens(seed):
    p = get(T + "fdv_overhang").generate(seed)
    price, max_m, circ_m = nums(p.question)[:3]
    assert p.answer == pytest.approx(price * (max_m - circ_m) * 1e6, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS + [3, 4])
def test_buyback_and_burn_share_of_supply(seed):
    p = get(T + "buyback_and_burn").generate(seed)
    revenue, share, price, supply_m = nums(p.question)[:4]
    market_cap = price * supply_m * 1e6
    # the burn removes the dollars spent as a fraction of the market cap at the buyback price
    assert p.answer == pytest.approx(revenue * share / 100 / market_cap * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_real_staking_yield_by_network_share(seed):
    p = get(T + "staking_real_yield").generate(seed)
    supply, inflation, staked = nums(p.question)[:3]
    my_stake = 1.0  # one token staked: its share of the network before and after the year
    minted = supply * inflation / 100
    mine_after = my_stake + minted * my_stake / (supply * staked / 100)
    share_growth = (mine_after / (supply + minted)) / (my_stake / supply) - 1
    assert p.answer == pytest.approx(share_growth * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_halving_supply_by_daily_blocks(seed):
    p = get(T + "halving_emission_supply").generate(seed)
    q = p.question.replace("365-day", "")
    supply_m, reward, blocks, halving, horizon = nums(q)[:5]
    assert "four years later" in q
    days_before, days_total = halving * 365, horizon * 365
    mined = blocks * reward * days_before + blocks * reward / 2 * (days_total - days_before)
    assert p.answer == pytest.approx(supply_m * 1e6 + mined, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_vesting_dilution_month_by_month(seed):
    p = get(T + "vesting_unlock_dilution").generate(seed)
    circ, team, cliff_share, cliff, vest, locked_share, emission, months = nums(p.question)[:8]
    supply = circ * (1 - locked_share / 100)  # the staked tokens leave the tradable supply today
    for month in range(1, int(months) + 1):
        if month == cliff:
            supply += team * cliff_share / 100
        if month > cliff:
            supply += team * (1 - cliff_share / 100) / vest
        supply += circ * emission / 100 / 12
    assert p.steps[4].value == pytest.approx(supply * 1e6, rel=1e-9)
    value_now = circ * 1.0  # any price: the tradable value circ × 1 must equal supply × new price
    assert p.answer == pytest.approx((value_now / supply - 1.0) * 100, rel=1e-9)
