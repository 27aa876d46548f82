"""Hand checks: each IRR template recomputed from the numbers printed in its question.

IRRs are found here by bisection on the NPV (not by the engine's solver or the closed forms the
templates use), and the inputs are parsed from ``p.question``, not taken from ``p.params``.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/irr/"
SEEDS = [0, 3, 17, 256]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def npv(rate: float, flows: list[float]) -> float:
    return sum(cf / (1 + rate) ** t for t, cf in enumerate(flows))


def bisect_irr(flows: list[float], lo: float = -0.9, hi: float = 2.0) -> float:
    """The rate in (lo, hi) where the NPV of conventional flows changes sign, to 1e-13."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if npv(mid, flows) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@pytest.mark.parametrize("seed", SEEDS)
def test_two_period_irr_by_bisection(seed):
    p = get(T + "two_period_irr").generate(seed)
    cost, cf1, cf2 = dollars(p.question)
    assert p.answer == pytest.approx(bisect_irr([-cost, cf1, cf2]) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_single_payoff_vs_hurdle_by_bisection(seed):
    p = get(T + "single_payoff_vs_hurdle").generate(seed)
    cost, payoff = dollars(p.question)
    (hurdle,) = percents(p.question)
    years = int(re.search(r"end of (\d+) years?", p.question).group(1))
    assert p.answer_text.endswith("percentage points")
    assert p.answer == pytest.approx(bisect_irr([-cost] + [0] * (years - 1) + [payoff]) * 100 - hurdle, abs=1e-8)


@pytest.mark.parametrize("seed", SEEDS)
def test_modified_irr_by_compounding_each_flow(seed):
    p = get(T + "modified_irr").generate(seed)
    cost, outlay1, cf2, cf3, cf4 = dollars(p.question)
    finance, reinvest = percents(p.question)
    terminal = sum(cf * (1 + reinvest / 100) ** (4 - t) for t, cf in ((2, cf2), (3, cf3), (4, cf4)))
    pv_out = cost + outlay1 / (1 + finance / 100)
    mirr = p.answer / 100
    assert pv_out * (1 + mirr) ** 4 == pytest.approx(terminal, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_after_tax_irr_with_sale_by_cash_ledger(seed):
    p = get(T + "after_tax_irr_with_sale").generate(seed)
    cost, income, sale = dollars(p.question)
    income_tax, selling, cg_rate = percents(p.question)
    net_sale = sale - sale * selling / 100
    gain_tax = (net_sale - cost) * cg_rate / 100
    after_tax = income - income * income_tax / 100
    assert p.steps[2].value == pytest.approx(gain_tax, rel=1e-12)  # an intermediate value
    flows = [-cost, after_tax, after_tax, after_tax, after_tax + net_sale - gain_tax]
    assert p.answer == pytest.approx(bisect_irr(flows) * 100, rel=1e-8)


@pytest.mark.parametrize("seed", [*SEEDS, 11, 12, 13])
def test_crossover_conflict_npv_decides_against_irr(seed):
    p = get(T + "crossover_conflict").generate(seed)
    q = p.question
    cost, a1, a2, b1, b2 = dollars(q)
    (wacc,) = percents(q)
    la, lb = re.findall(r"'(Project [^']+)'", q)[:2]
    irr_a, irr_b = bisect_irr([-cost, a1, a2]), bisect_irr([-cost, b1, b2])
    npv_a, npv_b = npv(wacc / 100, [-cost, a1, a2]), npv(wacc / 100, [-cost, b1, b2])
    assert (irr_a > irr_b) != (npv_a > npv_b)  # the rankings conflict in every draw
    assert p.answer == (la if npv_a > npv_b else lb)
    crossover = bisect_irr([0, b1 - a1, b2 - a2], lo=-0.5) if b1 < a1 else bisect_irr([0, a1 - b1, a2 - b2], lo=-0.5)
    assert p.steps[2].value == pytest.approx(crossover * 100, rel=1e-8)


def test_crossover_conflict_winner_is_balanced():
    firsts = 0
    for seed in range(400):
        p = get(T + "crossover_conflict").generate(seed)
        firsts += p.answer == re.findall(r"'(Project [^']+)'", p.question)[0]
    assert 0.4 < firsts / 400 < 0.6
