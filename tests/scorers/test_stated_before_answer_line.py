"""Rules for what an output states before a bare numeric answer line (issue 38).

* verdict line: a yes/no gold is read from the last verdict the output stated before a bare number the
  question never asked for ("... so this is structuring. #### 9817 / The answer is: 9817"); an output
  whose verdict contradicts the gold, or that states none, stays wrong;
* two quantities: when the question asks for two quantities, the gold's one stated in a concluding
  sentence before a bare answer line that gives the other is right; the same output for a question
  that asks one quantity is graded on its answer line only, and a wrong figure stays wrong.

Every output here is written for the test.
"""

from __future__ import annotations

import pytest

from scorers.answers import asks_two
from scorers.gate import answer_correct
from scorers.params import resolve
from scorers.steps import parse_output

REFERENCE = resolve("reference")


def _fac(gold, output: str, two: bool = False, strict: bool = False) -> bool:
    p = parse_output(output)
    return answer_correct(gold, "", p.final_answer, p.final_answer_text, REFERENCE, p.conclusion, "", strict,
                          stated=p.stated, asks_two=two)


@pytest.mark.parametrize(("gold", "output", "right"), [
    (True, "The deposits total $4100 + $5700 = $9800.\nSince they were split to avoid the threshold, this is an "
           "example of structuring.\n#### 9800\nThe answer is: 9800", True),
    (False, "The required ratio is 8% + 2.5% = 10.5%.\nTherefore, the bank does not meet the full requirement.\n"
            "#### 10.5\nThe answer is: 10.5", True),
    (True, "Since the stake exceeds 5%, she needs to file a disclosure.The answer is: 7", True),
    # the last verdict stated decides
    (True, "At first it seems no report is required.\nBut the total is $10,200, so the transaction must be "
           "reported.\n#### 10200\nThe answer is: 10200", True),
    # negative edges: a contradicting verdict, no verdict at all
    (True, "The total is $9,800, below the threshold, so no report is required.\n#### 9800\n"
           "The answer is: 9800", False),
    (False, "Since the stake exceeds 5%, she needs to file a disclosure.\n#### 6\nThe answer is: 6", False),
    (True, "The deposits total $4100 + $5700 = $9800.\n#### 9800\nThe answer is: 9800", False),
    (True, "#### 9800\nThe answer is: 9800", False),
])
def test_verdict_line_a_yes_no_gold_reads_the_verdict_stated_before_a_bare_number(gold, output, right):
    assert _fac(gold, output) is right


_BOTH = ("Each wallet receives 800/2 = 400 BTC.\nTherefore, Wallets C and D will have 400 BTC each.\n"
         "So, each wallet holds 50% of the original transfer.\n#### 50\nThe answer is: 50")
_ALLOCATED = ("Marketing gets $1,000,000 x 30% = $300,000.\nOperations get $1,000,000 - $300,000 = $700,000.\n"
              "Therefore, $300,000 will be allocated to marketing and $700,000 will be allocated to operations.\n"
              "#### 300000\nThe answer is: 300000")


@pytest.mark.parametrize(("gold", "output", "two", "right"), [
    (400.0, _BOTH, True, True),
    (700000.0, _ALLOCATED, True, True),
    (300000.0, _ALLOCATED, True, True),
    # negative edges: one quantity asked, so the answer line decides; a wrong stated figure stays wrong
    (400.0, _BOTH, False, False),
    (700000.0, _ALLOCATED, False, False),
    (520.0, _BOTH, True, False),
    (950000.0, _ALLOCATED, True, False),
    # a number stated only inside the working, in no concluding sentence, is not a stated result
    (800.0, _BOTH, True, False),
])
def test_two_quantities_the_gold_quantity_stated_before_a_bare_answer_line_counts(gold, output, two, right):
    assert _fac(gold, output, two) is right


def test_two_quantities_strict_wants_the_stated_result_within_rounding():
    assert _fac(400.0, _BOTH, True, strict=True)
    assert not _fac(410.0, _BOTH, True, strict=True)


@pytest.mark.parametrize(("question", "two"), [
    ("How much BTC is in Wallets C and D, and what is the percentage of the transfer in each?", True),
    ("How much of the budget will be allocated to marketing and how much to operations?", True),
    ("Calculate the net cost reduction achieved by the merger and its percentage relative to the total.", True),
    ("How much will the new operations and R&D budgets be after the adjustment?", True),
    ("For each scenario, how will the company's Asset Turnover Ratio change?", True),
    ("What is the company's equity?", False),
    ("Calculate the NPV of the project given the cash flows and the discount rate.", False),
    ("How much is the total of the deposits of $4,100 and $5,700?", False),
    (None, False),
])
def test_asks_two_detects_a_question_for_two_quantities(question, two):
    assert asks_two(question) is two


_SAR = "File a Suspicious Activity Report"
_NOT_MET = "✓ Conclusion: Some requirements not met"
_ALL_MET = "✓ Conclusion: All requirements met"


@pytest.mark.parametrize(("gold", "output", "right"), [
    (_SAR, "The score 85 exceeds 75 and two flags are present.\nTherefore, a SAR should be filed.\n#### 85\n"
           "The answer is: 85", True),
    (_SAR, "The answer to the question is yes, a SAR should be filed in this case.", True),
    (_NOT_MET, "The capital ratio is 9.8%, below 10.5%.\nTherefore, the bank does not meet all the thresholds."
               "The answer is: 3", True),
    ("Do not file a Suspicious Activity Report", "Only one flag is present, so no SAR is required.\n#### 1\n"
                                                 "The answer is: 1", True),
    # negative edges: the opposite verdict, no verdict, and a gold that speaks of all requirements
    (_SAR, "The score is below 75, so no report is required.\n#### 70\nThe answer is: 70", False),
    (_SAR, "The score is 85 and there are two flags.\n#### 85\nThe answer is: 85", False),
    (_NOT_MET, "The leverage ratio is 4%, so the bank meets this threshold.\n#### 4\nThe answer is: 4", False),
    (_ALL_MET, "The capital ratio is 12%, so it meets that threshold.\nThe LCR is 150%, so the bank meets this "
               "threshold.\n#### 150\nThe answer is: 150", False),
])
def test_verdict_line_an_option_gold_that_is_a_verdict_reads_the_stated_verdict(gold, output, right):
    assert _fac(gold, output) is right


@pytest.mark.parametrize(("sentence", "said"), [
    ("The adjusted carrying amount of $68,421.61 is within the IFRS limits.", True),
    ("The adjusted value is not within the IFRS limits.", False),
    ("Since $29,482 is greater than $14,199.30, Maria cannot legally make the investment.", False),
    # an instruction or a question states no verdict
    ("Verify that the adjusted value is within the IFRS limits.", None),
    ("Step 3: Check that the value is within the limits.", None),
    ("Determine whether the value is within the IFRS limits.", None),
])
def test_verdict_phrases_within_limits_and_cannot_invest(sentence, said):
    from scorers.answers import verdict

    assert verdict(sentence) is said
