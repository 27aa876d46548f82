"""Hand checks for the Basel templates, recomputed from the figures printed in each question."""

import re

import pytest

from finchain_tasks.engine import get

T = "finance_regulation/basel/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 6, 29, 810])
def test_cet1_buffer_stack(seed):
    p = get(T + "cet1_buffer_stack").generate(seed)
    gsib, ccyb, minimum, conservation = percents(p.question)[:4]
    assert (minimum, conservation) == (4.5, 2.5)
    rwa, cet1 = money(p.question)
    assert p.answer == ("meets" if cet1 >= rwa * (minimum + conservation + ccyb + gsib) / 100 else "falls short")


@pytest.mark.parametrize("seed", [1, 13, 77])
def test_total_capital_ratio(seed):
    p = get(T + "total_capital_ratio").generate(seed)
    rwa, *layers = money(p.question)
    assert p.answer == pytest.approx(100 * sum(layers) / rwa)


@pytest.mark.parametrize("seed", [2, 14, 300])
def test_standardised_rwa(seed):
    p = get(T + "standardised_rwa").generate(seed)
    *exposures, capital = money(p.question)
    weights = percents(p.question)
    assert weights == [0, 35, 75, 100]
    rwa = sum(e * w / 100 for e, w in zip(exposures, weights, strict=True))
    assert p.answer == pytest.approx(capital / rwa * 100)


@pytest.mark.parametrize("seed", [3, 15, 88])
def test_leverage_exposure_ratio(seed):
    p = get(T + "leverage_exposure_ratio").generate(seed)
    on_balance, derivatives, commitments, cet1, at1 = money(p.question)
    (ccf,) = percents(p.question)
    exposure = on_balance + derivatives + commitments * ccf / 100
    assert p.answer == pytest.approx((cet1 + at1) / exposure * 100)


@pytest.mark.parametrize("seed", [4, 16, 123, 999])
def test_capital_raise_after_shock(seed):
    p = get(T + "capital_raise_after_shock").generate(seed)
    rwa, cet1, loss = money(p.question)
    tax, growth, ccyb, gsib, minimum, conservation = (
        percents(p.question)[0], percents(p.question)[1], percents(p.question)[4],
        percents(p.question)[5], percents(p.question)[2], percents(p.question)[3])
    assert (minimum, conservation) == (4.5, 2.5)
    capital = cet1 - loss + loss * tax / 100  # the tax shield gives back part of the loss
    assert p.steps[1].value == pytest.approx(capital)
    new_rwa = rwa + rwa * growth / 100
    raise_needed = (minimum + conservation + ccyb + gsib) * new_rwa / 100 - capital
    assert p.answer == pytest.approx(raise_needed)
