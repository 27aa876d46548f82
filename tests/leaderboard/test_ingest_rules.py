"""Ingest's user-visible rules, one table-driven test per rule (issue 39.3): which facts of a log reach each
row's column (Inspect and lm-eval alike), where an lm-eval row's task and task set come from, which files
count as Inspect logs, the first broken step from lm-eval's buckets, the run's own record of a model, and the
column types of the per-sample table. Logs are written by hand in milliseconds (Inspect's through its own log
API, tests/support/inspect_logs.py; lm-eval's in the shape ``--log_samples`` writes): no model, no server."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from finchain_tasks.leaderboard import ingest
from tests.leaderboard.handmade import STAMP, finchain_sample, write_lm_eval

pytest.importorskip("inspect_ai")

from tests.support.inspect_logs import Log, Sample, _eval_log  # noqa: E402

LOG = Log(
    file="2026-12-01T10-00-00+00-00_finchain_t1.eval", task="finchain_tasks/finchain", task_id="t1",
    model="litellm/openai/served", created="2026-12-01T10:00:00+00:00", mtime=0.0,
    metadata={"finchain_model": "reg-m", "finchain_task_set": "fin-set", "chaineval": {"profile": "paper"},
              "task_version": "2.1", "fresh_seeds": True, "finchain_tasks_version": "3.1.0"},
    sample_ids=["s1"],
    samples=(Sample("s1", scores={"chaineval": {"chaineval": 0.5}}, usage=((100, 20, None, None),)),),
)
RECORD = {"display_name": "Model M", "category": "reasoning", "params_b": 7.0}


def _write_inspect(folder: Path, spec: Log = LOG) -> Path:
    from inspect_ai.log import write_eval_log

    log = _eval_log(spec)
    log.eval.packages = {"inspect_ai": "0.3.999"}
    path = folder / spec.file
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(path))
    return path


@pytest.fixture(scope="module")
def inspect_row(tmp_path_factory):
    (row,) = ingest.inspect_rows(_write_inspect(tmp_path_factory.mktemp("logs")), RECORD)
    return row


@pytest.mark.parametrize("column, value", [
    ("model", "reg-m"), ("display_name", "Model M"), ("category", "reasoning"), ("params_b", 7.0),
    ("harness", "inspect"), ("harness_version", "0.3.999"), ("finchain_tasks_version", "3.1.0"),
    ("task", "finchain"), ("task_set", "fin-set"), ("task_version", "2.1"), ("profile", "paper"), ("fresh", True),
    ("date", "2026-12-01T10:00:00+00:00"),
])
def test_rule_each_fact_of_an_inspect_log_reaches_its_column(inspect_row, column, value):
    assert inspect_row[column] == value


# -- lm-eval ---------------------------------------------------------------------------------------

LM_RESULTS = {
    "config": {"model_args": "model=served"}, "lm_eval_version": "0.4.99", "date": 1767323045.0,
    "configs": {"finchain_banking_easy": {"metadata": {"finchain_run": {
        "package_version": "3.1.0", "task_version": "2.1", "chaineval": {"profile": "paper"}, "fresh_seeds": True}}}},
}


def _lm_eval_folder(folder: Path, leaf: str, samples: list, results: dict | None = None) -> Path:
    write_lm_eval(folder, "served", leaf, samples)
    if results is not None:
        (folder / f"results_{STAMP}.json").write_text(json.dumps(results), encoding="utf-8")
    return folder / f"results_{STAMP}.json"


@pytest.fixture(scope="module")
def lm_eval_row(tmp_path_factory):
    sample = {**finchain_sample(1, 0.5), "n_gold_steps": 3, "n_pred_steps": 2}
    results = _lm_eval_folder(tmp_path_factory.mktemp("lm"), "finchain_banking_easy", [sample], LM_RESULTS)
    (row,) = ingest.lm_eval_rows(results, RECORD, realign=False)
    return row


@pytest.mark.parametrize("column, value", [
    ("model", "served"), ("display_name", "Model M"), ("category", "reasoning"), ("params_b", 7.0),
    ("harness", "lm-eval"), ("harness_version", "0.4.99"), ("finchain_tasks_version", "3.1.0"),
    ("task", "finchain"), ("task_set", "finchain_banking_easy"), ("task_version", "2.1"), ("profile", "paper"),
    ("fresh", True), ("date", "2026-01-02T03:04:05+00:00"), ("n_gold_steps", 3), ("n_pred_steps", 2),
])
def test_rule_each_fact_of_an_lm_eval_run_reaches_its_column(lm_eval_row, column, value):
    assert lm_eval_row[column] == value


@pytest.mark.parametrize("leaf, task", [
    ("cflue_application_translation", "cflue_application"),
    ("cflue_application", "cflue_application"),
    ("cflue_single_choice", "cflue"),
    ("cflue", "cflue"),
    ("finchain_banking_easy", "finchain"),
    ("finchain", "finchain"),
])
def test_rule_an_lm_eval_leaf_belongs_to_the_task_its_name_starts_with(tmp_path, leaf, task):
    sample = {"doc_id": 0, "doc": {"id": "x"}, "resps": [["A"]], "acc": 1.0}
    (row,) = ingest.lm_eval_rows(_lm_eval_folder(tmp_path, leaf, [sample]), realign=False)
    assert row["task"] == task


@pytest.mark.parametrize("key", ingest.CFLUE_KEYS)
def test_rule_each_cflue_value_an_lm_eval_sample_logs_reaches_the_table_as_a_number(tmp_path, key):
    sample = {"doc_id": 0, "doc": {"id": "x"}, "resps": [["A"]], "acc" if key == "accuracy" else key: 1}
    (row,) = ingest.lm_eval_rows(_lm_eval_folder(tmp_path, "cflue_true_false", [sample]), realign=False)
    frame = ingest.to_frame([row])
    assert frame[key].tolist() == [1.0]


def test_rule_the_cflue_columns_are_accuracy_and_both_invalid_rates():
    assert ingest.CFLUE_KEYS == ("accuracy", "invalid_strict", "invalid_robust")


@pytest.mark.parametrize("key", ["f1", "rouge_l", "sentence_bleu"])
def test_rule_each_cflue_application_value_is_a_numeric_column(key):
    frame = ingest.to_frame([{"model": "m", key: 0.25}])
    assert frame[key].dtype == "float64" and frame[key].tolist() == [0.25]


@pytest.mark.parametrize("metrics, step", [
    ({"err_1": 1.0}, 1), ({"err_2": 1.0}, 2), ({"err_3": 1.0}, 3), ({"err_4plus": 1.0}, 4),
    ({"err_1": 0.0, "err_3": 1.0}, 3), ({"err_2": 0.0}, None), ({"err_2": 0.5}, None), ({}, None),
])
def test_rule_the_first_broken_step_is_the_bucket_lm_eval_marked_1(metrics, step):
    assert ingest.first_error_from_buckets(metrics) == step


# -- which files are logs, and where a task set comes from --------------------------------------------

@pytest.mark.parametrize("name, listed", [
    ("anything.eval", True),
    ("2026-12-01T10-00-00+00-00_finchain_x.json", True),
    ("2026-12-01T10:00:00+00:00_finchain_x.json", True),
    ("2026-12-01T10:00-00_x.json", True),
    ("2026-12-01T10-00:00_x.json", True),
    ("2026-12-01T10_00_00_x.json", False),
    ("results_2026-12-01T10-00-00.json", False),
    ("run.json", False),
    ("2026-12-01T10-00-00_x.jsonl", False),
    ("2026-12-01T10-00-00_x.txt", False),
])
def test_rule_any_eval_file_and_a_json_file_named_by_inspects_timestamp_is_an_inspect_log(tmp_path, name, listed):
    (tmp_path / name).write_text("{}", encoding="utf-8")
    assert [p.name for p, _ in ingest.inspect_log_files(tmp_path)] == ([name] if listed else [])


@pytest.mark.parametrize("layout, task_set", [
    ("served", "finchain_banking_easy"),  # lm_eval/<model>/results_*.json: the leaf names it
    ("ts/served", "ts"),  # lm_eval/<model>/<task set>/<lm-eval's model folder>/results_*.json
    ("ts", "ts"),  # lm_eval/<model>/<task set>/results_*.json
])
def test_rule_an_lm_eval_rows_task_set_is_its_folder_under_the_model_else_its_leaf(tmp_path, layout, task_set):
    run = tmp_path / "run"
    folder = run / "lm_eval" / "reg-m" / layout if layout != "served" else run / "lm_eval" / "reg-m"
    _lm_eval_folder(folder, "finchain_banking_easy", [finchain_sample(1, 0.5)])
    (row,) = ingest.run_dir_rows(run, realign=False)
    assert (row["model"], row["task_set"]) == ("reg-m", task_set)


# -- a run directory's record of its models ------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded_row(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    _write_inspect(run / "logs")
    (run / "run.json").write_text(json.dumps({"models": [{"name": "reg-m", **RECORD,
                                                          "price": {"input": 2.0, "output": 10.0}}]}))
    (row,) = ingest.run_dir_rows(run, realign=False)
    return row


@pytest.mark.parametrize("column, value", [("display_name", "Model M"), ("category", "reasoning"),
                                           ("params_b", 7.0)])
def test_rule_the_runs_record_of_a_model_fills_its_rows_names_and_size(recorded_row, column, value):
    assert recorded_row[column] == value


def test_rule_a_row_without_logged_cost_is_priced_at_the_runs_recorded_price(recorded_row):
    assert recorded_row["cost"] == pytest.approx((100 * 2.0 + 20 * 10.0) / 1e6)


def test_rule_a_log_of_a_model_the_run_does_not_record_keeps_its_own_facts(tmp_path):
    run = tmp_path / "run"
    _write_inspect(run / "logs", replace(LOG, metadata={**LOG.metadata, "finchain_model": "other"}))
    (run / "run.json").write_text(json.dumps({"models": [{"name": "reg-m", **RECORD}]}))
    (row,) = ingest.run_dir_rows(run, realign=False)
    assert (row["model"], row["display_name"], row["category"], row["params_b"]) == ("other", None, None, None)


# -- the table's column types ---------------------------------------------------------------------------

@pytest.mark.parametrize("column", ["input_tokens", "output_tokens", "n_gold_steps", "n_pred_steps", "epoch", "seed"])
def test_rule_each_count_is_a_whole_number_column_and_missing_stays_missing(column):
    frame = ingest.to_frame([{"model": "a", column: 3}, {"model": "b", column: None}])
    assert str(frame[column].dtype) == "Int64"
    assert frame[column].iloc[0] == 3 and frame[column].isna().tolist() == [False, True]


@pytest.mark.parametrize("column", ["gold_steps", "alignment"])
def test_rule_each_list_column_is_written_as_json_text_and_missing_stays_missing(column):
    value = ["1 + 1 = 2", "é"] if column == "gold_steps" else [{"gold": 0, "pred": 1}]
    frame = ingest.to_frame([{"model": "a", column: value}, {"model": "b", column: None}])
    assert frame[column].iloc[0] == json.dumps(value, ensure_ascii=False)
    assert frame[column].isna().tolist() == [False, True]
