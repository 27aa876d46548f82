"""Hand checks for cash flow statements: each answer recomputed from the question's numbers as a cash ledger."""

import re

import pytest

from finchain_tasks.engine import get

T = "accounting_and_financial_reporting/cash_flow_statements/"
SEEDS = [1, 42, 500, 4096]


def money(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def step(problem, name: str) -> float:
    return next(s.value for s in problem.steps if s.name == name)


@pytest.mark.parametrize("seed", SEEDS)
def test_closing_cash_by_ledger(seed):
    p = get(T + "closing_cash_balance").generate(seed)
    operating, investing, financing, opening = money(p.question)
    ledger = [opening, operating, -investing, -financing]
    assert p.answer == pytest.approx(sum(ledger), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_tax_paid_from_the_payable_account(seed):
    p = get(T + "income_taxes_paid").generate(seed)
    pretax, opening, closing = money(p.question)
    rate = float(re.search(r"at (\d+)%", p.question).group(1)) / 100
    # T-account: the payable's credits (opening + charge) less its closing balance were settled in cash
    credits = opening + pretax * rate
    assert p.answer == pytest.approx(credits - closing, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_operating_cash_flow_indirect(seed):
    p = get(T + "operating_cash_flow_indirect").generate(seed)
    ni, dep, gain, r0, r1, i0, i1, p0, p1 = money(p.question)
    working_capital_released = (r0 - r1) + (i0 - i1) + (p1 - p0)
    assert p.answer == pytest.approx(ni + dep - gain + working_capital_released, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_financing_flows_by_ledger(seed):
    p = get(T + "financing_cash_flows").generate(seed)
    shares, bonds, repaid, lease, declared, d0, d1, _interest = money(p.question)
    dividends_paid = declared - (d1 - d0)
    ledger = [shares, bonds, -repaid, -lease, -dividends_paid]
    assert p.answer == pytest.approx(sum(ledger), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_group_closing_cash_with_an_acquisition(seed):
    p = get(T + "acquisition_in_cash_flow").generate(seed)
    (paid, cash_in_target, r0, r1, r_acq, i0, i1, i_acq, ni, dep, capex, dividends,
     opening) = money(p.question)
    assert step(p, "acquisition_outflow") == pytest.approx(paid - cash_in_target, rel=1e-12)
    ledger = {
        "opening": opening, "net income": ni, "depreciation": dep,
        "receivables": -((r1 - r_acq) - r0), "inventory": -((i1 - i_acq) - i0),
        "equipment": -capex, "acquisition": -paid, "cash acquired": cash_in_target, "dividends": -dividends,
    }
    assert p.answer == pytest.approx(sum(ledger.values()), rel=1e-12)
