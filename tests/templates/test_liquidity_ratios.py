"""Hand checks for liquidity ratios: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_ratios/liquidity_ratios/"
SEEDS = [12, 88, 777, 20202]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_quick_ratio_as_current_assets_less_inventory_and_prepaid(seed):
    p = get(T + "quick_ratio").generate(seed)
    cl, cash, securities, receivables, inventory, prepaid = money(p.question)
    current_assets = cash + securities + receivables + inventory + prepaid
    assert p.answer == pytest.approx((current_assets - inventory - prepaid) / cl, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_cash_ratio(seed):
    p = get(T + "cash_ratio").generate(seed)
    cash, securities, _receivables, cl = money(p.question)
    assert p.answer == pytest.approx(cash / cl + securities / cl, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_current_ratio_by_transaction_ledger(seed):
    p = get(T + "current_ratio_after_transactions").generate(seed)
    ca, cl, paid, bought, loan = money(p.question)
    assets, liabilities = ca, cl
    for d_assets, d_liabilities in [(-paid, -paid), (bought, bought), (loan, 0)]:
        assets, liabilities = assets + d_assets, liabilities + d_liabilities
    assert p.answer == pytest.approx(assets / liabilities, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_cash_needed_meets_the_covenant_exactly(seed):
    p = get(T + "cash_for_quick_covenant").generate(seed)
    cash, receivables, _inventory, cl = money(p.question)
    covenant = float(re.search(r"at least (\d+\.\d+)\.", p.question).group(1))
    assert (cash + p.answer + receivables) / cl == pytest.approx(covenant, rel=1e-10)
    assert p.answer == pytest.approx(covenant * cl - cash - receivables, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_paydown_reaches_the_covenant_and_the_quick_ratio_follows(seed):
    p = get(T + "payables_paydown_for_covenant").generate(seed)
    cl, cash, receivables, inventory = money(p.question)
    target = float(re.search(r"at least (\d+\.\d+) at", p.question).group(1))
    # bisection for the payment that brings (CA − x) / (CL − x) up to the target
    lo, hi = 0.0, cash
    for _ in range(200):
        mid = (lo + hi) / 2
        if (cash + receivables + inventory - mid) / (cl - mid) < target:
            lo = mid
        else:
            hi = mid
    assert step(p, "paydown") == pytest.approx(lo, rel=1e-9)
    assert p.answer == pytest.approx((cash + receivables - lo) / (cl - lo), rel=1e-9)
