"""Hand checks for option pricing: payoffs with max(), parity the other way round, replicating portfolios,
a numerical risk-neutral integral for Black-Scholes and a full backward-induction tree."""

import math
import re

import pytest

from finchain_tasks.engine import get

T = "financial_markets/option_pricing/"
SEEDS = [16, 256, 4000, 99999]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(x) / 100 for x in re.findall(r"([\d.]+)%", text)]


def years(text: str) -> float:
    return int(re.search(r"in (\d+) months", text).group(1)) / 12


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_profit_at_expiry(seed):
    p = get(T + "option_profit_at_expiry").generate(seed)
    strike, premium, spot = money(p.question)
    contracts = int(re.search(r"buys (\d+) contracts?", p.question).group(1))
    payoff = max(spot - strike, 0) if " call options" in p.question else max(strike - spot, 0)
    assert p.answer == pytest.approx((payoff - premium) * 100 * contracts, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_put_call_parity_holds_both_ways(seed):
    p = get(T + "put_from_put_call_parity").generate(seed)
    spot, strike, call = money(p.question)
    (rate,) = percents(p.question)
    # a call minus a put is a forward: c − p = S − K e^(−rT)
    assert call - p.answer == pytest.approx(spot - strike / math.exp(rate * years(p.question)), rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_one_step_tree_by_replication(seed):
    p = get(T + "one_step_binomial_call").generate(seed)
    spot, strike = money(p.question)
    up, down, rate = percents(p.question)
    t = years(p.question)
    s_up, s_down = spot * (1 + up), spot * (1 - down)
    delta = (max(s_up - strike, 0) - max(s_down - strike, 0)) / (s_up - s_down)
    bond = (max(s_down - strike, 0) - delta * s_down) * math.exp(-rate * t)  # riskless part of the replica
    assert p.answer == pytest.approx(delta * spot + bond, rel=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_black_scholes_by_risk_neutral_integral(seed):
    p = get(T + "black_scholes_call").generate(seed)
    spot, strike = money(p.question)
    vol, rate = percents(p.question)
    t = years(p.question)
    n, lo, hi = 20_000, -9.0, 9.0
    h, total = (hi - lo) / n, 0.0
    for i in range(n + 1):  # Simpson's rule over the standard normal shock z
        z = lo + i * h
        end = spot * math.exp((rate - vol**2 / 2) * t + vol * math.sqrt(t) * z)
        weight = 1 if i in (0, n) else (4 if i % 2 else 2)
        total += weight * max(end - strike, 0) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    assert p.answer == pytest.approx(math.exp(-rate * t) * total * h / 3, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_two_step_tree_by_backward_induction(seed):
    p = get(T + "two_step_tree_delta_hedge").generate(seed)
    strike, spot = money(p.question)
    vol, rate = percents(p.question)
    contracts = int(re.search(r"writes (\d+) contracts?", p.question).group(1))
    dt = years(p.question) / 2
    u = math.exp(vol * math.sqrt(dt))
    q = (math.exp(rate * dt) - 1 / u) / (u - 1 / u)
    values = [max(spot * u ** (2 - 2 * j) - strike, 0) for j in range(3)]  # uu, ud, dd
    for _ in range(2):
        values = [math.exp(-rate * dt) * (q * a + (1 - q) * b) for a, b in zip(values, values[1:])]
    up_value = math.exp(-rate * dt) * (q * max(spot * u * u - strike, 0) + (1 - q) * max(spot - strike, 0))
    down_value = math.exp(-rate * dt) * (q * max(spot - strike, 0))
    delta = (up_value - down_value) / (spot * u - spot / u)
    assert step(p, "delta") == pytest.approx(delta, rel=1e-10)
    assert p.answer == pytest.approx((delta * spot - values[0]) * 100 * contracts, rel=1e-10)
