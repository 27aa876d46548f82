"""The lm-eval side of ingest, one table-driven test per rule (issue 39): what a results file, the run's record
of the model and each ``samples_*.jsonl`` line of an lm-eval output folder put in every column a user sees
(model and display facts, harness, task, labels, metrics, CFLUE application values, date, texts), and what a bad
field, line or file does. The folders are written here in the shape ``--log_samples`` writes
(tests/leaderboard/handmade.py): no model, no server, no subprocess.

Every test reads its folder back with :func:`ingest.lm_eval_rows` in its own body, never in a shared fixture:
mutmut credits a function's calls only to the test that made them, so a row read once in a module fixture
pins its columns for the first test alone."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from typing import Any, Optional

import pytest

from finchain_tasks.leaderboard import ingest
from tests.leaderboard.handmade import STAMP, cflue_sample, finchain_sample, write_lm_eval

LEAF = "finchain_x"
RUN = {"package_version": "3.1.0", "finchain_tasks_version": "2.9.0", "task_version": 3,
       "chaineval": {"profile": "paper"}, "fresh_seeds": True}
RESULTS = {"config": {"model_args": "model=served,temperature=0"}, "lm_eval_version": "0.4.99",
           "date": 1767323045.0, "configs": {LEAF: {"metadata": {"finchain_run": RUN}}}}
RECORD = {"display_name": "Model M", "category": "reasoning", "params_b": 7.0}
SAMPLES_FILE = f"samples_{LEAF}_{STAMP}.jsonl"


def _results(**changes: Any) -> dict:
    """RESULTS with top-level keys replaced (None: removed)."""
    out = {**RESULTS, **changes}
    return {k: v for k, v in out.items() if v is not None}


def _with_run(**changes: Any) -> dict:
    """RESULTS whose ``finchain_run`` has keys replaced (None: removed)."""
    run = {k: v for k, v in {**RUN, **changes}.items() if v is not None}
    return _results(configs={LEAF: {"metadata": {"finchain_run": run}}})


def _write(folder: Path, samples: list, results: Optional[dict] = RESULTS, leaf: str = LEAF) -> Path:
    write_lm_eval(folder, "served", leaf, samples)
    path = folder / f"results_{STAMP}.json"
    if results is not None:
        path.write_text(json.dumps(results), encoding="utf-8")
    return path


def _rows(folder: Path, samples: list, results: Optional[dict] = RESULTS, leaf: str = LEAF,
          **kw: Any) -> list[dict]:
    kw.setdefault("realign", False)
    return list(ingest.lm_eval_rows(_write(folder, samples, results, leaf), **kw))


# -- the run's facts -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("column, value", [
    ("model", "served"), ("display_name", "Model M"), ("category", "reasoning"), ("params_b", 7.0),
    ("harness", "lm-eval"), ("harness_version", "0.4.99"),
    ("finchain_tasks_version", "3.1.0"),            # the run's package_version before its finchain_tasks_version
    ("task_version", "3"),                          # always text
    ("profile", "paper"), ("fresh", True), ("date", "2026-01-02T03:04:05+00:00"),
])
def test_rule_each_fact_of_the_results_file_and_the_run_record_reaches_every_row(tmp_path, column, value):
    rows = _rows(tmp_path, [finchain_sample(0, 0.5), finchain_sample(1, 0.5)], record=RECORD)
    assert [row[column] for row in rows] == [value, value]


@pytest.mark.parametrize("results, column, value", [
    (_results(lm_eval_version=None), "harness_version", version("lm_eval")),   # the installed harness
    (_results(lm_eval_version=""), "harness_version", version("lm_eval")),
    (_with_run(package_version=None), "finchain_tasks_version", "2.9.0"),
    (_with_run(package_version=None, finchain_tasks_version=None), "finchain_tasks_version", None),
    (_with_run(chaineval=None), "profile", None),
    (_with_run(chaineval="paper"), "profile", None),                            # not a mapping: says nothing
    (_with_run(chaineval={"profile": ""}), "profile", None),
    (_with_run(fresh_seeds=None), "fresh", False),
    (_with_run(fresh_seeds=0), "fresh", False),
    (_with_run(task_version=None), "task_version", None),
    (_results(date=None), "date", None),
    (_results(date="2026-01-02"), "date", "2026-01-02"),                         # text as logged
    (_results(date=0), "date", "1970-01-01T00:00:00+00:00"),
    (_results(configs={}), "task_version", None),
    (_results(configs=[RUN]), "task_version", None),                             # wrong shapes say nothing
    (_results(configs={LEAF: "x"}), "task_version", None),
    (_results(configs={LEAF: {"metadata": [RUN]}}), "task_version", None),
    (_results(configs={LEAF: {"metadata": {"finchain_run": [RUN]}}}), "task_version", None),
    (_results(configs={LEAF: {"metadata": {"cflue_run": {"package_version": "8.8", "task_version": 4,
                                                         "cflue_profile": "reference"}}}}), "profile", "reference"),
    (_results(configs={LEAF: {"metadata": {"cflue_app_run": {"task_version": 4}}}}), "task_version", "4"),
])
def test_rule_a_results_file_that_records_less_gives_what_else_it_records_or_nothing(tmp_path, results, column,
                                                                                    value):
    (row,) = _rows(tmp_path, [finchain_sample(0, 0.5)], results)
    assert row[column] == value


@pytest.mark.parametrize("column", ["display_name", "category", "params_b"])
def test_rule_without_a_run_record_a_row_has_no_display_facts(tmp_path, column):
    (row,) = _rows(tmp_path, [finchain_sample(0, 0.5)])
    assert row[column] is None


@pytest.mark.parametrize("date", [float("nan"), 1e20, -1e18, float("inf"), True, [1767323045], {"at": 1}])
def test_rule_a_results_date_that_is_no_moment_is_missing_and_the_samples_still_count(tmp_path, date):
    rows = _rows(tmp_path, [finchain_sample(0, 0.5)], _results(date=date))
    assert [(row["date"], row["chaineval"]) for row in rows] == [(None, 0.5)]


# -- the model's name ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("results, name", [
    ({"config": {"model_args": "temperature=0,model=served"}}, "served"),           # API backends: model=
    ({"config": {"model_args": "pretrained=org/m,dtype=bfloat16"}}, "org/m"),       # hf, vLLM: pretrained=
    ({"config": {"model_args": {"pretrained": "org/m", "dtype": "auto"}}}, "org/m"),  # logged as a mapping
    ({"config": {"model_args": "model=first,pretrained=second"}}, "first"),
    ({"config": {"model": "finchain-oracle", "model_args": ""}, "model_name": "word"}, "finchain-oracle"),
    ({"config": {"model": "finchain-oracle", "model_args": "mode=wrong, seed=1"}},
     "finchain-oracle (mode=wrong, seed=1)"),                                       # the backend with its args
    ({"config": {"model": "finchain-oracle", "model_args": {"mode": "wrong", "seed": 1}}},
     "finchain-oracle (mode=wrong, seed=1)"),
    ({"config": {"model": 5, "model_args": "mode=wrong"}, "model_name": "word"}, "word"),   # a backend not text
    ({"config": {"model": "", "model_args": ""}, "model_name": "word"}, "word"),
    ({"config": "hf", "model_name": "word"}, "word"),
    ({}, "unknown"),
])
def test_rule_a_folder_without_a_given_name_is_named_by_its_model_args_else_its_backend(tmp_path, results, name):
    (row,) = _rows(tmp_path, [finchain_sample(0, 0.5)], results)
    assert row["model"] == name


@pytest.mark.parametrize("model, record, name", [
    ("given", {"name": "recorded"}, "given"), (None, {"name": "recorded"}, "recorded"), (None, {}, "served"),
])
def test_rule_a_given_name_beats_the_run_records_which_beats_the_results_files(tmp_path, model, record, name):
    (row,) = _rows(tmp_path, [finchain_sample(0, 0.5)], model=model, record=record)
    assert row["model"] == name


# -- a sample line's columns ---------------------------------------------------------------------------------

FINCHAIN_LINE = {**finchain_sample(4, 0.75), "n_gold_steps": 3, "n_pred_steps": 2, "err_2": 1.0,
                 "arguments": {"gen_args_0": {"arg_0": "Solve step by step.\nWhat is 4 + 1?", "arg_1": {}}}}


@pytest.mark.parametrize("column, value", [
    ("sample_id", "finchain/personal_finance/topic/t1/4"), ("epoch", 1), ("domain", "personal_finance"),
    ("topic", "topic"), ("template", "t1"), ("level", "easy"), ("seed", 4), ("exam", None), ("sub_task", None),
    ("task", "finchain"), ("task_set", LEAF), ("source", f"run/{SAMPLES_FILE}"),
    ("chaineval", 0.75), ("fac", 1.0), ("step_f1", 0.75), ("n_gold_steps", 3), ("n_pred_steps", 2),
    ("first_error_step", 2), ("question", "What is 4 + 1?"), ("prompt", "Solve step by step.\nWhat is 4 + 1?"),
    ("gold_steps", ["4 + 1 = 5"]), ("gold_answer", "5.000000"), ("output", "Final answer: 4"), ("answer", "5"),
    ("error", None),                                                # lm-eval logs no failed sample
])
def test_rule_each_field_of_a_finchain_sample_line_reaches_its_column(tmp_path, column, value):
    (row,) = _rows(tmp_path, [FINCHAIN_LINE], source="run/")
    assert row[column] == value


@pytest.mark.parametrize("column, value", [
    ("sample_id", "cflue/exam1/3"), ("exam", "exam1"), ("sub_task", "单项选择"), ("task", "cflue"),
    ("accuracy", 1.0), ("invalid_strict", 0.0), ("question", "HANDMADE QUESTION 3: A or B?"),
    ("prompt", "Answer.\nHANDMADE QUESTION 3: A or B?"), ("gold_answer", "A"), ("output", "答案：A"),
    ("answer", "A"), ("domain", None), ("seed", None), ("error", None),
])
def test_rule_each_field_of_a_cflue_sample_line_reaches_its_column(tmp_path, column, value):
    line = cflue_sample(3, True)
    line = {**line, "doc": {**line["doc"], "sub_task": "单项选择"}, "invalid_strict": False}
    (row,) = _rows(tmp_path, [line], leaf="cflue_single_choice")
    assert row[column] == value


@pytest.mark.parametrize("doc, shown", [
    ({"answer_text": "$5.00", "answer": 5.0}, "$5.00"),            # the text the task kept wins
    ({"answer": 18598500.0, "answer_unit": "USD"}, "$18,598,500.00"),
    ({"answer": 1283008.0, "answer_unit": "shares"}, "1,283,008.00 shares"),
    ({"reference": "42"}, "42"),                                     # else a one-line reference
    ({"reference": "4\n2"}, None),
    ({}, None),
])
def test_rule_a_lines_gold_answer_is_its_text_else_its_value_in_its_unit_else_its_reference(tmp_path, doc, shown):
    (row,) = _rows(tmp_path, [{"doc_id": 0, "doc": {"id": "x", **doc}, "resps": [["r"]]}])
    assert row["gold_answer"] == shown


@pytest.mark.parametrize("steps", [5, "[not json", {"text": "a"}, [1, "a"], None])
def test_rule_gold_steps_that_are_no_list_of_steps_show_none_and_the_line_still_counts(tmp_path, steps):
    line = {"doc_id": 0, "doc": {"id": "x", "steps": steps}, "resps": [["r"]], "chaineval": 0.5}
    (row,) = _rows(tmp_path, [line])
    assert (row["gold_steps"], row["chaineval"]) == ([], 0.5)


@pytest.mark.parametrize("extra, counts", [
    ({"n_gold_steps": 3.0, "n_pred_steps": 2}, (3, 2)),
    ({"n_gold_steps": "3", "n_pred_steps": None}, (None, None)),   # a count that is no number is no count
    ({"n_gold_steps": float("nan"), "n_pred_steps": float("inf")}, (None, None)),  # json writes NaN, Infinity
    ({"n_gold_steps": float("-inf"), "n_pred_steps": True}, (None, None)),  # a flag is no count either
    ({"n_gold_steps": 0, "n_pred_steps": 0.0}, (0, 0)),
    ({"n_gold_steps": 2.5, "n_pred_steps": -1}, (None, None)),  # no whole number, or below 0: as in the frame
    ({}, (None, None)),
])
def test_rule_each_logged_step_count_is_a_whole_number_else_missing(tmp_path, extra, counts):
    (row,) = _rows(tmp_path, [{"doc_id": 0, "doc": {"id": "x"}, "resps": [["r"]], **extra}])
    assert (row.get("n_gold_steps"), row.get("n_pred_steps")) == counts


# -- the prompt ----------------------------------------------------------------------------------------------

CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q?"}]


@pytest.mark.parametrize("arguments, prompt", [
    ({"gen_args_0": {"arg_0": "P", "arg_1": {}}}, "P"),                    # lm-eval 0.4's request arguments
    ([["P", {"until": []}]], "P"),                                         # older logs: a list of requests
    ({"gen_args_0": {"arg_0": ["P"]}}, "P"),                               # a JsonChatStr, logged as a 1-tuple
    ({"gen_args_0": {"arg_0": json.dumps(CHAT)}}, "[system]\nBe brief.\n\n[user]\nQ?"),   # chat messages as text
    ({"gen_args_0": {"arg_0": CHAT}}, "[system]\nBe brief.\n\n[user]\nQ?"),
    ({"gen_args_0": {"arg_0": [CHAT[1], "not a message"]}}, "[user]\nQ?"),
    ({"gen_args_0": {"arg_0": [1, 2]}}, None),
    (None, None), ({}, None), ([], None), ([[]], None), (5, None), ("P", None),   # no request: no prompt
    (["P"], None),                                                         # a list of texts is no request
    ({"gen_args_0": {"arg_0": 5}}, None), ({"gen_args_0": {"arg_0": {"text": "P"}}}, None),   # no text sent
    ({"gen_args_0": {"arg_1": {}}}, None),
])
def test_rule_the_prompt_is_the_text_or_chat_messages_of_the_lines_first_request(tmp_path, arguments, prompt):
    line = {"doc_id": 0, "doc": {"id": "x"}, "resps": [["r"]], "arguments": arguments}
    (row,) = _rows(tmp_path, [line])
    assert row["prompt"] == prompt


# -- CFLUE application ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("gold", [
    [{"role": "主体", "argument": "天津权健公司"}],                                 # logged as JSON
    json.dumps([{"role": "主体", "argument": "天津权健公司"}], ensure_ascii=False),  # logged as JSON text
])
def test_rule_an_application_reference_counts_the_same_logged_as_json_or_as_its_text(tmp_path, gold):
    line = {"doc_id": 0, "doc": {"id": "a", "task_slug": "extraction", "output": gold},
            "resps": [["主体: 天津权健公司"]]}
    (row,) = _rows(tmp_path, [line], leaf="cflue_application_extraction")
    assert (row["task"], row["f1"]) == ("cflue_application", 1.0)


def test_rule_an_application_translation_line_without_a_sub_task_is_listed_naming_the_missing_direction(tmp_path):
    lines = [{"doc_id": 0, "doc": {"id": "t0", "task_slug": "translation", "output": "bank"}, "resps": [["bank"]]},
             {"doc_id": 1, "doc": {"id": "t1", "task_slug": "translation", "sub_task": "金融英中翻译",
                                   "output": "银行"}, "resps": [["银行"]]}]
    problems: list = []
    rows = _rows(tmp_path, lines, leaf="cflue_application_translation", problems=problems)
    assert [row["sample_id"] for row in rows] == ["t1"]
    (skipped,) = problems
    assert skipped.path == "samples_cflue_application_translation_2026-01-02T03-04-05.000000.jsonl:1"
    assert skipped.reason.startswith("unexpected content (ValueError: unknown translation sub-task '' (known: ")


# -- bad lines and files -------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, reason", [
    ("{not json", "not JSON (Expecting property name enclosed in double quotes at line 1, column 2)"),
    ("[1, 2]", "sample: expected a JSON object, found list"),
    ("7", "sample: expected a JSON object, found int"),
    ('{"doc": "text"}', "sample doc: expected a JSON object, found str"),
    ('{"doc": [1]}', "sample doc: expected a JSON object, found list"),
])
def test_rule_a_bad_line_is_listed_by_file_and_line_and_the_others_are_read(tmp_path, line, reason):
    problems: list = []
    rows = _rows(tmp_path, [finchain_sample(0, 0.5), line, finchain_sample(2, 0.5)], source="run/",
                 problems=problems)
    assert [row["seed"] for row in rows] == [0, 2]
    assert problems == [ingest.Skipped(f"run/{SAMPLES_FILE}:2", reason)]


@pytest.mark.parametrize("line, reason", [
    ("[1, 2]", "sample: expected a JSON object, found list"),
    ('{"doc": "text"}', "sample doc: expected a JSON object, found str"),
])
def test_rule_without_a_list_a_bad_line_raises_one_line_naming_file_and_line(tmp_path, line, reason):
    with pytest.raises(ingest.IngestError) as raised:
        _rows(tmp_path, [finchain_sample(0, 0.5), line], source="run/")
    assert str(raised.value) == f"run/{SAMPLES_FILE}:2: {reason}"


def test_rule_an_unreadable_samples_file_is_listed_and_the_other_samples_files_are_read(tmp_path):
    results = _write(tmp_path, [finchain_sample(0, 0.5)])
    bad = f"samples_finchain_y_{STAMP}.jsonl"
    (tmp_path / bad).write_bytes(b'{"doc": "\xff"}\n')
    problems: list = []
    rows = list(ingest.lm_eval_rows(results, source="run/", problems=problems, realign=False))
    assert [row["task_set"] for row in rows] == [LEAF]
    assert [p.path for p in problems] == [f"run/{bad}"] and problems[0].reason.startswith("not UTF-8 text")
    with pytest.raises(ingest.IngestError, match=rf"^run/{bad}: not UTF-8 text"):
        list(ingest.lm_eval_rows(results, source="run/", realign=False))


# -- realignment ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("realign, alignment", [(True, ["recomputed"]), (False, [None])])
def test_rule_only_a_build_that_realigns_recomputes_the_alignment(tmp_path, monkeypatch, realign, alignment):
    def recompute(rows, docs):
        for row in rows:
            row["alignment"] = "recomputed"

    monkeypatch.setattr(ingest, "add_alignment", recompute)
    rows = _rows(tmp_path, [finchain_sample(0, 0.5)], realign=realign)
    assert [row.get("alignment") for row in rows] == alignment and "_doc" not in rows[0]
