"""The bill's user-visible rules (``--plan``), one table-driven test per rule (issue 39.3), without a server:
the fields of the ``--json`` output (docs/running-the-matrix.md lists them), which recorded figures an earlier
run's summary may contribute, how its answers are counted, and how the totals add up (unknown stays unknown, the
batch bill falls back to the list price, models run side by side). The end-to-end bill against a finished run
on the fake server is tests/runs/test_plan.py."""

from __future__ import annotations

import json

import pytest

from finchain_tasks.runs import SUMMARY
from finchain_tasks.runs.plan import _count, build_plan, earlier_from_summary, totals

TOP = {"schema", "run_dir", "limit", "max_connections", "task_sets", "rows", "totals", "totals_ready", "skipped"}
TASK_SET = {"name", "task", "samples", "epochs", "candidates", "max_tokens"}
ROW = {"model", "task_set", "provider", "category", "skip", "samples", "epochs", "candidates", "requests",
       "prompt_tokens", "tokenizer", "tokenizer_exact", "output_tokens", "max_tokens", "price", "cost_usd", "batch",
       "connections", "wall_s", "wall_basis", "answered_in_run_dir"}
OUTPUT = {"per_request", "expected", "low", "high", "source"}
RANGE = {"expected", "low", "high"}
TOTALS = {"rows", "models", "requests", "prompt_tokens", "output_tokens", "cost_usd", "unknown_cost_models",
          "batch_cost_usd", "wall_s"}
"""The documented fields (docs/running-the-matrix.md, ``--json``), written out here."""


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    """A plan of a priced model with a batch API, a local-URL model without a price, and a skipped one, on one
    task set of two problems; with an earlier run's summary for the priced model."""
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import plan_task_set
    from tests.support.bench_helpers import plan_problems

    root = tmp_path_factory.mktemp("plan-rules")
    templates = [p.template_id for p in plan_problems(2)]
    (root / "r.yaml").write_text(
        "version: 1\nextends: default\nmodels:\n"
        "  - {name: served, display_name: S, litellm_model: openai/served, category: general, open_weights: false, "
        "api_base: 'http://127.0.0.1:9/v1'}\n"
        f"task_sets:\n  two: {{task: finchain, args: {{seeds: [0], template: [{', '.join(templates)}]}}}}\n",
        encoding="utf-8")
    reg = load_registry(root / "r.yaml")
    run_dir = root / "run"
    run_dir.mkdir()
    (run_dir / SUMMARY).write_text(json.dumps({"results": [
        {"model": "gpt-4.1-mini", "task_set": "two", "completed": 3, "failed": 1, "output_tokens": 400,
         "wall_s": 8.0}]}), encoding="utf-8")
    specs = [reg.models["gpt-4.1-mini"], reg.models["served"], reg.models["gpt-4.1"]]
    return build_plan(specs, [plan_task_set(reg, "two")], skipped=[(reg.models["gpt-4.1"], ["OPENAI_API_KEY"])],
                      run_dir=run_dir)


# ---------------------------------------------------------------------------------------------- fields

def test_the_plan_carries_every_documented_field(plan):
    assert set(plan) == TOP and plan["schema"] == "finchain-plan/1"
    assert [set(t) for t in plan["task_sets"]] == [TASK_SET]
    assert plan["skipped"] == [{"model": "gpt-4.1", "reason": "OPENAI_API_KEY not set"}]
    assert set(plan["totals"]) == TOTALS and set(plan["totals_ready"]) == TOTALS


@pytest.mark.parametrize("model", ["gpt-4.1-mini", "served", "gpt-4.1"])
def test_each_row_carries_every_documented_field(plan, model):
    (row,) = [r for r in plan["rows"] if r["model"] == model]
    assert set(row) == ROW and set(row["output_tokens"]) == OUTPUT
    assert row["cost_usd"] is None or set(row["cost_usd"]) == RANGE
    assert row["price"] is None or {"input", "output"} <= set(row["price"])
    assert row["batch"] is None or (set(row["batch"]) == {"api", "price", "cost_usd"}
                                    and set(row["batch"]["cost_usd"]) == RANGE)


