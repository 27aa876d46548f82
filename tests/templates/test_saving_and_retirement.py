"""Hand checks: each saving-and-retirement template recomputed from the numbers printed in its question.

Inputs are parsed from ``p.question`` (not ``p.params``); balances are simulated month by month (or
year by year) instead of using the annuity formulas the templates use.
"""

import re

import pytest

from finchain_tasks.engine import get

T = "personal_finance/saving_and_retirement/"
SEEDS = [0, 2, 58, 9001]


def dollars(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)%", text)]


def number_after(text: str, pattern: str) -> int:
    return int(re.search(pattern, text).group(1))


@pytest.mark.parametrize("seed", SEEDS)
def test_future_value_of_contributions_month_by_month(seed):
    p = get(T + "future_value_of_contributions").generate(seed)
    (contribution,), (rate,) = dollars(p.question), percents(p.question)
    balance = 0.0
    for _ in range(12 * number_after(p.question, r"for (\d+) years?")):
        balance = balance * (1 + rate / 1200) + contribution
    assert p.answer == pytest.approx(balance, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_nest_egg_sustains_the_withdrawal(seed):
    p = get(T + "nest_egg_from_withdrawal_rate").generate(seed)
    spending, pension = dollars(p.question)
    (rate,) = percents(p.question)
    assert p.answer * rate / 100 + pension == pytest.approx(spending, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_employer_match_year_by_year(seed):
    p = get(T + "employer_match").generate(seed)
    q = p.question
    (salary,) = dollars(q)
    own_pct, cap_pct, rate = percents(q)
    per_dollar = 1.0 if "one dollar" in q else int(re.search(r"adds (\d+) cents", q).group(1)) / 100
    matched = salary * min(own_pct, cap_pct) / 100 * per_dollar
    balance = 0.0
    for _ in range(number_after(q, r"balance after (\d+) years?")):
        balance = balance * (1 + rate / 100) + salary * own_pct / 100 + matched
    assert p.answer == pytest.approx(balance, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_required_monthly_saving_reaches_the_target(seed):
    p = get(T + "required_monthly_saving").generate(seed)
    target, current = dollars(p.question)
    (rate,) = percents(p.question)
    balance = current
    for _ in range(12 * number_after(p.question, r"retirement in (\d+) years?")):
        balance = balance * (1 + rate / 1200) + p.answer
    assert balance == pytest.approx(target, abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_retirement_income_by_simulating_both_phases(seed):
    p = get(T + "retirement_income").generate(seed)
    q = p.question
    current, contribution, deposit = dollars(q)
    growth, payout = percents(q)
    age = number_after(q, r"is (\d+) years old")
    retire = number_after(q, r"retiring at age (\d+)")
    deposit_age = number_after(q, r"birthday at age (\d+)")
    years_out = number_after(q, r"over (\d+) years? of retirement")
    balance = current
    for month in range(1, 12 * (retire - age) + 1):
        balance = balance * (1 + growth / 1200) + contribution
        if month == 12 * (deposit_age - age):
            balance += deposit
    assert p.steps[4].value == pytest.approx(balance, abs=0.05)  # the balance at retirement
    drawn = number_after(q, r"the first (\d+) years? of retirement")
    withdrawal = p.steps[6].value
    assert withdrawal == round(withdrawal, 2)  # a payment to the cent
    for month in range(1, 12 * years_out + 1):
        balance = balance * (1 + payout / 1200) - withdrawal
        if month == 12 * drawn:
            assert p.answer == pytest.approx(balance, abs=0.1)  # what is left after those withdrawals
    assert abs(balance) < 1e-4 * p.steps[4].value  # the withdrawal, to the cent, exhausts the account
