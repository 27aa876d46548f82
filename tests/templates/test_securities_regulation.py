"""Hand checks for the securities-regulation templates, recomputed from the question text."""

import re

import pytest

from finchain_tasks.engine import get

T = "finance_regulation/securities_regulation/"


def money(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def count(pattern: str, text: str) -> int:
    return int(re.search(pattern, text).group(1).replace(",", ""))


@pytest.mark.parametrize("seed", [0, 3, 33, 303])
def test_beneficial_ownership_filing(seed):
    p = get(T + "beneficial_ownership_filing").generate(seed)
    held = count(r"bought ([\d,]+) shares", p.question)
    outstanding = count(r"has ([\d,]+) shares outstanding", p.question)
    assert p.answer == ("file Schedule 13D" if held * 20 > outstanding else "no filing")  # held/outstanding > 1/20


@pytest.mark.parametrize("seed", [1, 4, 34, 304])
def test_insider_trading_penalty(seed):
    p = get(T + "insider_trading_penalty").generate(seed)
    shares = count(r"(?:buys|sells) ([\d,]+) shares?", p.question)
    before, after = money(p.question)
    benefit = shares * after - shares * before if "buys" in p.question else shares * before - shares * after
    assert benefit > 0
    assert p.answer == pytest.approx(benefit + benefit + benefit)


@pytest.mark.parametrize("seed", [2, 5, 35, 305])
def test_rule_144_volume_limit(seed):
    p = get(T + "rule_144_volume_limit").generate(seed)
    proposed = count(r"sell ([\d,]+) shares", p.question)
    outstanding = count(r"has ([\d,]+) shares outstanding", p.question)
    weeks = [int(w.replace(",", "")) for w in
             re.search(r"was ([\d,]+), ([\d,]+), ([\d,]+) and ([\d,]+) shares", p.question).groups()]
    limit = sorted([outstanding * 0.01, sum(weeks) / 4])[-1]
    assert p.answer == ("within the limit" if proposed <= limit else "exceeds the limit")


@pytest.mark.parametrize("seed", [6, 36, 306])
def test_reg_a_investment_limit(seed):
    p = get(T + "reg_a_investment_limit").generate(seed)
    amount, income, net_worth = money(p.question)
    assert p.answer == ("allowed" if amount * 10 <= sorted([income, net_worth])[-1] else "over the limit")


@pytest.mark.parametrize("seed", [7, 37, 307, 3007, 4242, 5])
def test_schedule_13d_or_13g(seed):
    p = get(T + "schedule_13d_or_13g").generate(seed)
    a = count(r"fund A holds ([\d,]+) shares", p.question)
    w = count(r"for another ([\d,]+) shares", p.question)
    b_ = count(r"fund B holds ([\d,]+) shares", p.question)
    c = count(r"fund C holds ([\d,]+) shares", p.question)
    outstanding = count(r"has ([\d,]+) shares outstanding", p.question)
    note = count(r"and an? \$([\d,]+) note convertible", p.question)
    price = float(re.search(r"convertible at any time at \$([\d.]+) a share", p.question).group(1))
    w += int(note // price)  # conversion rights count like warrants: whole shares
    owned = (a + b_ + c + w) / (outstanding + w)
    investor = p.question.split(". It has sole voting")[0]
    if owned <= 0.05:
        expected = "no filing"
    elif "activist" in investor or ("passive investor" in investor and owned >= 0.20):
        expected = "Schedule 13D"
    else:  # a qualified institutional investor at any level, a passive one below 20%
        expected = "Schedule 13G"
    assert p.answer == expected


def test_schedule_13d_or_13g_answers_are_balanced():
    answers = [get(T + "schedule_13d_or_13g").generate(s).answer for s in range(150)]
    assert set(answers) == {"no filing", "Schedule 13G", "Schedule 13D"}
    assert max(map(answers.count, set(answers))) < 0.5 * len(answers)
