"""Rule: every part of the product that decides whether a final answer is right reads it as a careful
reader does, one reading for all (issue 38, "fix the class"). One table of (question, gold, output) with
the verdicts a reader gives (``fac``, ``fac_strict``) and the Best-of-N vote key the reading gives; the
same table runs through every consumer:

* ChainEval's ``fac``/``fac_strict`` (what both hosts, ``finchain score`` and the explorer report);
* ``finchain reproduce --fac-only`` (:func:`finchain_tasks.reproduce.fac.fac_rows`);
* the GRPO outcome reward (:class:`scorers.prm.reward.OutcomeReward`);
* the PRM label gate (:func:`scorers.prm.labels.recipe.answer_matches`) and the data-selection outcome;
* the Best-of-N pool's vote key (:func:`scorers.prm.pool.grade_finchain`): "decreases by 7.88" votes
  with -7.88.

Every row was written here; none is a model's output."""

from __future__ import annotations

import math

import numpy as np
import pytest

import scorers.chaineval as chaineval
from finchain_tasks.prm.data_selection import _correct
from finchain_tasks.reproduce.fac import fac_rows
from scorers.params import resolve
from scorers.prm.labels import LabelItem
from scorers.prm.labels.recipe import answer_matches
from scorers.prm.pool import grade_finchain
from scorers.prm.reward import OutcomeReward
from scorers.rows import gold_of
from scorers.steps import parse_output

CHANGE = "By how much does the portfolio value change over the period?"
NET = "What is the project's net present value?"
VAR = "What is the 97.5% one-day VaR of the portfolio?"
DRAWDOWN = "What is the maximum drawdown of the fund?"
REPORT = "Should the bank report the transaction?"
TWO = "How much is allocated to marketing, and what is the operations budget?"
TOTAL = "What is the total cost of the loan?"
CHOICE = "Which project should the company choose?"
STEPS = "Step 1: The deposits total $12,000 over three days.\nStep 2: That is above the $10,000 threshold.\n"

# (case, question, gold, unit, output, fac, fac_strict, vote key)
TABLE = [
    # direction words give an unsigned figure its sign, both ways
    ("decrease word, negative gold", CHANGE, -7.88, "$",
     "Step 1: 100 - 107.88 = -7.88\nThe portfolio value is expected to decrease by approximately $7.88.",
     1, 1, "-7.88"),
    ("decrease word, positive gold", CHANGE, 7.88, "$",
     "Step 1: compute the change.\nThe portfolio value will decrease by $7.88.", 0, 0, "-7.88"),
    ("increase word, positive gold", CHANGE, 5.0, "$",
     "Step 1: compute the change.\nThe portfolio value will increase by $5.", 1, 1, "5"),
    ("increase word contradicts a negative gold", CHANGE, -5.0, "$",
     "Step 1: The change is -$5.\nStep 2: So the portfolio value will increase by $5.", 0, 0, "5"),
    ("signed figure restated in words is one answer", CHANGE, -660.19, "$",
     "Step 1: 9,339.81 - 10,000 = -660.19\nThe portfolio changes by −$660.19, meaning it decreases by $660.19.",
     1, 1, "-660.19"),
    ("an answer line drops the sign the text stated", CHANGE, -157.46, "$",
     "Step 1: compute the change.\nStep 2: The portfolio value decreases by $157.46.\nThe answer is: 157.46",
     1, 1, "-157.46"),
    ("a wrong sign on a signed quantity stays wrong", NET, -1500.0, "$",
     "Step 1: discount the flows.\nThe net present value is $1,500.", 0, 0, "1500"),
    # magnitude golds ignore the sign convention, either way round
    ("magnitude gold, negative answer", VAR, 89345.17, "$",
     "Step 1: scale the quantile.\nThe 97.5% VaR is -$89,345.17.", 1, 1, "89345.2"),
    ("magnitude gold stored negative, positive answer", DRAWDOWN, -12000.0, "$",
     "Step 1: peak minus trough.\nThe maximum drawdown is $12,000.", 1, 1, "12000"),
    ("magnitude gold, wrong size", VAR, 89345.17, "$",
     "Step 1: scale the quantile.\nThe 97.5% VaR is -$79,345.17.", 0, 0, "79345.2"),
    # a verdict stated before a bare answer code
    ("verdict yes before a bare 1", REPORT, True, "",
     STEPS + "Step 3: So the transaction should be reported.\nTherefore, the answer is: 1", 1, 1, "yes"),
    ("verdict no before a bare 1", REPORT, True, "",
     STEPS + "Step 3: So the transaction should not be reported.\nTherefore, the answer is: 1", 0, 0, "no"),
    ("verdict no for a no gold", REPORT, False, "",
     STEPS + "Step 3: So the transaction should not be reported.\nTherefore, the answer is: 1", 1, 1, "no"),
    # a question for two quantities: right when the conclusion gives the gold's
    ("two quantities, both concluded", TWO, 3363372.0, "$",
     "Step 1: 30% of 4,804,781 = 1,441,409\nStep 2: 4,804,781 - 1,441,409 = 3,363,372\n"
     "Therefore, $1441409 will be allocated to marketing and $3363372 to operations.\nThe answer is: 1441409",
     1, 1, "1.44141e+06"),
    ("two quantities, only the other one", TWO, 3363372.0, "$",
     "Step 1: 30% of 4,804,781 = 1,441,409\nThe answer is: 1441409", 0, 0, "1.44141e+06"),
    # tolerance beside rounding
    ("within 5% only", TOTAL, 100.0, "$", "Step 1: add the interest.\nThe answer is: 103", 1, 0, "103"),
    ("within rounding", TOTAL, 100.0, "$", "Step 1: add the interest.\nThe answer is: 100.2", 1, 1, "100.2"),
    # a named option
    ("option named in the answer", CHOICE, "Project B", "",
     "Step 1: NPV A = $1,200; NPV B = $1,900.\nFinal answer: Project B", 1, 1, "project b"),
    ("rival option named", CHOICE, "Project B", "",
     "Step 1: NPV A = $1,200; NPV B = $1,900.\nFinal answer: Project A", 0, 0, "project a"),
    # nothing to read, or nothing finite
    ("empty output", TOTAL, 100.0, "$", "", 0, 0, None),
    ("NaN as the answer", TOTAL, 100.0, "$", "Step 1: divide.\nThe answer is: NaN", 0, 0, "nan"),
    ("1e308 as the answer", TOTAL, 100.0, "$", "Step 1: divide.\nThe answer is: 1e308", 0, 0, "1e+308"),
    ("no answer line: the last step concludes", TOTAL, 12.0, "",
     "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12", 1, 1, "12"),
    ("no answer line, a plan only", TOTAL, 12.0, "", "Step 1: add the fees.\nStep 2: add the interest.", 0, 0, None),
]
IDS = [row[0] for row in TABLE]


