"""Offline selection: top-K by hand, the comparison on a pool with known answers, the files written."""

from __future__ import annotations

import json

import pytest

from finchain_tasks.prm.data_selection import compare, run_select, top_k
from finchain_tasks.prm.labeling import item_from_problem
from finchain_tasks.prm.wrong_step_traces import inject_error
from scorers.prm.calc import CalcPRM
from tests.prm_labels.conftest import first_template_per_domain


def test_top_k_per_question_and_overall():
    keys = ["a", "a", "a", "b", "b"]
    values = [0.1, 0.9, 0.5, 0.3, 0.7]
    assert top_k(keys, values, 2) == [1, 4, 2, 3]
    assert top_k(keys, values, 1, "overall") == [1]
    with pytest.raises(ValueError, match="unknown selection mode"):
        top_k(keys, values, 1, "best")


def test_compare_by_hand():
    keys = ["a", "a", "b", "b"]
    correct = [False, True, True, False]
    table = compare(keys, [0.9, 0.1, 0.8, 0.2], correct, 1)  # the PRM picks the wrong one for 'a'
    assert table["outcome_only"] == 1.0 and table["prm"] == 0.5 and table["pool"] == 0.5
    assert 0.0 <= table["random"] <= 1.0


def test_calc_selection_beats_random_on_injected_errors(tmp_path):
    """Per problem: the gold trace and a copy with an injected error (its written result wrong): calc sees
    the broken arithmetic, so PRM selection keeps the right trace more often than random (0.5)."""
    items = []
    for tpl in first_template_per_domain():
        problem = tpl.generate(0)
        inj = next((x for x in (inject_error(problem, k) for k in range(len(problem.steps))) if x), None)
        if inj is not None:
            items += [item_from_problem(problem, inj.output, "err"), item_from_problem(problem, None, "gold")]
    summary = run_select(items, CalcPRM(), "calc", tmp_path, k=1)
    table = summary["comparison"]
    assert table["pool"] == 0.5 and table["outcome_only"] == 1.0
    assert table["prm"] > 0.8 and table["prm"] > table["random"] + 0.2
    rows = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert len(rows) == summary["questions"] == len(items) // 2
    assert all(r["prm"] == "calc" and r["agg"] == "min" and r["messages"][1]["content"] == r["completion"]
               for r in rows)
    assert "| prm |" in (tmp_path / "selection.md").read_text()
    from datasets import load_from_disk

    assert load_from_disk(str(tmp_path / "sft_dataset")).num_rows == len(rows)
