"""Hand checks: each budgeting template by a month-by-month loop or a rearranged formula."""

import pytest

from finchain_tasks.engine import get

T = "personal_finance/budgeting/"


@pytest.mark.parametrize("seed", [0, 5, 42, 1001])
def test_fifty_thirty_twenty_buckets_add_up(seed):
    p = get(T + "fifty_thirty_twenty").generate(seed)
    x = p.params
    share_of_year = {50: 0.5, 30: 0.3, 20: 0.2}[x["bucket_share"]]
    assert p.answer * 12 == pytest.approx(x["annual_take_home"] * share_of_year, rel=1e-12)


@pytest.mark.parametrize("seed", [1, 9])
def test_savings_rate_spending_share_complements(seed):
    p = get(T + "savings_rate").generate(seed)
    x = p.params
    spent_share = sum(x[k] / x["income"] for k in ("rent", "groceries", "transport", "other"))
    assert p.answer == pytest.approx(100 * (1 - spent_share), rel=1e-10)


def _months_to_fill(balance, target, deposit):
    months = 0
    while balance < target - 1e-9:
        balance += deposit
        months += 1
    return months


@pytest.mark.parametrize("seed", [2, 17, 333])
def test_emergency_fund_by_monthly_deposits(seed):
    p = get(T + "emergency_fund").generate(seed)
    x = p.params
    target = x["months_cover"] * (x["rent"] + x["utilities"] + x["food"] + x["insurance"])
    assert p.answer == _months_to_fill(x["saved"], target, x["contribution"])


@pytest.mark.parametrize("seed", [3, 64])
def test_expense_changes_via_spending_shares(seed):
    p = get(T + "expense_changes").generate(seed)
    x = p.params
    old_spent = (x["rent"] + x["food"] + x["other"]) / x["income"]
    new_spent = (x["rent"] * (100 + x["rent_increase"]) + x["food"] * (100 + x["food_increase"])
                 + 100 * x["other"]) / (x["income"] * (100 + x["pay_raise"]))
    assert p.answer == pytest.approx(100 * (old_spent - new_spent), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", [6, 128, 5000])
def test_budget_emergency_plan_by_monthly_simulation(seed):
    p = get(T + "budget_emergency_plan").generate(seed)
    x = p.params
    essentials = x["rent"] * (100 + x["rent_increase"]) / 100 + x["other_needs"]
    unspent_needs = x["income"] / 2 - essentials
    deposit = x["income"] / 5 + (unspent_needs if unspent_needs > 0 else 0)
    assert p.answer == _months_to_fill(x["saved"], x["months_cover"] * essentials, deposit)
