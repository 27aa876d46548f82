"""Hand checks for the scenario-planning templates: scenario tables rebuilt and weighted by hand."""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "risk_management/scenario_planning/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) * (-1 if sign else 1)
            for sign, m in re.findall(r"(-?)\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(-?[\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 21, 210])
def test_expected_profit_scenario_by_scenario(seed):
    p = get(T + "expected_profit").generate(seed)
    best, base, worst, fixed = money(p.question)
    p_best, p_base, p_worst, margin = percents(p.question)
    assert p_best + p_base + p_worst == 100
    profits = [rev * margin / 100 - fixed for rev in (best, base, worst)]
    assert p.answer == pytest.approx(sum(w / 100 * x for w, x in zip((p_best, p_base, p_worst), profits, strict=True)))


@pytest.mark.parametrize("seed", [1, 22, 211])
def test_scenario_return_dispersion(seed):
    p = get(T + "scenario_return_dispersion").generate(seed)
    r_best, p_best, r_base, p_base, r_worst, p_worst = percents(p.question)
    probs, rets = [p_best / 100, p_base / 100, p_worst / 100], [r_best, r_base, r_worst]
    second_moment = sum(q * r * r for q, r in zip(probs, rets, strict=True))
    mean = sum(q * r for q, r in zip(probs, rets, strict=True))
    assert p.answer == pytest.approx(math.sqrt(second_moment - mean * mean))


@pytest.mark.parametrize("seed", [2, 23, 212, 2120])
def test_choose_project_by_expected_npv(seed):
    p = get(T + "choose_project_by_expected_npv").generate(seed)
    nb, nm, nw, sb, sm, sw = money(p.question)
    weights = [w / 100 for w in percents(p.question)]
    north = sum(w * x for w, x in zip(weights, (nb, nm, nw), strict=True))
    south = sum(w * x for w, x in zip(weights, (sb, sm, sw), strict=True))
    assert p.answer == ("Project North" if north > south else "Project South")


@pytest.mark.parametrize("seed", [3, 24, 213])
def test_probability_weighted_ecl(seed):
    p = get(T + "probability_weighted_ecl").generate(seed)
    (ead,) = money(p.question)
    lgd, pd_up, w_up, pd_base, w_base, pd_down, w_down = percents(p.question)
    losses = [ead * lgd / 100 * pd / 100 for pd in (pd_up, pd_base, pd_down)]
    assert p.answer == pytest.approx(sum(w / 100 * x for w, x in zip((w_up, w_base, w_down), losses, strict=True)))


@pytest.mark.parametrize("seed", [4, 25, 214, 2140])
def test_abandonment_in_worst_case_by_cash_flow_lists(seed):
    p = get(T + "abandonment_in_worst_case").generate(seed)
    investment, cf_best, cf_base, cf_worst, salvage = money(p.question)
    p_best, p_base, p_worst, rate = percents(p.question)
    years = int(re.search(r"life of (\d+) years", p.question).group(1))

    def npv(flows):
        return -investment + sum(cf / (1 + rate / 100) ** t for t, cf in enumerate(flows, 1))

    keep = npv([cf_worst] * years)
    sell = npv([cf_worst + salvage])
    assert p.steps[4].value == pytest.approx(sell)
    expected = (p_best * npv([cf_best] * years) + p_base * npv([cf_base] * years) + p_worst * max(keep, sell)) / 100
    assert p.answer == pytest.approx(expected)
