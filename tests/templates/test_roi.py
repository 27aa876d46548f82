"""Hand checks: each ROI template recomputed from the numbers printed in its question.

Inputs are parsed from ``p.question`` (not ``p.params``); the checks use a price ratio, a growth
simulation, cash ledgers and log growth rates rather than the templates' formulas.
"""

import math
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


@pytest.mark.parametrize("seed", SEEDS)
def test_annualized_roi_grows_back_to_end_value(seed):
    p = get(T + "annualized_roi").generate(seed)
    start, end = dollars(p.question)
    (years,) = counts(p.question, "year")
    value = start
    for _ in range(years):
        value *= 1 + p.answer / 100
    assert value == pytest.approx(end, rel=1e-10)


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


@pytest.mark.parametrize("seed", [1, 6, 14, 33, 70])
def test_compare_investments_by_log_growth(seed):
    p = get(T + "compare_investments").generate(seed)
    start_a, end_a, start_b, end_b = dollars(p.question)
    years_a, years_b = counts(p.question, "year")
    rate_a = math.log(end_a / start_a) / years_a  # continuous rates rank like annual ones
    rate_b = math.log(end_b / start_b) / years_b
    la, lb = re.findall(r"'([^']+)'", p.question.split("(answer ")[1])[:2]
    assert p.answer == (la if rate_a > rate_b else lb)


def test_compare_investments_first_option_is_not_favored():
    wins = 0
    for seed in range(400):
        p = get(T + "compare_investments").generate(seed)
        wins += p.answer == re.findall(r"'([^']+)'", p.question.split("(answer ")[1])[0]
    assert 0.4 < wins / 400 < 0.6


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
