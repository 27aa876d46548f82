"""Rules of offline selection's output that test_select.py does not pin (issue 31.18, found by mutation
testing): which id groups candidates into questions, the documented columns of ``sft.jsonl`` (the SFT
dataset's schema), the default of one kept candidate per question, ``selection.md`` as written, and the
empty-pool error. Hand-built candidates scored by the ``calc`` PRM: milliseconds, no model."""

from __future__ import annotations

import json

import pytest

from finchain_tasks.prm.data_selection import question_key, run_select
from scorers.prm.calc import CalcPRM
from scorers.prm.labels.signals import LabelItem


def _item(cid: str, question: str, output: str, gold=None, **meta) -> LabelItem:
    final = output.rpartition("Final answer: ")[2]
    return LabelItem(id=cid, question=question, steps=(), final_answer=final, output=output, gold_answer=gold,
                     meta=meta)


def test_candidates_group_by_problem_id_then_question_id_then_question_text():
    assert question_key(_item("c", "text?", "", problem_id="p7", question_id="q7")) == "p7"
    assert question_key(_item("c", "text?", "", question_id="q7")) == "q7"
    assert question_key(_item("c", "text?", "")) == "text?"


def _pool(gold=4.0):
    # one question, two candidates with the right final answer: calc finds "2 + 2 = 5" broken in the second
    return [_item("bad", "What is 2 + 2?", "Step 1: 2 + 2 = 5\nFinal answer: 4", gold, problem_id="p1"),
            _item("good", "What is 2 + 2?", "Step 1: 2 + 2 = 4\nFinal answer: 4", gold, problem_id="p1")]


def test_sft_rows_hold_the_documented_columns_best_first(tmp_path):
    summary = run_select(_pool(), CalcPRM(), "calc", tmp_path, save_dataset=False)  # default: top 1 per question
    rows = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert (summary["k"], summary["kept"], len(rows)) == (1, 1, 1)
    (row,) = rows
    assert row == {"id": "good", "question_id": "p1", "prompt": "What is 2 + 2?",
                   "completion": "Step 1: 2 + 2 = 4\nFinal answer: 4",
                   "messages": [{"role": "user", "content": "What is 2 + 2?"},
                                {"role": "assistant", "content": "Step 1: 2 + 2 = 4\nFinal answer: 4"}],
                   "reward": 1.0, "step_probs": [1.0], "p_traj": None, "agg": "min", "zeta": row["zeta"],
                   "prm": "calc", "correct": True}
    assert isinstance(row["zeta"], float)


def test_selection_md_is_the_comparison_table(tmp_path):
    run_select(_pool(), CalcPRM(), "calc", tmp_path / "known", k=2, save_dataset=False)
    assert (tmp_path / "known" / "selection.md").read_text() == (
        "# Offline selection with `calc`\n\nPool: 2 candidates; kept 2 (top 2, per-question).\n\n"
        "| selection | share of kept with a right answer |\n|---|---|\n"
        "| random | 1.000 |\n| outcome_only | 1.000 |\n| prm | 1.000 |\n| pool | 1.000 |\n")
    run_select(_pool(gold=None), CalcPRM(), "calc", tmp_path / "unknown", save_dataset=False)
    table = (tmp_path / "unknown" / "selection.md").read_text().splitlines()[-4:]
    assert table == ["| random | n/a |", "| outcome_only | n/a |", "| prm | n/a |", "| pool | n/a |"]


def test_an_empty_pool_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="^the pool is empty$"):
        run_select([], CalcPRM(), "calc", tmp_path)
