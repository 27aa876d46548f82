"""Hand checks: each saving-and-retirement template by simulation or an inverse check."""

import pytest

from finchain_tasks.engine import get

T = "personal_finance/saving_and_retirement/"


def grow(balance, periodic_rate, deposit, periods):
    """Compound ``balance`` for ``periods`` with ``deposit`` added at the end of each (negative: a withdrawal)."""
    for _ in range(periods):
        balance = balance * (1 + periodic_rate) + deposit
    return balance


@pytest.mark.parametrize("seed", [0, 5, 99])
def test_future_value_of_contributions_month_by_month(seed):
    p = get(T + "future_value_of_contributions").generate(seed)
    x = p.params
    assert p.answer == pytest.approx(grow(0.0, x["rate"] / 1200, x["contribution"], 12 * x["years"]), rel=1e-9)


@pytest.mark.parametrize("seed", [1, 8])
def test_nest_egg_funds_the_spending_at_the_withdrawal_rate(seed):
    p = get(T + "nest_egg_from_withdrawal_rate").generate(seed)
    x = p.params
    assert p.answer * x["withdrawal_rate"] / 100 + x["pension"] == pytest.approx(x["spending"], rel=1e-12)


@pytest.mark.parametrize("seed", [2, 6, 13])
def test_employer_match_year_by_year(seed):
    p = get(T + "employer_match").generate(seed)
    x = p.params
    matched_pct = x["contribution_pct"] if x["contribution_pct"] <= x["cap_pct"] else x["cap_pct"]
    yearly = x["salary"] * x["contribution_pct"] / 100 + x["salary"] * matched_pct / 100 * x["match_pct"] / 100
    assert p.answer == pytest.approx(grow(0.0, x["rate"] / 100, yearly, x["years"]), rel=1e-9)


@pytest.mark.parametrize("seed", [3, 21])
def test_required_monthly_saving_reaches_the_target(seed):
    p = get(T + "required_monthly_saving").generate(seed)
    x = p.params
    final = grow(x["current"], x["rate"] / 1200, p.answer, 12 * x["years"])
    assert final == pytest.approx(x["target"], rel=1e-9)


@pytest.mark.parametrize("seed", [4, 50])
def test_retirement_income_exhausts_the_account(seed):
    p = get(T + "retirement_income").generate(seed)
    x = p.params
    at_retirement = grow(x["current"], x["growth_rate"] / 1200, x["contribution"], 12 * (x["retire_age"] - x["age"]))
    left = grow(at_retirement, x["payout_rate"] / 1200, -p.answer, 12 * x["payout_years"])
    assert abs(left) < 1e-6 * at_retirement
