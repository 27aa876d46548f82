"""Hand checks for leverage ratios: each answer recomputed from the numbers in the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "financial_ratios/leverage_ratios/"
SEEDS = [10, 66, 505, 65536]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_debt_to_equity(seed):
    p = get(T + "debt_to_equity_ratio").generate(seed)
    short, long_, leases, equity = money(p.question)
    assert p.answer == pytest.approx(short / equity + long_ / equity + leases / equity, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_conversion_moves_capital_between_the_two(seed):
    p = get(T + "leverage_after_conversion").generate(seed)
    debt, equity, converted = money(p.question)
    capital = debt + equity  # conversion leaves total capital unchanged
    new_debt = debt - converted
    assert p.answer == pytest.approx(new_debt / (capital - new_debt), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_net_debt_to_ebitda(seed):
    p = get(T + "net_debt_to_ebitda").generate(seed)
    ebit, dep, amort, debt, cash = money(p.question)
    assert p.answer == pytest.approx((debt - cash) / (ebit + dep + amort), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_equity_raise_reaches_the_target(seed):
    p = get(T + "equity_raise_to_target").generate(seed)
    debt, equity = money(p.question)
    (fees,) = percents(p.question)
    target = float(re.search(r"down to (\d+\.\d+)\.", p.question).group(1))
    net = p.answer * (1 - fees)
    assert (debt - net) / (equity + net) == pytest.approx(target, rel=1e-10)


@pytest.mark.parametrize("seed", [*SEEDS, 1, 2, 3, 4])
def test_covenant_decision(seed):
    p = get(T + "acquisition_financing_covenants").generate(seed)
    ebitda, dep, debt, target_ebitda, price = money(p.question)
    old_rate, new_rate = percents(p.question)
    max_lev, min_cover = (float(x) for x in re.findall(r"(\d+\.\d) times", p.question))
    combined = ebitda + target_ebitda
    interest = debt * old_rate + price * new_rate
    assert step(p, "interest") == pytest.approx(interest, rel=1e-12)
    breaches = [(debt + price) / combined > max_lev, (combined - dep) / interest < min_cover]
    assert p.answer == ("equity" if any(breaches) else "debt")
