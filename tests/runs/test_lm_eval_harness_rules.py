"""The lm-eval harness's rules over plain data, without running lm-eval (issue 39.3).

Which registry task arguments reach lm-eval (and under which metadata key), which CFLUE types it knows, which
generation parameters become ``--gen_kwargs``, what the child process's environment silences, which files
of the response cache are checked before lm-eval opens it, and what a cell's ``status.json`` and the run's
manifest record. The end-to-end run (tests/runs/test_runs_lm_eval.py) starts lm-eval against a fake server
and is marked slow; here the subprocess is a stand-in object, so each rule costs milliseconds."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from types import SimpleNamespace

import pytest

from finchain_tasks.runs import lm_eval_harness as harness
from finchain_tasks.runs.engine import TaskPlan

BASE_URL = "http://127.0.0.1:9/v1"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(harness.CACHE_DIR_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _spec(tmp_path, generation: str = "{}", extra: str = ""):
    from finchain_tasks.models.registry import load_registry

    path = tmp_path / "r.yaml"
    path.write_text("version: 1\nmodels:\n  - {name: m, display_name: M, litellm_model: openai/served-m, "
                    f"category: general, open_weights: false, api_base: '{BASE_URL}', generation: {generation}"
                    f"{extra}}}\n", encoding="utf-8")
    return load_registry(path).model("m")


def _options(**kw):
    return SimpleNamespace(**{"max_connections": 1, "max_retries": 1, "timeout": None, "limit": None, **kw})


# -- task sets ---------------------------------------------------------------------------------

@pytest.mark.parametrize("task, arg, key", [
    ("finchain", "profile", "finchain_profile"),
    ("finchain", "chaineval_params", "finchain_chaineval"),
    ("cflue", "path", "cflue_path"),
    ("cflue", "exam", "cflue_exams"),
    ("cflue", "prompt", "cflue_prompt"),
    ("cflue", "extract", "cflue_extract"),
    ("cflue", "n", "cflue_n"),
    ("cflue", "analysis", "cflue_analysis"),
    ("cflue", "profile", "cflue_profile"),
    ("cflue_application", "path", "cflue_app_path"),
    ("cflue_application", "sub_task", "cflue_app_sub_tasks"),
    ("cflue_application", "comet", "cflue_app_comet"),
    ("cflue_application", "bertscore", "cflue_app_bertscore"),
    ("cflue_application", "profile", "cflue_app_profile"),
])
def test_rule_each_task_argument_lm_eval_can_select_by_reaches_it_under_its_metadata_key(task, arg, key):
    _, metadata = harness.lm_eval_task(TaskPlan("ts", task, {arg: "v"}))
    assert metadata == {key: "v"}


@pytest.mark.parametrize("task", ["finchain", "cflue", "cflue_application"])
def test_rule_a_task_argument_lm_eval_has_no_key_for_is_refused_naming_it(task):
    with pytest.raises(ValueError, match=r"task set 'ts': --harness lm-eval cannot select by temperature; "
                                         r"use --harness inspect"):
        harness.lm_eval_task(TaskPlan("ts", task, {"temperature": 0.5}))


@pytest.mark.parametrize("types, tasks", [
    ("single_choice", ["cflue_single_choice"]),
    ("multiple_choice", ["cflue_multiple_choice"]),
    ("true_false", ["cflue_true_false"]),
    ("true_false, single_choice", ["cflue_true_false", "cflue_single_choice"]),
    (None, ["cflue"]),
])
def test_rule_each_cflue_type_selects_its_own_lm_eval_task_and_none_selects_the_group(types, tasks):
    assert harness.lm_eval_task(TaskPlan("ts", "cflue", {"type": types}))[0] == tasks


def test_rule_an_unknown_cflue_type_is_refused_listing_the_known_ones():
    with pytest.raises(ValueError, match=r"knows the CFLUE types \('single_choice', 'multiple_choice', "
                                         r"'true_false'\), not \['essay'\]"):
        harness.lm_eval_task(TaskPlan("ts", "cflue", {"type": "single_choice,essay"}))


# -- the child process ---------------------------------------------------------------------------

@pytest.mark.parametrize("generation, expected", [
    ("{temperature: 0.3}", ["temperature=0.3"]),
    ("{top_p: 0.9}", ["temperature=0.0", "top_p=0.9"]),
    ("{max_tokens: 64}", ["temperature=0.0", "max_gen_toks=64"]),
    ("{temperature: 0.2, top_p: 0.5, max_tokens: 8, reasoning_effort: low, extra: {seed: 3}}",
     ["temperature=0.2", "top_p=0.5", "max_gen_toks=8"]),
    ("{temperature: null}", []),
])
def test_rule_temperature_top_p_and_max_tokens_and_only_they_become_gen_kwargs(tmp_path, generation, expected):
    assert harness.gen_kwargs(_spec(tmp_path, generation)) == expected


@pytest.mark.parametrize("name, value", [
    ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
    ("TRANSFORMERS_VERBOSITY", "error"),
    ("TQDM_DISABLE", "1"),
])
def test_rule_the_child_runs_with_each_progress_bar_switched_off(tmp_path, monkeypatch, name, value):
    monkeypatch.delenv(name, raising=False)
    assert harness.child_env(_spec(tmp_path))[name] == value


# -- the response cache ----------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_rule_a_link_in_place_of_the_cache_file_or_any_of_its_sqlite_companions_is_refused(
        tmp_path, cache_dir, suffix):
    target = tmp_path / "theirs"
    target.write_bytes(b"")
    db = harness.cache_prefix(tmp_path / "run", "m").with_name("responses_rank0.db")
    db.parent.mkdir(parents=True)
    os.symlink(target, f"{db}{suffix}")
    with pytest.raises(ValueError, match=rf"responses_rank0\.db{suffix} is a link"):
        harness.check_cache_owner(tmp_path / "run", "m")


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_rule_a_sqlite_companion_others_may_write_is_refused(tmp_path, cache_dir, suffix):
    db = harness.cache_prefix(tmp_path / "run", "m").with_name("responses_rank0.db")
    db.parent.mkdir(parents=True)
    companion = db.with_name(db.name + suffix)
    companion.write_bytes(b"")
    companion.chmod(0o666)
    with pytest.raises(ValueError, match=rf"{suffix} may be written by other users"):
        harness.check_cache_owner(tmp_path / "run", "m")
    companion.chmod(0o600)
    harness.check_cache_owner(tmp_path / "run", "m")


# -- one cell: progress, status.json ---------------------------------------------------------------

class _Child:
    """Stands in for lm-eval's process: each ``wait`` either times out (a heartbeat) or ends with ``rc``."""

    def __init__(self, rc: int, heartbeats: int, output: str, stdout):
        self.rc, self.left, self.waits = rc, heartbeats, []
        stdout.write(output)
        stdout.flush()

    def wait(self, timeout=None):
        self.waits.append(timeout)
        if self.left:
            self.left -= 1
            raise subprocess.TimeoutExpired("lm-eval", timeout)
        return self.rc


