"""Ingest's user-visible rules, one table-driven test per rule (issue 39.3): which facts of a log reach each
row's column (Inspect and lm-eval alike), where an lm-eval row's task and task set come from, which files
count as Inspect logs, the first broken step from lm-eval's buckets, the run's own record of a model, and the
column types of the per-sample table. Logs are written by hand in milliseconds (Inspect's through its own log
API, tests/support/inspect_logs.py; lm-eval's in the shape ``--log_samples`` writes): no model, no server."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from finchain_tasks.leaderboard import ingest
from finchain_tasks.plumbing.safe_files import UnreadableFile
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


# -- why a file could not be read: one line, never a traceback ---------------------------------------------

def _raised(make):
    try:
        make()
    except BaseException as exc:  # noqa: BLE001 - each kind is the case under test
        return exc
    raise AssertionError("nothing raised")


@pytest.mark.parametrize("exc, reason", [
    (ingest.IngestError("x.json: bad"), "x.json: bad"),
    (UnreadableFile("/home/me/x.json", "a FIFO"), "a FIFO"),          # its reason only: the path is local
    (RecursionError("deep"), "nested too deeply to be read"),
    (_raised(lambda: b"a\xffb".decode("utf-8")), "not UTF-8 text (invalid start byte at byte 1)"),
    (_raised(lambda: json.loads("{\n  x")),
     "not JSON (Expecting property name enclosed in double quotes at line 2, column 3)"),
    (OSError(13, "Permission denied"), "cannot be read (Permission denied)"),
    (PermissionError(), "cannot be read (PermissionError)"),
    (ValueError("a\n   b"), "unexpected content (ValueError: a b)"),
    (KeyError(), "unexpected content (KeyError)"),
    (ValueError("x" * 130), f"unexpected content (ValueError: {'x' * 120})"),
])
def test_rule_each_kind_of_unreadable_file_gets_its_own_one_line_reason(exc, reason):
    assert ingest.reason_of(exc) == reason


def _fails(exc):
    def rows(*args):
        raise exc
        yield  # pragma: no cover - a generator, as the readers are
    return rows


@pytest.mark.parametrize("exc, raised", [
    (ValueError("boom"), "run/logs/x.eval: unexpected content (ValueError: boom)"),
    (ingest.IngestError("x.eval: not a readable Inspect log (ValueError)"), "x.eval: not a readable Inspect log"),
])
def test_rule_without_a_list_a_bad_file_raises_one_line_naming_it(exc, raised):
    with pytest.raises(ingest.IngestError) as info:
        ingest._guarded("run/logs/x.eval", None, _fails(exc))
    assert str(info.value).startswith(raised)


@pytest.mark.parametrize("exc, reason", [
    (ValueError("boom"), "unexpected content (ValueError: boom)"),
    (ingest.IngestError("x.eval: not a readable Inspect log (ValueError)"), "not a readable Inspect log (ValueError)"),
])
def test_rule_with_a_list_a_bad_file_is_listed_once_without_its_name_repeated_and_gives_no_rows(exc, reason):
    problems: list = []
    assert ingest._guarded("run/logs/x.eval", problems, _fails(exc)) == []
    assert problems == [ingest.Skipped("run/logs/x.eval", reason)]


def test_rule_a_good_file_gives_all_its_rows_and_lists_nothing():
    problems: list = []
    assert ingest._guarded("f", problems, lambda n: ({"k": k} for k in range(n)), 3) == [{"k": 0}, {"k": 1}, {"k": 2}]
    assert problems == []


@pytest.mark.parametrize("value, kind", [([], "list"), ("x", "str"), (None, "NoneType")])
def test_rule_a_json_value_that_must_be_an_object_says_what_it_found(value, kind):
    with pytest.raises(ingest.IngestError, match=f"^sample: expected a JSON object, found {kind}$"):
        ingest._mapping(value, "sample")


# -- an Inspect sample's scores, usage and texts ----------------------------------------------------------

def _score(value, metadata=None):
    return SimpleNamespace(value=value, metadata=metadata, answer=f"answer of {value!r}")


@pytest.mark.parametrize("scores, columns", [
    ({"chaineval": _score({"chaineval": 0.5, "fac": 1, "ok": True, "label": "x"})},
     {"chaineval": 0.5, "fac": 1.0, "ok": 1.0}),                           # a dict: its numeric values
    ({"cflue/accuracy": _score(1)}, {"accuracy": 1.0}),                    # a CFLUE scorer: accuracy
    ({"finchain_tasks/cflue_scorer": _score(0)}, {"accuracy": 0.0}),
    ({"match": _score(1.0)}, {"accuracy": 1.0}),                           # Inspect's match: accuracy
    ({"pkg/step_f1": _score(0.25)}, {"step_f1": 0.25}),                    # else the name after its package
    ({"fac": _score(0.0)}, {"fac": 0.0}),
    ({"note": _score("C")}, {}),                                           # a text score: no column
    ({"cflue/accuracy": _score(1, {"invalid": {"strict": True, "robust": 0}})},
     {"accuracy": 1.0, "invalid_strict": 1.0, "invalid_robust": 0.0}),     # the invalid marks as 0/1
    ({"cflue/accuracy": _score(1, {"invalid": "yes"})}, {"accuracy": 1.0}),
])
def test_rule_an_inspect_scores_values_reach_their_columns(scores, columns):
    assert ingest._scores(SimpleNamespace(scores=scores))[0] == columns


@pytest.mark.parametrize("scores, main", [
    ({}, None),
    ({"note": "C", "cflue/accuracy": 1}, "C"),                        # the first score, when none is a dict
    ({"note": "C", "chaineval": {"chaineval": 0.5}}, {"chaineval": 0.5}),  # else the dict one (ChainEval's)
])
def test_rule_the_main_score_is_the_chaineval_dict_else_the_first(scores, main):
    got = ingest._scores(SimpleNamespace(scores={k: _score(v) for k, v in scores.items()} or None))[1]
    assert (got.value if got is not None else None) == main


def _usage(i, o, cached, cost):
    return SimpleNamespace(input_tokens=i, output_tokens=o, input_tokens_cache_read=cached, total_cost=cost)


@pytest.mark.parametrize("usage, got", [
    ({}, (None, None, None)),                                                     # nothing logged: unknown
    ({"a": _usage(100, 20, None, 0.5)}, (100, 20, 0.5)),
    ({"a": _usage(100, 20, 30, 0.5)}, (130, 20, 0.5)),                            # cached input counts
    ({"a": _usage(100, 20, None, 0.5), "b": _usage(10, 2, 5, 0.25)}, (115, 22, 0.75)),  # every model summed
    ({"a": _usage(100, 20, None, 0.5), "b": _usage(10, 2, None, None)}, (110, 22, None)),  # one unknown cost
])
def test_rule_a_samples_tokens_sum_every_model_and_its_cost_is_known_only_when_every_cost_is(usage, got):
    assert ingest._usage(SimpleNamespace(model_usage=usage)) == got


def _msg(role, text):
    return SimpleNamespace(role=role, text=text)


@pytest.mark.parametrize("messages, prompt, question", [
    ([_msg("system", "S"), _msg("user", "Q"), _msg("assistant", "A"), _msg("user", "Q2")], "[system]\nS\n\n[user]\nQ",
     "Q2"),                                          # what came before the first reply; the last user message
    ([_msg("user", "Q")], "[user]\nQ", "Q"),
    ([_msg("assistant", "A")], None, ""),            # nothing sent before the reply
    ([], None, ""), (None, None, ""),
])
def test_rule_the_prompt_is_every_message_before_the_first_reply_under_its_role(messages, prompt, question):
    assert ingest.inspect_prompt(messages) == prompt
    assert ingest._last_user(messages) == question


@pytest.mark.parametrize("gold, steps", [
    ({"steps": [{"text": "a = 1"}, {"description": "b"}, {"text": "", "description": "c"}, {}, "x"]},
     ["a = 1", "b", "c", ""]),                       # text, else description, else empty; a non-step skipped
    ({"steps": None}, []), ({}, []), ("steps", []), (None, []),
])
def test_rule_gold_steps_are_each_steps_text_else_its_description(gold, steps):
    assert ingest._gold_texts(gold) == steps


@pytest.mark.parametrize("gold, target, shown", [
    ({"answer_text": "$5.00", "answer": 5.0}, "t", "$5.00"),
    ({"answer_text": "", "answer": 7, "answer_unit": "years"}, "t", "7 years"),  # an empty text: the value
    ({"answer": None}, "42", "42"),                                             # no value: a one-line target
    (None, "42", "42"),
    (None, "line 1\nline 2", None),                                             # a several-line target: none
    (None, ["a"], None), (None, None, None),
])
def test_rule_a_gold_answer_is_its_text_else_its_value_else_a_one_line_target(gold, target, shown):
    assert ingest._gold_answer(gold, target) == shown


# -- lm-eval's sample lines ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stamp, iso", [
    (1767323045.0, "2026-01-02T03:04:05+00:00"), (1767323045, "2026-01-02T03:04:05+00:00"),
    ("2026-01-02", "2026-01-02"), ("", None), (None, None), (0, "1970-01-01T00:00:00+00:00"),
])
def test_rule_a_results_date_is_iso_text_whether_logged_as_seconds_or_text(stamp, iso):
    assert ingest._iso(stamp) == iso


@pytest.mark.parametrize("resps, text", [
    ([["Final answer: 4"]], "Final answer: 4"), ([[["deep"]]], "deep"), ("flat", "flat"),
    ([], ""), (None, ""), ([[None]], ""), ([[3]], ""),
])
def test_rule_a_reply_is_the_first_text_of_the_nested_responses(resps, text):
    assert ingest._resp_text({"resps": resps}) == text


@pytest.mark.parametrize("filtered, answer", [
    ([["4"]], "4"), (["4"], "4"), ("4", "4"), ([[""]], None), ([], None), (None, None), ([[4]], None),
])
def test_rule_the_answer_is_what_the_tasks_filter_read_else_none(filtered, answer):
    assert ingest._filtered_answer({"filtered_resps": filtered}) == answer


def test_rule_a_prompt_that_looks_like_json_but_is_not_stays_text():
    assert ingest.lm_eval_prompt({"arguments": {"g": {"arg_0": "[{not json"}}}) == "[{not json"
    assert ingest.lm_eval_prompt({"arguments": {"g": {"arg_0": "[{}]"}}}) == "[None]\nNone"
    assert ingest.lm_eval_prompt({"arguments": {"g": {"arg_0": "[1]"}}}) == "[1]"
    assert ingest.lm_eval_prompt({"arguments": {"g": {"arg_0": ["a", "b"]}}}) is None


@pytest.mark.parametrize("sample, column, value", [
    ({"doc": {"id": "x"}, "doc_id": 3}, "sample_id", "x"),
    ({"doc": {}, "doc_id": 3}, "sample_id", "3"),                        # no id in the doc: lm-eval's number
    ({"doc": {"question": "Q", "prompt": "P"}}, "question", "Q"),
    ({"doc": {"prompt": "P"}}, "question", "P"),                         # CFLUE application: its prompt
    ({"doc": {"steps": json.dumps([{"text": "a"}])}}, "gold_steps", ["a"]),  # steps as JSON text
    ({"doc": {"steps": [{"text": "b"}]}}, "gold_steps", ["b"]),
    ({"doc": {"steps": "no list"}}, "gold_steps", []),
    ({"doc": {"reference": "42"}}, "gold_answer", "42"),
    ({"doc": {}, "acc": 1}, "accuracy", 1.0),                            # lm-eval's acc is accuracy
    ({"doc": {}, "acc": 1}, "acc", None),
    ({"doc": {}, "chaineval": True, "fac": "1"}, "fac", None),           # a non-number is no value
    ({"doc": {}, "err_2": 1.0}, "first_error_step", 2),
    ({"doc": {}, "n_gold_steps": 3.0}, "n_gold_steps", 3),
    ({"doc": {}}, "epoch", 1), ({"doc": {}}, "error", None),
    ({"doc": {}, "resps": [["out"]], "filtered_resps": [["ans"]]}, "output", "out"),
    ({"doc": {}, "resps": [["out"]], "filtered_resps": [["ans"]]}, "answer", "ans"),
    ({"doc": {k: k for k in ("domain", "topic", "template", "level", "seed", "exam", "sub_task")}}, "exam", "exam"),
])
def test_rule_each_field_of_an_lm_eval_sample_reaches_its_column(sample, column, value):
    row = ingest._lm_eval_row(sample, {"model": "m"}, "finchain_x", "src")
    assert row.get(column) == value and row["source"] == "src" and row["task_set"] == "finchain_x"


@pytest.mark.parametrize("column", ["domain", "topic", "template", "level", "seed", "exam", "sub_task"])
def test_rule_each_label_of_an_lm_eval_doc_reaches_its_column(column):
    row = ingest._lm_eval_row({"doc": {column: f"the {column}"}}, {}, "finchain", "s")
    assert row[column] == f"the {column}"


@pytest.mark.parametrize("doc, values", [
    ({"task_slug": "classification", "output": "银行"}, {"accuracy": 1.0, "label_only": 1.0}),
    ({"task_slug": "classification", "output": json.dumps("银行")}, {"accuracy": 1.0, "label_only": 1.0}),
    ({"task_slug": "classification", "output": "保险"}, {"accuracy": 0.0, "label_only": 1.0}),
    ({"task_slug": "extraction", "output": "{not json"}, {"f1": 0.0}),     # plain text: the reference as it is
])
def test_rule_a_cflue_application_rows_value_is_the_inspect_scorers_on_the_same_reply(doc, values):
    row = ingest._lm_eval_row({"doc": doc, "resps": [["银行"]], "acc": 0.0}, {}, "cflue_application_x", "s")
    assert {k: row[k] for k in values} == values and row["task"] == "cflue_application"


@pytest.mark.parametrize("doc", [
    {"task_slug": "translation", "sub_task": "金融英中翻译", "output": "银行 贷款"},   # its direction from the sub-task
    {"task_slug": "classification", "output": "银行", "profile": "reference"},       # the record's own profile
])
def test_rule_a_cflue_application_value_reads_the_records_sub_task_and_profile(doc):
    from scorers.cflue.application import record_scores

    row = ingest._lm_eval_row({"doc": doc, "resps": [["银行 贷款"]]}, {}, "cflue_application_x", "s")
    expected = record_scores(doc["task_slug"], doc.get("sub_task", ""), doc["output"], "银行 贷款",
                             doc.get("profile", "default"))
    assert {k: row[k] for k in expected} == expected


def test_rule_a_cflue_application_line_without_a_task_slug_keeps_its_logged_values():
    row = ingest._lm_eval_row({"doc": {}, "resps": [["x"]], "acc": 1.0}, {}, "cflue_application_x", "s")
    assert row["accuracy"] == 1.0


# -- a run directory's manifest --------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("{", "run.json: not JSON (Expecting property name enclosed in double quotes: line 1, column 2)"),
    ("[]", "run.json: expected a JSON object, found list"),
    ('{"models": {"a": 1}}', "run.json: models: expected a list, found dict"),
])
def test_rule_a_bad_manifest_is_one_line_naming_run_json(tmp_path, text, message):
    (tmp_path / "run.json").write_text(text, encoding="utf-8")
    with pytest.raises(ingest.IngestError, match=f"^{re.escape(message)}$"):
        ingest._manifest_records(tmp_path)


def test_rule_the_manifests_records_are_its_models_with_a_text_name(tmp_path):
    assert ingest._manifest_records(tmp_path) == {}  # no manifest: no records
    (tmp_path / "run.json").write_text(json.dumps({"models": [{"name": "a", "x": 1}, {"name": 3}, "b", {}]}))
    assert ingest._manifest_records(tmp_path) == {"a": {"name": "a", "x": 1}}
    (tmp_path / "run.json").write_text(json.dumps({"models": None}))
    assert ingest._manifest_records(tmp_path) == {}


def test_rule_a_bad_manifest_costs_only_its_records_when_listing_else_raises_naming_the_run(tmp_path):
    run = tmp_path / "run"
    _write_inspect(run / "logs")
    (run / "run.json").write_text("[]", encoding="utf-8")
    problems: list = []
    (row,) = ingest.run_dir_rows(run, problems, realign=False)
    assert problems == [ingest.Skipped("run/run.json", "expected a JSON object, found list")]
    assert row["model"] == "reg-m" and row["display_name"] is None
    with pytest.raises(ingest.IngestError, match=r"^run/run\.json: expected a JSON object, found list$"):
        list(ingest.run_dir_rows(run, realign=False))


@pytest.mark.parametrize("price, cost", [
    ({"input": 2.0, "output": 10.0}, (100 * 2.0 + 20 * 10.0) / 1e6),
    ({"input": "2", "output": "10"}, (100 * 2.0 + 20 * 10.0) / 1e6),  # numbers written as text still price
    ({"input": 2.0}, None), ({"input": "two", "output": 1.0}, None), ({"input": None, "output": 1.0}, None),
    ("2.0", None), (None, None),
])
def test_rule_a_badly_recorded_price_leaves_the_cost_unknown_never_a_guess(price, cost):
    (row,) = ingest._with_record([{"model": "m", "input_tokens": 100, "output_tokens": 20, "cost": None}],
                                 {"m": {"price": price}})
    assert row["cost"] == (None if cost is None else pytest.approx(cost))


@pytest.mark.parametrize("row, cost", [
    ({"input_tokens": 100, "output_tokens": None, "cost": None}, 200 / 1e6),   # no output count: none spent
    ({"input_tokens": None, "output_tokens": 20, "cost": None}, None),        # no input count: unknown
    ({"input_tokens": 100, "output_tokens": 20, "cost": 0.5}, 0.5),           # a logged cost is kept
])
def test_rule_only_a_row_with_input_tokens_and_no_logged_cost_is_priced(row, cost):
    (got,) = ingest._with_record([{"model": "m", **row}], {"m": {"price": {"input": 2.0, "output": 10.0}}})
    assert got["cost"] == (None if cost is None else pytest.approx(cost))


def test_rule_a_record_fills_only_what_it_knows():
    (row,) = ingest._with_record([{"model": "m", "display_name": "Log's", "category": "c"}],
                                 {"m": {"display_name": None, "category": "rec", "params_b": 7}})
    assert (row["display_name"], row["category"], row["params_b"]) == ("Log's", "rec", 7)


# -- which logs and results files are read -------------------------------------------------------------

def _log(folder, name, task_id, created, mtime):
    path = _write_inspect(folder, replace(LOG, file=name, task_id=task_id, created=created))
    os.utime(path, (mtime, mtime))
    return path


def test_rule_the_newest_log_of_each_task_is_read_in_the_order_they_were_created(tmp_path):
    _log(tmp_path, "a-old.eval", "a", "2026-12-01T10:00:00+00:00", 100)
    _log(tmp_path, "a-new.eval", "a", "2026-12-01T09:00:00+00:00", 200)   # written last: it wins
    _log(tmp_path, "b.eval", "b", "2026-12-01T08:00:00+00:00", 150)
    assert [p.name for p in ingest.newest_inspect_logs(tmp_path)] == ["b.eval", "a-new.eval"]
    assert ingest.newest_inspect_logs(tmp_path / "missing") == []


def test_rule_of_two_logs_of_a_task_written_at_the_same_moment_the_later_listed_wins(tmp_path):
    _log(tmp_path, "a1.eval", "a", "2026-12-01T10:00:00+00:00", 100)
    _log(tmp_path, "a2.eval", "a", "2026-12-01T10:00:00+00:00", 100)
    assert [p.name for p in ingest.newest_inspect_logs(tmp_path)] == ["a2.eval"]


def test_rule_logs_created_at_the_same_moment_are_ordered_by_path(tmp_path):
    _log(tmp_path, "z.eval", "z", "2026-12-01T10:00:00+00:00", 100)
    _log(tmp_path, "a.eval", "a", "2026-12-01T10:00:00+00:00", 200)
    assert [p.name for p in ingest.newest_inspect_logs(tmp_path)] == ["a.eval", "z.eval"]


def test_rule_an_unreadable_log_is_listed_with_its_folder_and_the_others_are_read(tmp_path):
    _log(tmp_path, "a.eval", "a", "2026-12-01T10:00:00+00:00", 100)
    (tmp_path / "bad.eval").write_bytes(b"PK\x03\x04 not a zip")
    problems: list = []
    assert [p.name for p in ingest.newest_inspect_logs(tmp_path, problems, "run/logs/")] == ["a.eval"]
    assert [(s.path, s.reason.startswith("not a readable Inspect log (")) for s in problems] == [
        ("run/logs/bad.eval", True)]
    with pytest.raises(ingest.IngestError, match=r"^bad\.eval: not a readable Inspect log \(\w+\)$"):
        ingest.newest_inspect_logs(tmp_path)
    with pytest.raises(ingest.IngestError, match=r"^bad\.eval: not a readable Inspect log \(\w+\)$"):
        list(ingest.inspect_rows(tmp_path / "bad.eval"))


def test_rule_a_link_out_of_the_log_folder_is_listed_relative_to_it_and_not_followed(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.eval").write_text("x", encoding="utf-8")
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "sub" / "link.eval").symlink_to(tmp_path / "outside" / "x.eval")
    problems: list = []
    assert ingest.inspect_log_files(logs, problems, "run/logs/") == []
    assert problems == [ingest.Skipped("run/logs/sub/link.eval", "a link out of the folder")]  # no local path
    assert ingest.inspect_log_files(logs) == []  # without a list: skipped all the same


def test_rule_the_newest_results_file_of_each_lm_eval_folder_is_read(tmp_path):
    for folder, name, mtime in (("a", "results_1.json", 200), ("a", "results_2.json", 100),
                                ("b/c", "results_3.json", 50)):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / name).write_text("{}", encoding="utf-8")
        os.utime(tmp_path / folder / name, (mtime, mtime))
    got = [p.relative_to(tmp_path).as_posix() for p in ingest.newest_lm_eval_results(tmp_path)]
    assert got == ["a/results_1.json", "b/c/results_3.json"]


# -- what a source is --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """One source of each kind, each holding one sample of model ``reg-m`` (Inspect) or ``served`` (lm-eval)."""
    root = tmp_path_factory.mktemp("sources")
    _write_inspect(root / "logs-only")                                      # a folder of Inspect logs
    _write_inspect(root / "run" / "logs")                                   # a run directory
    _lm_eval_folder(root / "lm" / "served" / "inner", "finchain_x", [finchain_sample(1, 0.5)])  # lm-eval output
    _write_inspect(root / "runs" / "r1" / "logs")                           # a folder of run directories
    _write_inspect(root / "runs" / "r2" / "logs", replace(LOG, metadata={**LOG.metadata, "finchain_model": "n2"}))
    (root / "plain.txt").write_text("x", encoding="utf-8")
    return root


@pytest.mark.parametrize("source, models, where", [
    ("logs-only/2026-12-01T10-00-00+00-00_finchain_t1.eval", ["reg-m"], ["logs-only/" + LOG.file]),
    ("logs-only", ["reg-m"], ["logs-only/" + LOG.file]),
    ("run", ["reg-m"], ["run/" + LOG.file]),
    ("lm/served/inner/results_" + STAMP + ".json", ["served"], ["inner/samples_finchain_x_" + STAMP + ".jsonl"]),
    ("lm", ["served"], ["lm/served/inner/samples_finchain_x_" + STAMP + ".jsonl"]),
    ("runs", ["reg-m", "n2"], ["r1/" + LOG.file, "r2/" + LOG.file]),
])
def test_rule_a_source_is_a_log_a_results_file_a_run_an_output_folder_or_a_folder_of_runs(sources, source, models,
                                                                                            where):
    rows = list(ingest.source_rows(sources / source, realign=False))
    assert [r["model"] for r in rows] == models
    assert [r["source"] for r in rows] == where


@pytest.mark.parametrize("source, message", [
    ("missing", "source 'missing' does not exist ("),
    ("plain.txt", "source 'plain.txt': not a run directory, Inspect log or lm-eval output"),
])
def test_rule_anything_else_is_refused_in_one_line(sources, source, message):
    with pytest.raises(ingest.IngestError) as info:
        list(ingest.source_rows(sources / source))
    assert str(info.value).startswith(message)


def test_rule_ingest_lists_a_missing_or_unreadable_source_by_name_and_reads_the_rest(sources):
    problems: list = []
    frame = ingest.ingest([sources / "run", sources / "missing", sources / "plain.txt"], problems=problems,
                          realign=False)
    assert frame["model"].tolist() == ["reg-m"]
    assert problems == [ingest.Skipped("missing", "does not exist"),
                        ingest.Skipped("plain.txt", "not a run directory, Inspect log or lm-eval output")]
    with pytest.raises(ingest.IngestError, match="^source 'missing' does not exist"):
        ingest.ingest([sources / "run", sources / "missing"], realign=False)


def test_rule_a_folder_of_runs_never_follows_a_link_out_of_it(tmp_path, sources):
    root = tmp_path / "runs"
    (root / "inside").mkdir(parents=True)
    _write_inspect(root / "inside" / "logs")
    (root / "link-in").symlink_to(root / "inside")
    (root / "link-out").symlink_to(sources / "run")
    problems: list = []
    rows = list(ingest.source_rows(root, problems, realign=False))
    assert [r["source"] for r in rows] == ["inside/" + LOG.file, "link-in/" + LOG.file]
    assert problems == [ingest.Skipped("runs/link-out", "a link out of the source folder (not followed)")]
    with pytest.raises(ingest.IngestError, match=r"^runs/link-out: a link out of the source folder \(not followed\)$"):
        list(ingest.source_rows(root, realign=False))


# -- the registry fills what the logs lack ---------------------------------------------------------------

def test_rule_the_registry_fills_only_what_a_row_lacks_and_the_model_names_a_row_without_a_display_name():
    spec = SimpleNamespace(display_name="Reg", category="reasoning", params_b=7.0, open_weights=True)
    registry = SimpleNamespace(models={"m": spec})
    rows = ingest.enrich([{"model": "m", "display_name": "Log's"}, {"model": "m", "open_weights": False},
                          {"model": "other"}], registry)
    assert [(r.get("display_name"), r.get("category"), r.get("params_b"), r.get("open_weights")) for r in rows] == [
        ("Log's", "reasoning", 7.0, True), ("Reg", "reasoning", 7.0, False), ("other", None, None, None)]
    assert ingest.enrich([{"model": "m"}], None) == [{"model": "m", "display_name": "m"}]


@pytest.mark.parametrize("realign", [True, False])
def test_rule_a_failed_realignment_leaves_the_logged_scores(tmp_path, monkeypatch, realign):
    monkeypatch.setattr(ingest, "add_alignment", lambda rows, docs: 1 / 0)
    (row,) = ingest.lm_eval_rows(_lm_eval_folder(tmp_path, "finchain_x", [finchain_sample(1, 0.5)]), realign=realign)
    assert row["chaineval"] == 0.5 and row.get("alignment") is None and "_doc" not in row


def test_rule_realignment_gets_every_row_and_its_doc_of_a_finchain_file_only(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(ingest, "add_alignment", lambda rows, docs: seen.append((len(rows), [d["id"] for d in docs])))
    samples = [finchain_sample(k, 0.5) for k in range(2)]
    list(ingest.lm_eval_rows(_lm_eval_folder(tmp_path / "f", "finchain_x", samples)))
    list(ingest.lm_eval_rows(_lm_eval_folder(tmp_path / "c", "cflue_x", [{"doc": {"id": "c"}, "acc": 1}])))
    assert seen == [(2, [s["doc"]["id"] for s in samples])]


def test_rule_a_configured_key_is_redacted_from_every_text_a_row_holds_however_deep(monkeypatch):
    key = "sk-h39-0123456789abcdef"
    monkeypatch.setenv("H39_TEST_API_KEY", key)
    rows = ingest.redacted([{"output": f"echo {key}", "gold_steps": [f"a {key}", 3], "alignment": {"x": [key]},
                             "chaineval": 0.5, "epoch": 1, "tail": key[-12:]}])
    text = json.dumps(rows)
    assert key not in text and key[-12:] not in text and text.count("<redacted>") == 4
    assert rows[0]["chaineval"] == 0.5 and rows[0]["epoch"] == 1 and rows[0]["gold_steps"][1] == 3


def test_rule_without_a_configured_key_the_rows_are_given_back_as_they_are(monkeypatch):
    monkeypatch.setattr("finchain_tasks.plumbing.redaction.configured_secrets", lambda: set())
    rows = [{"output": "sk-h39-0123456789abcdef"}]
    assert ingest.redacted(rows) is rows



# -- an Inspect sample's own fields ------------------------------------------------------------------

def _rich_log(folder: Path) -> Path:
    """One log of two samples with every field a row reads: a scored one with its messages, gold and score
    metadata, and a failed one whose input is a list of messages."""
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ModelOutput

    spec = replace(LOG, sample_ids=["s1", "s2"], epochs=2, samples=(
        replace(LOG.samples[0], usage=((100, 20, None, 0.5),)), Sample("s2", epoch=2, error="RuntimeError: boom")))
    log = _eval_log(spec)
    log.eval.packages = {"inspect_ai": "0.3.999"}
    first, second = log.samples
    first.metadata = {"domain": "banking", "topic": "loans", "template": "t3", "level": "hard", "seed": 7,
                      "exam": "ex", "sub_task": "st",
                      "gold": {"steps": [{"text": "1 + 1 = 2"}], "answer": 2.0, "answer_unit": "$"}}
    first.scores["chaineval"].metadata = {"first_error_step": 2, "n_gold_steps": 3, "n_pred_steps": 4,
                                          "alignment": [[0, 1]]}
    first.scores["chaineval"].answer = "2"
    first.messages = [ChatMessageSystem(content="S"), ChatMessageUser(content="Q"), ChatMessageAssistant(content="A")]
    first.output = ModelOutput.from_content(model="served", content="the reply")
    first.total_time = 1.5
    second.input = [ChatMessageUser(content="first"), ChatMessageUser(content="last")]
    second.target = "line 1\nline 2"
    second.output = None
    path = folder / spec.file
    write_eval_log(log, str(path))
    return path


@pytest.fixture(scope="module")
def sample_rows(tmp_path_factory):
    return list(ingest.inspect_rows(_rich_log(tmp_path_factory.mktemp("rich")), None, "run/"))


@pytest.mark.parametrize("column, first, second", [
    ("sample_id", "s1", "s2"), ("epoch", 1, 2), ("domain", "banking", None), ("topic", "loans", None),
    ("template", "t3", None), ("level", "hard", None), ("seed", 7, None), ("exam", "ex", None),
    ("sub_task", "st", None), ("first_error_step", 2, None), ("n_gold_steps", 3, None), ("n_pred_steps", 4, None),
    ("alignment", [[0, 1]], None), ("latency_s", 1.5, None), ("source", "run/" + LOG.file, "run/" + LOG.file),
    ("question", "question", "last"), ("prompt", "[system]\nS\n\n[user]\nQ", None),
    ("gold_steps", ["1 + 1 = 2"], []), ("gold_answer", "$2.00", None), ("output", "the reply", ""),
    ("answer", "2", None), ("error", None, "RuntimeError: boom"), ("chaineval", 0.5, None),
    ("input_tokens", 100, None), ("output_tokens", 20, None), ("cost", 0.5, None),
])
def test_rule_each_field_of_an_inspect_sample_reaches_its_column(sample_rows, column, first, second):
    assert (sample_rows[0][column], sample_rows[1].get(column)) == (first, second)  # a failed sample: no score


def test_rule_a_sample_without_messages_shows_its_text_input_as_the_prompt(tmp_path):
    (row,) = ingest.inspect_rows(_write_inspect(tmp_path))
    assert (row["prompt"], row["question"], row["gold_answer"], row["source"]) == ("question", "question", "answer",
                                                                                  LOG.file)


@pytest.mark.parametrize("metadata, model_args, column, value", [
    ({"package_version": "9.9"}, {}, "finchain_tasks_version", "9.9"),      # CFLUE records it so
    ({"cflue_profile": "reference"}, {}, "profile", "reference"),
    ({"chaineval": "paper", "cflue_profile": "reference"}, {}, "profile", "reference"),  # not a dict: no profile
    ({}, {}, "task_version", "7"),                                           # the task's own version
    ({}, {}, "fresh", False), ({}, {}, "task_set", None),
    ({}, {"finchain_model": "args-m"}, "model", "args-m"),                  # the registry name in the model args
    ({}, {}, "model", "litellm/openai/served"),                              # else Inspect's model
])
def test_rule_an_inspect_log_without_a_fact_falls_back_to_what_else_it_records(tmp_path, metadata, model_args,
                                                                              column, value):
    spec = replace(LOG, metadata=metadata, model_args=model_args, task_version=7)
    (row,) = ingest.inspect_rows(_write_inspect(tmp_path, spec))
    assert row[column] == value


# -- an lm-eval results file's facts when it records fewer ----------------------------------------------

def test_rule_an_lm_eval_run_that_records_nothing_has_no_facts_but_its_model_and_harness():
    from importlib.metadata import version

    facts = ingest._lm_eval_facts({}, {}, "m")
    assert facts == {"model": "m", "display_name": None, "category": None, "params_b": None, "harness": "lm-eval",
                     "harness_version": version("lm_eval"), "finchain_tasks_version": None, "task_version": None,
                     "profile": None, "fresh": False, "date": None}


@pytest.mark.parametrize("metadata, column, value", [
    ({"finchain_run": {"finchain_tasks_version": "3.0"}}, "finchain_tasks_version", "3.0"),
    ({"cflue_app_run": {"package_version": "8.8", "task_version": 4, "cflue_profile": "reference"}},
     "finchain_tasks_version", "8.8"),
    ({"cflue_app_run": {"task_version": 4}}, "task_version", "4"),
    ({"cflue_app_run": {"cflue_profile": "reference"}}, "profile", "reference"),
    ({"finchain_run": "not a mapping"}, "task_version", None),
    ({"finchain_run": {"task_version": 2}}, "task_version", "2"),
])
def test_rule_an_lm_eval_run_records_its_versions_the_way_its_task_does(metadata, column, value):
    facts = ingest._lm_eval_facts({"configs": {"leaf": {"metadata": metadata}}}, {}, "m")
    assert facts[column] == value


def test_rule_an_lm_eval_folder_is_named_by_the_run_record_when_no_model_is_given(tmp_path):
    results = _lm_eval_folder(tmp_path, "finchain_x", [finchain_sample(1, 0.5)])
    assert [r["model"] for r in ingest.lm_eval_rows(results, {"name": "rec"}, realign=False)] == ["rec"]
    assert [r["model"] for r in ingest.lm_eval_rows(results, {"name": "rec"}, "given", realign=False)] == ["given"]
    assert [r["model"] for r in ingest.lm_eval_rows(results, realign=False)] == ["served"]


def test_rule_only_the_samples_files_of_a_results_files_own_stamp_and_folder_are_read(tmp_path):
    results = _lm_eval_folder(tmp_path, "finchain_x", [finchain_sample(1, 0.5)])
    (tmp_path / "samples_finchain_y_2020-01-01T00-00-00.000000.jsonl").write_text(
        json.dumps(finchain_sample(2, 0.5)) + "\n", encoding="utf-8")            # another run's samples
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / f"samples_finchain_z_{STAMP}.jsonl").write_text(
        json.dumps(finchain_sample(3, 0.5)) + "\n", encoding="utf-8")            # a sub-folder's
    rows = list(ingest.lm_eval_rows(results, realign=False))
    assert [(r["task_set"], r["source"]) for r in rows] == [("finchain_x", f"samples_finchain_x_{STAMP}.jsonl")]


def test_rule_an_unreadable_results_file_is_one_line_naming_it(tmp_path):
    (tmp_path / "results_x.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ingest.IngestError, match=r"^results_x\.json: not a readable lm-eval results file "
                                                 r"\(results: expected a JSON object, found list\)$"):
        list(ingest.lm_eval_rows(tmp_path / "results_x.json"))


def test_rule_a_link_out_of_a_runs_lm_eval_folder_is_listed_under_the_run_and_not_followed(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "results_x.json").write_text("{}", encoding="utf-8")
    lm = tmp_path / "run" / "lm_eval" / "served"
    lm.mkdir(parents=True)
    (lm / "results_x.json").symlink_to(tmp_path / "outside" / "results_x.json")
    problems: list = []
    assert list(ingest.run_dir_rows(tmp_path / "run", problems, realign=False)) == []
    assert problems == [ingest.Skipped("run/lm_eval/served/results_x.json", "a link out of the folder")]
    alone: list = []
    assert ingest.newest_lm_eval_results(tmp_path / "run" / "lm_eval", alone) == []
    assert alone == [ingest.Skipped("served/results_x.json", "a link out of the folder")]
