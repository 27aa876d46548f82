"""Hand checks: each ROI template recomputed from the numbers printed in its question.

Inputs are parsed from ``p.question`` (not ``p.params``); the checks use a price ratio, a growth
simulation, cash ledgers and log growth rates rather than the templates' formulas.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/roi/"
SEEDS = [0, 19, 250, 4242]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def counts(text: str, noun: str) -> list[int]:
    return [int(m.replace(",", "")) for m in re.findall(rf"([\d,]+) {noun}s?\b", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_simple_roi_is_price_relative(seed):
    p = get(T + "simple_roi").generate(seed)
    buy, sell = dollars(p.question)
    assert p.answer == pytest.approx((sell / buy - 1) * 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS + [7, 8])
def test_annualized_short_holding_compounds_back_to_the_sale_price(seed):
    p = get(T + "annualized_short_holding").generate(seed)
    buy, sell = dollars(p.question)
    (months,) = counts(p.question, "month")
    assert months < 12
    price = buy
    for _ in range(months):  # the annual rate as a monthly rate, compounded month by month
        price *= (1 + p.answer / 100) ** (1 / 12)
    assert price == pytest.approx(sell, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_roi_with_fees_taxes_and_dividends_by_cash_ledger(seed):
    p = get(T + "roi_with_fees_and_dividends").generate(seed)
    q = p.question
    buy, commission, dividend, sell = dollars(q)
    div_tax, cg_rate = percents(q)
    (shares,) = counts(q, "share")
    (years,) = counts(q, "year")
    paid = shares * buy + commission
    cash = -paid
    for _ in range(years):
        cash += shares * dividend * (1 - div_tax / 100)
    proceeds = shares * sell - commission
    gain_tax = (proceeds - paid) * cg_rate / 100
    assert p.steps[3].value == pytest.approx(gain_tax, rel=1e-10)  # an intermediate value
    cash += proceeds - gain_tax
    assert p.answer == pytest.approx(cash / paid * 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_marketing_campaign_roi_per_impression(seed):
    p = get(T + "marketing_campaign_roi").generate(seed)
    cost, order_value = dollars(p.question)
    (impressions,) = counts(p.question, "impression")
    ctr, conversion, margin = percents(p.question)
    profit_per_impression = (ctr / 100) * (conversion / 100) * order_value * (margin / 100)
    assert p.answer == pytest.approx((impressions * profit_per_impression / cost - 1) * 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_rental_property_roi_by_cash_ledger(seed):
    p = get(T + "rental_property_roi").generate(seed)
    price, rent, expenses, sale = dollars(p.question)
    closing, mgmt, selling = percents(p.question)
    (years,) = counts(p.question, "year")
    invested = price + price * closing / 100
    cash = -invested
    for _ in range(years):
        cash += rent - rent * mgmt / 100 - expenses
    cash += sale - sale * selling / 100
    assert p.steps[5].value == pytest.approx(cash / invested * 100, rel=1e-10)  # total ROI on cash invested
    assert (1 + p.answer / 100) ** years == pytest.approx((invested + cash) / invested, rel=1e-10)
