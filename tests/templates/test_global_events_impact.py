"""Hand checks for crypto_finance/global_events_impact, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/global_events_impact/"
SEEDS = [0, 11, 305, 9999]


def nums(text: str) -> list[float]:
    """Every number in the question, in order, signs kept."""
    return [float(x.replace(",", "")) for x in re.findall(r"(?:(?<=\s)-)?\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_rebound_restores_the_price(seed):
    p = get(T + "rebound_to_recover").generate(seed)
    price, fall = nums(p.question)[:2]
    assert price * (1 - fall / 100) * (1 + p.answer / 100) == pytest.approx(price, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_volume_surge_against_daily_series(seed):
    p = get(T + "volume_surge_on_news").generate(seed)
    days, total, event = nums(p.question)[:3]
    daily = [total / days] * int(days)
    mean = sum(daily) / len(daily)
    assert p.answer == pytest.approx((event - mean) / mean * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_market_cap_change_day_by_day(seed):
    p = get(T + "regulatory_news_market_cap").generate(seed)
    supply_m, price, fall, recovery = nums(p.question.replace("layer-1", "base-layer"))[:4]
    supply = supply_m * 1e6
    day1 = price - price * fall / 100
    day2 = day1 + day1 * recovery / 100
    assert p.answer == pytest.approx(supply * day2 - supply * price, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_sentiment_market_cap_from_new_price(seed):
    p = get(T + "sentiment_driven_market_cap").generate(seed)
    q = p.question.replace("0 = extreme fear, 100 = extreme greed", "").replace("1-point", "")
    s0, s1, beta, supply_m, price = nums(q)[:5]
    new_price = price * (1 + beta * (s1 - s0) / 100)
    assert p.answer == pytest.approx(supply_m * 1e6 * new_price, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_event_study_car_and_value(seed):
    p = get(T + "event_study_value_impact").generate(seed)
    q = p.question.split("market model")[1].replace("day 1", "day one").replace("day 2", "day two")
    alpha, beta, cap, m1, r1, m2, r2 = nums(q)[:7]
    market = [m1, m2]
    token = [r1, r2]
    ars = [r - (alpha + beta * m) for r, m in zip(token, market)]
    assert p.steps[1].value == pytest.approx(ars[0], rel=1e-9)
    assert p.answer == pytest.approx(sum(ars) / 100 * cap * 1e9, rel=1e-9)
