"""Hand checks for the due-diligence templates: the price built up as a sources-and-uses ledger."""

import re

import pytest

from finchain_tasks.engine import get

T = "mergers_and_acquisitions/due_diligence/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def number(pattern: str, text: str) -> float:
    return float(re.search(pattern, text).group(1))


@pytest.mark.parametrize("seed", [0, 10, 100])
def test_normalized_ebitda(seed):
    p = get(T + "normalized_ebitda").generate(seed)
    reported, litigation, restructuring, gain = money(p.question)
    ledger = [reported, litigation, restructuring, -gain]
    assert p.answer == pytest.approx(sum(ledger))


@pytest.mark.parametrize("seed", [1, 11, 101, 1001])
def test_working_capital_true_up(seed):
    p = get(T + "working_capital_true_up").generate(seed)
    price, peg, receivables, inventory, payables = money(p.question)
    assert p.answer == pytest.approx(price - peg + receivables + inventory - payables)


@pytest.mark.parametrize("seed", [2, 12, 102])
def test_equity_value_bridge(seed):
    p = get(T + "equity_value_bridge").generate(seed)
    ebitda, debt, cash, pension = money(p.question)
    multiple = number(r"at ([\d.]+) times", p.question)
    tax = number(r"at ([\d.]+)%", p.question)
    uses = {"debt": debt, "pension": pension - pension * tax / 100}
    assert p.answer == pytest.approx(multiple * ebitda + cash - sum(uses.values()))


@pytest.mark.parametrize("seed", [3, 13, 103])
def test_owner_compensation_normalization(seed):
    p = get(T + "owner_compensation_normalization").generate(seed)
    reported, owner, market_pay, rent, market_rent = money(p.question)
    multiple = number(r"multiple of ([\d.]+),", p.question)
    normalized = reported - market_pay + owner - market_rent + rent
    assert p.answer == pytest.approx(multiple * normalized - multiple * reported)


@pytest.mark.parametrize("seed", [4, 14, 104, 1004])
def test_completion_accounts_price(seed):
    p = get(T + "completion_accounts_price").generate(seed)
    peg, reported, one_offs, debt, cash, trapped, bonuses, closing_nwc = money(p.question)
    multiple = number(r"pay ([\d.]+) times", p.question)
    withholding = number(r"after an? (\d+)% withholding", p.question) / 100
    tax = number(r"net of the (\d+)% tax deduction", p.question) / 100
    ev = multiple * (reported + one_offs)
    assert p.steps[1].value == pytest.approx(ev)
    cash_counted = (cash - trapped) + trapped * (1 - withholding)  # free cash in full, trapped cash net of the tax
    assert p.answer == pytest.approx(ev + cash_counted - debt - bonuses * (1 - tax) + (closing_nwc - peg))