def _run_one(tmp_path, monkeypatch, rc: int, heartbeats: int = 0, output: str = "", limit=None):
    children: list[_Child] = []

    def popen(cmd, env, stdout, stderr):
        children.append(_Child(rc, heartbeats, output, stdout))
        return children[-1]

    monkeypatch.setattr(harness.subprocess, "Popen", popen)
    lines: list[str] = []
    ok = harness.run_one(_spec(tmp_path), TaskPlan("ts", "cflue", {}), tmp_path / "run", BASE_URL,
                         _options(limit=limit), label="[1/1] ", progress=lines.append)
    status = json.loads((harness.output_dir(tmp_path / "run", "m", "ts") / harness.STATUS).read_text())
    return ok, status, lines, children[0]


@pytest.mark.parametrize("rc, ok", [(0, True), (1, False), (-1, False), (2, False), (-9, False)])
def test_rule_a_cell_succeeds_exactly_when_lm_eval_exits_0(tmp_path, cache_dir, monkeypatch, rc, ok):
    assert _run_one(tmp_path, monkeypatch, rc)[0] is ok


@pytest.mark.parametrize("rc, error", [
    (0, None),
    (1, "ValueError: the second error"),
    (-1, "ValueError: the second error"),
])
def test_rule_status_records_the_exit_code_and_for_a_failure_only_the_last_error_line(
        tmp_path, cache_dir, monkeypatch, rc, error):
    output = "loading\nRuntimeError: the first error\nValueError: the second error\nbye\n"
    _, status, _, _ = _run_one(tmp_path, monkeypatch, rc, output=output)
    assert (status["rc"], status["error"]) == (rc, error)


