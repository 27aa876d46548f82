"""Hand checks: each budgeting template recomputed from the numbers printed in its question.

Inputs are parsed from ``p.question`` (not ``p.params``); month counts are found by simulating the
deposits month by month instead of dividing and rounding up.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "personal_finance/budgeting/"
SEEDS = [0, 3, 31, 777]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def months_until(target: float, balance: float, deposit: float) -> int:
    months = 0
    while balance < target - 1e-9:
        balance += deposit
        months += 1
    return months


@pytest.mark.parametrize("seed", SEEDS)
def test_department_budget_split(seed):
    p = get(T + "department_budget_split").generate(seed)
    budget, moved = dollars(p.question)
    marketing, development = percents(p.question)
    operations_share = 100 - marketing - development  # "the rest", as a share of the budget
    assert p.answer == pytest.approx(budget * operations_share / 100 + moved, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_savings_rate(seed):
    p = get(T + "savings_rate").generate(seed)
    income, *spending = dollars(p.question)
    assert p.answer == pytest.approx((income - sum(spending)) / income * 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_budget_cut_and_growth_year_by_year(seed):
    p = get(T + "budget_cut_and_growth").generate(seed)
    (budget,) = dollars(p.question)
    marketing, development, cut, growth = percents(p.question)
    years = int(re.search(r"budget be (\d+) years?", p.question).group(1))
    total = budget - budget * cut / 100  # the cut year
    for _ in range(years):
        total += total * growth / 100
    departments = total * marketing / 100 + total * development / 100
    assert p.answer == pytest.approx(total - departments, abs=0.01)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_expense_changes_in_percentage_points(seed):
    p = get(T + "expense_changes").generate(seed)
    income, rent, food, other = dollars(p.question)
    rent_up, food_up, raise_ = percents(p.question)
    old = 1 - (rent + food + other) / income
    new_income = income * (1 + raise_ / 100)
    new = 1 - (rent * (1 + rent_up / 100) + food * (1 + food_up / 100) + other) / new_income
    assert p.answer == pytest.approx((new - old) * 100, rel=1e-9)
    assert p.answer_text.endswith("percentage points") and abs(p.answer) > 0.1


@pytest.mark.parametrize("seed", SEEDS)
def test_budget_emergency_plan_by_monthly_simulation(seed):
    p = get(T + "budget_emergency_plan").generate(seed)
    income, rent, other, saved = dollars(p.question)
    _, _, _, rent_up = percents(p.question)
    cover = int(re.search(r"holds (\d+) months", p.question).group(1))
    essentials = rent * (1 + rent_up / 100) + other
    deposit = income * 0.2 + (income * 0.5 - essentials)
    assert p.steps[4].value == pytest.approx(deposit, rel=1e-12)  # an intermediate value
    assert p.answer == months_until(cover * essentials, saved, deposit)
