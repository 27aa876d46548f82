"""Hand checks: each risk-adjusted-return template recomputed from the numbers printed in its question.

The inputs are parsed from ``p.question`` (not ``p.params``); the M² check builds the portfolio
variance from a covariance matrix rather than the two-asset expansion the template uses.
"""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/risk_adjusted_return/"
SEEDS = [0, 8, 77, 1234]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(-?\d+(?:\.\d+)?)%", text)]


def betas(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"beta of (\d+(?:\.\d+)?)", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_sharpe_ratio(seed):
    p = get(T + "sharpe_ratio").generate(seed)
    ret, vol, rf = percents(p.question)
    assert p.answer == pytest.approx((ret - rf) / vol, rel=1e-10)
    if "balanced fund" in p.question:
        assert vol <= 12  # a balanced fund is not an equity fund


@pytest.mark.parametrize("seed", SEEDS)
def test_information_ratio(seed):
    p = get(T + "information_ratio").generate(seed)
    fund, bench, te = percents(p.question)
    assert p.answer == pytest.approx((fund - bench) / te, rel=1e-10)
    if "bond" in p.question:
        assert bench <= 6 and te <= 1.5


@pytest.mark.parametrize("seed", SEEDS)
def test_treynor_and_jensen_alpha_against_capm(seed):
    p = get(T + "treynor_and_jensen_alpha").generate(seed)
    weight, fund, rf, market = percents(p.question)
    beta1, beta2 = betas(p.question)
    beta = (weight * beta1 + (100 - weight) * beta2) / 100
    assert p.steps[0].value == pytest.approx(beta, rel=1e-12)
    assert p.steps[3].value == pytest.approx((fund - rf) / beta - (market - rf), rel=1e-10)  # the Treynor gap
    required = rf + beta * (market - rf)  # CAPM, a different route from the Treynor identity
    assert p.answer == pytest.approx(fund - required, rel=1e-10)
    assert p.answer_text.endswith("percentage points")


@pytest.mark.parametrize("seed", SEEDS)
def test_sortino_ratio_in_question_order(seed):
    p = get(T + "sortino_ratio").generate(seed)
    *returns, mar = percents(p.question)
    assert len(returns) == 5
    shortfalls = [max(0.0, mar - r) for r in returns]
    downside = math.sqrt(sum(s * s for s in shortfalls) / len(returns))
    assert p.answer == pytest.approx((sum(returns) / 5 - mar) / downside, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_m_squared_by_covariance_matrix(seed):
    p = get(T + "m_squared_two_fund_portfolio").generate(seed)
    q = p.question
    weight, r_s, v_s, r_b, v_b, rf, r_m, v_m = percents(q)
    rho = float(re.search(r"two funds is (-?\d+(?:\.\d+)?)", q).group(1))
    w = [weight / 100, 1 - weight / 100]
    sd = [v_s, v_b]
    cov = [[sd[i] * sd[j] * (1 if i == j else rho) for j in range(2)] for i in range(2)]
    variance = sum(w[i] * w[j] * cov[i][j] for i in range(2) for j in range(2))
    assert p.steps[1].value == pytest.approx(variance, rel=1e-10)  # an intermediate value
    ret = w[0] * r_s + w[1] * r_b
    # M²: lever the portfolio with the risk-free asset to the market's volatility
    scale = v_m / math.sqrt(variance)
    m2 = scale * ret + (1 - scale) * rf
    assert p.answer == pytest.approx(m2 - r_m, rel=1e-9)
