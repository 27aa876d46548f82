"""Hand checks for income statements: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "accounting_and_financial_reporting/income_statements/"
SEEDS = [5, 64, 333, 2024]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_gross_profit(seed):
    p = get(T + "gross_profit").generate(seed)
    sales, returns, discounts, cogs = money(p.question)
    assert p.answer == pytest.approx(sales - (returns + discounts + cogs), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_net_income_keeps_one_minus_tax_of_ebt(seed):
    p = get(T + "net_income_from_ebit").generate(seed)
    ebit, interest = money(p.question)
    (rate,) = percents(p.question)
    assert p.answer == pytest.approx((ebit - interest) * (1 - rate), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_multi_step_income_statement_as_one_sum(seed):
    p = get(T + "multi_step_income_statement").generate(seed)
    revenue, *costs = money(p.question)
    (rate,) = percents(p.question)
    ebt = revenue
    for cost in costs:
        ebt -= cost
    assert p.answer == pytest.approx(ebt - ebt * rate, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_warranty_deferred_tax_asset_by_roll_forward(seed):
    p = get(T + "warranty_deferred_tax_asset").generate(seed)
    units = int(re.search(r"sold ([\d,]+) ", p.question).group(1).replace(",", ""))
    minor_cost, major_cost, opening, paid = money(p.question)
    minor_rate, major_rate, tax = percents(p.question)
    expense = units * minor_rate * minor_cost + units * major_rate * major_cost
    closing = opening + expense - paid
    # the provision's tax base is nil, so the whole carrying amount is a deductible difference
    assert p.answer == pytest.approx(closing * tax, abs=0.005)  # the solution rounds amounts to the cent
    assert step(p, "closing") == pytest.approx(closing, abs=0.005)


@pytest.mark.parametrize("seed", SEEDS)
def test_deferred_tax_leaves_net_income_at_one_minus_rate_of_ebt(seed):
    p = get(T + "deferred_tax_net_income").generate(seed)
    revenue, cogs, opex, book, tax_dep, interest = money(p.question)
    (rate,) = percents(p.question)
    ebt = revenue - cogs - opex - book - interest
    assert step(p, "current_tax") == pytest.approx((ebt - (tax_dep - book)) * rate, rel=1e-12)
    # with only a temporary difference, total tax expense is the statutory rate on accounting profit
    assert p.answer == pytest.approx(ebt * (1 - rate), rel=1e-12)
