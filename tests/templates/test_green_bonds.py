"""Hand checks for sustainable_finance/green_bonds, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "sustainable_finance/green_bonds/"
SEEDS = [0, 10, 140, 7070]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed, 'CO2' is not a number)."""
    text = text.replace("CO2", "carbon")
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_greenium_saving(seed):
    p = get(T + "greenium_coupon_saving").generate(seed)
    green, conventional, face = nums(p.question)[:3]
    assert p.answer == pytest.approx(face * conventional / 100 - face * green / 100, rel=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_allocation_share(seed):
    p = get(T + "proceeds_allocation").generate(seed)
    proceeds, *projects = nums(p.question)[:4]
    unallocated = proceeds
    for amount in projects:
        unallocated -= amount
    assert p.steps[1].value == pytest.approx(unallocated, rel=1e-9)
    assert p.answer == pytest.approx(100 - unallocated / proceeds * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_green_price_by_cash_flow_sum(seed):
    p = get(T + "green_bond_price_premium").generate(seed)
    coupon, years, conventional, bps = nums(p.question)[:4]
    y = conventional / 100 - bps / 10_000
    flows = [coupon] * int(years)
    flows[-1] += 100
    assert p.answer == pytest.approx(sum(cf / (1 + y) ** t for t, cf in enumerate(flows, 1)), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_avoided_tonnes_per_million(seed):
    p = get(T + "avoided_emissions_per_million").generate(seed)
    allocated, capacity, factor, grid, hours = nums(p.question)[:5]
    assert hours == 8760
    hourly_tonnes = capacity * factor / 100 * grid
    assert p.answer == pytest.approx(hourly_tonnes * 365 * 24 / allocated * 1e6, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_tax_credit_bond_after_tax_yield(seed):
    p = get(T + "tax_credit_bond_after_tax_yield").generate(seed)
    face, price, _hundred, coupon, credit, tax, conventional = nums(p.question.split("buys")[1])[:7]
    assert _hundred == 100
    keep = 1 - tax / 100
    # per 100 of face: coupon and credit are both taxed, then the credit comes back as a tax reduction
    after_tax_per_100 = coupon * keep + credit * keep
    assert p.answer == pytest.approx(after_tax_per_100 / price * 100 - conventional * keep, rel=1e-5)
    assert p.steps[0].value == pytest.approx(face * price / 100)
