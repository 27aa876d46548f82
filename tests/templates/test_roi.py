"""Hand checks: each ROI template against a price ratio, an inverse check or a cash ledger."""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/roi/"


@pytest.mark.parametrize("seed", [0, 19, 250])
def test_simple_roi_is_price_relative(seed):
    p = get(T + "simple_roi").generate(seed)
    x = p.params
    assert p.answer == pytest.approx((x["sell_price"] / x["buy_price"] - 1) * 100, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("seed", [2, 40])
def test_annualised_roi_grows_back_to_end_value(seed):
    p = get(T + "annualised_roi").generate(seed)
    x = p.params
    value = x["start_value"]
    for _ in range(x["years"]):
        value *= 1 + p.answer / 100
    assert value == pytest.approx(x["end_value"], rel=1e-10)


def test_roi_with_fees_and_dividends_by_cash_ledger():
    p = get(T + "roi_with_fees_and_dividends").generate(8)
    x = p.params
    cash = -(x["shares"] * x["buy_price"]) - x["commission"]
    paid = -cash
    for _ in range(x["years"]):
        cash += x["shares"] * x["dividend"]
    cash += x["shares"] * x["sell_price"] - x["commission"]
    assert p.answer == pytest.approx(cash / paid * 100, rel=1e-10)


@pytest.mark.parametrize("seed", [1, 6, 14, 33, 70])
def test_compare_investments_by_log_growth(seed):
    p = get(T + "compare_investments").generate(seed)
    x = p.params
    rate_a = math.log(x["end_a"] / x["start_a"]) / x["years_a"]  # continuous rates rank like annual ones
    rate_b = math.log(x["end_b"] / x["start_b"]) / x["years_b"]
    la, lb = re.findall(r"'([^']+)'", p.question.split("(answer ")[1])[:2]
    assert p.answer == (la if rate_a >= rate_b else lb)


@pytest.mark.parametrize("seed", [4, 91])
def test_rental_property_roi_by_cash_ledger(seed):
    p = get(T + "rental_property_roi").generate(seed)
    x = p.params
    invested = x["price"] + x["price"] * x["closing_pct"] / 100
    cash = -invested
    for _ in range(x["years"]):
        rent = x["annual_rent"]
        cash += rent - rent * x["mgmt_pct"] / 100 - x["expenses"]
    sale = x["sale_price"]
    cash += sale - sale * x["selling_pct"] / 100
    multiple = (invested + cash) / invested
    assert (1 + p.answer / 100) ** x["years"] == pytest.approx(multiple, rel=1e-10)
