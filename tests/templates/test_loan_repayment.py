"""Hand checks: each loan-repayment template against a month-by-month amortisation table."""

import pytest

from finchain_tasks.engine import get

T = "personal_finance/loan_repayment/"


def amortise(balance, monthly_rate, payment, months):
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


@pytest.mark.parametrize("seed", [0, 7, 123])
def test_monthly_payment_clears_the_loan(seed):
    p = get(T + "monthly_payment").generate(seed)
    x = p.params
    left, _, _ = amortise(x["principal"], x["rate"] / 1200, p.answer, 12 * x["years"])
    assert abs(left) < 1e-6 * x["principal"]
    # one cent less each month leaves money owing
    assert amortise(x["principal"], x["rate"] / 1200, p.answer - 0.01, 12 * x["years"])[0] > 0


@pytest.mark.parametrize("seed", [1, 42])
def test_total_interest_is_the_interest_column_of_the_table(seed):
    p = get(T + "total_interest").generate(seed)
    x = p.params
    payment = p.steps[1].value
    left, interest, _ = amortise(x["principal"], x["rate"] / 1200, payment, x["months"])
    assert abs(left) < 1e-6
    assert p.answer == pytest.approx(interest, rel=1e-9)


@pytest.mark.parametrize("seed", [2, 19])
def test_remaining_balance_by_running_the_schedule(seed):
    p = get(T + "remaining_balance").generate(seed)
    x = p.params
    i, n = x["rate"] / 1200, 12 * x["term"]
    payment = x["principal"] * i * (1 + i) ** n / ((1 + i) ** n - 1)
    left, _, _ = amortise(x["principal"], i, payment, 12 * x["years_paid"])
    assert p.answer == pytest.approx(left, rel=1e-9)


@pytest.mark.parametrize("seed", [3, 11, 77])
def test_extra_payment_payoff_by_simulation(seed):
    p = get(T + "extra_payment_payoff").generate(seed)
    x = p.params
    i, n = x["rate"] / 1200, 12 * x["years"]
    payment = x["principal"] * i / (1 - (1 + i) ** -n) + x["extra"]
    left, _, paid = amortise(x["principal"], i, payment, n)
    assert left <= 1e-9
    assert p.answer == paid < n


@pytest.mark.parametrize("seed", [4, 31])
def test_refinance_savings_equal_interest_saved_minus_costs(seed):
    p = get(T + "refinance_savings").generate(seed)
    x = p.params
    i1, i2 = x["old_rate"] / 1200, x["new_rate"] / 1200
    n, k = 12 * x["term"], 12 * x["years_paid"]
    old_payment = x["principal"] * i1 / (1 - (1 + i1) ** -n)
    balance, _, _ = amortise(x["principal"], i1, old_payment, k)
    _, old_interest, _ = amortise(balance, i1, old_payment, n - k)
    new_payment = balance * i2 / (1 - (1 + i2) ** -(n - k))
    left, new_interest, _ = amortise(balance, i2, new_payment, n - k)
    assert abs(left) < 1e-6
    # the same principal is repaid either way, so the payment saving is the interest saving
    assert p.answer == pytest.approx(old_interest - new_interest - x["closing_costs"], rel=1e-8, abs=1e-6)
