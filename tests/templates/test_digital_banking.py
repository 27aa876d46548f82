"""Hand checks for fintech/digital_banking, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "fintech/digital_banking/"
SEEDS = [0, 17, 256, 8080]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_tiered_interest_as_blended_rate(seed):
    p = get(T + "tiered_savings_interest").generate(seed)
    r1, tier, r2, balance = nums(p.question)[:4]
    blended = (tier * r1 + (balance - tier) * r2) / balance  # balance-weighted rate
    assert p.answer == pytest.approx(balance * blended / 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_transfer_received_in_euros(seed):
    p = get(T + "international_transfer_received").generate(seed)
    amount, fee, mid, markup = nums(p.question)[:4]
    assert p.answer == pytest.approx(amount * mid * (1 - markup / 100) - fee * mid * (1 - markup / 100), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_recurring_deposit_by_monthly_ledger(seed):
    p = get(T + "recurring_deposit_interest").generate(seed)
    deposit, months, rate = nums(p.question)[:3]
    balance = 0.0
    for _ in range(int(months)):
        balance = (balance + deposit) * (1 + rate / 100 / 12)
    assert p.answer == pytest.approx(balance - deposit * months, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_savings_rate_from_outflows(seed):
    p = get(T + "spending_analysis_savings_rate").generate(seed)
    income, *outflows = nums(p.question)[:6]
    saved = income
    for outflow in outflows:
        saved -= outflow
    assert p.answer == pytest.approx(saved / income * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_payoff_by_daily_accrual(seed):
    p = get(T + "daily_interest_loan_payoff").generate(seed)
    principal, apr, per_year, payment, days1, days2 = nums(p.question)[:6]
    assert per_year == 365
    owed, accrued = principal, 0.0
    for _ in range(int(days1)):
        accrued += owed * apr / 100 / 365
    owed -= payment - round(accrued, 2)
    assert p.steps[2].value == pytest.approx(owed, rel=1e-9)
    accrued = sum(owed * apr / 100 / 365 for _ in range(int(days2)))
    assert p.answer == pytest.approx(owed + round(accrued, 2), abs=1e-6)