class _FlatEmbedder:
    """Every text the same unit vector: the final answer never reads the step similarities."""

    def encode_cached(self, texts):
        return np.full((len(texts), 4), 0.5, dtype=np.float32)


def _row(question, gold, unit) -> dict:
    return {"id": "t", "question": question, "answer": gold, "answer_unit": unit,
            "steps": [{"description": "Answer", "value": gold, "unit": unit}]}


@pytest.fixture(scope="module")
def chaineval_results():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chaineval, "shared_embedder", lambda *a, **k: _FlatEmbedder())
        golds = [gold_of(_row(q, g, u)) for _, q, g, u, *_ in TABLE]
        outputs = [row[4] for row in TABLE]
        results = chaineval.score_batch(golds, outputs, "paper")
        graded = grade_finchain(golds, outputs, resolve("paper"))
    return dict(zip(IDS, results)), dict(zip(IDS, graded))


def _item(question, gold, unit, output) -> LabelItem:
    """A candidate as ``finchain prm label``/``select`` read it from a row (its answer text and steps parsed)."""
    parsed = parse_output(output)
    return LabelItem("t", question, tuple(s.text for s in parsed.steps), parsed.final_answer_text, output=output,
                     gold_answer=gold, gold_unit=unit)


@pytest.mark.parametrize(("case", "question", "gold", "unit", "output", "fac", "strict", "key"), TABLE, ids=IDS)
def test_rule_every_consumer_reads_the_final_answer_as_a_reader_does(chaineval_results, case, question, gold, unit,
                                                                     output, fac, strict, key):
    results, graded = chaineval_results
    got = {
        "chaineval fac": results[case].fac,
        "chaineval fac_strict": results[case].fac_strict,
        "reproduce fac": None, "reproduce fac_strict": None,
        "outcome reward": OutcomeReward()([question], [output], answer=[gold], answer_unit=[unit])[0],
        "label gate (rollout)": float(answer_matches(_item(question, gold, unit, output), output)),
        "data selection": float(_correct(_item(question, gold, unit, output))),
        "best-of-n correct": float(graded[case].correct),
    }
    entry = fac_rows([_row(question, gold, unit) | {"generation": output}], {("t",): {"final_answer_match": 0}},
                     lambda r: ("t",), resolve("paper"))[0]
    got["reproduce fac"], got["reproduce fac_strict"] = entry["ours_fac"], entry["ours_fac_strict"]
    want = {name: float(strict if name.endswith("strict") else fac) for name in got}
    assert got == want
    assert graded[case].key == key


def test_rule_the_table_covers_every_edge_the_issue_names():
    cases = " ".join(IDS)
    for edge in ("decrease word", "increase word", "contradicts", "magnitude gold, negative", "stored negative",
                 "before a bare 1", "two quantities", "empty", "NaN", "1e308", "no answer line"):
        assert edge in cases
    assert all(math.isfinite(float(r[5])) for r in TABLE)


@pytest.mark.parametrize(("question", "gold_kind", "two", "right"), [
    ("Answer in steps.", "magnitude", False, True),      # the gold trace says magnitude: the sign is a convention
    ("What is the one-day VaR?", "", False, True),       # the trace says nothing: the question does
    ("Answer in steps.", "", False, False),              # neither: a sign counts
    ("Answer in steps.", "", True, False),               # two quantities change nothing for one stated figure
])
def test_rule_a_label_item_takes_its_gold_traces_kind_else_its_questions(question, gold_kind, two, right):
    from scorers.records import GoldSolution, GoldStep

    gold = GoldSolution((GoldStep("VaR", 500.0),), 500.0, answer_kind=gold_kind, asks_two=two)
    item = LabelItem("t", question, (), "", output="Step 1: scale.\nThe VaR is -$500.", gold_answer=500.0, gold=gold)
    assert answer_matches(item) is right
