"""Hand checks: each NPV template recomputed from the numbers printed in its question.

Discounting is done here flow by flow (no annuity or perpetuity formulas where a sum will do), and
the inputs are parsed from ``p.question``, not taken from ``p.params``.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/npv/"
SEEDS = [0, 5, 42, 999]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def years_in(text: str) -> int:
    return int(re.search(r"(\d+) years?\b", text).group(1))


def npv(rate_pct: float, flows: list[float]) -> float:
    return sum(cf / (1 + rate_pct / 100) ** t for t, cf in enumerate(flows))


@pytest.mark.parametrize("seed", SEEDS)
def test_single_future_flow(seed):
    p = get(T + "single_future_flow").generate(seed)
    cost, payoff = dollars(p.question)
    (rate,) = percents(p.question)
    n = years_in(p.question)
    assert p.answer == pytest.approx(npv(rate, [-cost] + [0] * (n - 1) + [payoff]), rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_growing_perpetuity_by_long_truncated_sum(seed):
    p = get(T + "growing_perpetuity_project").generate(seed)
    cost, cf1 = dollars(p.question)
    growth, rate = percents(p.question)
    total = sum(cf1 * (1 + growth / 100) ** (t - 1) / (1 + rate / 100) ** t for t in range(1, 4001))
    assert p.answer == pytest.approx(total - cost, rel=1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_rate_sensitivity_flow_by_flow(seed):
    p = get(T + "rate_sensitivity").generate(seed)
    cost, cf = dollars(p.question)
    rate, rate_high = percents(p.question)
    flows = [-cost] + [cf] * years_in(p.question)
    assert p.answer == pytest.approx(npv(rate_high, flows) - npv(rate, flows), abs=0.05)
    assert 0.12 < cf / cost < 0.8  # the cash flow is a plausible fraction of the cost


@pytest.mark.parametrize("seed", [*SEEDS, 1, 2, 3])
def test_project_choice_with_salvage_and_cleanup(seed):
    p = get(T + "project_choice").generate(seed)
    q = p.question
    cost_a, a1, a2, a3, salvage, cost_b, level, cleanup = dollars(q)
    (rate,) = percents(q)
    la, lb = re.findall(r"'(Project [^']+)'", q)[:2]
    npv_a = npv(rate, [-cost_a, a1, a2, a3 + salvage])
    npv_b = npv(rate, [-cost_b, level, level, level - cleanup])
    assert p.steps[2].value == pytest.approx(npv_b, rel=1e-9)
    expected = "Neither" if max(npv_a, npv_b) <= 0 else (la if npv_a > npv_b else lb)
    assert p.answer == expected


def test_project_choice_outcomes_are_balanced():
    answers = [get(T + "project_choice").generate(s) for s in range(300)]
    first = sum(p.answer == re.findall(r"'(Project [^']+)'", p.question)[0] for p in answers)
    neither = sum(p.answer == "Neither" for p in answers)
    assert max(first, neither, 300 - first - neither) <= 180 and neither >= 30


@pytest.mark.parametrize("seed", SEEDS)
def test_two_stage_growth_by_truncated_sum(seed):
    p = get(T + "two_stage_growth").generate(seed)
    cost, cf1 = dollars(p.question)
    g_high, g_long, rate = percents(p.question)
    cfs = [cf1, cf1 * (1 + g_high / 100), cf1 * (1 + g_high / 100) ** 2]
    assert p.steps[2].value == pytest.approx(npv(rate, [0, *cfs]), abs=0.05)  # an intermediate value
    total, term = npv(rate, [-cost, *cfs]), cfs[-1] / (1 + rate / 100) ** 3
    for _ in range(3000):  # the terminal perpetuity as a long sum of discounted flows
        term *= (1 + g_long / 100) / (1 + rate / 100)
        total += term
    assert p.answer == pytest.approx(total, abs=0.05)  # the solution rounds amounts to the cent
