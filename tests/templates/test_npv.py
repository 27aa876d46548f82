"""Hand checks: each NPV template against a cash-flow loop, a long-horizon simulation or a closed form."""

import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/npv/"


def pv_of(flows, rate):
    """Present value of flows at t = 1, 2, ... discounted one year at a time."""
    total, factor = 0.0, 1.0
    for cf in flows:
        factor *= 1 + rate
        total += cf / factor
    return total


@pytest.mark.parametrize("seed", [0, 4, 77])
def test_single_future_flow_by_forward_comparison(seed):
    p = get(T + "single_future_flow").generate(seed)
    x = p.params
    growth = (1 + x["rate"] / 100) ** x["years"]
    # NPV is the surplus at maturity over what the cost would have grown to, discounted back
    assert p.answer == pytest.approx((x["payoff"] - x["cost"] * growth) / growth, rel=1e-10, abs=1e-6)


def test_growing_perpetuity_by_long_simulation():
    p = get(T + "growing_perpetuity_project").generate(6)
    x = p.params
    r, g = x["rate"] / 100, x["growth"] / 100
    flows, cf = [], x["cf1"]
    for _ in range(3_000):
        flows.append(cf)
        cf *= 1 + g
    assert p.answer == pytest.approx(pv_of(flows, r) - x["cost"], rel=1e-9, abs=1e-3)


@pytest.mark.parametrize("seed", [1, 30])
def test_rate_sensitivity_by_summing_flows(seed):
    p = get(T + "rate_sensitivity").generate(seed)
    x = p.params
    flows = [x["annual_cf"]] * x["years"]
    change = pv_of(flows, x["rate_high"] / 100) - pv_of(flows, x["rate"] / 100)  # the cost cancels
    assert p.answer == pytest.approx(change, rel=1e-9)
    assert p.answer < 0


@pytest.mark.parametrize("seed", [2, 9, 17, 23, 51])
def test_project_choice_by_summing_flows(seed):
    p = get(T + "project_choice").generate(seed)
    x = p.params
    r = x["rate"] / 100
    npv_a = pv_of([x["a1"], x["a2"], x["a3"]], r) - x["cost_a"]
    npv_b = pv_of([x["level_cf"]] * 3, r) - x["cost_b"]
    la, lb = re.findall(r"'([^']+)'", p.question.split("(answer ")[1])[:2]
    assert p.answer == ("Neither" if max(npv_a, npv_b) <= 0 else (la if npv_a >= npv_b else lb))


@pytest.mark.parametrize("seed", [3, 12])
def test_two_stage_growth_by_long_simulation(seed):
    p = get(T + "two_stage_growth").generate(seed)
    x = p.params
    flows, cf = [], x["cf1"]
    for year in range(1, 4_000):
        flows.append(cf)
        cf *= 1 + (x["growth_high"] if year < 3 else x["growth_long"]) / 100
    assert p.answer == pytest.approx(pv_of(flows, x["rate"] / 100) - x["cost"], rel=1e-9, abs=1e-3)
