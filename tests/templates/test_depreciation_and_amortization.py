"""Hand checks for depreciation: each answer rebuilt as a year-by-year (or month-by-month) schedule from the
numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "accounting_and_financial_reporting/depreciation_and_amortization/"
SEEDS = [3, 17, 256, 7777]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def whole(pattern: str, text: str) -> int:
    return int(re.search(pattern, text).group(1))


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_straight_line_by_yearly_schedule(seed):
    p = get(T + "straight_line_carrying_amount").generate(seed)
    cost, residual = money(p.question)
    life, used = whole(r"useful life of (\d+) year", p.question), whole(r"after (\d+) years? of use", p.question)
    book = cost
    for _ in range(used):
        book -= (cost - residual) / life
    assert p.answer == pytest.approx(book, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_sum_of_years_digits_schedule(seed):
    p = get(T + "sum_of_years_digits_charge").generate(seed)
    cost, salvage = money(p.question)
    life, year = whole(r"useful life of (\d+) year", p.question), whole(r"in year (\d+)", p.question)
    digits = list(range(life, 0, -1))
    schedule = [(cost - salvage) * d / sum(digits) for d in digits]
    assert sum(schedule) == pytest.approx(cost - salvage)
    assert p.answer == pytest.approx(schedule[year - 1], rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_double_declining_balance_by_loop(seed):
    p = get(T + "double_declining_balance").generate(seed)
    cost, _salvage = money(p.question)
    life, year = whole(r"useful life of (\d+) year", p.question), whole(r"for year (\d+)", p.question)
    book, charge = cost, 0.0
    for _ in range(year):
        charge = book * 2 / life
        book -= charge
    assert p.answer == pytest.approx(charge, abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_disposal_by_monthly_charges(seed):
    p = get(T + "disposal_gain_or_loss").generate(seed)
    cost, residual, proceeds = money(p.question)
    life = whole(r"useful life of (\d+) year", p.question)
    start = MONTHS.index(re.search(r"on 1 (\w+) of year 1", p.question).group(1))
    m = re.search(r"end of (\w+) in year (\d+)", p.question)
    end = (int(m.group(2)) - 1) * 12 + MONTHS.index(m.group(1))
    book = cost
    for _ in range(start, end + 1):
        book -= (cost - residual) / life / 12
    assert p.answer == pytest.approx(proceeds - book, abs=0.05)  # the solution rounds amounts to the cent


@pytest.mark.parametrize("seed", SEEDS)
def test_impairment_reversal_by_schedule(seed):
    p = get(T + "impairment_and_reversal").generate(seed)
    cost, fvlcd, viu, recovered = money(p.question)
    life = whole(r"over (\d+) years?\.", p.question)
    k = whole(r"end of (\d+) years? of use", p.question)
    later = whole(r"(\d+) years? later", p.question)
    book = [cost - cost / life * t for t in range(life + 1)]  # the no-impairment path
    recoverable = fvlcd if fvlcd > viu else viu
    assert step(p, "loss") == pytest.approx(book[k] - recoverable, rel=1e-9)
    carrying = recoverable
    for _ in range(later):
        carrying -= recoverable / (life - k)
    target = recovered if recovered < book[k + later] else book[k + later]
    assert p.answer == pytest.approx(target - carrying, abs=0.05)  # the solution rounds amounts to the cent


def test_impairment_reversal_ceiling_binds_in_some_draws_and_not_others():
    binds = 0
    for seed in range(200):
        p = get(T + "impairment_and_reversal").generate(seed)
        binds += step(p, "ceiling") < p.params["new_recoverable"]
    assert 20 < binds < 180
