"""Hand checks: each tax template recomputed from the numbers printed in its question.

Inputs (including the bracket schedule) are parsed from ``p.question``, not taken from ``p.params``;
bracket tax is computed here by walking the schedule dollar band by dollar band.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "personal_finance/tax_calculation/"
SEEDS = [0, 4, 99, 5150]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def schedule(text: str) -> tuple[list[float], list[float]]:
    """(thresholds, rates) of the bracket sentence "r1% on the first $t1, r2% on income from ..."."""
    sentence = re.search(r"taxed at (\d+% on the first .*? on income above \$[\d,]+)", text).group(1)
    rates = [float(r) for r in re.findall(r"(\d+)% on", sentence)]
    thresholds = sorted({float(t.replace(",", "")) for t in re.findall(r"\$([\d,]+)", sentence)})
    return thresholds, rates


def bracket_tax(income: float, thresholds: list[float], rates: list[float]) -> float:
    edges = [0.0, *thresholds, float("inf")]
    return sum(max(0.0, min(income, hi) - lo) * r / 100 for lo, hi, r in zip(edges, edges[1:], rates))


@pytest.mark.parametrize("seed", [*SEEDS, 10, 11])
def test_foreign_tax_credit(seed):
    p = get(T + "foreign_tax_credit").generate(seed)
    total, foreign, us_tax, paid = dollars(p.question)
    credit = min(paid, us_tax * foreign / total)
    assert p.answer == pytest.approx(us_tax - credit, abs=0.005)  # the solution rounds amounts to the cent


def test_foreign_tax_credit_limit_binds_about_half_the_time():
    binds = 0
    for seed in range(300):
        total, foreign, us_tax, paid = dollars(get(T + "foreign_tax_credit").generate(seed).question)
        binds += paid > us_tax * foreign / total
    assert 0.35 < binds / 300 < 0.65


@pytest.mark.parametrize("seed", [*SEEDS, 10, 11])
def test_capital_gains_tax_by_holding_period(seed):
    p = get(T + "capital_gains_tax").generate(seed)
    q = p.question
    buy, sell = dollars(q)
    lt_rate, st_rate = percents(q)
    shares = int(re.search(r"([\d,]+) shares", q).group(1).replace(",", ""))
    months = int(re.search(r"(\d+) months? later", q).group(1))
    years = months / 12
    assert 1.03 ** years <= sell / buy <= 1.31 ** years  # a growth fitting the holding period
    rate = lt_rate if months > 12 else st_rate
    assert p.answer == pytest.approx(shares * (sell - buy) * rate / 100, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_tax_after_standard_deduction(seed):
    p = get(T + "tax_after_standard_deduction").generate(seed)
    gross, deduction = dollars(p.question)[:2]
    thresholds, rates = schedule(p.question)
    assert p.answer == pytest.approx(bracket_tax(gross - deduction, thresholds, rates), rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_marginal_vs_effective_in_percentage_points(seed):
    p = get(T + "marginal_vs_effective").generate(seed)
    thresholds, rates = schedule(p.question)
    income = float(re.search(r"taxable income of \$([\d,]+)", p.question).group(1).replace(",", ""))
    marginal = rates[sum(income > t for t in thresholds)]
    effective = bracket_tax(income, thresholds, rates) / income * 100
    assert p.answer == pytest.approx(marginal - effective, rel=1e-10)
    assert p.answer_text.endswith("percentage points")


@pytest.mark.parametrize("seed", SEEDS)
def test_tax_with_deductions_and_credits(seed):
    p = get(T + "tax_with_deductions_and_credits").generate(seed)
    q = p.question
    salary, pretax, standard, itemized = dollars(q)[:4]
    per_child = float(re.search(r"credit of \$([\d,]+) per child", q).group(1).replace(",", ""))
    thresholds, rates = schedule(q)
    children = {"two": 2, "three": 3}[re.search(r"has (two|three) children", q).group(1)]
    taxable = salary - pretax - max(standard, itemized)
    assert p.steps[1].value == pytest.approx(taxable, rel=1e-12)  # an intermediate value
    tax = max(0.0, bracket_tax(taxable, thresholds, rates) - children * per_child)
    assert p.answer == pytest.approx(tax / salary * 100, rel=1e-10)
