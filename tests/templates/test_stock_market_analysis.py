"""Hand checks for stock market analysis: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_markets/stock_market_analysis/"
SEEDS = [17, 321, 2500, 86420]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"(-?[\d.]+)%", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_holding_period_return_as_wealth_relative(seed):
    p = get(T + "holding_period_return").generate(seed)
    buy, sell, dividends = money(p.question)
    assert p.answer == pytest.approx(((sell + dividends) / buy - 1) * 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_pe_upside(seed):
    p = get(T + "pe_valuation_upside").generate(seed)
    eps, price = money(p.question)
    pe = float(re.search(r"ratio of (\d+\.?\d*)\.", p.question).group(1))
    assert p.answer == pytest.approx((eps * pe - price) / price * 100, rel=1e-10)


@pytest.mark.parametrize("seed", [*SEEDS, 5, 6, 7, 8])
def test_moving_average_signal(seed):
    p = get(T + "moving_average_crossover").generate(seed)
    closes = money(p.question)
    assert len(closes) == 7
    short = sum(closes[-3:]) / 3
    long_ = sum(closes) / 7
    assert p.answer == ("bullish" if short > long_ else "bearish")


@pytest.mark.parametrize("seed", SEEDS)
def test_jensens_alpha_from_covariance(seed):
    p = get(T + "beta_and_jensens_alpha").generate(seed)
    rho = float(re.search(r"correlation of (\d\.\d+)", p.question).group(1))
    stock_vol, market_vol, rf, market, actual = percents(p.question)
    beta = rho * stock_vol * market_vol / market_vol**2  # covariance ÷ market variance
    assert p.answer == pytest.approx((actual - (rf + beta * (market - rf))) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_portfolio_alpha_from_position_returns(seed):
    p = get(T + "portfolio_return_beta_alpha").generate(seed)
    shares = [int(x.replace(",", "")) for x in re.findall(r"([\d,]+) shares? of", p.question)]
    prices = money(p.question)
    starts, ends, dividends = prices[0:3], prices[3:6], prices[6:9]
    betas = [float(x) for x in re.search(r"betas are ([\d.]+), ([\d.]+) and ([\d.]+)\.", p.question).groups()]
    rf, market = percents(p.question)
    values = [n * s for n, s in zip(shares, starts)]
    weights = [v / sum(values) for v in values]
    returns = [(e + d) / s - 1 for s, e, d in zip(starts, ends, dividends)]
    portfolio_return = sum(w * r for w, r in zip(weights, returns))
    beta = sum(w * b for w, b in zip(weights, betas))
    assert step(p, "portfolio_beta") == pytest.approx(beta, rel=1e-12)
    assert p.answer == pytest.approx((portfolio_return - rf - beta * (market - rf)) * 100, rel=1e-9)
