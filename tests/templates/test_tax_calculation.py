"""Hand checks: each tax template by a bracket table walk, a subtraction-amount formula or a finite difference."""

import pytest

from finchain_tasks.engine import get

T = "personal_finance/tax_calculation/"


def table_tax(income, thresholds, rates):
    """Walk the bracket table: tax each slice of income between consecutive thresholds at its rate."""
    tax, lower = 0.0, 0.0
    for upper, rate in zip([*thresholds, float("inf")], rates):
        if income > lower:
            tax += (min(income, upper) - lower) * rate / 100
        lower = upper
    return tax


def schedule(x, count):
    return [x[f"t{k}"] for k in range(1, count)], [x[f"r{k}"] for k in range(1, count + 1)]


@pytest.mark.parametrize("seed", [0, 3, 10, 25])
def test_two_bracket_tax_by_subtraction_amount(seed):
    p = get(T + "two_bracket_tax").generate(seed)
    x = p.params
    income, t, lo, hi = x["income"], x["threshold"], x["low_rate"], x["high_rate"]
    expected = income * hi / 100 - t * (hi - lo) / 100 if income > t else income * lo / 100
    assert p.answer == pytest.approx(expected, rel=1e-12)


def test_capital_gains_tax_covers_both_holding_periods():
    seen = set()
    for seed in range(30):
        p = get(T + "capital_gains_tax").generate(seed)
        x = p.params
        proceeds, basis = x["shares"] * x["sell_price"], x["shares"] * x["buy_price"]
        long_term = x["holding_months"] >= 13
        seen.add(long_term)
        rate = x["lt_rate"] if long_term else x["st_rate"]
        assert p.answer == pytest.approx((proceeds - basis) * rate / 100, rel=1e-9)
    assert seen == {True, False}


@pytest.mark.parametrize("seed", [1, 4, 17])
def test_tax_after_standard_deduction_by_table_walk(seed):
    p = get(T + "tax_after_standard_deduction").generate(seed)
    x = p.params
    assert p.answer == pytest.approx(table_tax(x["gross"] - x["deduction"], *schedule(x, 3)), rel=1e-12)


@pytest.mark.parametrize("seed", [2, 9, 33, 60])
def test_marginal_vs_effective_by_finite_difference(seed):
    p = get(T + "marginal_vs_effective").generate(seed)
    x = p.params
    thresholds, rates = schedule(x, 4)
    income = x["income"]
    marginal = (table_tax(income, thresholds, rates) - table_tax(income - 1, thresholds, rates)) * 100
    effective = table_tax(income, thresholds, rates) / income * 100
    assert p.answer == pytest.approx(marginal - effective, rel=1e-9)


@pytest.mark.parametrize("seed", [5, 12, 44])
def test_tax_with_deductions_and_credits_by_table_walk(seed):
    p = get(T + "tax_with_deductions_and_credits").generate(seed)
    x = p.params
    deduction = x["itemized"] if x["itemized"] > x["standard"] else x["standard"]
    taxable = x["salary"] - x["pretax"] - deduction
    owed = table_tax(taxable, *schedule(x, 3)) - x["children"] * x["credit_per_child"]
    owed = owed if owed > 0 else 0.0
    assert p.answer == pytest.approx(100 * owed / x["salary"], rel=1e-9, abs=1e-12)
