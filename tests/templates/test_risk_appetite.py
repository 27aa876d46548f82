"""Hand checks for the risk-appetite templates, recomputed from the question text."""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "risk_management/risk_appetite/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


def rho(text: str) -> float:
    return float(re.search(r"correlation of (-?[\d.]+)", text).group(1).rstrip("."))


@pytest.mark.parametrize("seed", [0, 13, 130, 1300])
def test_limit_status(seed):
    p = get(T + "limit_status").generate(seed)
    limit, exposure = money(p.question)
    amber = percents(p.question)[1]
    used = exposure / limit * 100
    assert p.answer == ("red" if used > 100 else "amber" if used >= amber else "green")


@pytest.mark.parametrize("seed", [1, 14, 131])
def test_proportional_risk_budget(seed):
    p = get(T + "proportional_risk_budget").generate(seed)
    budget, rates, credit, equities = money(p.question)
    assert p.answer == pytest.approx(budget * credit / (rates + credit + equities))


def normal_var(var1: float, var2: float, correlation: float) -> float:
    """VaR of the sum as a quantile of a normal sum: σ's add in quadrature with the covariance."""
    z = 2.3263478740408408  # the 99% quantile; any z cancels out
    s1, s2 = var1 / z, var2 / z
    return z * math.sqrt(s1 * s1 + s2 * s2 + 2 * correlation * s1 * s2)


@pytest.mark.parametrize("seed", [2, 15, 132])
def test_diversified_limit_utilization(seed):
    p = get(T + "diversified_limit_utilization").generate(seed)
    var1, var2, limit = money(p.question)
    assert p.answer == pytest.approx(normal_var(var1, var2, rho(p.question)) / limit * 100)


@pytest.mark.parametrize("seed", [3, 16, 133])
def test_loss_tolerance_capacity(seed):
    p = get(T + "loss_tolerance_capacity").generate(seed)
    capital, current, new_loss = money(p.question)
    (tolerance,) = percents(p.question)
    assert p.answer == pytest.approx(capital * tolerance / 100 - current - new_loss)


@pytest.mark.parametrize("seed", [4, 17, 134, 1340])
def test_euler_limit_allocation_by_finite_difference(seed):
    p = get(T + "euler_limit_allocation").generate(seed)
    limit, var1, var2 = money(p.question)
    r = rho(p.question)
    firm = normal_var(var1, var2, r)
    h = 1e-6
    # Euler contribution = var1 × ∂VaR_p/∂var1, by a central difference
    contribution = var1 * (normal_var(var1 * (1 + h), var2, r) - normal_var(var1 * (1 - h), var2, r)) / (2 * h * var1)
    assert p.steps[2].value == pytest.approx(contribution, rel=1e-6)
    assert p.answer == pytest.approx(limit * contribution / firm - contribution, rel=1e-5)
