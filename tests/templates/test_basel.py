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


@pytest.mark.parametrize("seed", [1, 13, 77, 5])
def test_leverage_ratio(seed):
    p = get(T + "leverage_ratio").generate(seed)
    cet1, at1, on_balance, derivatives, commitments = money(p.question)
    (ccf,) = percents(p.question)
    assert ccf in (10, 40)
    assert p.answer == pytest.approx(100 * (cet1 + at1) / (on_balance + derivatives + commitments * ccf / 100))
    assert 2 < p.answer < 9  # a leverage ratio a bank would report


@pytest.mark.parametrize("seed", [2, 14, 300])
def test_standardised_rwa(seed):
    p = get(T + "standardised_rwa").generate(seed)
    *exposures, market, operational, capital = money(p.question)
    weights = percents(p.question)
    assert weights == [0, 35, 75, 100]
    credit = sum(e * w / 100 for e, w in zip(exposures, weights, strict=True))
    rwa = credit + (market + operational) / 0.08  # a requirement is 8% of the RWA it stands for
    assert p.answer == pytest.approx(capital / rwa * 100)


@pytest.mark.parametrize("seed", [4, 16, 123, 999])
def test_capital_raise_after_shock(seed):
    p = get(T + "capital_raise_after_shock").generate(seed)
    rwa, cet1, loss = money(p.question)
    tax, growth, minimum, conservation, ccyb, gsib = percents(p.question)
    assert (minimum, conservation) == (4.5, 2.5)
    capital = cet1 - loss + loss * tax / 100  # the tax shield gives back part of the loss
    new_rwa = rwa + rwa * growth / 100
    raise_needed = (minimum + conservation + ccyb + gsib) * new_rwa / 100 - capital
    assert p.answer == pytest.approx(raise_needed)


@pytest.mark.parametrize("seed", [5, 17, 124, 998, 4242])
def test_binding_requirement_after_shock(seed):
    p = get(T + "binding_requirement_after_shock").generate(seed)
    cet1, at1, tier2, rwa, on_balance, commitments, loss = money(p.question)
    ccf, tax, growth, r_cet1, r_tier1, r_total, r_leverage = percents(p.question)[:7]
    cet1 -= loss - loss * tax / 100
    rwa *= 1 + growth / 100
    exposure = on_balance + commitments * ccf / 100
    # capital each requirement needs on top of what the bank has, as a table
    needs = {
        "CET1": r_cet1 / 100 * rwa - cet1,
        "Tier 1": r_tier1 / 100 * rwa - (cet1 + at1),
        "total capital": r_total / 100 * rwa - (cet1 + at1 + tier2),
        "leverage": r_leverage / 100 * exposure - (cet1 + at1),
    }
    assert p.steps[0].value == pytest.approx(cet1)
    assert p.steps[6].value == pytest.approx(needs["leverage"])
    assert p.answer == max(needs, key=needs.get)
