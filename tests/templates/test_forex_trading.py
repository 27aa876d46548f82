"""Hand checks for foreign exchange: each answer recomputed from the quotes and rates in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_markets/forex_trading/"
SEEDS = [15, 123, 1001, 77777]


def amounts(text: str, symbol: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(re.escape(symbol) + r"([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def rates(text: str) -> list[float]:
    """Exchange rates: bare decimals with two or four places that are not amounts or percentages."""
    return [float(x) for x in re.findall(r"(?<![\d$€£¥,.])(\d+\.\d{2,4})(?![\d%])", text)]


def days(text: str) -> int:
    return int(re.search(r"(\d+)[ -]days?", text).group(1))


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS + [1, 2, 3])
def test_pip_value_pnl_by_units_traded(seed):
    p = get(T + "pip_value_pnl").generate(seed)
    lots = float(re.search(r"([\d.]+) standard lots", p.question).group(1))
    entry, exit_ = (float(x) for x in re.findall(r"at (\d\.\d{4})", p.question))
    units = lots * 100_000 * (1 if " buys " in p.question else -1)  # a short holds negative units
    assert p.answer == pytest.approx(units * (exit_ - entry), abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_triangular_arbitrage_by_trading_each_leg(seed):
    p = get(T + "triangular_arbitrage").generate(seed)
    eur_usd, usd_jpy, eur_jpy = rates(p.question)
    (start,) = amounts(p.question, "$")
    euros = start / eur_usd
    yen = euros * eur_jpy
    dollars = yen / usd_jpy
    assert p.answer == pytest.approx(dollars - start, rel=1e-8)
    assert p.answer > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_forward_points_by_no_arbitrage_round_trip(seed):
    p = get(T + "forward_points_from_parity").generate(seed)
    spot = rates(p.question)[0]  # the other bare decimal is the 0.0001 point size
    r_usd, r_eur = percents(p.question)
    d = days(p.question)
    # one euro deposited and sold forward must equal its dollar value deposited
    forward = spot * (1 + r_usd * d / 360) / (1 + r_eur * d / 360)
    assert p.answer == pytest.approx((forward - spot) * 10_000, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_arbitrage_profit_against_parity(seed):
    p = get(T + "covered_interest_arbitrage").generate(seed)
    spot, forward = rates(p.question)
    r_usd, r_gbp = percents(p.question)
    (borrowed,) = amounts(p.question, "$")
    d = days(p.question)
    pounds_at_maturity = borrowed / spot * (1 + r_gbp * d / 360)
    parity = spot * (1 + r_usd * d / 360) / (1 + r_gbp * d / 360)
    # the profit is the mispricing of the forward times the pounds sold forward
    assert p.answer == pytest.approx(pounds_at_maturity * (forward - parity), abs=0.05)
    assert p.answer > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_carry_trade_pnl_against_break_even(seed):
    p = get(T + "carry_trade_pnl").generate(seed)
    (notional,) = amounts(p.question, "¥")
    ask, bid_later = rates(p.question)
    r_jpy, r_aud = percents(p.question)
    d = days(p.question)
    aud_end = notional / ask * (1 + r_aud * d / 365)
    owed = notional + notional * r_jpy * d / 365
    assert step(p, "break_even") == pytest.approx(owed / aud_end, rel=1e-5)  # the solution rounds amounts to the cent
    assert p.answer == pytest.approx(aud_end * (bid_later - owed / aud_end), rel=1e-9)
