"""Hand checks for crypto_finance/market_sentiment, recomputed from the question's numbers."""

import re
from statistics import mean

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/market_sentiment/"
SEEDS = [0, 5, 88, 1234]


def nums(text: str) -> list[float]:
    """Every number in the question, in order; a minus sign counts when it starts a number."""
    text = text.replace("−", "-")
    return [float(x.replace(",", "")) for x in re.findall(r"(?:(?<=\s)-)?\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_net_sentiment_from_shares(seed):
    p = get(T + "net_sentiment_score").generate(seed)
    bullish, bearish = nums(p.question)[:2]
    share = bullish / (bullish + bearish)
    assert p.answer == pytest.approx((2 * share - 1) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_momentum_against_mean(seed):
    p = get(T + "price_momentum_signal").generate(seed)
    values = nums(p.question.replace("five-day", "").replace("last five", "last"))
    closes, today = values[:5], values[5]
    assert p.answer == pytest.approx((today - mean(closes)) / mean(closes) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_sentiment_as_mean_over_followers(seed):
    p = get(T + "influencer_weighted_sentiment").generate(seed)
    text = p.question.split("very bullish)")
    f1, s1 = nums(text[0].split("sentiment scale")[0])[-2:]
    f2, s2, f3, s3 = nums(text[1])[:4]
    pairs = [(f1, s1), (f2, s2), (f3, s3)]
    total = sum(f for f, _ in pairs)
    assert p.answer == pytest.approx(sum(s * f / total for f, s in pairs), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_news_decay_by_halvings(seed):
    p = get(T + "news_impact_decay").generate(seed)
    shock, half_life, sensitivity, price, hours = nums(p.question)[:5]
    remaining = shock * 2 ** (-hours / half_life)
    sign = 1 if "positive headline" in p.question else -1
    assert p.answer == pytest.approx(price * (1 + sign * remaining * sensitivity / 100), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_derivatives_sentiment_regime(seed):
    p = get(T + "derivatives_sentiment_regime").generate(seed)
    funding = float(re.search(r"averaged (-?[\d.]+)% per", p.question.replace("−", "-")).group(1))
    puts, calls = nums(p.question.split("open interest is")[1])[:2]
    bullish, bearish = nums(p.question.split("Social:")[1])[:2]
    yearly = funding * 3 * 365  # in percent: three 8-hour periods a day
    index = (0.4 * (yearly - -10) / (40 - -10) * 100 + 0.3 * (1.5 - puts / calls) / (1.5 - 0.3) * 100
             + 0.3 * 100 * bullish / (bullish + bearish))
    assert p.steps[5].value == pytest.approx(index, rel=1e-9)
    bands = [(25, "extreme fear"), (45, "fear"), (55, "neutral"), (75, "greed"), (101, "extreme greed")]
    assert p.answer == next(name for upper, name in bands if index < upper)
