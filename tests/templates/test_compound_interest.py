"""Hand checks: each compound-interest template against a closed form computed here."""

import math

import pytest

from finchain_tasks.engine import get

T = "investment_analysis/compound_interest/"


@pytest.mark.parametrize("seed", [0, 7, 123])
def test_annual_compounding(seed):
    p = get(T + "annual_compounding").generate(seed)
    P, r, n = p.params["principal"], p.params["rate"], p.params["years"]
    assert p.answer == pytest.approx(P * math.exp(n * math.log1p(r / 100)), rel=1e-12)


def test_continuous_compounding():
    p = get(T + "continuous_compounding").generate(1)
    P, r, t = p.params["principal"], p.params["rate"], p.params["years"]
    assert p.answer == pytest.approx(P * math.e ** (r * t / 100), rel=1e-12)


def test_periodic_compounding_matches_effective_annual_rate():
    p = get(T + "periodic_compounding").generate(2)
    P, r, m, n = (p.params[k] for k in ("principal", "rate", "periods_per_year", "years"))
    ear = (1 + r / 100 / m) ** m - 1
    assert p.answer == pytest.approx(P * (1 + ear) ** n, rel=1e-10)


def test_required_principal_grows_back_to_target():
    p = get(T + "required_principal").generate(5)
    grown = p.answer * (1 + p.params["rate"] / 1200) ** (12 * p.params["years"])
    assert grown == pytest.approx(p.params["target"], rel=1e-10)


def test_rate_change_midway_by_year_by_year_simulation():
    p = get(T + "rate_change_midway").generate(9)
    x = p.params
    balance = x["principal"]
    for _ in range(x["years1"]):
        balance *= 1 + x["rate1"] / 100
    balance -= x["withdrawal"]
    for _ in range(4 * x["years2"]):
        balance += balance * x["rate2"] / 400
    assert p.answer == pytest.approx(balance + x["withdrawal"] - x["principal"], rel=1e-9)
