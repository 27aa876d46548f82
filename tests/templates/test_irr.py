"""Hand checks: each IRR template against an inverse check (NPV at the IRR is zero) or a simulation."""

import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/irr/"


def npv_at(rate, flows):
    """Discount flows at t = 0, 1, 2, ... one by one (no engine helper)."""
    total, factor = 0.0, 1.0
    for cf in flows:
        total += cf / factor
        factor *= 1 + rate
    return total


@pytest.mark.parametrize("seed", [0, 11, 404])
def test_two_period_irr_zeroes_npv(seed):
    p = get(T + "two_period_irr").generate(seed)
    x = p.params
    flows = [-x["cost"], x["cf1"], x["cf2"]]
    assert npv_at(p.answer / 100, flows) == pytest.approx(0, abs=1e-6 * x["cost"])
    assert npv_at(p.answer / 100 - 0.01, flows) > 0 > npv_at(p.answer / 100 + 0.01, flows)


@pytest.mark.parametrize("seed", [3, 58])
def test_uneven_flows_margin_by_newton(seed):
    p = get(T + "uneven_flows_vs_hurdle").generate(seed)
    x = p.params
    flows = [-x["cost"], x["cf1"], x["cf2"], x["cf3"], x["cf4"]]
    rate = 0.1
    for _ in range(50):  # Newton's method with a numerical derivative
        f, h = npv_at(rate, flows), 1e-7
        rate -= f * h / (npv_at(rate + h, flows) - f)
    assert p.answer == pytest.approx(rate * 100 - x["hurdle"], abs=1e-6)


def test_modified_irr_by_year_by_year_compounding():
    p = get(T + "modified_irr").generate(21)
    x = p.params
    fin, reinv = x["finance_rate"] / 100, x["reinvest_rate"] / 100
    balance = 0.0
    for cf in (x["cf2"], x["cf3"], x["cf4"]):  # inflows arrive at t = 2, 3, 4; grow each year to t = 4
        balance = balance * (1 + reinv) + cf
    outflows_today = x["cost"] + x["outlay1"] / (1 + fin)
    grown = outflows_today
    for _ in range(4):
        grown *= 1 + p.answer / 100
    assert grown == pytest.approx(balance, rel=1e-10)


@pytest.mark.parametrize("seed", [2, 99])
def test_growing_flows_with_salvage_zeroes_npv(seed):
    p = get(T + "growing_flows_with_salvage").generate(seed)
    x = p.params
    flows, cf = [-x["cost"]], x["cf1"]
    for _ in range(4):
        flows.append(cf)
        cf *= 1 + x["growth"] / 100
    flows[-1] += x["salvage"]
    assert npv_at(p.answer / 100, flows) == pytest.approx(0, abs=1e-6 * x["cost"])


@pytest.mark.parametrize("seed", [1, 5, 8, 13, 42])
def test_crossover_conflict_by_direct_npvs(seed):
    p = get(T + "crossover_conflict").generate(seed)
    x = p.params
    s = {st.name: st.value for st in p.steps}
    a = [-x["cost"], x["a1"], x["a2"]]
    b = [-x["cost"], x["b1"], x["b2"]]
    assert npv_at(s["irr_a"] / 100, a) == pytest.approx(0, abs=1e-6 * x["cost"])
    assert npv_at(s["irr_b"] / 100, b) == pytest.approx(0, abs=1e-6 * x["cost"])
    assert npv_at(s["crossover"] / 100, a) == pytest.approx(npv_at(s["crossover"] / 100, b), abs=1e-6 * x["cost"])
    npv_a, npv_b = npv_at(x["wacc"] / 100, a), npv_at(x["wacc"] / 100, b)
    la, lb = re.findall(r"'([^']+)'", p.question.split("(answer ")[1])[:2]
    expected = "Neither" if max(npv_a, npv_b) <= 0 else (la if npv_a >= npv_b else lb)
    assert p.answer == expected


def test_crossover_conflict_sometimes_prefers_the_lower_irr():
    conflicts = 0
    for seed in range(100):
        p = get(T + "crossover_conflict").generate(seed)
        s = {st.name: st.value for st in p.steps}
        la, lb = re.findall(r"'([^']+)'", p.question.split("(answer ")[1])[:2]
        lower_irr = la if s["irr_a"] < s["irr_b"] else lb
        conflicts += p.answer == lower_irr
    assert 0 < conflicts < 100
