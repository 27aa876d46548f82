"""Hand checks for the stress-testing templates: ledgers, day-by-day runs and full revaluation."""

import re

import pytest

from finchain_tasks.engine import get

T = "risk_management/stress_testing/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 41, 410])
def test_market_shock_loss(seed):
    p = get(T + "market_shock_loss").generate(seed)
    equities, bonds, capital = money(p.question)
    eq_shock, bond_shock = percents(p.question)
    after = equities * (1 - eq_shock / 100) + bonds * (1 - bond_shock / 100)
    assert p.answer == pytest.approx((equities + bonds - after) / capital * 100)


@pytest.mark.parametrize("seed", [1, 42, 411])
def test_liquidity_survival_days_day_by_day(seed):
    p = get(T + "liquidity_survival_days").generate(seed)
    outflow, inflow, buffer = money(p.question)
    days, left = 0, buffer
    while left >= outflow - inflow:
        left -= outflow - inflow
        days += 1
    assert days <= p.answer < days + 1


@pytest.mark.parametrize("seed", [2, 43, 412])
def test_stressed_lcr(seed):
    p = get(T + "stressed_lcr").generate(seed)
    level1, level2a, stable, less_stable, wholesale, inflows = money(p.question)
    haircut, r_stable, r_less, r_wholesale, cap = percents(p.question)
    assert (haircut, r_stable, r_less, r_wholesale, cap) == (15, 5, 10, 40, 75)
    outflows = stable * 0.05 + less_stable * 0.10 + wholesale * 0.40
    assert inflows < 0.75 * outflows
    assert p.answer == pytest.approx((level1 + 0.85 * level2a) / (outflows - inflows) * 100)


@pytest.mark.parametrize("seed", [3, 44, 413])
def test_eve_rate_shock(seed):
    p = get(T + "eve_rate_shock").generate(seed)
    assets, liabilities, tier1 = money(p.question)
    d_a, d_l = [float(x) for x in re.findall(r"duration of ([\d.]+) years?", p.question)]
    (y,) = percents(p.question)
    shock = int(re.search(r"by (\d+) basis points", p.question).group(1)) / 10_000
    gap = (d_a - d_l * liabilities / assets) * assets  # leverage-adjusted duration gap × assets
    assert p.answer == pytest.approx(-gap * shock / (1 + y / 100) / tier1 * 100)


@pytest.mark.parametrize("seed", [4, 45, 414, 4140, 7])
def test_stress_capital_buffer_headroom(seed):
    p = get(T + "stress_capital_buffer_headroom").generate(seed)
    cet1, rwa, ppnr, loans, market, dividends = money(p.question)
    loss, tax, growth, floor, minimum, *_ = percents(p.question)
    assert (floor, minimum) == (2.5, 4.5)
    capital_after = cet1 + (ppnr - loans * loss / 100 - market) * (100 - tax) / 100
    lowest = capital_after / (rwa + rwa * growth / 100)
    scb = max(0.025, cet1 / rwa - lowest + dividends / rwa)
    assert p.answer == pytest.approx((cet1 / rwa - 0.045 - scb) * 100, rel=1e-9)
