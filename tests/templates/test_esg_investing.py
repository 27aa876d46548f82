"""Hand checks for sustainable_finance/esg_investing, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "sustainable_finance/esg_investing/"
SEEDS = [0, 6, 222, 4096]


def nums(text: str) -> list[float]:
    """Every number in the question, in order; a minus sign counts when it starts a number."""
    text = text.replace("−", "-")
    return [float(x.replace(",", "")) for x in re.findall(r"(?:(?<=\s)-)?\d[\d,]*(?:\.\d+)?", text)]


def holdings(text: str, count: int) -> list[tuple[float, float, float]]:
    """(weight, score, return) per stock, read in the order the question lists them."""
    values = nums(text)
    return [tuple(values[3 * k:3 * k + 3]) for k in range(count)]


@pytest.mark.parametrize("seed", SEEDS)
def test_pillar_gap(seed):
    p = get(T + "pillar_score_gap").generate(seed)
    e, s, g, we, ws, wg, minimum = nums(p.question)[:7]
    assert we + ws + wg == 100
    composite = sum(w / 100 * x for w, x in [(we, e), (ws, s), (wg, g)])
    assert p.answer == pytest.approx(minimum - composite, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS + [1, 2])
def test_solar_payback_by_cumulative_savings(seed):
    p = get(T + "solar_payback_with_incentives").generate(seed)
    cost, itc, rebate, savings, certificates = nums(p.question)[:5]
    outstanding = cost - cost * itc / 100 - rebate
    years = 0
    while outstanding > savings + certificates:  # whole years of benefit, then the fraction of the last one
        outstanding -= savings + certificates
        years += 1
    assert p.answer == pytest.approx(years + outstanding / (savings + certificates), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_negative_screen_difference(seed):
    p = get(T + "negative_screen_return").generate(seed)
    body, rule = p.question.split("A screened version")
    stocks = holdings(body, 4)
    threshold = nums(rule)[0]
    kept = [(w, r) for w, s, r in stocks if s >= threshold]
    assert len(kept) == 3
    screened = sum(w * r for w, r in kept) / sum(w for w, _ in kept)
    benchmark = sum(w * r for w, _, r in stocks) / 100
    assert p.answer == pytest.approx(screened - benchmark, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_tilt_active_return_by_full_reweighting(seed):
    p = get(T + "best_over_worst_tilt").generate(seed)
    body, rest = p.question.split("An ESG-tilted version moves")
    stocks = holdings(body.replace("three-stock", "three stock"), 3)
    shift = nums(rest)[0]
    best = max(range(3), key=lambda k: stocks[k][1])
    worst = min(range(3), key=lambda k: stocks[k][1])
    weights = [w for w, _, _ in stocks]
    weights[best] += shift
    weights[worst] -= shift
    tilted = sum(w * r for w, (_, _, r) in zip(weights, stocks)) / 100
    benchmark = sum(w * r for w, _, r in stocks) / 100
    assert p.answer == pytest.approx(tilted - benchmark, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_score_tilted_index_with_normalized_weights(seed):
    p = get(T + "score_tilted_index").generate(seed)
    body, rule = p.question.split("An ESG index built on it")
    stocks = holdings(body.replace("one-year", "one year"), 4)
    threshold = nums(rule)[0]
    raw = [(w * s if s >= threshold else 0.0) for w, s, _ in stocks]
    weights = [x / sum(raw) for x in raw]
    index_score = sum(wt * s for wt, (_, s, _) in zip(weights, stocks))
    index_return = sum(wt * r for wt, (_, _, r) in zip(weights, stocks))
    benchmark = sum(w * r for w, _, r in stocks) / 100
    assert p.steps[1].value == pytest.approx(index_score, rel=1e-9)
    assert p.answer == pytest.approx(index_return - benchmark, rel=1e-9)
