"""Hand checks for the regulatory compliance risk templates, recomputed from the question text."""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "risk_management/regulatory_compliance_risk/"


def amounts(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"[$€]([\d,]+(?:\.\d+)?)(?!bn)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 6, 60])
def test_basic_indicator_charge(seed):
    p = get(T + "basic_indicator_charge").generate(seed)
    incomes = amounts(p.question)
    assert len(incomes) == 3
    assert p.answer == pytest.approx(sum(incomes) * 0.05)  # 15% of a three-year average is 5% of the sum


@pytest.mark.parametrize("seed", [1, 7, 61])
def test_expected_penalty_exposure(seed):
    p = get(T + "expected_penalty_exposure").generate(seed)
    fine1, fine2 = amounts(p.question)
    p1, p2 = percents(p.question)
    outcomes = [(fine1 * a + fine2 * c, (p1 / 100 if a else 1 - p1 / 100) * (p2 / 100 if c else 1 - p2 / 100))
                for a in (0, 1) for c in (0, 1)]
    assert p.answer == pytest.approx(sum(value * prob for value, prob in outcomes))


@pytest.mark.parametrize("seed", [2, 8, 62])
def test_market_risk_ima_charge(seed):
    p = get(T + "market_risk_ima_charge").generate(seed)
    var, svar = amounts(p.question)
    exceptions = int(re.search(r"found (\d) exceptions", p.question).group(1))
    plus = {5: 0.40, 6: 0.50, 7: 0.65, 8: 0.75, 9: 0.85}[exceptions]
    assert p.answer == pytest.approx(12.5 * (3 + plus) * (var + svar))


@pytest.mark.parametrize("seed", [3, 9, 63, 630])
def test_large_exposure_breach(seed):
    p = get(T + "large_exposure_breach").generate(seed)
    tier1, loans, undrawn = amounts(p.question)
    ccf = percents(p.question)[0]
    excess = loans + undrawn * ccf / 100 - tier1 / 4
    assert excess > 0
    assert p.answer == pytest.approx(excess)


@pytest.mark.parametrize("seed", [4, 10, 64, 640])
def test_standardised_operational_risk(seed):
    p = get(T + "standardised_operational_risk").generate(seed)
    ildc, services, financial, losses = amounts(p.question)[:4]
    bi = ildc + services + financial
    # marginal buckets, applied as a loop over bucket edges
    bic, lower = 0.0, 0.0
    for upper, rate in ((1e9, 0.12), (30e9, 0.15)):
        bic += rate * max(0.0, min(bi, upper) - lower)
        lower = upper
    assert p.steps[1].value == pytest.approx(bic)
    ilm = math.log(math.e - 1 + (15 * losses / bic) ** 0.8)
    assert p.answer == pytest.approx(12.5 * bic * ilm)
