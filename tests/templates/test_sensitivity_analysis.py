"""Hand checks for the sensitivity-analysis templates: direct re-evaluation and bumped inputs."""

import re

import pytest

from finchain_tasks.engine import get

T = "risk_management/sensitivity_analysis/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


def count(pattern: str, text: str) -> int:
    return int(re.search(pattern, text).group(1).replace(",", ""))


def npv(investment: float, flow: float, years: int, rate: float) -> float:
    return -investment + sum(flow / (1 + rate / 100) ** t for t in range(1, years + 1))


@pytest.mark.parametrize("seed", [0, 31, 310])
def test_break_even_volume_gives_zero_profit(seed):
    p = get(T + "break_even_volume").generate(seed)
    price, variable, fixed = money(p.question)
    assert p.answer * price - p.answer * variable - fixed == pytest.approx(0, abs=1e-6 * fixed)


@pytest.mark.parametrize("seed", [1, 32, 311])
def test_profit_response_to_volume(seed):
    p = get(T + "profit_response_to_volume").generate(seed)
    units = count(r"sell ([\d,]+) units", p.question)
    price, variable, fixed = money(p.question)
    (drop,) = percents(p.question)

    def profit(q):
        return q * price - q * variable - fixed

    assert p.answer == pytest.approx((profit(units) - profit(units * (1 - drop / 100))) / profit(units) * 100)


@pytest.mark.parametrize("seed", [2, 33, 312, 351])
def test_npv_one_way_sensitivity(seed):
    p = get(T + "npv_one_way_sensitivity").generate(seed)
    investment, flow = money(p.question)
    years = count(r"next (\d+) years", p.question)
    rate, shortfall = percents(p.question)
    base = npv(investment, flow, years, rate)
    low = npv(investment, flow * (1 - shortfall / 100), years, rate)
    assert p.answer == pytest.approx((base - low) / base * 100)


@pytest.mark.parametrize("seed", [3, 34, 313])
def test_multi_factor_position_sensitivity(seed):
    p = get(T + "multi_factor_position_sensitivity").generate(seed)
    bonds, equities, vega = money(p.question)
    duration = float(re.search(r"modified duration ([\d.]+),", p.question).group(1))
    beta = float(re.search(r"beta ([\d.]+),", p.question).group(1))
    bp = count(r"rise by (\d+) basis points", p.question)
    (fall,) = percents(p.question)
    vol = float(re.search(r"rises by ([\d.]+) points", p.question).group(1))
    bonds_after = bonds * (1 - duration * bp / 10_000)
    equities_after = equities * (1 - beta * fall / 100)
    assert p.answer == pytest.approx(bonds_after - bonds + equities_after - equities + vega * vol)


@pytest.mark.parametrize("seed", [4, 35, 314, 3140])
def test_npv_price_elasticity_by_bumping_the_price(seed):
    p = get(T + "npv_price_elasticity").generate(seed)
    investment, price, variable, fixed = money(p.question)
    units = count(r"sell ([\d,]+) units", p.question)
    years = count(r"lasts (\d+) years", p.question)
    tax, rate = percents(p.question)[:2]

    def value(unit_price):
        ebit = units * (unit_price - variable) - fixed - investment / years
        return npv(investment, ebit * (1 - tax / 100) + investment / years, years, rate)

    base = value(price)
    assert p.steps[3].value == pytest.approx(base)
    assert p.answer == pytest.approx((value(price * 1.01) - base) / base * 100)
