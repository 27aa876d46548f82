"""Hand checks for capital structure: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "corporate_finance/capital_structure/"
SEEDS = [2, 11, 140, 9001]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def millions(text: str) -> float:
    return float(re.search(r"([\d.,]+) million shares", text).group(1).replace(",", "")) * 1e6


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_buyback_raises_leverage(seed):
    p = get(T + "debt_to_equity_after_buyback").generate(seed)
    equity, debt, buyback = money(p.question)
    assert p.answer == pytest.approx(debt / (equity - buyback), rel=1e-12)
    assert p.answer > debt / equity


@pytest.mark.parametrize("seed", SEEDS)
def test_debt_to_capital_from_the_equity_share(seed):
    p = get(T + "debt_to_capital_after_bond_issue").generate(seed)
    bond, equity, debt = money(p.question)
    assert p.answer == pytest.approx((1 - equity / (equity + debt + bond)) * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_asset_sale_by_balance_sheet_ledger(seed):
    p = get(T + "asset_sale_to_repay_debt").generate(seed)
    equity, debt, carrying, proceeds = money(p.question)
    (rate,) = percents(p.question)
    cash_after_tax = proceeds - rate * (proceeds - carrying)
    # assets fall by the carrying amount and rise by the cash, which then leaves to repay debt
    debt_after = debt - cash_after_tax
    equity_after = equity + (proceeds - carrying) * (1 - rate)
    assert p.answer == pytest.approx(debt_after / equity_after, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_recap_by_counting_shares(seed):
    p = get(T + "leveraged_recap_market_values").generate(seed)
    n = millions(p.question)
    price, debt, borrowed = money(p.question)
    remaining = n - borrowed / price
    assert p.answer == pytest.approx((debt + borrowed) / (remaining * price), rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_cost_of_equity_from_the_levered_wacc(seed):
    p = get(T + "recap_with_corporate_tax").generate(seed)
    n = millions(p.question)
    price, debt = money(p.question)
    t, r_u, r_d = percents(p.question)
    value = n * price + t * debt
    assert step(p, "value_levered") == pytest.approx(value, rel=1e-12)
    equity = value - debt
    wacc = r_u * (1 - t * debt / value)  # MM: after-tax WACC with permanent debt
    r_e = (wacc - debt / value * r_d * (1 - t)) * value / equity
    assert p.answer == pytest.approx(r_e * 100, rel=1e-10)