def test_an_earlier_run_sets_the_output_and_the_answers_already_in_the_run_directory(plan):
    rows = {r["model"]: r for r in plan["rows"]}
    mini = rows["gpt-4.1-mini"]
    # 400 tokens over 3 completed + 1 failed answers: 100 per request, 2 requests
    assert mini["output_tokens"] == {"per_request": 100.0, "expected": 200, "low": 200, "high": 200,
                                     "source": f"earlier run ({SUMMARY})"}
    assert mini["answered_in_run_dir"] == 4 and mini["wall_s"] == 4.0  # 8 s over 4 requests, 2 requests
    assert rows["served"]["answered_in_run_dir"] == 0 and rows["served"]["output_tokens"]["source"].startswith(
        "default")
    assert rows["served"]["cost_usd"] is None and rows["served"]["batch"] is None  # no price, an api_base


# --------------------------------------------------------------------------------- an earlier summary

@pytest.mark.parametrize(("value", "read"), [
    (0, 0.0), (12, 12.0), (2.5, 2.5), (1e15 - 1, 1e15 - 1),
    (1e15, None), (-1, None), (float("nan"), None), (True, None), ("12", None), (None, None),
])
def test_a_recorded_figure_counts_only_as_a_plausible_number(value, read):
    assert _count(value) == read


@pytest.mark.parametrize(("result", "per_request", "answers"), [
    ({"completed": 4, "output_tokens": 400}, 100.0, 4),
    ({"completed": 3, "failed": 1, "output_tokens": 400}, 100.0, 4),   # a failed answer was paid for too
    ({"failed": 2, "output_tokens": 100}, 50.0, 2),
    ({"completed": 0, "failed": 0, "output_tokens": 100}, None, None),  # no answer: nothing to learn
    ({"completed": 4}, None, None),                                    # no tokens recorded
])
def test_an_earlier_summary_counts_completed_and_failed_answers(tmp_path, result, per_request, answers):
    (tmp_path / SUMMARY).write_text(json.dumps({"results": [{"model": "m", "task_set": "t", **result}]}))
    found = earlier_from_summary(tmp_path, {"t": 1})
    if per_request is None:
        assert found == {}
    else:
        earlier = found[("m", "t")]
        assert (earlier.output_per_request, earlier.answers) == (per_request, answers)


# ---------------------------------------------------------------------------------------------- totals

def _range(x):
    return None if x is None else {"expected": x, "low": x / 2, "high": 2 * x}


def _row(model, wall, cost=None, batch=None, requests=2):
    return {"model": model, "requests": requests, "prompt_tokens": 10 * requests, "wall_s": wall,
            "output_tokens": {"expected": 5, "low": 1, "high": 9}, "cost_usd": _range(cost),
            "batch": None if batch is None else {"cost_usd": _range(batch)}}


@pytest.mark.parametrize(("rows", "cost", "batch", "unknown"), [
    ([], None, None, []),                                              # a sum of nothing is unknown, not $0
    ([_row("a", 1)], None, None, ["a"]),
    ([_row("a", 1, cost=2.0)], 2.0, 2.0, []),                          # no batch API: the list price
    ([_row("a", 1, cost=2.0, batch=1.0)], 2.0, 1.0, []),               # a batch API: its price
    ([_row("a", 1, cost=2.0, batch=1.0), _row("b", 1)], 2.0, 1.0, ["b"]),
])
def test_totals_sum_the_known_costs_and_name_the_unknown(rows, cost, batch, unknown):
    got = totals(rows)
    assert got["cost_usd"] == _range(cost) and got["batch_cost_usd"] == _range(batch)
    assert got["unknown_cost_models"] == unknown


def test_totals_count_rows_models_requests_tokens_and_run_models_side_by_side():
    rows = [_row("a", 10.0, requests=2), _row("a", 5.0, requests=3), _row("b", 12.0, requests=1)]
    got = totals(rows)
    assert (got["rows"], got["models"], got["requests"], got["prompt_tokens"]) == (3, 2, 6, 60)
    assert got["output_tokens"] == {"expected": 15, "low": 3, "high": 27}
    assert got["wall_s"] == 15.0  # a's two task sets one after another; b beside them
    assert totals([])["wall_s"] == 0.0
