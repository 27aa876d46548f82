"""Hand checks for the compliance templates: ledgers and loops over the question's own figures."""

import re

import pytest

from finchain_tasks.engine import get

T = "finance_regulation/compliance/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def first_int(pattern: str, text: str) -> int:
    return int(re.search(pattern, text).group(1))


@pytest.mark.parametrize("seed", [0, 8, 61])
def test_tiered_violation_fine_by_ledger(seed):
    p = get(T + "tiered_violation_fine").generate(seed)
    count = first_int(r"file (\d+) required", p.question)
    limit = first_int(r"first (\d+) violation", p.question)
    rate1, rate2 = money(p.question)
    fine = sum(rate1 if k <= limit else rate2 for k in range(1, count + 1))
    assert p.answer == pytest.approx(fine)


@pytest.mark.parametrize("seed", [1, 9, 62, 404])
def test_fca_penalty_steps(seed):
    p = get(T + "fca_penalty_steps").generate(seed)
    revenue = float(re.search(r"£([\d,]+(?:\.\d+)?)", p.question).group(1).replace(",", ""))
    level = first_int(r"seriousness level (\d)", p.question)
    share = {2: 5, 3: 10, 4: 15, 5: 20}[level]
    assert f"takes {share}%" in p.question
    uplift = float(re.search(r"by ([\d.]+)% for aggravating", p.question).group(1))
    penalty = revenue * share / 100
    penalty += penalty * uplift / 100
    penalty -= penalty * 0.30
    assert p.answer == pytest.approx(penalty)


@pytest.mark.parametrize("seed", [2, 10, 63])
def test_late_filing_escalation_day_by_day(seed):
    p = get(T + "late_filing_escalation").generate(seed)
    base, daily1, daily2 = money(p.question)
    days = first_int(r"(\d+) days late", p.question)
    surcharge = float(re.search(r"surcharge of ([\d.]+)%", p.question).group(1))
    due = base
    for day in range(1, days + 1):
        due += daily1 if day <= 30 else daily2
    assert p.answer == pytest.approx(due * (100 + surcharge) / 100)


@pytest.mark.parametrize("seed", [3, 11, 64])
def test_escalating_daily_penalty_by_loop(seed):
    p = get(T + "escalating_daily_penalty").generate(seed)
    first, increment = money(p.question)
    days = first_int(r"by (\d+) days", p.question)
    total, today = 0.0, first
    for _ in range(days):
        total += today
        today += increment
    assert p.answer == pytest.approx(total)


@pytest.mark.parametrize("seed", [4, 12, 65, 777])
def test_penalty_with_compliance_record(seed):
    p = get(T + "penalty_with_compliance_record").generate(seed)
    scores = [float(s) for s in re.findall(r"(?:oversight|controls|screening|reporting) (\d\.\d)", p.question)]
    weights = [float(w) for w in re.findall(r"weighted (\d+)%, (\d+)%, (\d+)% and (\d+)%", p.question)[0]]
    assert len(scores) == 4 and sum(weights) == 100
    composite = sum(w * s for w, s in zip(weights, scores, strict=True)) / 100
    revenue, benefit = [float(x.replace(",", "")) for x in re.findall(r"£([\d,]+)", p.question)][:2]
    pct = float(re.search(r"(\d+)% at level", p.question).group(1))
    factor = 0.9 if composite < 2 else (1.1 if composite < 3 else 1.3)
    assert p.answer == pytest.approx(benefit + revenue * pct / 100 * factor * 0.7, abs=0.01)
