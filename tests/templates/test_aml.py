"""Hand checks for the AML templates: each recomputes the answer from the numbers in the question."""

import re

import pytest

from finchain_tasks.engine import get

T = "finance_regulation/aml/"


def money(text: str) -> list[float]:
    """Every dollar amount in ``text``, in order."""
    return [float(m.replace(",", "")) for m in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def percents(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"([\d.]+)%", text)]


@pytest.mark.parametrize("seed", [0, 5, 17, 333])
def test_ctr_by_direction(seed):
    p = get(T + "currency_transaction_report").generate(seed)
    d1, d2, d3, w1, w2, threshold = money(p.question)[:6]
    assert threshold == 10_000
    cash_in = sum([d1, d2, d3])
    cash_out = sum([w1, w2])
    over = {"in": cash_in > threshold, "out": cash_out > threshold}
    expected = {(True, True): "both cash in and cash out", (True, False): "cash in only",
                (False, True): "cash out only", (False, False): "neither"}[(over["in"], over["out"])]
    assert p.answer == expected


@pytest.mark.parametrize("seed", [1, 8, 44])
def test_beneficial_ownership_stake(seed):
    p = get(T + "beneficial_ownership_stake").generate(seed)
    direct, holdco_share, holdco_stake = percents(p.question)
    # as fractions: direct + product of the chain
    assert p.answer == pytest.approx(100 * (direct / 100 + (holdco_share / 100) * (holdco_stake / 100)))


@pytest.mark.parametrize("seed", [2, 9, 71, 400])
def test_structuring_pattern(seed):
    p = get(T + "structuring_pattern").generate(seed)
    deposits = money(p.question)[:5]
    mean = sum(deposits) / len(deposits)
    escalate = sum(deposits) > 10_000 and mean >= 0.92 * 10_000
    assert p.answer == ("escalate" if escalate else "no escalation")
    assert p.steps[1].value == pytest.approx(mean)


@pytest.mark.parametrize("seed", [3, 12, 90, 555])
def test_layered_entity_owner(seed):
    p = get(T + "layered_entity_owner").generate(seed)
    l1, l2, l3, direct, line = percents(p.question)[:5]
    assert line == 25
    effective = direct
    chain = 1.0
    for layer in (l1, l2, l3):
        chain *= layer / 100
    effective += 100 * chain
    assert p.steps[2].value == pytest.approx(effective)
    assert p.answer == ("beneficial owner" if effective >= 25 else "not a beneficial owner")


@pytest.mark.parametrize("seed", [4, 21, 64, 250, 901, 1234])
def test_ctr_and_sar_on_unexpected_cash(seed):
    p = get(T + "ctr_and_sar_on_unexpected_cash").generate(seed)
    expected, mon1, mon2, wed, fri1, *_ = money(p.question)
    euros = float(re.search(r"€([\d,]+(?:\.\d+)?) in euro", p.question).group(1).replace(",", ""))
    fri2 = round(euros * float(re.search(r"at ([\d.]+) dollars per euro", p.question).group(1)), 2)
    documented = money(p.question.split("invoice showing that")[1])[0]
    multiple = float(re.search(r"exceeds ([\d.]+) times", p.question).group(1))
    assert max(mon1, mon2, wed, fri1, fri2) < 10_000  # the question says no single deposit reaches it
    # foreign banknotes count at their dollar equivalent, on the day they are deposited
    daily = {"Monday": mon1 + mon2, "Wednesday": wed, "Friday": fri1 + fri2}
    ctr = any(total > 10_000 for total in daily.values())
    sar = sum(daily.values()) - documented - multiple * expected >= 5_000
    assert p.answer == {(True, True): "CTR and SAR", (True, False): "CTR only",
                        (False, True): "SAR only", (False, False): "no report"}[(ctr, sar)]


def test_ctr_and_sar_outcomes_are_balanced():
    answers = [get(T + "ctr_and_sar_on_unexpected_cash").generate(s).answer for s in range(200)]
    assert {a: answers.count(a) for a in set(answers)}.keys() == {"CTR and SAR", "CTR only", "SAR only", "no report"}
    assert max(answers.count(a) for a in set(answers)) < 0.4 * len(answers)
