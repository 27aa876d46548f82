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
