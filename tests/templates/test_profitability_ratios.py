"""Hand checks for profitability ratios: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_ratios/profitability_ratios/"
SEEDS = [13, 99, 808, 424242]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_gross_profit_margin(seed):
    p = get(T + "gross_profit_margin").generate(seed)
    revenue, opening, purchases, closing = money(p.question)
    # goods sold are what was available (opening + purchases) less what is left
    available = opening + purchases
    assert p.answer == pytest.approx((revenue - (available - closing)) / revenue * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_roe_on_average_equity(seed):
    p = get(T + "roe_on_average_equity").generate(seed)
    opening, closing, net_income = money(p.question)
    assert p.answer == pytest.approx(200 * net_income / (opening + closing), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_dupont_collapses_to_net_income_over_equity(seed):
    p = get(T + "dupont_three_step").generate(seed)
    _revenue, net_income, _assets, equity = money(p.question)
    assert p.answer == pytest.approx(net_income / equity * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_target_margin_price_delivers_the_margin(seed):
    p = get(T + "price_for_target_margin").generate(seed)
    units = int(re.search(r"sell ([\d,]+) ", p.question).group(1).replace(",", ""))
    variable, fixed = money(p.question)
    tax, target = percents(p.question)
    revenue = p.answer * units
    net_income = (revenue - units * variable - fixed) * (1 - tax)
    assert net_income / revenue == pytest.approx(target, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_recap_roe_from_the_income_statement(seed):
    p = get(T + "dupont_recapitalization").generate(seed)
    revenue, ebit, assets, debt, borrowed = money(p.question)
    old_rate, new_rate, tax = percents(p.question)
    ebt = ebit - debt * old_rate - borrowed * new_rate
    assert step(p, "interest_burden") == pytest.approx(ebt / ebit, rel=1e-12)
    equity = assets - debt - borrowed
    assert p.answer == pytest.approx(ebt * (1 - tax) / equity * 100, rel=1e-10)
