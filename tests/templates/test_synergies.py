"""Hand checks for the synergy templates: cash flows listed year by year and discounted in a loop."""

import re

import pytest

from finchain_tasks.engine import get

T = "mergers_and_acquisitions/synergies/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


def pv(flows: list[float], rate: float) -> float:
    """Present value of year-end flows for years 1, 2, ..."""
    total, factor = 0.0, 1.0
    for flow in flows:
        factor /= 1 + rate
        total += flow * factor
    return total


@pytest.mark.parametrize("seed", [0, 8, 80])
def test_run_rate_synergies(seed):
    p = get(T + "run_rate_synergies").generate(seed)
    cost, revenue = money(p.question)
    (margin,) = percents(p.question)
    assert p.answer == pytest.approx(cost + revenue * margin / 100)


@pytest.mark.parametrize("seed", [1, 9, 81])
def test_synergy_perpetuity_value_against_long_sum(seed):
    p = get(T + "synergy_perpetuity_value").generate(seed)
    (synergies,) = money(p.question)
    growth, tax, discount = percents(p.question)
    flows = [synergies * (1 - tax / 100) * (1 + growth / 100) ** t for t in range(3_000)]
    assert p.answer == pytest.approx(pv(flows, discount / 100), rel=1e-6)


@pytest.mark.parametrize("seed", [2, 10, 82])
def test_phased_synergy_present_value(seed):
    p = get(T + "phased_synergy_present_value").generate(seed)
    (run_rate,) = money(p.question)
    phase1, phase2, full, tax, discount = percents(p.question)
    assert full == 100
    flows = [run_rate * share / 100 * (1 - tax / 100) for share in (phase1, phase2, full)]
    assert p.answer == pytest.approx(pv(flows, discount / 100))


@pytest.mark.parametrize("seed", [3, 11, 83])
def test_maximum_justified_premium(seed):
    p = get(T + "maximum_justified_premium").generate(seed)
    market_cap, synergies, costs = money(p.question)
    tax, discount = percents(p.question)
    flows = [synergies * (1 - tax / 100)] * 5_000
    net = pv(flows, discount / 100) - costs * (1 - tax / 100)
    assert p.answer == pytest.approx(net / market_cap * 100, rel=1e-6)


@pytest.mark.parametrize("seed", [4, 12, 84, 840])
def test_value_created_after_premium(seed):
    p = get(T + "value_created_after_premium").generate(seed)
    market_cap, cost, revenue, costs = money(p.question)
    premium_pct, margin, phase1, full, growth, tax, discount = percents(p.question)
    assert full == 100
    run_rate = (cost + revenue * margin / 100) * (1 - tax / 100)
    flows = [run_rate * phase1 / 100, run_rate] + [run_rate * (1 + growth / 100) ** t for t in range(1, 4_000)]
    assert p.steps[0].value == pytest.approx(run_rate)
    value = pv(flows, discount / 100) - costs * (1 - tax / 100) - market_cap * premium_pct / 100
    assert p.answer == pytest.approx(value, rel=1e-5)
