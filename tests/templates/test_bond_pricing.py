"""Hand checks for bond pricing: cash-flow loops, a bisection for the yield and finite differences for
duration and convexity, all from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_markets/bond_pricing/"
SEEDS = [14, 100, 999, 54321]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def years(text: str) -> int:
    return int(re.search(r"(\d+) years?", text).group(1))


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


def price(face: float, coupon: float, n: int, y: float) -> float:
    return sum(coupon / (1 + y) ** t for t in range(1, n + 1)) + face / (1 + y) ** n


@pytest.mark.parametrize("seed", SEEDS)
def test_current_yield(seed):
    p = get(T + "current_yield").generate(seed)
    _face, quote = money(p.question)
    (rate,) = percents(p.question)
    assert p.answer == pytest.approx(1000 * rate / quote * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_zero_coupon_price_grows_back_to_face(seed):
    p = get(T + "zero_coupon_price").generate(seed)
    (face,) = money(p.question)
    (y,) = percents(p.question)
    value = p.answer
    for _ in range(2 * years(p.question)):
        value *= 1 + y / 2
    assert value == pytest.approx(face, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_clean_price_by_discounting_each_flow_at_its_fractional_time(seed):
    p = get(T + "clean_and_dirty_price").generate(seed)
    (face,) = money(p.question)
    rate, y = percents(p.question)
    left = int(re.search(r"There are (\d+) ", p.question).group(1))
    period = int(re.search(r"has (\d+) days", p.question).group(1))
    since = int(re.search(r"of which (\d+) days", p.question).group(1))
    w = (period - since) / period  # fraction of a period to the next coupon
    coupon = face * rate / 2
    full = sum(coupon / (1 + y / 2) ** (w + k) for k in range(left)) + face / (1 + y / 2) ** (w + left - 1)
    assert step(p, "full_price") == pytest.approx(full, abs=0.05)  # the solution rounds amounts to the cent
    assert p.answer == pytest.approx(full - coupon * (1 - w), abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_one_year_realized_return_solves_the_irr_by_bisection(seed):
    p = get(T + "one_year_realized_return").generate(seed)
    face, paid = money(p.question)
    coupon, reinvest = percents(p.question)
    first = face * coupon / 2 + face * coupon / 2 * reinvest / 2  # six months of simple interest on the coupon
    flows = [(0.0, -paid), (1.0, first + face * coupon / 2 + face)]  # everything arrives at maturity
    lo, hi = -0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(cf / (1 + mid) ** t for t, cf in flows) > 0 else (lo, mid)
    assert p.answer == pytest.approx((lo + hi) / 2 * 100, abs=1e-4)  # the line shows cash to the cent
    assert step(p, "reinvested") == pytest.approx(first, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_ytm_duration_convexity_by_bisection_and_differences(seed):
    p = get(T + "ytm_duration_convexity").generate(seed)
    face, quote = money(p.question)
    (rate,) = percents(p.question)
    n = years(p.question)
    shock = int(re.search(r"by (\d+) bps", p.question).group(1)) / 10_000
    if "falls" in p.question:
        shock = -shock
    lo, hi = -0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if price(face, face * rate, n, mid) > quote else (lo, mid)
    y = (lo + hi) / 2
    assert step(p, "ytm") == pytest.approx(y * 100, rel=1e-9)
    h = 1e-4
    up, down = price(face, face * rate, n, y + h), price(face, face * rate, n, y - h)
    modified = -(up - down) / (2 * h) / quote
    convexity = (up - 2 * quote + down) / h**2 / quote
    assert step(p, "convexity") == pytest.approx(convexity, rel=1e-5)
    estimate = quote * (1 - modified * shock + 0.5 * convexity * shock**2)
    assert p.answer == pytest.approx(estimate, rel=1e-7)
    assert p.answer == pytest.approx(price(face, face * rate, n, y + shock), rel=2e-3)  # a close second-order guess
