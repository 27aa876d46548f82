"""Hand checks for fintech/payment_technologies, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "fintech/payment_technologies/"
SEEDS = [0, 14, 512, 90210]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


def cents(x: float) -> float:
    """Round half up to the cent, as a processor would."""
    return float(int(x * 100 + 0.5 + 1e-9)) / 100


@pytest.mark.parametrize("seed", SEEDS + [1, 2])
def test_bnpl_last_instalment_in_cents(seed):
    p = get(T + "bnpl_instalments").generate(seed)
    price, fee = nums(p.question)[:2]
    n = {"four": 4, "six": 6}[re.search(r"split into (\w+) instalments", p.question).group(1)]
    total_cents = round((price + fee) * 100)
    regular, remainder = divmod(total_cents, n)  # whole cents per instalment and the cents left over
    assert remainder > 0
    assert p.answer == pytest.approx((regular + remainder) / 100, abs=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_interchange_plus_by_component(seed):
    p = get(T + "interchange_plus_fee").generate(seed)
    amount, ic, ic_fixed, network, markup, markup_fixed = nums(p.question)[:6]
    percent = cents(amount * ic / 100 + amount * network / 100 + amount * markup / 100)
    assert p.answer == pytest.approx((percent + ic_fixed + markup_fixed) / amount * 100, rel=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_plan_saving_per_transaction_average(seed):
    p = get(T + "flat_vs_interchange_plus").generate(seed)
    count, volume, flat, flat_fixed, ic, markup, per_txn = nums(p.question)[:7]
    ticket = volume / count
    per_flat = ticket * flat / 100 + flat_fixed
    per_plus = ticket * (ic + markup) / 100 + per_txn
    assert p.answer == pytest.approx(count * (per_flat - per_plus), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_dcc_extra_cost(seed):
    p = get(T + "dynamic_currency_conversion").generate(seed)
    price, rate, ftf, dcc = nums(p.question)[:4]
    dollars = price * rate
    assert p.answer == pytest.approx(dollars * (1 + dcc / 100) - dollars * (1 + ftf / 100), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS + list(range(1, 7)))
def test_chargeback_share_with_fine_rule(seed):
    p = get(T + "chargeback_cost_share").generate(seed)
    q = p.question.replace("0.9%", "").replace("100 disputes", "")
    count, ticket, disputes, cb_fee, pct, fixed, fine = nums(q)[:7]
    cost = sum(ticket + cb_fee + ticket * pct / 100 + fixed for _ in range(int(disputes)))
    fined = disputes * 1000 >= count * 9 and disputes >= 100
    assert p.steps[0].value == pytest.approx(disputes / count * 100, rel=1e-12)
    assert p.answer == pytest.approx((cost + fine * fined) / (count * ticket) * 100, rel=1e-9)
