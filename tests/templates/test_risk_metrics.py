"""Hand checks for the risk-metrics templates, recomputed from the question text."""

import math
import re
import statistics

import pytest

from finchain_tasks.engine import get

T = "risk_management/risk_metrics/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(-?[\d.]+)%", text)]


def after(word: str, text: str) -> float:
    return float(re.search(rf"{word} (-?[\d.]+)", text).group(1).rstrip("."))


@pytest.mark.parametrize("seed", [0, 11, 111])
def test_beta_from_covariance(seed):
    p = get(T + "beta_from_covariance").generate(seed)
    cov = after("market's is", p.question)
    (vol,) = percents(p.question)
    assert p.answer == pytest.approx(cov / (vol / 100) ** 2)


@pytest.mark.parametrize("seed", [1, 12, 112])
def test_drawdown_recovery(seed):
    p = get(T + "drawdown_recovery").generate(seed)
    peak, trough = money(p.question)
    assert trough * (1 + p.answer / 100) == pytest.approx(peak)


@pytest.mark.parametrize("seed", [2, 13, 113, 1130])
def test_sample_volatility_band(seed):
    p = get(T + "sample_volatility_band").generate(seed)
    returns = percents(p.question)
    (value,) = money(p.question)
    k = after("a band of", p.question)
    months = after("value,", p.question)
    assert len(returns) == 5
    annual = statistics.stdev(returns) * math.sqrt(12)
    assert p.steps[3].value == pytest.approx(annual)
    # the variance of the value grows linearly in time: k standard deviations over `months` of 12
    low = value - k * math.sqrt(value**2 * (annual / 100) ** 2 * months / 12)
    assert p.answer == pytest.approx(low, abs=0.5)  # the question asks for whole dollars


def two_asset_vol(w1: float, s1: float, s2: float, rho: float) -> float:
    """Volatility of w1·A + (1 − w1)·B from the covariance matrix, written as a quadratic form."""
    w = [w1, 1 - w1]
    cov = [[s1 * s1, rho * s1 * s2], [rho * s1 * s2, s2 * s2]]
    return math.sqrt(sum(w[i] * cov[i][j] * w[j] for i in range(2) for j in range(2)))


@pytest.mark.parametrize("seed", [3, 14, 114])
def test_diversification_benefit(seed):
    p = get(T + "diversification_benefit").generate(seed)
    w1, vol1, vol2 = percents(p.question)
    rho = after("is", p.question.split("correlation between their returns")[1])
    average = w1 / 100 * vol1 + (1 - w1 / 100) * vol2
    assert p.answer == pytest.approx(average - two_asset_vol(w1 / 100, vol1, vol2, rho))


@pytest.mark.parametrize("seed", [4, 15, 115, 1150])
def test_portfolio_expected_shortfall_by_integration(seed):
    p = get(T + "portfolio_expected_shortfall").generate(seed)
    (value,) = money(p.question)
    w1, vol1, vol2, conf = percents(p.question)[:4]
    rho = after("correlation is", p.question)
    z = after("z =", p.question)
    sigma = two_asset_vol(w1 / 100, vol1 / 100, vol2 / 100, rho) / math.sqrt(252)
    assert p.steps[1].value == pytest.approx(100 * sigma * math.sqrt(252))
    # mean loss beyond z: integrate x·φ(x) from z to 10 by the midpoint rule, then scale
    n, top = 200_000, 10.0
    h = (top - z) / n
    tail_mean = sum((z + (k + 0.5) * h) * math.exp(-((z + (k + 0.5) * h) ** 2) / 2) for k in range(n)) * h
    tail_mean /= math.sqrt(2 * math.pi) * (1 - conf / 100)
    assert p.answer == pytest.approx(value * sigma * tail_mean, rel=1e-6)
