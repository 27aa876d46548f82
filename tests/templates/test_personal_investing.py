"""Hand checks: each personal-investing template recomputed from the numbers printed in its question.

Inputs are parsed from ``p.question`` (not ``p.params``); the checks simulate year by year or
purchase by purchase instead of using the closed forms the templates use.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "personal_finance/personal_investing/"
SEEDS = [0, 5, 64, 3210]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def count(text: str, noun: str) -> int:
    return int(re.search(rf"([\d,]+) {noun}s?\b", text).group(1).replace(",", ""))


@pytest.mark.parametrize("seed", SEEDS)
def test_withdrawal_from_allocation(seed):
    p = get(T + "withdrawal_from_allocation").generate(seed)
    value, withdrawal = dollars(p.question)
    (stocks,) = percents(p.question)
    bonds_after = value * (100 - stocks) / 100 - withdrawal
    assert bonds_after > 0
    assert p.answer == pytest.approx(100 - bonds_after / (value - withdrawal) * 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_expense_ratio_drag_year_by_year(seed):
    p = get(T + "expense_ratio_drag").generate(seed)
    gross, low, high = percents(p.question)
    (principal,) = dollars(p.question)
    cheap = dear = principal
    for _ in range(count(p.question, "year")):
        cheap *= 1 + (gross - low) / 100
        dear *= 1 + (gross - high) / 100
    assert p.answer == pytest.approx(cheap - dear, abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_dividend_reinvestment_year_by_year(seed):
    p = get(T + "dividend_reinvestment").generate(seed)
    q = p.question
    (price0,) = dollars(q)
    growth, div_yield = percents(q)
    shares0 = count(q, "share")
    years = int(re.search(r"after (\d+) years?", q).group(1))
    shares, price = float(shares0), price0
    for _ in range(years):
        price *= 1 + growth / 100
        shares += shares * price * div_yield / 100 / price  # dividend cash buys shares at the same price
    cost = shares0 * price0
    assert p.answer == pytest.approx((shares * round(price, 2) - cost) / cost * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS + [1, 2])
def test_annualized_return_after_costs_and_tax_by_cash_flows(seed):
    p = get(T + "annualized_return_after_costs_and_tax").generate(seed)
    shares = int(re.search(r"bought ([\d,]+) shares", p.question).group(1).replace(",", ""))
    years = int(re.search(r"all (\d+) years? later", p.question).group(1))
    buy, commission, sell = dollars(p.question)[:3]
    selling_cost, tax = percents(p.question)[:2]
    paid = round(shares * buy + commission, 2)
    received = round(shares * sell - shares * sell * selling_cost / 100, 2)  # costs come off the proceeds
    kept = round(received - (received - paid) * tax / 100, 2)
    growth = 1 + p.answer / 100
    assert paid * growth ** years == pytest.approx(kept, rel=1e-9)  # the yearly rate compounds cost to what is kept


@pytest.mark.parametrize("seed", SEEDS)
def test_dca_with_costs_and_dividend_purchase_by_purchase(seed):
    p = get(T + "dca_with_costs_and_dividend").generate(seed)
    amount, commission, p1, p2, p3, p4, price_end, dividend = dollars(p.question)
    shares = 0.0
    for price in (p1, p2, p3, p4):
        shares += (amount - commission) / price
    assert p.steps[1].value == pytest.approx(shares, rel=1e-12)  # an intermediate value
    shares += shares * dividend / price_end
    assert p.answer == pytest.approx((shares * price_end / (4 * amount) - 1) * 100, rel=1e-9)
