"""Hand checks for the deal-structure templates, recomputed from the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "mergers_and_acquisitions/deal_structure/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def shares(text: str) -> list[int]:
    return [int(m.replace(",", "")) for m in re.findall(r"([\d,]{5,}) shares", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 2, 20])
def test_exchange_ratio_shares(seed):
    p = get(T + "exchange_ratio_shares").generate(seed)
    offer, price = money(p.question)
    (target_shares,) = shares(p.question)
    # the value handed over, in acquirer shares at the acquirer's price
    assert p.answer == pytest.approx(offer * target_shares / price)


@pytest.mark.parametrize("seed", [1, 3, 21])
def test_earn_out_consideration(seed):
    p = get(T + "earn_out_consideration").generate(seed)
    upfront, target, actual = money(p.question)
    multiple = float(re.search(r"receive ([\d.]+) times", p.question).group(1))
    assert p.answer == pytest.approx(upfront + multiple * actual - multiple * target)


@pytest.mark.parametrize("seed", [4, 22, 222])
def test_mixed_consideration_ownership(seed):
    p = get(T + "mixed_consideration_ownership").generate(seed)
    offer, acquirer_price = money(p.question)
    target_shares, acquirer_shares = shares(p.question)
    (cash_pct,) = percents(p.question)
    new = target_shares * offer * (100 - cash_pct) / 100 / acquirer_price
    assert p.answer == pytest.approx(100 / (1 + acquirer_shares / new))


@pytest.mark.parametrize("seed", [5, 23, 223])
def test_fixed_value_vs_fixed_ratio(seed):
    p = get(T + "fixed_value_vs_fixed_ratio").generate(seed)
    (price,) = money(p.question)
    ratio = float(re.search(r"offers ([\d.]+) of its shares", p.question).group(1))
    (target_shares,) = shares(p.question)
    (drop,) = percents(p.question)
    # fixed value needs ratio / (1 - drop) shares per target share instead of ratio
    extra = target_shares * ratio * (1 / (1 - drop / 100) - 1)
    assert p.answer == pytest.approx(extra)
    assert price > 0


@pytest.mark.parametrize("seed", [6, 24, 224, 2224])
def test_deal_premium_with_earn_out(seed):
    p = get(T + "deal_premium_with_earn_out").generate(seed)
    target_price, cash, acquirer_price, earn_out = money(p.question)
    (n,) = shares(p.question)
    ratio = float(re.search(r"plus ([\d.]+) ", p.question).group(1))
    probability, discount = percents(p.question)
    years = int(re.search(r"paid in (\d) years", p.question).group(1))
    pv = earn_out * probability / 100
    for _ in range(years):
        pv /= 1 + discount / 100
    assert p.steps[3].value == pytest.approx(pv)
    per_share = cash + ratio * acquirer_price + pv / n
    assert p.answer == pytest.approx((per_share / target_price - 1) * 100)
