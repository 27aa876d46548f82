"""What `finchain eval`'s summary says about a run directory (issue 31.18): the summary read back from real
Inspect logs and lm-eval output, written once per module by tests/support/inspect_logs.py (no model, no
server). Every expected figure below is worked out by hand from that module's inputs, never by calling the
code under test: counts, means, standard errors and intervals, by domain and level, tokens, where a cost
comes from, settings, wall time, failures and their reasons, which log of a task wins, the skipped models,
the coverage, the notes, and the summary file (redacted)."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone
from pathlib import Path
from statistics import NormalDist, stdev
from types import SimpleNamespace

import pytest

from finchain_tasks.runs import SUMMARY
from finchain_tasks.runs.summary import REFERENCE_NOTE, summarize, write_summary
from tests.support import inspect_logs as run

Z95 = NormalDist().inv_cdf(0.975)
NO_SETTINGS = {"profile": None, "task_version": None, "seeds": None, "fresh_seeds": None, "sample_order": None,
               "limit": None, "max_tokens": None, "temperature": None, "top_p": None, "extract": None}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run.build_run_dir(tmp_path_factory.mktemp("run"))


@pytest.fixture
def summary(run_dir: Path) -> dict:
    """Summarized again for each test (about 0.05 s): mutmut credits the functions a fixture calls to the one
    test that set it up, so a module-scoped summary would leave every other test out of its mutant runs."""
    return summarize(run_dir)


def _result(summary: dict, model: str, task_set: str, harness: str = "inspect") -> dict:
    found = [r for r in summary["results"] if (r["model"], r["task_set"], r["harness"]) == (model, task_set, harness)]
    assert len(found) == 1, [(r["model"], r["task_set"], r["harness"]) for r in summary["results"]]
    return found[0]


def _stat(xs: list[float]) -> dict:
    mean = sum(xs) / len(xs)
    if len(xs) < 2:
        return {"n": len(xs), "mean": pytest.approx(mean), "stderr": None, "ci95": None}
    se = stdev(xs) / math.sqrt(len(xs))
    return {"n": len(xs), "mean": pytest.approx(mean), "stderr": pytest.approx(se),
            "ci95": [pytest.approx(mean - Z95 * se), pytest.approx(mean + Z95 * se)]}


def test_one_result_per_task_the_newest_log_winning_damaged_logs_skipped_in_model_task_created_order(summary):
    # Inspect logs sorted by (Inspect model, task, created); lm-eval folders after them, by model and task set;
    # the superseded fin-a log, the damaged file and the empty lm-eval folder are not there
    assert [(r["harness"], r["model"], r["task_set"], r["log"]) for r in summary["results"]] == [
        ("inspect", "litellm/no-such-model", "finchain", run.UNKNOWN.file),
        ("inspect", "legacy", "finchain_smoke", run.LEGACY.file),
        ("inspect", "reg-a", "cflue", run.A_CFLUE.file.split("/")[-1]),
        ("inspect", "reg-b", "finchain", run.B.file),  # created 08:00, before reg-a's 10:00
        ("inspect", "reg-a", "finchain", run.A_NEW.file),
        ("lm-eval", "ghost", "finchain", None),
        ("lm-eval", "reg-a", "cflue", f"reg-a/cflue/openai__shared/results_{run.C_STAMP}.json"),
        ("lm-eval", "reg-a", "finchain", f"reg-a/finchain/openai__shared/results_{run.NEW_STAMP}.json"),
        ("lm-eval", "reg-b", "finchain", None)]
    assert [r["task"] for r in summary["results"][:5]] == [run.UNKNOWN.task, run.LEGACY.task, run.A_CFLUE.task,
                                                          run.B.task, run.A_NEW.task]


def test_a_finished_log_counts_what_was_scored_failed_missing_and_duplicated(summary):
    a = _result(summary, "reg-a", "finchain")
    assert (a["display_name"], a["category"], a["inspect_model"], a["status"]) == ("Model A", "general", run.SHARED,
                                                                                  "success")
    # asked p1 p2 3 p4 p5 p6; logged p1 p2 3 "3" p4 (error) p6 (no score): p5 missing, 3 twice
    assert (a["requested"], a["completed"], a["failed"]) == (6, 4, 1)
    assert (a["missing"], a["duplicated"]) == (["p5#1"], ["3#1"])
    assert a["failures"] == [{"id": "p4", "epoch": 1, "reason": "RuntimeError: boom"}]
    chaineval, fac, step_f1 = [0.8, 0.4, 0.6, 0.6], [1.0, 0.0, 1.0, 1.0], [0.5, 0.25, 0.75, 0.75]
    assert a["scores"] == {"chaineval": pytest.approx(0.6), "fac": 0.75, "step_f1": 0.5625, "parse_ok": 1.0,
                           "first_error_step": 2.0}  # a text value ("label") is not a score
    assert a["stats"] == {"chaineval": _stat(chaineval), "fac": _stat(fac), "step_f1": _stat(step_f1),
                          "parse_ok": _stat([1.0]), "first_error_step": _stat([2.0])}
    assert a["stats"]["fac"]["stderr"] == pytest.approx(0.25)  # sd 0.5 (n - 1) over √4
    # groups sorted by name; the errored p4 and the unscored p6 (both banking, easy) count in none
    assert list(a["by_domain"]) == ["banking", "corporate_finance"]
    assert a["by_domain"]["banking"] == {"n": 3, "chaineval": pytest.approx(1.6 / 3), "fac": pytest.approx(2 / 3),
                                         "step_f1": pytest.approx(1.75 / 3), "first_error_step": 2.0}
    assert a["by_domain"]["corporate_finance"] == {"n": 1, "chaineval": 0.8, "fac": 1.0, "step_f1": 0.5,
                                                   "parse_ok": 1.0}
    assert a["by_level"] == {"easy": {"n": 3, "chaineval": pytest.approx(2 / 3), "fac": 1.0,
                                      "step_f1": pytest.approx(2 / 3), "parse_ok": 1.0},
                             "hard": {"n": 1, "chaineval": 0.4, "fac": 0.0, "step_f1": 0.25, "first_error_step": 2.0}}


def test_tokens_count_cached_input_and_every_model_a_sample_called_and_logged_costs_are_summed(summary):
    a = _result(summary, "reg-a", "finchain")
    # input: p1 100 + 20 cached, p2 200 + 10 (two models), 3 and "3" 50 each, p4 40 (failed, still billed)
    assert (a["input_tokens"], a["output_tokens"]) == (470, 195)
    # every sample that used tokens logged its cost (p6 used none): their sum, not the registry price
    assert a["cost_usd"] == pytest.approx(0.002 + (0.001 + 0.0005) + 2 * 0.0015 + 0.0001)  # p1, p2, 3, "3", p4
    assert (a["cost_source"], a["batch"]) == ("litellm", False)


def test_settings_are_the_task_metadata_and_the_generation_config_as_sent(summary):
    a = _result(summary, "reg-a", "finchain")
    # the model's generation config wins over the task's (max_tokens, top_p); the task's fills the rest
    assert a["settings"] == {"profile": "paper", "task_version": "2.1", "seeds": [1, 2], "fresh_seeds": False,
                             "sample_order": "stratified", "limit": 6, "max_tokens": 512, "temperature": 0.7,
                             "top_p": 0.9, "extract": "final"}
    assert a["wall_s"] == 62.123  # 10:00:00 to 10:01:02.123456, to the millisecond
    b = _result(summary, "reg-b", "finchain")
    assert b["settings"] == {**NO_SETTINGS, "profile": "reference", "task_version": 3}  # the log's task version
    assert b["wall_s"] is None  # no start or end time logged: unknown, not 0


def test_a_model_named_in_its_model_args_with_epochs_and_no_price_has_an_unknown_cost(summary):
    b = _result(summary, "reg-b", "finchain")
    assert (b["display_name"], b["category"], b["inspect_model"]) == ("Model B", "reasoning", run.SHARED)
    # x and y over 2 epochs: x#1, x#2 scored, y#1 failed, y#2 missing
    assert (b["requested"], b["completed"], b["failed"], b["missing"], b["duplicated"]) == (4, 2, 1, ["y#2"], [])
    assert b["failures"] == [{"id": "y", "epoch": 1, "reason": "retries ran out (RateLimitError)"}]
    assert b["scores"] == {"chaineval": 0.75} and b["stats"] == {"chaineval": _stat([1.0, 0.5])}
    assert b["by_domain"] == {"banking": {"n": 1, "chaineval": 0.5}}  # x#1 has no domain: in no group
    assert b["by_level"] == {"1": {"n": 2, "chaineval": 0.75}}  # a numeric level is named as text
    # x#1 logged no cost, and reg-b has no price: unknown, never a partial sum
    assert (b["input_tokens"], b["output_tokens"], b["cost_usd"], b["cost_source"]) == (20, 10, None, "unknown")


def test_a_killed_batched_cflue_run_in_a_sub_folder_reports_its_invalid_rates_at_the_batch_price(summary):
    c = _result(summary, "reg-a", "cflue")
    assert (c["status"], c["task"], c["requested"], c["completed"], c["failed"], c["missing"]) == (
        "started", "finchain_tasks/cflue_knowledge", 3, 2, 0, ["c3#1"])
    # the plain-number score is named by the scorer's last part; the text score is no score
    assert c["scores"] == {"accuracy": 0.5, "invalid_strict": 0.5, "invalid_robust": 0.0}
    assert c["stats"]["invalid_robust"] == {"n": 2, "mean": 0.0, "stderr": 0.0, "ci95": [0.0, 0.0]}
    assert c["stats"]["accuracy"] == _stat([1.0, 0.0])
    # batched: reg-a's batch price (1 and 4 per 1M), not the list price logged per sample (0.5 each)
    assert (c["input_tokens"], c["output_tokens"]) == (1000 + 3000 + 500, 200 + 600)
    assert c["cost_usd"] == pytest.approx((4500 * 1.0 + 800 * 4.0) / 1e6)
    assert (c["cost_source"], c["batch"]) == ("batch price: test batch", True)
    assert c["settings"] == {**NO_SETTINGS, "task_version": 0}
    assert (c["by_domain"], c["by_level"], c["wall_s"], c["failures"]) == ({}, {}, None, [])


def test_a_log_of_an_older_run_is_found_by_its_inspect_model_and_priced_from_the_registry(summary):
    old = _result(summary, "legacy", "finchain_smoke")  # no task set in the log: the task's name
    assert (old["display_name"], old["category"], old["inspect_model"]) == ("Legacy", "local", "litellm/openai/legacy")
    # one of the sample's two model calls logged no cost: tokens × the registry price (no source: "registry")
    assert (old["input_tokens"], old["output_tokens"]) == (1500, 100)
    assert old["cost_usd"] == pytest.approx((1500 * 1.0 + 100 * 3.0) / 1e6)
    assert old["cost_source"] == "registry"
    assert (old["requested"], old["completed"], old["missing"]) == (0, 1, [])  # no sample ids logged
    assert old["scores"] == {"chaineval": 0.3, "match": 1.0}


def test_a_model_nobody_knows_is_reported_under_its_bare_name_with_an_unknown_cost(summary):
    u = _result(summary, "litellm/no-such-model", "finchain")
    assert (u["display_name"], u["category"], u["inspect_model"]) == ("litellm/no-such-model", None,
                                                                      "litellm/no-such-model")
    assert (u["cost_usd"], u["cost_source"], u["input_tokens"]) == (None, "unknown", 0)
    assert u["scores"] == {"chaineval": 0.9} and u["stats"] == {"chaineval": _stat([0.9])}


def test_an_lm_eval_run_reads_its_newest_results_and_their_samples_only(summary):
    r = _result(summary, "reg-a", "finchain", "lm-eval")
    assert (r["display_name"], r["category"], r["inspect_model"], r["task"], r["status"]) == (
        "Model A", "general", None, "finchain", "success")
    # effective samples 2 + 1 (a leaf without "effective" adds none); the older results' 9 and its sample
    # are not read; the counts n_gold_steps/n_pred_steps and a text metric are no scores
    assert (r["requested"], r["completed"], r["failed"], r["missing"], r["duplicated"]) == (3, 3, 0, [], [])
    assert r["scores"] == {"chaineval": pytest.approx(0.5), "fac": pytest.approx(2 / 3)}
    assert r["stats"] == {"chaineval": _stat([0.5, 0.25, 0.75]), "fac": _stat([1.0, 0.0, 1.0])}
    assert r["by_domain"] == {"banking": {"n": 3, "chaineval": pytest.approx(0.5), "fac": pytest.approx(2 / 3)}}
    assert r["by_level"] == {"easy": {"n": 2, "chaineval": 0.375, "fac": 0.5},
                             "hard": {"n": 1, "chaineval": 0.75, "fac": 1.0}}
    # the first leaf's run record and generation kwargs; the limit the run was asked for (status) over lm-eval's
    assert r["settings"] == {"profile": "paper", "task_version": "2.1", "seeds": [1, 2], "fresh_seeds": True,
                             "sample_order": "stratified", "limit": 3, "max_tokens": 256, "temperature": 0.0,
                             "top_p": 1.0, "extract": None}
    assert r["wall_s"] == 12.346  # lm-eval's own evaluation time (a string in its file), not status.json's
    assert (r["input_tokens"], r["output_tokens"], r["cost_usd"], r["cost_source"]) == (None, None, None, "unknown")
    assert r["failures"] == []


def test_lm_eval_rows_carry_ids_levels_and_unknown_tokens_and_an_id_falls_back_to_the_document_index(run_dir):
    from finchain_tasks.runs.summary import lm_eval_rows

    results = run_dir / f"lm_eval/reg-a/finchain/openai__shared/results_{run.NEW_STAMP}.json"
    rows = lm_eval_rows(results)
    assert [(r["id"], r["epoch"], r["domain"], r["level"]) for r in rows] == [
        ("b-e-1", 1, "banking", "easy"), ("7", 1, "banking", "easy"), ("b-h-1", 1, "banking", "hard")]
    assert rows[0]["scores"] == {"chaineval": 0.5, "fac": 1.0}
    assert all((r["error"], r["input_tokens"], r["output_tokens"], r["cost"]) == (None, None, None, None)
               for r in rows)
    assert lm_eval_rows(run_dir / "lm_eval/reg-a/finchain/results_none.json") == []  # no samples written with it


def test_an_lm_eval_run_without_a_status_file_reads_the_newest_results_written_and_their_limit(summary):
    r = _result(summary, "reg-a", "cflue", "lm-eval")
    # the file written last wins, whatever its name; no status.json: lm-eval's own limit, no wall time;
    # a sample line that lists no metrics is answered but has no score
    assert (r["status"], r["requested"], r["completed"], r["failures"]) == ("success", 2, 3, [])
    assert r["scores"] == {"acc": 0.5} and r["stats"] == {"acc": _stat([1.0, 0.0])}
    assert r["settings"] == {**NO_SETTINGS, "limit": 2, "max_tokens": 8}
    assert (r["wall_s"], r["by_domain"], r["by_level"]) == (None, {}, {})


def test_a_failed_lm_eval_run_reports_its_error_and_a_run_without_rc_is_started(summary):
    failed = _result(summary, "reg-b", "finchain", "lm-eval")
    assert (failed["status"], failed["display_name"], failed["requested"], failed["completed"]) == (
        "error", "Model B", 0, 0)
    assert failed["failures"] == [{"id": "(lm-eval run)", "epoch": None, "reason": "CUDA out of memory"}]
    assert (failed["wall_s"], failed["settings"], failed["scores"], failed["stats"]) == (5.5, NO_SETTINGS, {}, {})
    ghost = _result(summary, "ghost", "finchain", "lm-eval")
    assert (ghost["status"], ghost["display_name"], ghost["category"], ghost["failures"]) == (
        "started", None, None, [])
    assert (ghost["wall_s"], ghost["by_domain"], ghost["by_level"]) == (1.25, {}, {})


def test_the_run_lists_the_last_sessions_skipped_models_and_warnings_and_the_total_wall_time(summary, run_dir):
    import finchain_tasks

    assert summary["skipped"] == [{"model": "nokey", "reason": "NOKEY_API_KEY not set"}]
    assert summary["warnings"] == ["registry: x is deprecated"]
    assert (summary["sessions"], summary["wall_s_total"]) == (3, 12.75)  # 10.2504 + (none) + 2.5, to the ms
    assert summary["cached_responses"] == run.CACHED
    assert summary["notes"] == [REFERENCE_NOTE]  # reg-b's log was scored in the reference profile
    assert summary["run_dir"] == str(run_dir.resolve())
    assert summary["finchain_tasks_version"] == finchain_tasks.__version__
    generated = datetime.fromisoformat(summary["generated"])
    assert generated.utcoffset() == timedelta(0) and generated.microsecond == 0
    assert abs(datetime.now(timezone.utc) - generated) < timedelta(minutes=10)


def test_coverage_counts_the_templates_of_each_domain_in_taxonomy_order(summary):
    from collections import Counter

    from finchain_tasks.engine import all_templates
    from finchain_tasks.finchain.taxonomy import domains

    counts = Counter(t.domain for t in all_templates().values())
    cov = summary["coverage"]
    assert cov["templates"] == sum(counts.values())
    assert list(cov["domains_with_templates"].items()) == [(d, counts[d]) for d in domains() if counts[d]]
    assert cov["domains_without_templates"] == [d for d in domains() if not counts[d]]


def test_coverage_lists_a_domain_outside_the_taxonomy_after_it_and_a_domain_without_templates(monkeypatch):
    import finchain_tasks.engine
    from finchain_tasks.finchain.taxonomy import domains
    from finchain_tasks.runs.summary import coverage

    known = list(domains())
    fake = {f"t{i}": SimpleNamespace(domain=d) for i, d in enumerate(["zz_new", known[1], "aa_new", known[1]])}
    monkeypatch.setattr(finchain_tasks.engine, "all_templates", lambda: fake)
    assert coverage() == {"templates": 4, "domains_with_templates": {known[1]: 2, "aa_new": 1, "zz_new": 1},
                          "domains_without_templates": [d for d in known if d != known[1]]}


def test_an_empty_run_directory_summarizes_to_nothing_unknown_not_zero(tmp_path):
    empty = summarize(tmp_path)
    assert (empty["results"], empty["skipped"], empty["warnings"], empty["notes"]) == ([], [], [], [])
    assert (empty["sessions"], empty["wall_s_total"], empty["cached_responses"]) == (0, 0, None)


def test_the_summary_file_holds_the_summary_as_indented_json_without_a_configured_secret(summary, run_dir,
                                                                                         monkeypatch, tmp_path):
    path = write_summary(run_dir, summary)
    assert path == run_dir / SUMMARY and json.loads(path.read_text("utf-8")) == json.loads(json.dumps(summary))
    assert not path.with_name(SUMMARY + ".partial").exists()
    secret = "sk-test-0123456789abcdefXYZ"
    monkeypatch.setenv("FINCHAIN_SUMMARY_TEST_API_KEY", secret)
    small = {"results": [{"reason": f"401: bad key {secret} for Zürich"}]}
    text = write_summary(tmp_path, small).read_text("utf-8")
    assert secret not in text and secret[-12:] not in text
    assert text == '{\n  "results": [\n    {\n      "reason": "401: bad key <redacted> for Zürich"\n    }\n  ]\n}\n'


def _header(model: str, metadata: dict | None = None) -> object:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec

    return EvalLog(eval=EvalSpec(created="2026-12-01T00:00:00+00:00", task="t", dataset=EvalDataset(), model=model,
                                 config=EvalConfig(), metadata=metadata))


def test_a_registry_name_the_manifest_lacks_falls_back_to_the_manifests_record_of_its_inspect_model():
    from finchain_tasks.runs.summary import _record_for

    by_name, records = {"reg-a": run.REG_A}, {run.SHARED: run.REG_B}
    assert _record_for(_header(run.SHARED, {"finchain_model": "gone"}), by_name, records) is run.REG_B
    assert _record_for(_header(run.SHARED, {"finchain_model": "reg-a"}), by_name, records) is run.REG_A


def test_a_log_of_an_older_run_outside_the_manifest_takes_the_shipped_registrys_entry():
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.summary import _record_for

    spec = load_registry().models["claude-sonnet-4"]
    record = _record_for(_header(f"litellm/{spec.litellm_model}"), {}, {})
    assert (record["name"], record["display_name"], record["category"]) == (spec.name, spec.display_name,
                                                                            spec.category)
    adhoc = _record_for(_header("litellm/openai/not-registered-xyz"), {}, {})  # a provider/model id: ad hoc
    assert (adhoc["name"], adhoc["display_name"]) == ("openai/not-registered-xyz", "openai/not-registered-xyz")


def test_damaged_lm_eval_files_fail_their_row_with_the_reason_and_the_rest_is_still_summarized(tmp_path):
    # a writer killed mid-write, a file that is JSON but not an object, bytes that are not UTF-8: before
    # the fix, the first damaged file stopped the whole summary (and the report) with a traceback
    root = tmp_path / "lm_eval" / "m"
    (root / "a").mkdir(parents=True)
    (root / "a" / "status.json").write_text('{"rc": 0, "wall_s": 1', encoding="utf-8")
    (root / "b" / "out").mkdir(parents=True)
    (root / "b" / "out" / "results_s1.json").write_text("[1, 2]", encoding="utf-8")
    (root / "b" / "out" / "samples_t_s1.jsonl").write_text(
        '{"doc": {"id": "d1"}, "metrics": ["acc"], "acc": 1}\n{"doc": {"id": "d2"}, "metr', encoding="utf-8")
    (root / "c").mkdir()
    (root / "c" / "status.json").write_bytes(b'{"rc": 0, "error": "\xff"}')
    (root / "d").mkdir()
    (root / "d" / "status.json").write_text('{"rc": 0, "wall_s": 2.5}', encoding="utf-8")
    rows = {r["task_set"]: r for r in summarize(tmp_path)["results"]}
    assert [(name, r["status"]) for name, r in rows.items()] == [("a", "error"), ("b", "error"), ("c", "error"),
                                                                  ("d", "started")]
    reasons = {name: [f["reason"] for f in r["failures"]] for name, r in rows.items()}
    assert reasons == {  # the file and the parser's own one-line reason
        "a": ["status.json unreadable (not JSON (Expecting ',' delimiter: line 1, column 22))"],
        "b": ["results_s1.json unreadable (not a JSON object)",
              "samples of results_s1.json unreadable (samples_t_s1.jsonl:2: not JSON (Unterminated string starting "
              "at: line 1, column 23))"],
        "c": ["status.json unreadable (not UTF-8 text (invalid start byte at byte 20))"],
        "d": []}
    assert (rows["b"]["completed"], rows["b"]["requested"], rows["d"]["wall_s"]) == (0, 0, 2.5)
    assert rows["b"]["failures"][0] == {"id": "(lm-eval run)", "epoch": None, "reason": reasons["b"][0]}


@pytest.mark.parametrize("n_samples, requested, reported", [
    ({"a": {"effective": 3}, "b": {"effective": 4.0}}, 7, False),
    ({"a": {"original": 9}}, 0, False),  # no effective count logged: none asked for, nothing damaged
    ({}, 0, False),
    ({"a": {"effective": 3}, "b": {"effective": float("nan")}}, 3, True),
    ({"a": {"effective": float("inf")}}, 0, True),
    ({"a": {"effective": "12"}}, 0, True),
    ({"a": {"effective": 2.5}}, 0, True),
    ({"a": {"effective": -1}}, 0, True),
    ({"a": {"effective": True}}, 0, True),
    ({"a": 5}, 0, True),
    (["a"], 0, True),
])
def test_rule_a_requested_count_that_is_no_whole_number_counts_0_and_fails_the_row_with_the_reason(
        tmp_path, n_samples, requested, reported):
    folder = tmp_path / "lm_eval" / "m" / "finchain"
    folder.mkdir(parents=True)
    (folder / "results_s1.json").write_text(json.dumps({"n-samples": n_samples, "results": {}}), encoding="utf-8")
    (row,) = summarize(tmp_path)["results"]
    reasons = [f["reason"] for f in row["failures"]]
    assert row["requested"] == requested
    assert reasons == (["results_s1.json: n-samples holds a count that is no whole number"] if reported else [])
