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
def test_event_study_significance(seed):
    p = get(T + "event_study_significance").generate(seed)
    q = p.question.split("estimation window")[1].replace("day 1", "day one").replace("day 2", "day two")
    cov, var_m, mean_r, mean_m, sigma, m1, r1, m2, r2 = nums(q)[:9]
    beta = cov / var_m
    alpha = mean_r - beta * mean_m
    # the CAR is the two days' excess over the market model, summed before the model is subtracted
    car = (r1 + r2) - (2 * alpha + beta * (m1 + m2))
    assert p.steps[4].value == pytest.approx(car, rel=1e-9)
    assert p.answer == ("significant" if abs(car) / (sigma * 2 ** 0.5) > 1.96 else "not significant")


def test_event_study_significance_is_balanced():
    answers = [get(T + "event_study_significance").generate(s).answer for s in range(100)]
    assert 25 < answers.count("significant") < 75
