"""Hand checks: each compound-interest template recomputed from the numbers printed in its question.

The inputs are parsed from ``p.question`` (not ``p.params``), so a question that shows a value
different from the one the gold solution used fails here.
"""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/compound_interest/"
SEEDS = [0, 7, 123, 4051]


def dollars(text: str) -> list[float]:
    """Every dollar amount in ``text``, in order."""
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    """Every percentage in ``text``, in order."""
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def count(text: str, noun: str) -> list[int]:
    """Every whole number followed by ``noun`` (singular or plural), in order."""
    return [int(m) for m in re.findall(rf"(\d+) {noun}s?\b", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_annual_compounding_over_simple_interest_by_year_by_year_ledger(seed):
    p = get(T + "annual_compounding").generate(seed)
    (principal,), (rate,), (years,) = dollars(p.question), percents(p.question), count(p.question, "year")
    simple = compound = 0.0
    balance = principal
    for _ in range(years):
        simple += principal * rate / 100
        interest = balance * rate / 100
        compound += interest
        balance += interest
    assert p.answer == pytest.approx(compound - simple, abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_continuous_compounding_as_limit_of_fine_compounding(seed):
    p = get(T + "continuous_compounding").generate(seed)
    (principal,), (rate,), (years,) = dollars(p.question), percents(p.question), count(p.question, "year")
    assert p.answer == pytest.approx(principal * math.e ** (rate * years / 100), rel=1e-12)
    m = 10**6  # a million compounding periods a year is within 1e-6 of the continuous limit
    assert p.answer == pytest.approx(principal * (1 + rate / 100 / m) ** (m * years), rel=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_periodic_compounding_via_effective_annual_rate(seed):
    p = get(T + "periodic_compounding").generate(seed)
    q = p.question
    (principal,), (rate,), (years,) = dollars(q), percents(q), count(q, "year")
    m = next(v for k, v in {"semi-annually": 2, "quarterly": 4, "monthly": 12}.items() if k in q)
    assert "annually," not in q.replace("semi-annually", "")  # never plain annual compounding
    ear = (1 + rate / 100 / m) ** m - 1
    assert p.answer == pytest.approx(principal * (1 + ear) ** years, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_inflation_adjusted_goal_grows_back_to_the_inflated_cost(seed):
    p = get(T + "inflation_adjusted_goal").generate(seed)
    q = p.question
    (target,), (inflation, rate), (years,) = dollars(q), percents(q), count(q, "year")
    balance = p.answer
    for _ in range(12 * years):
        balance += balance * rate / 1200
    price = target
    for _ in range(years):
        price *= 1 + inflation / 100
    assert balance == pytest.approx(price, abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_rate_change_midway_by_simulation(seed):
    p = get(T + "rate_change_midway").generate(seed)
    q = p.question
    (principal, withdrawal), (rate1, rate2), (years1, years2) = dollars(q), percents(q), count(q, "year")
    balance = principal
    for _ in range(years1):
        balance *= 1 + rate1 / 100
    assert p.steps[0].value == pytest.approx(balance, rel=1e-12)  # an intermediate value
    balance -= withdrawal
    for _ in range(4 * years2):
        balance += balance * rate2 / 400
    assert p.answer == pytest.approx(balance + withdrawal - principal, abs=0.05)
