"""Hand checks for dividend policy: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "corporate_finance/dividend_policy/"
SEEDS = [4, 27, 310, 5150]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def millions(text: str) -> float:
    return float(re.search(r"([\d.,]+) million shares", text).group(1).replace(",", "")) * 1e6


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_dividend_per_share_is_payout_times_eps(seed):
    p = get(T + "target_payout_dividend").generate(seed)
    (net_income,) = money(p.question)
    (payout,) = percents(p.question)
    assert p.answer == pytest.approx(payout * (net_income / millions(p.question)), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_stock_dividend_price_keeps_a_holders_wealth(seed):
    p = get(T + "stock_dividend_price").generate(seed)
    (price,) = money(p.question)
    (rate,) = percents(p.question)
    # one old share becomes 1 + rate shares worth the same as before
    assert p.answer * (1 + rate) == pytest.approx(price, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_gordon_value_by_summing_discounted_dividends(seed):
    p = get(T + "sustainable_growth_price").generate(seed)
    (eps,) = money(p.question)
    payout, roe, required = percents(p.question)
    g = roe * (1 - payout)
    term, value = eps * payout / (1 + required), 0.0
    for _ in range(20_000):  # a long truncated sum of the growing, discounted dividend stream
        value += term
        term *= (1 + g) / (1 + required)
    assert p.answer == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_residual_dividend(seed):
    p = get(T + "residual_dividend").generate(seed)
    net_income, capex = money(p.question)
    (equity_share,) = percents(p.question)
    debt_funded = capex * (1 - equity_share)
    # net income not needed for the equity part of the budget goes out as dividends
    assert p.answer == pytest.approx((net_income - (capex - debt_funded)) / millions(p.question), rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_lintner_dividend_with_buyback(seed):
    p = get(T + "lintner_dividend_with_buyback").generate(seed)
    _eps0, d0, eps1, price = money(p.question)
    payout, total_payout = percents(p.question)
    c = float(re.search(r"c = (\d+\.\d+)", p.question).group(1))
    shares = float(re.search(r"on ([\d.]+) million shares", p.question).group(1)) * 1e6
    dividend = round((1 - c) * d0 + c * payout * eps1, 2)  # the weighted-average form of Lintner's rule
    net_income = eps1 * shares
    buyback = total_payout * net_income - dividend * shares
    assert step(p, "dividend") == pytest.approx(dividend, rel=1e-12)
    assert p.answer == int(buyback / price + 1e-9)
