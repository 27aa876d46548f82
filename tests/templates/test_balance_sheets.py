"""Hand checks for balance sheets: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "accounting_and_financial_reporting/balance_sheets/"
SEEDS = [0, 7, 123, 998]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_equity_is_net_assets_item_by_item(seed):
    p = get(T + "equity_from_accounting_equation").generate(seed)
    cash, rec, inv, ppe, pay, accrued, debt = money(p.question)
    net = 0.0
    for item in (cash, rec, inv, ppe):
        net += item
    for item in (pay, accrued, debt):
        net -= item
    assert p.answer == pytest.approx(net, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_inventory_days_as_average_inventory_over_daily_cost(seed):
    p = get(T + "inventory_days").generate(seed)
    opening, closing, cogs = money(p.question)
    assert p.answer == pytest.approx((opening + closing) / 2 / (cogs / 365), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_adjusted_current_ratio(seed):
    p = get(T + "adjusted_current_ratio").generate(seed)
    ca, cl, writedown, bad_debt, reclassified = money(p.question)
    assert p.answer == pytest.approx((ca - writedown - bad_debt) / (cl + reclassified), rel=1e-12)
    assert p.answer < ca / cl


@pytest.mark.parametrize("seed", SEEDS)
def test_cash_conversion_cycle_in_one_expression(seed):
    p = get(T + "cash_conversion_cycle").generate(seed)
    sales, cogs, rec, inv, pay = money(p.question)
    assert p.answer == pytest.approx(365 * (rec / sales + (inv - pay) / cogs), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_consolidated_equity_as_parent_equity_plus_new_shares_plus_nci(seed):
    p = get(T + "acquisition_consolidation").generate(seed)
    cash, price, sub_assets, sub_liab, uplift, parent_assets, parent_liab = money(p.question)
    stake = float(re.search(r"acquires (\d+)%", p.question).group(1)) / 100
    shares = int(re.search(r"issues ([\d,]+) shares", p.question).group(1).replace(",", ""))
    fair_net = sub_assets + uplift - sub_liab
    nci = (1 - stake) * fair_net
    # goodwill as the premium over the parent's share of fair net assets (same as the full formula)
    assert step(p, "goodwill") == pytest.approx(cash + shares * price - stake * fair_net, rel=1e-9)
    assert p.answer == pytest.approx(parent_assets - parent_liab + shares * price + nci, rel=1e-12)
