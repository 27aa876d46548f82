"""Hand checks for the VaR templates: quantiles, sorted returns and covariance algebra done by hand."""

import math
import re
from statistics import NormalDist

import pytest

from finchain_tasks.engine import get

T = "risk_management/value_at_risk/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(-?[\d.]+)%", text)]


def after(word: str, text: str) -> float:
    return float(re.search(rf"{word} (-?[\d.]+)", text).group(1).rstrip("."))


@pytest.mark.parametrize("seed", [0, 51, 510])
def test_parametric_var(seed):
    p = get(T + "parametric_var").generate(seed)
    (value,) = money(p.question)
    vol, conf = percents(p.question)
    z = after("z =", p.question)
    assert z == pytest.approx(NormalDist().inv_cdf(conf / 100), abs=1e-3)
    assert p.answer == pytest.approx(value * z * vol / 100 / math.sqrt(252))


@pytest.mark.parametrize("seed", [1, 52, 511, 5110])
def test_historical_var_by_sorting(seed):
    p = get(T + "historical_var").generate(seed)
    (value,) = money(p.question)
    returns = percents(p.question)[:20]
    assert len(returns) == 20
    second_worst = sorted(returns)[1]
    assert p.answer == pytest.approx(-second_worst / 100 * value * math.sqrt(10))


@pytest.mark.parametrize("seed", [2, 53, 512])
def test_regulatory_var_from_95(seed):
    p = get(T + "regulatory_var_from_95").generate(seed)
    (var95,) = money(p.question)
    multiplier = float(re.search(r"at ([\d.]+) times", p.question).group(1))
    assert p.answer == pytest.approx(multiplier * var95 * 2.326 / 1.645 * math.sqrt(10))


@pytest.mark.parametrize("seed", [3, 54, 513])
def test_diversified_portfolio_var(seed):
    p = get(T + "diversified_portfolio_var").generate(seed)
    v1, v2 = money(p.question)
    s1, s2 = percents(p.question)[:2]
    rho = after("returns is", p.question)
    # dollar volatilities and the portfolio's from the covariance matrix
    d1, d2 = v1 * s1 / 100, v2 * s2 / 100
    sigma_p = math.sqrt(d1 * d1 + d2 * d2 + 2 * rho * d1 * d2)
    assert p.answer == pytest.approx(2.326 * (d1 + d2 - sigma_p))


@pytest.mark.parametrize("seed", [4, 55, 514, 5140])
def test_ten_day_var_with_drift(seed):
    p = get(T + "ten_day_var_with_drift").generate(seed)
    (value,) = money(p.question)
    w1, mu1, vol1, mu2, vol2 = percents(p.question)[:5]
    rho = after("correlation is", p.question)
    w = [w1 / 100, 1 - w1 / 100]
    s = [vol1 / 100, vol2 / 100]
    variance = sum(w[i] * w[j] * s[i] * s[j] * (1 if i == j else rho) for i in range(2) for j in range(2))
    assert p.steps[0].value == pytest.approx(100 * math.sqrt(variance))
    days = 10 / 252
    mean = (w[0] * mu1 + w[1] * mu2) / 100 * days
    spread = percents(p.question)[5]
    var = value * (2.326 * math.sqrt(variance * days) - mean)
    assert p.answer == pytest.approx(var + value * spread / 200)
