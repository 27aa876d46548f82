"""Issue 38: the sign a final answer states (direction words, restatements, magnitude-kind golds), a
verdict before a bare answer code, and ``fac_strict`` (within rounding) beside ``fac``. One table per
rule, edges included; every row was written here, none copied from a model's output."""

from __future__ import annotations

import pytest

from scorers.answers import answer_kind
from scorers.chaineval import gold_from_text
from scorers.gate import answer_correct, half_unit
from scorers.numbers import parse_number
from scorers.params import resolve
from scorers.records import MAGNITUDE
from scorers.steps import parse_output

REFERENCE = resolve("reference")


def _fac(text: str, gold, kind: str = "", unit: str = "", strict: bool = False) -> bool:
    p = parse_output(text)
    return answer_correct(gold, unit, p.final_answer, p.final_answer_text, REFERENCE, p.conclusion, kind,
                          strict=strict)


@pytest.mark.parametrize(("text", "value"), [
    ("The portfolio value is expected to decrease by approximately $7.88.", -7.88),
    ("The portfolio value decreases by $660.19.", -660.19),
    ("The company reported a net loss of $500.", -500.0),
    ("The fund lost $1,200 over the quarter.", -1200.0),
    ("The stock price goes down by 3.1%.", -3.1),
    ("Revenue falls short of the target by 2.5%.", -2.5),
    ("Actual emissions fall short by 4,000 tonnes.", -4000.0),
    ("The firm runs a deficit of $300.", -300.0),
    ("The margin shrinks by 1.2 percentage points.", -1.2),
    ("The new price is $7.88 lower than before.", -7.88),
    ("The value declined by about 4%.", -4.0),
    # edges: a level, not a change; a rise; a named loss; a figure that carries its own sign
    ("The price falls to $90.", 90.0),
    ("The value will increase by $5.", 5.0),
    ("The impairment loss of $16,922.51 is reported this year.", 16922.51),
    ("The value decreases by −$7.88.", -7.88),
    ("The value decreases by -$7.88.", -7.88),
    # accounting parentheses after a stating verb are a minus; an enumerator or an aside is not
    ("The net income is (7.88).", -7.88),
    ("The net income is ($1,200).", -1200.0),
    ("The total is $500 (after tax).", 500.0),
])
def test_rule_direction_word_gives_an_unsigned_figure_its_sign(text, value):
    assert parse_output(text).final_answer.value == pytest.approx(value)


@pytest.mark.parametrize(("text", "gold", "right"), [
    ("The portfolio changes by −$660.19, meaning it decreases by $660.19.", -660.19, True),
    ("The change is −$128.67. This means the portfolio value decreases by $128.67.", -128.67, True),
    ("Since the change is negative, the company must decrease its debt by USD157.46 billion.\n\nThe answer is: 157.46",
     -157.46e9, True),
    ("The net benefit is -$58,323.\nThe answer is: 58323", -58323.0, True),
    # contradicting signs stay wrong: the output says the value rises
    ("The portfolio value will increase by $5.", -5.0, False),
    ("The portfolio value is $5 higher.", -5.0, False),
    # a wrong sign is wrong where the gold is not a magnitude
    ("The net income is $500.", -500.0, False),
])
def test_rule_a_signed_figure_and_its_restatement_are_one_answer(text, gold, right):
    assert _fac(text, gold) is right


@pytest.mark.parametrize(("question", "kind"), [
    ("What is the 97.5% VaR of the portfolio?", MAGNITUDE),
    ("Compute the one-day 99% value at risk.", MAGNITUDE),
    ("What is the expected shortfall at 95%?", MAGNITUDE),
    ("What is the maximum drawdown of the fund?", MAGNITUDE),
    ("Calculate the impairment loss.", MAGNITUDE),
    ("How much would the portfolio lose in the worst case?", MAGNITUDE),
    ("By how much is the tax bill reduced?", MAGNITUDE),  # "a reduction of $500" answers it
    ("By how much does the stock price fall?", MAGNITUDE),
    # signed: a sign convention named, a profit or loss, a change, a net figure, or no loss at all
    ("What is the gain on disposal (negative for a loss)?", ""),
    ("Calculate the profit or loss in USD.", ""),
    ("If volatility changes by -9.60%, how does the VaR change?", ""),
    ("What is the net income?", ""),
    ("What is the project's NPV?", ""),
    # the asked noun decides, not a word elsewhere in the ask
    ("Compute the Sortino ratio: the mean return minus the MAR over the shortfall below the MAR.", ""),
    ("What is the cost with the project (cost plus the shortfall)? Give the saving.", ""),
    (None, ""),
])
def test_rule_magnitude_kind_read_from_the_question(question, kind):
    assert answer_kind(question) == kind


