"""Hand checks for sustainable_finance/sustainability_reporting, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "sustainable_finance/sustainability_reporting/"
SEEDS = [0, 15, 150, 1500]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed; scope numbers dropped)."""
    text = re.sub(r"scope [123](?: and [123])?", "scope", text.replace("CO2e", "carbon").replace("1 + 2 + 3", ""))
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_scope3_share(seed):
    p = get(T + "scope_totals_and_share").generate(seed)
    s1, s2, s3 = nums(p.question)[:3]
    assert p.answer == pytest.approx(100 - (s1 + s2) / (s1 + s2 + s3) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_revenue_intensity(seed):
    p = get(T + "revenue_intensity").generate(seed)
    s1, s2, revenue = nums(p.question)[:3]
    assert p.answer == pytest.approx(s1 / revenue + s2 / revenue, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_scope2_difference_by_certificates(seed):
    p = get(T + "scope2_location_vs_market").generate(seed)
    mwh, grid, recs, residual = nums(p.question)[:4]
    # location − market = covered MWh × grid − uncovered MWh × (residual − grid)
    assert p.answer == pytest.approx(recs * grid - (mwh - recs) * (residual - grid), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_pathway_gap_by_yearly_steps(seed):
    p = get(T + "linear_pathway_gap").generate(seed)
    cut, base, base_year, target_year, horizon, year, elapsed, actual = nums(p.question)[:8]
    assert (target_year - base_year, year - base_year) == (horizon, elapsed)
    step = base * cut / 100 / horizon
    pathway = base
    for _ in range(int(elapsed)):
        pathway -= step
    assert p.answer == pytest.approx(actual - pathway, rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_intensity_target_rate_by_compounding_back(seed):
    p = get(T + "intensity_target_absolute_rate").generate(seed)
    s1, s2, revenue, cut, years, growth = nums(p.question)[:6]
    revenue_t = revenue
    for _ in range(int(years)):
        revenue_t *= 1 + growth / 100
    allowed = (s1 + s2) / revenue * (1 - cut / 100) * revenue_t
    assert p.steps[4].value == pytest.approx(allowed, rel=1e-9)
    emissions = s1 + s2
    for _ in range(int(years)):
        emissions *= 1 + p.answer / 100
    assert emissions == pytest.approx(allowed, rel=1e-9)
