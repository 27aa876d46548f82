"""Hand checks: each risk-adjusted-return template against an inverse or an equivalent identity."""

import math

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/risk_adjusted_return/"


@pytest.mark.parametrize("seed", [0, 11, 404])
def test_sharpe_ratio_rebuilds_the_return(seed):
    p = get(T + "sharpe_ratio").generate(seed)
    x = p.params
    # The capital market line through the fund: rf + Sharpe × σ gives back the fund's return.
    assert x["risk_free"] + p.answer * x["volatility"] == pytest.approx(x["fund_return"], rel=1e-12)


@pytest.mark.parametrize("seed", [3, 77])
def test_information_ratio_rebuilds_the_return(seed):
    p = get(T + "information_ratio").generate(seed)
    x = p.params
    rebuilt = x["benchmark_return"] + p.answer * x["tracking_error"]
    assert rebuilt == pytest.approx(x["fund_return"], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 58, 999])
def test_treynor_gap_equals_alpha_over_beta(seed):
    p = get(T + "treynor_vs_market").generate(seed)
    x = p.params
    alpha = x["fund_return"] - (x["risk_free"] + x["beta"] * (x["market_return"] - x["risk_free"]))
    assert p.answer == pytest.approx(alpha / x["beta"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", [2, 31, 4096])
def test_sortino_ratio_by_loop(seed):
    p = get(T + "sortino_ratio").generate(seed)
    x = p.params
    returns = [x[f"r{k}"] for k in range(1, 6)]
    squared_shortfalls = [(x["mar"] - r) ** 2 for r in returns if r < x["mar"]]
    downside = math.sqrt(sum(squared_shortfalls) / len(returns))
    mean = sum(returns) / len(returns)
    assert p.answer == pytest.approx((mean - x["mar"]) / downside, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", [4, 250, 7777])
def test_appraisal_ratio_by_variance_decomposition(seed):
    p = get(T + "appraisal_ratio").generate(seed)
    x = p.params
    beta = x["correlation"] * x["fund_vol"] / x["market_vol"]
    # Alpha as beta × (fund Treynor − market Treynor); residual variance as total − systematic.
    alpha = beta * ((x["fund_return"] - x["risk_free"]) / beta - (x["market_return"] - x["risk_free"]))
    residual_var = x["fund_vol"] ** 2 - (beta * x["market_vol"]) ** 2
    assert p.answer == pytest.approx(alpha / math.sqrt(residual_var), rel=1e-9, abs=1e-12)
