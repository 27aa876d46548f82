"""Hand checks for earnings per share: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "corporate_finance/earnings_per_share/"
SEEDS = [6, 31, 412, 8080]
MONTHS_LEFT = {"February": 11, "March": 10, "April": 9, "May": 8, "June": 7, "July": 6, "August": 5,
               "September": 4, "October": 3, "November": 2}
SPLITS = {"2-for-1": 2, "3-for-1": 3, "3-for-2": 1.5, "4-for-1": 4, "5-for-4": 1.25}


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def millions(text: str) -> list[float]:
    return [float(x.replace(",", "")) * 1e6 for x in re.findall(r"([\d.,]+) million shares", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_basic_eps(seed):
    p = get(T + "basic_eps_with_preferred").generate(seed)
    net_income, quarterly = money(p.question)
    (shares,) = millions(p.question)
    earnings = net_income
    for _quarter in range(4):
        earnings -= quarterly
    assert p.answer == pytest.approx(earnings / shares, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_split_divides_old_eps_by_the_ratio(seed):
    p = get(T + "eps_after_stock_split").generate(seed)
    (net_income,) = money(p.question)
    (shares,) = millions(p.question)
    ratio = SPLITS[re.search(r"(\d-for-\d)", p.question).group(1)]
    assert p.answer == pytest.approx(net_income / shares / ratio, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_shares_month_by_month(seed):
    p = get(T + "weighted_average_shares_eps").generate(seed)
    counts = [int(x.replace(",", "")) for x in re.findall(r"([\d,]+) shares", p.question)]
    opening, issued, bought = counts
    issue_month, buyback_month = re.findall(r"on 1 (\w+)", p.question)[1:3]
    net_income, preferred = money(p.question)
    monthly = []
    outstanding = opening
    for month in range(12, 0, -1):  # months left in the year at the start of each month
        if month == MONTHS_LEFT.get(issue_month):
            outstanding += issued
        if month == MONTHS_LEFT.get(buyback_month):
            outstanding -= bought
        monthly.append(outstanding)
    assert p.answer == pytest.approx((net_income - preferred) / (sum(monthly) / 12), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_treasury_stock_method(seed):
    p = get(T + "diluted_eps_treasury_stock").generate(seed)
    net_income, price, strike = money(p.question)
    shares, options = millions(p.question)
    proceeds = options * strike
    assert p.answer == pytest.approx(net_income / (shares + options - proceeds / price), rel=1e-10)
    assert p.answer < net_income / shares


@pytest.mark.parametrize("seed", SEEDS)
def test_diluted_eps_with_convertibles(seed):
    p = get(T + "diluted_eps_with_convertibles").generate(seed)
    net_income, preferred, price, strike, face, _thousand = money(p.question)
    shares, options = millions(p.question)
    coupon, tax = percents(p.question)
    per_bond = float(re.search(r"convertible into ([\d.]+) shares", p.question).group(1))
    bonds = face / 1000
    basic = (net_income - preferred) / shares
    assert step(p, "basic_eps") == pytest.approx(basic, rel=1e-12)
    interest_after_tax = face * coupon - face * coupon * tax
    assert interest_after_tax / (bonds * per_bond) < basic  # the bonds are dilutive
    diluted = (net_income - preferred + interest_after_tax) / (shares + options * (price - strike) / price
                                                                 + bonds * per_bond)
    assert p.answer == pytest.approx(diluted, rel=1e-10)
