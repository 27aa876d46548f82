"""Hand checks for sustainable_finance/carbon_credits, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "sustainable_finance/carbon_credits/"
SEEDS = [0, 12, 345, 2050]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed, 'CO2' is not a number)."""
    text = text.replace("CO2", "carbon")
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_offset_cost(seed):
    p = get(T + "offset_purchase_cost").generate(seed)
    emissions, share, price = nums(p.question)[:3]
    assert p.answer == pytest.approx(emissions * price * share / 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_shortfall_cost(seed):
    p = get(T + "allowance_shortfall_cost").generate(seed)
    allocation, emissions, price = nums(p.question.replace("one ", ""))[:3]
    assert p.answer == pytest.approx(emissions * price - allocation * price, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_profit_after_carbon_price(seed):
    p = get(T + "carbon_price_profit_impact").generate(seed)
    output, intensity, price, pass_through, profit = nums(p.question)[:5]
    per_tonne_margin_hit = intensity * price * (1 - pass_through / 100)
    assert p.answer == pytest.approx(profit - output * per_tonne_margin_hit, abs=0.05)


@pytest.mark.parametrize("seed", SEEDS)
def test_abatement_saving_is_price_minus_cost(seed):
    p = get(T + "abate_or_buy_allowances").generate(seed)
    emissions, allocation, abated, cost, price = nums(p.question)[:5]
    assert p.answer == pytest.approx(abated * (price - cost), rel=1e-9)
    assert p.steps[2].value == pytest.approx(abated * cost + (emissions - abated - allocation) * price, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_cbam_margin_reduction_per_tonne_of_steel(seed):
    p = get(T + "cbam_charge_on_imports").generate(seed)
    tonnes, intensity, benchmark, free, price, foreign, margin = nums(p.question)[:7]
    per_tonne = (intensity - benchmark * free / 100) * price - intensity * foreign
    assert p.steps[2].value == pytest.approx(tonnes * (intensity - benchmark * free / 100), rel=1e-9)
    assert p.answer == pytest.approx(tonnes * per_tonne / margin * 100, rel=1e-5)
