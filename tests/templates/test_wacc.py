"""Hand checks for the cost of capital: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "corporate_finance/wacc/"
SEEDS = [8, 55, 700, 31337]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def millions(text: str, what: str) -> float:
    return float(re.search(rf"([\d.,]+) million {what}", text).group(1).replace(",", "")) * 1e6


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_after_tax_cost_of_debt(seed):
    p = get(T + "after_tax_cost_of_debt").generate(seed)
    spread_bp = int(re.search(r"(\d+) bps", p.question).group(1))
    rf, tax = percents(p.question)
    pretax = rf + spread_bp / 10_000
    assert p.answer == pytest.approx((pretax - pretax * tax) * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_capm_as_weighted_mix_of_market_and_riskless(seed):
    p = get(T + "capm_cost_of_equity").generate(seed)
    rf, market = percents(p.question)
    beta = float(re.search(r"beta of ([\d.]+)\.", p.question).group(1))
    # CAPM return = beta × market + (1 − beta) × risk-free
    assert p.answer == pytest.approx((beta * market + (1 - beta) * rf) * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_wacc_with_preferred_and_two_tranches_from_weights(seed):
    p = get(T + "wacc_with_preferred").generate(seed)
    equity, preferred, dividend, price, loan, bonds = money(p.question)
    r_loan, r_bonds, r_e, tax = percents(p.question)
    total = equity + preferred + loan + bonds
    weights_costs = [(equity / total, r_e), (preferred / total, dividend / price),
                     (loan / total, r_loan * (1 - tax)), (bonds / total, r_bonds * (1 - tax))]
    assert sum(w for w, _ in weights_costs) == pytest.approx(1)
    assert p.answer == pytest.approx(sum(w * c for w, c in weights_costs) * 100, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_real_wacc_deflates_a_nominal_hundred(seed):
    p = get(T + "real_wacc").generate(seed)
    w_e, r_e, r_d, tax, inflation = percents(p.question)
    nominal = w_e * r_e + (1 - w_e) * r_d * (1 - tax)
    grown = 100 * (1 + nominal)  # 100 today grows to this nominally; deflate to today's money
    assert p.answer == pytest.approx((grown / (1 + inflation) - 100), rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_wacc_from_market_data(seed):
    p = get(T + "wacc_from_market_data").generate(seed)
    price, face, dividend, pref_price = money(p.question)
    shares = millions(p.question, "shares outstanding")
    pref = millions(p.question, "preferred shares")
    quote = float(re.search(r"quoted at ([\d.]+) per 100", p.question).group(1))
    beta_u = float(re.search(r"beta of ([\d.]+)\.", p.question).group(1))
    ytm, tax, rf, premium = percents(p.question)
    debt, equity, pv = face * quote / 100, shares * price, pref * pref_price
    beta = beta_u + beta_u * (1 - tax) * debt / equity
    assert step(p, "levered_beta") == pytest.approx(beta, rel=1e-12)
    flows = equity * (rf + beta * premium) + pv * dividend / pref_price + debt * ytm * (1 - tax)
    assert p.answer == pytest.approx(flows / (equity + pv + debt) * 100, rel=1e-12)
