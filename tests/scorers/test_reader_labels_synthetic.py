"""Issue 38.5 (the synthetic part): outputs written by hand in the shapes issue 38 names (direction words,
signed restatements, magnitude golds, verdicts before a bare answer code, two quantities, scale words,
calc's percent readings), each read by a reader who wrote down the answer taken from it and whether it
answers the gold. Our reader must agree with every label: the answer it reads equals the reader's, and
``fac`` is 1 exactly on the rows labelled right (rows labelled ambiguous are kept, not graded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorers.final_answer import judge_answer
from scorers.gate import answer_correct
from scorers.params import resolve
from scorers.prm.calc import check_step
from scorers.rows import gold_of
from scorers.steps import parse_output

CORPUS = Path(__file__).resolve().parents[1] / "data" / "reader_labels" / "synthetic.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
REFERENCE = resolve("reference")
FIELDS = {"id", "kind", "question", "gold", "gold_unit", "output", "reader_answer", "label", "reason"}


def test_corpus_shape():
    assert len(ROWS) >= 40 and len({r["id"] for r in ROWS}) == len(ROWS)
    assert all(FIELDS <= set(r) and r["label"] in {"right", "wrong", "ambiguous"} for r in ROWS)


def _gold(row: dict):
    problem = {"id": row["id"], "question": row["question"], "answer": row["gold"], "answer_unit": row["gold_unit"],
               "steps": [{"description": "Answer", "value": row["gold"], "unit": row["gold_unit"]}]}
    if "answer_kind" in row:
        problem["answer_kind"] = row["answer_kind"]
    return gold_of(problem)


def _our_answer(parsed, gold):
    """What we read from the output in the reader's terms: the number, else the verdict or option graded."""
    if isinstance(gold.answer, (bool, str)):
        return gold.answer if answer_correct(gold.answer, "", None, parsed.final_answer_text, REFERENCE,
                                             parsed.conclusion) else "other"
    return parsed.final_answer.value if parsed.final_answer is not None else None


@pytest.mark.parametrize("row", [r for r in ROWS if r["kind"] == "fac"], ids=lambda r: r["id"])
def test_our_fac_agrees_with_the_readers_label(row):
    gold = _gold(row)
    parsed = parse_output(row["output"])
    fac = judge_answer(gold, parsed, REFERENCE).fac  # the reading every grader of a final answer shares
    if row["label"] != "ambiguous":
        assert fac is (row["label"] == "right"), (row["reason"], parsed.final_answer, gold.answer_kind)
    reader = row["reader_answer"]
    if isinstance(reader, float) and row["reason"] != "two quantities":
        assert _our_answer(parsed, gold) == pytest.approx(reader, rel=1e-9), row["reason"]
    elif isinstance(reader, (bool, str)) and row["label"] == "right":
        assert _our_answer(parsed, gold) == reader


@pytest.mark.parametrize("row", [r for r in ROWS if r["kind"] == "calc"], ids=lambda r: r["id"])
def test_calc_agrees_with_the_readers_label(row):
    assert check_step(row["output"]) is row["reader_answer"]
