"""Hand checks: each loan-repayment template against a month-by-month amortization table.

The loan terms are parsed from ``p.question`` (not ``p.params``), so a question that shows a
different number from the one the gold solution used fails here.
"""

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

from finchain_tasks.engine import get

T = "personal_finance/loan_repayment/"
SEEDS = [0, 7, 123, 2024]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def count(text: str, pattern: str) -> int:
    return int(re.search(pattern, text).group(1))


def amortize(balance, monthly_rate, payment, months):
    """Run ``months`` end-of-month payments; return (balance left, interest paid, payments made)."""
    interest_paid, paid = 0.0, 0
    for _ in range(months):
        if balance <= 1e-9:
            break
        interest = balance * monthly_rate
        balance = balance + interest - min(payment, balance + interest)
        interest_paid += interest
        paid += 1
    return balance, interest_paid, paid


def level_payment(principal, monthly_rate, months, cents=True):
    """The payment that clears the loan, found by bisection on the amortization table (then to the cent)."""
    lo, hi = 0.0, principal
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if amortize(principal, monthly_rate, mid, months)[0] > 0 else (lo, mid)
    return round((lo + hi) / 2, 2) if cents else (lo + hi) / 2


def cents(amount):
    """``amount`` to the cent, half a cent up (as a bank states a balance)."""
    return float(Decimal(repr(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def pv_of_payments(payment, monthly_rate, months):
    """Present value of ``months`` end-of-month payments, summed one by one."""
    return sum(payment / (1 + monthly_rate) ** t for t in range(1, months + 1))


@pytest.mark.parametrize("seed", SEEDS)
def test_monthly_payment_clears_the_loan(seed):
    p = get(T + "monthly_payment").generate(seed)
    (principal,), (rate,) = dollars(p.question), percents(p.question)
    months = 12 * count(p.question, r"over (\d+) years?")
    assert p.answer == level_payment(principal, rate / 1200, months)
    left, _, _ = amortize(principal, rate / 1200, p.answer, months)
    i = rate / 1200
    # rounding to the cent misses by at most half a cent a month, and each miss grows with interest
    assert abs(left) <= 0.005 * ((1 + i) ** months - 1) / i + 1e-6


@pytest.mark.parametrize("seed", SEEDS)
def test_total_interest_by_amortization_table(seed):
    p = get(T + "total_interest").generate(seed)
    (principal,), (rate,) = dollars(p.question), percents(p.question)
    months = count(p.question, r"over (\d+) months")
    payment = level_payment(principal, rate / 1200, months)
    assert p.answer == pytest.approx(sum(payment for _ in range(months)) - principal, rel=1e-12)
    _, interest, _ = amortize(principal, rate / 1200, payment, months)
    assert p.answer == pytest.approx(interest, abs=0.01 * months)  # the table agrees up to the cent rounding


@pytest.mark.parametrize("seed", SEEDS)
def test_lump_sum_prepayment_by_two_amortization_tables(seed):
    p = get(T + "lump_sum_prepayment").generate(seed)
    q = p.question
    principal, prepayment = dollars(q)
    (rate,) = percents(q)
    term, paid_years = count(q, r"(\d+)-year"), count(q, r"completes (\d+) years?")
    i, left = rate / 1200, 12 * (term - paid_years)
    payment = level_payment(principal, i, 12 * term)
    balance = cents(pv_of_payments(payment, i, left))  # the question: the balance is taken to the cent
    assert balance == pytest.approx(amortize(principal, i, payment, 12 * paid_years)[0], abs=0.01 * 12 * term)
    assert p.steps[1].value == pytest.approx(balance, rel=1e-10)  # an intermediate value
    new_payment = level_payment(balance - prepayment, i, left)
    interest_without = payment * left - balance
    interest_with = new_payment * left - (balance - prepayment)
    assert p.answer == pytest.approx(interest_without - interest_with, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_extra_payment_payoff_by_amortization_table(seed):
    p = get(T + "extra_payment_payoff").generate(seed)
    principal, extra = dollars(p.question)
    (rate,) = percents(p.question)
    months = 12 * count(p.question, r"over (\d+) years?")
    payment = level_payment(principal, rate / 1200, months)
    _, _, paid = amortize(principal, rate / 1200, payment + extra, months)
    assert p.answer == paid


@pytest.mark.parametrize("seed", SEEDS)
def test_refinance_savings_by_amortization_tables(seed):
    p = get(T + "refinance_savings").generate(seed)
    q = p.question
    principal, closing = dollars(q)
    old_rate, new_rate = percents(q)
    term, paid_years = count(q, r"(\d+)-year"), count(q, r"After (\d+) years?")
    old_payment = level_payment(principal, old_rate / 1200, 12 * term)
    left = 12 * (term - paid_years)
    balance = cents(pv_of_payments(old_payment, old_rate / 1200, left))
    new_payment = level_payment(balance, new_rate / 1200, left)
    assert p.answer == pytest.approx((old_payment - new_payment) * left - closing, rel=1e-9)