@pytest.mark.parametrize(("text", "gold", "kind", "right"), [
    ("The 97.5% VaR is −$89,345.17.", 89345.17, MAGNITUDE, True),
    ("The 97.5% VaR is $89,345.17.", 89345.17, MAGNITUDE, True),
    ("The 97.5% VaR is −$89,345.17.", 89345.17, "", False),
    ("The fund would lose $1,200.", 1200.0, MAGNITUDE, True),
    ("The change brings a reduction of $500 in tax.", 500.0, MAGNITUDE, True),
    ("The change brings a reduction of $500 in tax.", 500.0, "", False),
    ("The fund would lose $1,200.", 1200.0, "", False),
    ("The VaR is $95,000.", 89345.17, MAGNITUDE, False),
])
def test_rule_a_magnitude_gold_ignores_the_sign_convention(text, gold, kind, right):
    assert _fac(text, gold, kind) is right


def test_a_text_gold_stated_with_a_direction_word_is_a_size():
    gold = gold_from_text("Step 1: Debt = 378.83 - 225.28 = USD153.55 billion\n\nTherefore, the company needs to "
                          "decrease its debt by USD153.55 billion.")
    assert (gold.answer, gold.answer_kind) == (pytest.approx(153.55e9), MAGNITUDE)
    assert _fac("The required change is USD157 billion.", gold.answer, gold.answer_kind, "$")
    assert _fac("It must decrease its debt by USD157 billion.", gold.answer, gold.answer_kind, "$")


@pytest.mark.parametrize(("text", "gold", "right"), [
    ("Step 1: 7.52% > 5%.\nStep 2: So the transaction should be reported.\nTherefore, the answer is: 1", True, True),
    ("Step 1: 7.52% > 5%.\nStep 2: So the transaction should be reported.\nTherefore, the answer is: 1", False, False),
    ("Step 1: $1,844 < $4,432.\nStep 2: It does not require KYC verification.\nTherefore, the answer is: 0", False,
     True),
    ("Step 1: $1,844 < $4,432.\nStep 2: So it should not be reported.\nThe answer is: 1", False, True),
    ("Step 1: We pick Project B because its NPV is higher.\nThe answer is: 1", "Project B", True),
    # no verdict stated: a bare code alone says nothing
    ("Step 1: Add the holdings.\nThe answer is: 1", True, False),
])
def test_rule_a_verdict_before_a_bare_answer_code_is_the_answer(text, gold, right):
    assert _fac(text, gold) is right


@pytest.mark.parametrize(("text", "half"), [
    ("$7.88", 0.005), ("7.9", 0.05), ("$1,000", 0.5), ("17 million", 5e5), ("94.42%", 0.005), ("−$660.19", 0.005),
    ("1/3", 0.0), ("0.00", 0.005),
])
def test_rule_half_unit_of_the_last_stated_digit(text, half):
    assert half_unit(parse_number(text)) == pytest.approx(half)


@pytest.mark.parametrize(("text", "gold", "unit", "strict", "fac"), [
    ("The value is $7.88.", 7.884, "$", True, True),      # within half a cent
    ("The value is $7.9.", 7.94, "$", True, True),        # within half of 0.1 (0.5% is 0.04)
    ("The value is $7.80.", 7.88, "$", False, True),      # 1% off: tolerance only
    ("The total is $1,000.", 1004.0, "$", True, True),    # within 0.5%
    ("The total is $1,000.", 1006.0, "$", False, True),
    ("The deal is worth $17 million.", 17.4e6, "$", True, True),
    ("The ratio is 94.42%.", 0.9442, "", True, True),     # a percentage for a ratio gold
    ("The ratio is 94%.", 0.9442, "", True, True),        # half of 1% in the ratio's scale
    ("The interest is $2,391.", 2500.0, "$", False, True),
    ("The interest is $2,000.", 2500.0, "$", False, False),
])
def test_rule_fac_strict_is_within_rounding_of_the_gold(text, gold, unit, strict, fac):
    assert _fac(text, gold, unit=unit) is fac
    assert _fac(text, gold, unit=unit, strict=True) is strict


def test_fac_strict_is_never_above_fac_in_a_scored_result():
    from finchain_tasks.engine.registry import get
    from scorers.chaineval import score

    p = get("investment_analysis/compound_interest/rate_change_midway").generate(4)
    close = p.solution.replace(p.answer_text, f"{p.answer * 1.02:.2f}")
    result = score(p.gold(), close)
    assert (result.fac, result.fac_strict) == (1.0, 0.0)
    assert (score(p.gold(), p.solution).fac, score(p.gold(), p.solution).fac_strict) == (1.0, 1.0)
