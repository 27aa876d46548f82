"""Issue 24: the shapes real model outputs and the authors' text golds take, pinned.

Every line below was written for this file in a shape found in the FinChain authors' two generation
files (financeconnect-13b, metamath-13b) and their solutions; none is copied from them. A test that
needs the authors' data reads its path from FINCHAIN_AUTHORS_DIR and is skipped without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorers.chaineval import gold_from_text
from scorers.gate import answer_correct
from scorers.params import resolve
from scorers.steps import parse_output

REFERENCE = resolve("reference")

# (model output, the number a careful reader takes as its final answer)
OUTPUT_SHAPES = [
    ("The new portfolio value is $1,809,968, which is 69% of the original.", 1809968.0),
    ("The quick ratio is 1.91, meaning $1.91 of quick assets for every $1 in current liabilities.", 1.91),
    ("**The 99% VaR over a 9-day horizon is $318,304**", 318304.0),
    ("Step 1: $8 million + $9 million = $17 million.\nThe answer is: 17", 17e6),
    ("#### 24\nThe answer is: 24", 24.0),
    ("Step 1: Add the flows.\n\nStep 2: The final answer is the Gross Profit, which is $50,521.", 50521.0),
    ("The impairment loss of $16922.51 is reported for the period ended December 31, 2022.", 16922.51),
    ("Step 3: The final answer is the new balance after 10 months, which is 1107.62 DAI.", 1107.62),
    ("Answer: $173461.88 / 10 = $17,346.19 per year.", 17346.19),
    ("Answer: The value of one pip for 100000 units of GBP/USD is USD 10.", 10.0),
    ("The debt-to-equity ratio is 1.52:1.", 1.52),
    ("- Wallet C holds 499 BTC.\n- Wallet D holds 499 BTC.", 499.0),
    ("Step 2: Ratio = (703.39 / 743.55) x 100\n\nStep 3: Debt-to-equity ratio = 94.42%", 94.42),
    ("Step 1: Cost = 2 * $75,000 = $150,000", 150000.0),
    ("1. Price = $100 × 1.05\n2. Price = **$105.00**", 105.0),
    ("$$\\text{NPV} = \\frac{110}{1.1} - 90 = 10$$\n\nThe answer is: \\boxed{10}", 10.0),
    ("Therefore, the total staking rewards for the investor are 2.15 ETH.", 2.15),
    ("The required reserve is €134,927.00 after 3 years.", 134927.0),
    ("The loan is repaid in 210 months.", 210.0),
    ("Alice will receive $3920.53 (2832.95 x 1.389).", 3920.53),
    ("Net cash flow = $1447188 - $513995 + $99977\nNet cash flow = $943782\nThe answer is: 943782", 943782.0),
    ("The trade moves the price by about 3.9%.", 3.9),
    ("所以答案是 42", 42.0),
    # issue 24 item 4, second pass: shapes where the reading differed from a reader's
    ("Step 3: So there are now 250 units in each fund, and the share of the pool is 50% (250/500 x 100 = 50%).",
     250.0),                                                                  # an aside's "=" states no answer
    ("Scenario 1: Asset turnover = 1.12\n\nScenario 2: Asset turnover = 1.48\n\n"
     "Scenario 2 has the higher ratio, so it uses its assets better.", 1.48),  # "Scenario 2" is a name
    ("Step 4: Quick ratio = 1.8\n\nThe quick ratio indicates that for every dollar of current liabilities, the "
     "company holds 80 cents of liquid assets.", 1.8),                          # the ratio restated per dollar
    ("4. The projected balance after 5 years is $40,100.00.\n\nNote: this uses FV = PV(1+r)^n, where r is the "
     "rate.", 40100.0),                                                         # a formula's constant
    ("Step 3: The total deal value is $59 million + $15 million = $74 million. If revenue beats the target, the "
     "value would be $59 million plus a bonus.", 74e6),                         # a conditional does not conclude
    ("Step 3: Add the fee ($12 million) to get the total value of the firm ($1471 million + $12 = $1483 million).",
     1483e6),                                                                   # "the total value" is no verb
    ("Step 4: The total paid is $2,760 ($2,400 + $360).", 2760.0),             # operands in an aside
]


@pytest.mark.parametrize(("text", "value"), OUTPUT_SHAPES, ids=[t[:40] for t, _ in OUTPUT_SHAPES])
def test_output_shapes_give_the_readers_answer(text, value):
    answer = parse_output(text).final_answer
    assert answer is not None and answer.value == pytest.approx(value, rel=1e-9)


# (gold solution text, the answer a reader takes from it: number, verdict or text)
GOLD_SHAPES = [
    ("Step 1: Leverage = (6.61 / 177.42) × 100 = 3.73%\nStep 2: Compare with Basel minimum of 3% → Yes", True),
    ("Step 1: Effective = 12.00%\nStep 2: Compare with threshold: 12.00% <= 25%\n"
     "Step 3: Conclusion: No, disclosure is not required.", False),
    ("Step 1:\n  The KYC threshold is $2909.\nStep 2:\n  The transaction is for $1806.\nStep 3:\n"
     "  KYC is not required because $1806 is below the threshold.", False),
    ("Step 1: Compare the ownership percentage to the threshold.\n9.29% > 5%\n\nStep 2: Yes, disclosure is required.",
     True),
    ("Step 1: Interest = 1498 × 0.0416 × 1/12\nStep 2:\n  You will have approximately 1503.19 DAI after 1 months.",
     1503.19),
    ("Step 1: New Cost = 31462 - 2516.96 = 28945.04\n\nThus, the annual energy cost savings are $2516.96.", 2516.96),
    ("Step 1: High inflation of 5% raises demand for hedges.\nStep 2: Bitcoin prices could potentially rise.",
     "Bitcoin prices could potentially rise"),
    ("Step 1: Check: $10078 > $10000.\nStep 2: Conclusion:\nThis transaction should be reported.",
     True),  # "should be reported" states a verdict (issue 38), as "must be reported" did
    ("Step 1: Depreciation = 173461.88 / 10 = 17346.19\nStep 2: Compare and analyze the impact.", 17346.19),
    ("Step 1: Multiply: 2 × $75000 = $150000\nAnswer: Total fine = $150000", 150000.0),
    ("Step 1: Check the document: passport.\nAnswer: Yes", True),
    ("Step 1: Ownership is 6%, above 5%.\nStep 2: Conclusion: file Schedule 13D", "file Schedule 13D"),
    ("Step 1: Deal = 29 + 21.04 = 50.04 million dollars", 50.04e6),
    ("Step 1: Debt = USD202.47 million\n\nTherefore, the company needs to decrease its debt by USD202.47 million "
     "to reach the target debt-to-equity ratio of 0.81.", 202.47e6),
    ("Step 3: The new loan term is 210 months (or 17 years and 6 months).\n  This is a reduction of 8 years and "
     "6 months from the original 25-year term.", 210.0),
    ("Step 1: They should: (1) keep records; (2) engage advisers. Compliance becomes important.",
     "They should: (1) keep records; (2) engage advisers. Compliance becomes important"),
    ("Step 1: Revalued = 80 + 10 = 90.00\nStep 2: Check the cap:\n  90.00 ≤ 120.00 (Valid: True)", True),
    ("Step 1: Shortfall = 100 - 120 = -20\nStep 2: Since projected savings exceed the target,\n"
     "  no additional savings are required.", False),
]


@pytest.mark.parametrize(("solution", "answer"), GOLD_SHAPES, ids=[s[:40] for s, _ in GOLD_SHAPES])
def test_text_gold_shapes_give_the_readers_answer(solution, answer):
    gold = gold_from_text(solution)
    if isinstance(answer, float):
        assert isinstance(gold.answer, float) and gold.answer == pytest.approx(answer, rel=1e-9)
    else:
        assert gold.answer == answer


def test_a_quantity_asked_before_a_yes_no_is_the_gold_answer():
    """"What is the ratio and does it meet the minimum?": the ratio, so "it meets the requirement" after a
    wrongly computed ratio does not pass on the verdict alone."""
    gold = "Step 1: Leverage = (5 / 100) × 100 = 5.00%\nStep 2: Compare with the minimum of 3% → Yes"
    assert gold_from_text(gold, "", "What is the leverage ratio and does it meet the minimum of 3%?").answer == 5.0
    assert gold_from_text(gold, "", "Does the bank meet the minimum of 3%?").answer is True
    ask = "What is the leverage ratio and does it meet the minimum of 3%?"
    assert _fac(gold, "The leverage ratio is 20.0, above the minimum of 3%, so the bank meets it.", ask) == 0.0
    assert _fac(gold, "The leverage ratio is 5%, which meets the minimum of 3%.", ask) == 1.0


def test_a_formula_in_a_sentence_gives_no_answer():
    answer = parse_output("In this case, the duration is Ln(1904 / 1891.20) / (5.50% / 2), about 1.25 years.")
    assert answer.final_answer is None or answer.final_answer.value != 1904.0


def _fac(gold: str, output: str, question: str | None = None) -> float:
    g, o = gold_from_text(gold, "", question), parse_output(output)
    return float(answer_correct(g.answer, g.answer_unit, o.final_answer, o.final_answer_text, REFERENCE, o.conclusion))


@pytest.mark.parametrize(("gold", "output", "fac"), [
    # a threshold named by a qualitative gold is no answer
    ("Step 1: 12.00% <= 25%\nStep 2: Conclusion: No, disclosure is not required.",
     "Step 1: Compare with the beneficial ownership threshold of 25%.", 0.0),
    ("Step 1: 12.00% <= 25%\nStep 2: Conclusion: No, disclosure is not required.",
     "The answer is no, this does not exceed the threshold of 25%.", 1.0),
    ("Step 1: 9.81% > 5%\nStep 2: Yes, disclosure is required.",
     "Step 4: If her ownership exceeds 5%, she must file a disclosure.", 0.0),   # a rule, not a verdict
    # categorical answers in a sentence
    ("Step 1: NPV A = 10, NPV B = 20\nAnswer: Project B",
     "The company should choose Project B because its NPV is higher.", 1.0),
    ("Step 1: NPV A = 10, NPV B = 20\nAnswer: Project B", "The company should choose Project A, not Project B.", 0.0),
    ("Step 1: Ownership 6% > 5%\nAnswer: file Schedule 13D", "Answer: file Schedule 13G", 0.0),
    ("Step 1: Ownership 6% > 5%\nAnswer: file Schedule 13D", "Answer: She must file Schedule 13D with the SEC.", 1.0),
    # scale words and units
    ("Step 1: Savings = 8 + 9 = 17 million dollars", "$8 million + $9 million = $17 million. The answer is: 17", 1.0),
    ("Step 1: D/E = 703.39 / 743.55 = 0.95", "Debt-to-equity ratio = 94.42%", 1.0),
    # verdicts written as sentences
    ("Step 1: 5900 + 4700 = 10600 > 10000\nConclusion: Yes, this constitutes structuring.",
     "Step 3: The deposits are therefore an example of structuring.", 1.0),
    ("Step 1: 5900 + 4700 = 10600 > 10000\nConclusion: Yes, this constitutes structuring.",
     "Step 3: The deposits are not an example of structuring.", 0.0),
    ("Step 1: 9.81% > 5%\nStep 2: Yes, disclosure is required.",
     "Step 5: She will need to file a Schedule 13D form with the SEC.", 1.0),
    ("Step 1: Passport.\nAnswer: Yes",
     "Step 6: The decision on whether the passport is a valid form should be made by the bank.", 0.0),
    # a two-part answer is graded on the part the gold asks for
    ("Step 1: Fee = $1,000 × 0.01 = $10\nStep 2: Net value = $1,000 − $10 = $990",
     "Therefore, the fee is $10, and the net value after the fee is $990.", 1.0),
    ("Step 1: Fee = $1,000 × 0.01 = $10\nStep 2: Net value = $1,000 − $10 = $990",
     "Therefore, the fee is $10, and the net value after the fee is $900.", 0.0),
    ("Step 1: Fee = $1,000 × 0.01 = $10\nStep 2: Net value = $1,000 − $10 = $990",
     "Therefore, the fee of $990 is charged and the net value is $10.", 0.0),
])
def test_final_answer_correctness_on_shapes(gold, output, fac):
    assert _fac(gold, output) == fac


def test_basis_points_against_a_percentage_point_gold_both_ways():
    from scorers.numbers import Number

    bp = Number(25.0, "bp", "25 bp")
    assert answer_correct(0.25, "pp", bp, "25 bp", REFERENCE)            # structured gold, unit "pp"
    assert _fac("Step 1: Spread change = 0.25 percentage points", "The spread widens by 25 bp.") == 1.0


AUTHORS = os.environ.get("FINCHAIN_AUTHORS_DIR")
_needs_authors = pytest.mark.skipif(
    not AUTHORS or not Path(AUTHORS, "results").is_dir(),
    reason="set FINCHAIN_AUTHORS_DIR to the FinChain authors' repository to run this check")


@_needs_authors
@pytest.mark.parametrize(("model", "floor_all", "floor_without_bugs"), [
    ("financeconnect_13b", 0.963, 0.986), ("metamath_13b", 0.908, 0.958)])
def test_fac_agrees_with_the_authors_rule(model, floor_all, floor_without_bugs):
    """Their final_answer_match on financeconnect-13b is their eval.py re-run exactly; where we differ,
    docs/reproducing-finchain.md lists why. Floors pinned at the measured agreement, on all rows and on
    the rows where their rule is not wrong by construction (metamath-13b's file scored a field the public
    results lack, so its floor is lower). Since issue 38 a row we pass only within the 5% tolerance, not
    within rounding, is never counted as their bug, so the second floor fell
    (0.993 -> 0.986, 0.974 -> 0.958); a bare answer line now takes the sign its output wrote the figure
    with, and a bare "1" takes the verdict stated before it, where their rule fails such outputs for want of
    steps (0.92 -> 0.917); a yes/no gold (and an option gold that is a verdict, "File a Suspicious Activity
    Report") reads the verdict stated before a bare numeric answer line, "is within the IFRS limits" is a
    verdict, and a two-quantity question reads the results stated before its bare answer line, where their
    rule reads the answer line only (financeconnect-13b 0.9655 -> 0.9633, 2606 -> 2600 of 2699; metamath-13b
    0.917 -> 0.9085, 2475 -> 2452; without their bugs 0.9864 -> 0.9863 and 0.9582 -> 0.9627)."""
    from finchain_tasks.reproduce.authors import _key as key
    from finchain_tasks.reproduce.authors import authors_rows, their_scores
    from finchain_tasks.reproduce.fac import fac_rows, fac_summary

    root = Path(AUTHORS)
    theirs, _ = their_scores(root, model)
    summary = fac_summary(fac_rows(authors_rows(root)[model], theirs, key, REFERENCE))
    assert summary["n"] == 2699
    assert summary["share"] >= floor_all and summary["share_without_bugs"] >= floor_without_bugs, summary
