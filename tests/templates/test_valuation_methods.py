"""Hand checks for the M&A valuation templates, recomputed from the question text."""

import re
import statistics

import pytest

from finchain_tasks.engine import get

T = "mergers_and_acquisitions/valuation_methods/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 7, 77, 700])
def test_ev_revenue_comparables(seed):
    p = get(T + "ev_revenue_comparables").generate(seed)
    multiples = [float(m) for m in re.findall(r"([\d.]+)x", p.question)]
    revenue, _loss, cash = money(p.question)
    assert len(multiples) == 4
    # the mean of the peers' EVs per dollar of revenue, applied to the target, plus its cash
    assert p.answer == pytest.approx(sum(m * revenue for m in multiples) / 4 + cash)


@pytest.mark.parametrize("seed", [1, 8, 78])
def test_pe_comparables_price(seed):
    p = get(T + "pe_comparables_price").generate(seed)
    ratios = [float(m) for m in re.search(r"ratios of ([\d.]+), ([\d.]+) and ([\d.]+)\.", p.question).groups()]
    (eps,) = money(p.question)
    assert p.answer == pytest.approx(statistics.fmean(ratios) * eps)


@pytest.mark.parametrize("seed", [2, 9, 79, 259])
def test_precedent_transactions_price(seed):
    p = get(T + "precedent_transactions_price").generate(seed)
    ev1, ev2, ev3, e1, e2, e3, ebitda, net_debt = money(p.question)
    shares = int(re.search(r"([\d,]+) shares", p.question).group(1).replace(",", ""))
    multiple = statistics.fmean([ev1 / e1, ev2 / e2, ev3 / e3])
    assert p.answer == pytest.approx((multiple * ebitda - net_debt) / shares)


@pytest.mark.parametrize("seed", [3, 10, 80])
def test_dcf_enterprise_value_against_long_sum(seed):
    p = get(T + "dcf_enterprise_value").generate(seed)
    f1, f2, f3 = money(p.question)
    growth, wacc = percents(p.question)
    flows = [f1, f2, f3] + [f3 * (1 + growth / 100) ** t for t in range(1, 6_000)]
    value, factor = 0.0, 1.0
    for flow in flows:
        factor /= 1 + wacc / 100
        value += flow * factor
    assert p.answer == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("seed", [4, 11, 81, 810])
def test_lbo_sponsor_returns_by_yearly_schedule(seed):
    p = get(T + "lbo_sponsor_returns").generate(seed)
    ebitda, paydown = money(p.question)
    entry, leverage, exit_multiple = [float(m) for m in re.findall(r"([\d.]+)x", p.question)]
    (growth,) = percents(p.question)
    years = int(re.search(r"after (\d) years", p.question).group(1))
    debt = leverage * ebitda
    equity = entry * ebitda - debt
    for _ in range(years):
        ebitda *= 1 + growth / 100
        debt -= paydown
    proceeds = exit_multiple * ebitda - debt
    assert p.steps[4].value == pytest.approx(proceeds)
    irr = p.answer / 100
    assert equity * (1 + irr) ** years == pytest.approx(proceeds)
