"""Hand checks for efficiency ratios: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_ratios/efficiency_ratios/"
SEEDS = [9, 77, 601, 12345]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_asset_turnover(seed):
    p = get(T + "asset_turnover_average").generate(seed)
    opening, closing, revenue = money(p.question)
    assert p.answer == pytest.approx(2 * revenue / (opening + closing), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_dso_as_average_receivables_over_daily_sales(seed):
    p = get(T + "receivables_turnover_days").generate(seed)
    sales, opening, closing = money(p.question)
    assert p.answer == pytest.approx((opening + closing) / 2 / (sales / 365), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_inventory_days(seed):
    p = get(T + "inventory_turnover_from_purchases").generate(seed)
    opening, purchases, closing = money(p.question)
    cogs = purchases - (closing - opening)
    assert p.answer == pytest.approx((opening + closing) / 2 * 365 / cogs, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_fixed_asset_turnover_plan(seed):
    p = get(T + "fixed_asset_turnover_plan").generate(seed)
    revenue, ppe, capex, depreciation = money(p.question)
    growth = float(re.search(r"growth of ([\d.]+)%", p.question).group(1)) / 100
    assert p.answer == pytest.approx(revenue * (1 + growth) / (ppe + (capex - depreciation) / 2), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_working_capital_release_by_target_balances(seed):
    p = get(T + "working_capital_release").generate(seed)
    sales, cogs, receivables, inventory, total = money(p.question)
    target_dso, target_dio = (int(x) for x in re.findall(r"to (\d+) days", p.question))
    released = (receivables - sales * target_dso / 365) + (inventory - cogs * target_dio / 365)
    assert step(p, "released") == pytest.approx(released, rel=1e-9)
    assert p.answer == pytest.approx(sales / (total - released), rel=1e-10)
