"""Hand checks for sustainable_finance/social_impact_investing, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "sustainable_finance/social_impact_investing/"
SEEDS = [0, 4, 404, 1999]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_simple_sroi(seed):
    p = get(T + "simple_sroi").generate(seed)
    investment, outcomes, proxy = nums(p.question)[:3]
    assert p.answer == pytest.approx(proxy / (investment / outcomes), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_cost_per_outcome(seed):
    p = get(T + "cost_per_outcome").generate(seed)
    cost, enrolled, success = nums(p.question)[:3]
    cost_per_enrollee = cost / enrolled
    assert p.answer == pytest.approx(cost_per_enrollee / (success / 100), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_blended_margin_by_tranche_income(seed):
    p = get(T + "blended_fund_return").generate(seed)
    first_loss, r1, mezz, r2, senior, r3, portfolio = nums(p.question)[:7]
    capital = first_loss + mezz + senior
    income_needed = first_loss * r1 / 100 + mezz * r2 / 100 + senior * r3 / 100
    income_earned = capital * portfolio / 100
    assert p.answer == pytest.approx((income_earned - income_needed) / capital * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_adjusted_sroi_by_successive_haircuts(seed):
    p = get(T + "adjusted_sroi").generate(seed)
    investment, outcomes, proxy, deadweight, attribution, displacement = nums(p.question)[:6]
    value = outcomes * proxy
    for haircut in (deadweight, attribution, displacement):
        value -= value * haircut / 100
    assert p.answer == pytest.approx(value / investment, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_multi_year_sroi_by_loop(seed):
    p = get(T + "multi_year_sroi").generate(seed)
    q = p.question.replace("year 2", "").replace("year 3", "").replace("year 1", "")
    investment, outcomes, proxy, deadweight, attribution, dropoff, rate = nums(q)[:7]
    impact = outcomes * proxy * (1 - deadweight / 100) * (1 - attribution / 100)
    pv = 0.0
    for year in (1, 2, 3):
        pv += impact / (1 + rate / 100) ** year
        impact *= 1 - dropoff / 100
    assert p.steps[3].value == pytest.approx(impact / (1 - dropoff / 100), abs=0.05)
    assert p.answer == pytest.approx(pv / investment, rel=1e-7)  # the solution rounds amounts to the cent
