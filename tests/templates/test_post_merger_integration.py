"""Hand checks for the post-merger integration templates, recomputed from the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "mergers_and_acquisitions/post_merger_integration/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


def shares(text: str) -> int:
    return int(re.search(r"([\d,]{5,}) shares", text).group(1).replace(",", ""))


@pytest.mark.parametrize("seed", [0, 5, 50])
def test_combined_operating_margin(seed):
    p = get(T + "combined_operating_margin").generate(seed)
    revenue_a, income_a, revenue_b, income_b, savings = money(p.question)
    assert p.answer == pytest.approx(100 * (income_a + income_b + savings) / (revenue_a + revenue_b))


@pytest.mark.parametrize("seed", [1, 6, 51])
def test_customer_attrition_revenue(seed):
    p = get(T + "customer_attrition_revenue").generate(seed)
    revenue_a, revenue_b = money(p.question)
    (attrition,) = percents(p.question)
    assert p.answer == pytest.approx(revenue_a + revenue_b * (100 - attrition) / 100)


@pytest.mark.parametrize("seed", [2, 7, 52, 520])
def test_integration_cost_payback_by_month(seed):
    p = get(T + "integration_cost_payback").generate(seed)
    run_rate, costs = money(p.question)
    phase1 = percents(p.question)[0]
    # walk forward in small steps until the cumulative savings cover the cost
    step = 1 / 100_000
    t, saved = 0.0, 0.0
    while saved < costs:
        saved += run_rate * (phase1 / 100 if t < 1 else 1) * step
        t += step
    assert p.answer == pytest.approx(t, abs=2e-5)


@pytest.mark.parametrize("seed", [3, 8, 53])
def test_all_stock_eps_effect(seed):
    p = get(T + "all_stock_eps_effect").generate(seed)
    income_a, price, income_b, _ = money(p.question)
    shares_a = shares(p.question)
    pe_paid = float(re.search(r"for ([\d.]+) times", p.question).group(1))
    eps_before = income_a / shares_a
    eps_after = (income_a + income_b) / (shares_a + pe_paid * income_b / price)
    assert p.answer == pytest.approx((eps_after - eps_before) / eps_before * 100)


@pytest.mark.parametrize("seed", [4, 9, 54, 540])
def test_mixed_financing_eps_effect(seed):
    p = get(T + "mixed_financing_eps_effect").generate(seed)
    income_a, price, income_b, price_paid, _, synergies = money(p.question)
    shares_a = shares(p.question)
    debt_share, rate, tax = percents(p.question)
    debt = price_paid * debt_share / 100
    pro_forma = income_a + income_b + synergies * (1 - tax / 100) - debt * rate / 100 * (1 - tax / 100)
    assert p.steps[3].value == pytest.approx(pro_forma)
    eps_before = income_a / shares_a
    eps_after = pro_forma / (shares_a + (price_paid - debt) / price)
    assert p.answer == pytest.approx((eps_after - eps_before) / eps_before * 100)