def test_rule_a_failure_without_output_says_so(tmp_path, cache_dir, monkeypatch):
    assert _run_one(tmp_path, monkeypatch, 3)[1]["error"] == "lm-eval exited without output"


@pytest.mark.parametrize("limit", [None, 5])
def test_rule_status_records_the_harness_the_limit_the_wall_time_and_the_command_without_the_interpreter(
        tmp_path, cache_dir, monkeypatch, limit):
    _, status, _, _ = _run_one(tmp_path, monkeypatch, 0, limit=limit)
    assert status["harness"] == "lm-eval"
    assert status["limit"] == limit
    assert isinstance(status["wall_s"], float) and 0 <= status["wall_s"] < 60
    assert status["command"][:4] == ["-m", "finchain_tasks.lm_eval.cli", "--tasks", "cflue"]


def test_rule_progress_is_a_start_line_a_heartbeat_per_wait_with_the_cached_answers_and_an_end_line(
        tmp_path, cache_dir, monkeypatch):
    db = harness.cache_prefix(tmp_path / "run", "m").with_name("responses_rank0.db")
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE unnamed (key TEXT, value BLOB)")
        con.executemany("INSERT INTO unnamed VALUES (?, ?)", [("a", b""), ("b", b""), ("c", b"")])
    _, _, lines, child = _run_one(tmp_path, monkeypatch, 1, heartbeats=2)
    assert lines[0].startswith("[1/1] m · ts: lm-eval started (console output in ")
    assert [ln.split(" s, ", 1)[1] for ln in lines[1:3]] == ["3 answers in its cache"] * 2
    assert lines[1].startswith("[1/1] m · ts: running, ")
    assert lines[3].startswith("[1/1] m · ts: failed (exit 1) in ") and len(lines) == 4
    assert child.waits == [harness.HEARTBEAT_S] * 3


# -- the run: its manifest session ------------------------------------------------------------------

@pytest.mark.parametrize("outcomes, ok", [([True, True], True), ([True, False], False), ([False, True], False)])
def test_rule_the_session_records_its_end_wall_time_and_whether_every_cell_succeeded(
        tmp_path, cache_dir, monkeypatch, outcomes, ok):
    from finchain_tasks.runs import engine

    monkeypatch.setattr(engine, "model_record", lambda spec: {"name": spec.name})  # no litellm price map
    results = iter(outcomes)
    monkeypatch.setattr(harness, "run_one", lambda *a, **kw: next(results))
    plans = [TaskPlan("a", "cflue", {}), TaskPlan("b", "cflue", {})]
    done, manifest = harness.run(tmp_path / "run", [_spec(tmp_path)], plans, _options())
    session = json.loads((tmp_path / "run" / engine.MANIFEST).read_text())["sessions"][-1]
    assert done is ok
    assert session["ok"] is ok
    assert session["harness"] == "lm-eval"
    assert session["finished"] >= session["started"]
    assert isinstance(session["wall_s"], float) and 0 <= session["wall_s"] < 60


def test_rule_a_session_that_breaks_off_still_records_its_end_as_not_ok(tmp_path, cache_dir, monkeypatch):
    from finchain_tasks.runs import engine

    monkeypatch.setattr(engine, "model_record", lambda spec: {"name": spec.name})

    def broken(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(harness, "run_one", broken)
    with pytest.raises(KeyboardInterrupt):
        harness.run(tmp_path / "run", [_spec(tmp_path)], [TaskPlan("a", "cflue", {})], _options())
    session = json.loads((tmp_path / "run" / engine.MANIFEST).read_text())["sessions"][-1]
    assert (session["ok"], "finished" in session, "wall_s" in session) == (False, True, True)
