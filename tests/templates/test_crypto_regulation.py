"""Hand checks for crypto_finance/crypto_regulation, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/crypto_regulation/"
SEEDS = [0, 3, 77, 2024]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS)
def test_late_filing_penalty_month_by_month(seed):
    p = get(T + "late_filing_penalty").generate(seed)
    gain, rate, months = nums(p.question)[:3]
    tax = gain * rate / 100
    penalty = 0.0
    for _ in range(int(months)):
        penalty = min(penalty + 0.05 * tax, 0.25 * tax)
    assert p.answer == pytest.approx(penalty, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_listing_cost_in_tokens(seed):
    p = get(T + "exchange_listing_cost").generate(seed)
    fee, supply_m, allocation, price = nums(p.question)[:4]
    tokens = supply_m * 1e6 * allocation / 100
    assert p.answer == pytest.approx(fee + tokens * price, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_compliance_budget_share(seed):
    p = get(T + "exchange_compliance_budget").generate(seed)
    license_fee, users, kyc, volume_bn, bps, revenue = nums(p.question)[:6]
    cost = license_fee + users * kyc + volume_bn * 1e9 * bps * 0.0001
    assert p.answer == pytest.approx(cost / revenue * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_underpayment_interest_by_daily_accrual(seed):
    p = get(T + "underpayment_penalty_and_interest").generate(seed)
    income, rate, interest, per_year, days = nums(p.question.replace("20%", ""))[:5]
    assert per_year == 365
    tax = income * rate / 100
    owed = tax
    for _ in range(int(days)):
        owed *= 1 + interest / 100 / 365
    assert p.answer == pytest.approx(owed + 0.2 * tax, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_mica_cost_share_and_own_funds(seed):
    p = get(T + "mica_compliance_cost").generate(seed)
    q = p.question.split("overheads, which were")[1]
    overheads, coc, supervision, users, kyc, prob, fine, revenue = nums(q)[:8]
    own_funds = max(150_000, overheads / 4)
    assert p.steps[0].value == pytest.approx(own_funds, rel=1e-12)
    total = own_funds * coc / 100 + supervision + users * kyc + prob / 100 * fine
    assert p.answer == pytest.approx(total / revenue * 100, rel=1e-9)
