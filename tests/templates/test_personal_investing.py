"""Hand checks: each personal-investing template by a purchase-by-purchase or period-by-period loop."""

import pytest

from finchain_tasks.engine import get

T = "personal_finance/personal_investing/"


@pytest.mark.parametrize("seed", [0, 8, 2024])
def test_dollar_cost_average_is_harmonic_mean(seed):
    p = get(T + "dollar_cost_average").generate(seed)
    prices = [p.params[f"p{k}"] for k in range(1, 5)]
    assert p.answer == pytest.approx(len(prices) / sum(1 / q for q in prices), rel=1e-12)


@pytest.mark.parametrize("seed", [1, 73])
def test_expense_ratio_drag_year_by_year(seed):
    p = get(T + "expense_ratio_drag").generate(seed)
    x = p.params
    low = high = x["principal"]
    for _ in range(x["years"]):
        low += low * (x["gross_return"] - x["low_fee"]) / 100
        high += high * (x["gross_return"] - x["high_fee"]) / 100
    assert p.answer == pytest.approx(low - high, rel=1e-9)


@pytest.mark.parametrize("seed", [2, 19, 600])
def test_dividend_reinvestment_year_by_year(seed):
    p = get(T + "dividend_reinvestment").generate(seed)
    x = p.params
    shares, price = x["shares0"], x["price0"]
    for _ in range(x["years"]):
        price *= 1 + x["growth"] / 100
        shares += shares * price * x["div_yield"] / 100 / price
    cost = x["shares0"] * x["price0"]
    assert p.answer == pytest.approx((shares * price / cost - 1) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", [3, 44, 909])
def test_portfolio_growth_month_by_month(seed):
    p = get(T + "portfolio_growth").generate(seed)
    x = p.params
    balance = x["lump_sum"]
    for _ in range(12 * x["years"]):
        balance = balance * (1 + x["rate"] / 1200) + x["monthly"]
    assert p.answer == pytest.approx(balance, rel=1e-9)


@pytest.mark.parametrize("seed", [4, 55, 31337])
def test_dca_with_costs_and_dividend_purchase_by_purchase(seed):
    p = get(T + "dca_with_costs_and_dividend").generate(seed)
    x = p.params
    shares = 0.0
    for k in range(1, 5):
        shares += (x["amount"] - x["commission"]) / x[f"p{k}"]
    shares += shares * x["dividend"] / x["price_end"]
    cash = 4 * x["amount"]
    assert p.answer == pytest.approx(100 * (shares * x["price_end"] - cash) / cash, rel=1e-9, abs=1e-9)
