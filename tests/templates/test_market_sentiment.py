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
def test_fear_greed_index_with_scaler(seed):
    p = get(T + "composite_fear_greed_index").generate(seed)
    q = p.question.split("30-day volatility")[1].replace("× 100", "")
    vmin, vmax, vol, lo, hi, volume, bullish, bearish, dmin, dmax, dom, *weights = nums(q)

    def scale(x, a, z):
        return (x - a) / (z - a) * 100

    scores = [100 - scale(vol, vmin, vmax), scale(volume, lo, hi), bullish / (bullish + bearish) * 100,
              100 - scale(dom, dmin, dmax)]
    assert weights[:4] == [30, 30, 20, 20]
    assert p.steps[0].value == pytest.approx(scores[0], rel=1e-9)
    assert p.answer == pytest.approx(sum(w / 100 * s for w, s in zip(weights, scores)), rel=1e-9)
