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


# -- which lm-eval tasks a FinChain or CFLUE application task set selects ------------------------------

@pytest.mark.parametrize("value, names", [
    (None, []), ("a", ["a"]), ("a, b,,c ", ["a", "b", "c"]), (["a", " b "], ["a", "b"]), ([" ", ""], []), ("", []),
])
def test_rule_a_list_argument_is_a_comma_separated_text_or_a_list_each_name_stripped_and_blanks_dropped(value, names):
    assert harness._names(value) == names


@pytest.mark.parametrize("args, metadata", [
    ({}, {}),
    ({"seeds": 3}, {"finchain_seeds": 3}),
    ({"seeds": [0, 1]}, {"finchain_seeds": 2}),                          # from seed 0: no start to say
    ({"seeds": [3, 4, 5]}, {"finchain_seeds": 3, "finchain_start_seed": 3}),
    ({"seeds": [7]}, {"finchain_seeds": 1, "finchain_start_seed": 7}),
    ({"start_seed": 4}, {"finchain_start_seed": 4}),
    ({"seeds": 2, "start_seed": 1}, {"finchain_seeds": 2, "finchain_start_seed": 1}),
    ({"fresh": False, "seeds": 1}, {"finchain_seeds": 1}),
    ({"profile": None}, {}),                                              # an argument left unset is not sent
])
def test_rule_finchain_seeds_reach_lm_eval_as_a_count_and_a_start(args, metadata):
    assert harness.lm_eval_task(TaskPlan("ts", "finchain", args)) == (["finchain"], metadata)


@pytest.mark.parametrize("args, match", [
    ({"fresh": True}, r"task set 'ts' uses fresh seeds, which lm-eval draws anew in every run \(no resume\): "
                      r"use --harness inspect"),
    ({"seeds": [0, 2]}, r"task set 'ts': lm-eval takes consecutive seeds, not \[0, 2\]"),
    ({"seeds": [1, 0]}, r"lm-eval takes consecutive seeds, not \[1, 0\]"),
    ({"seeds": []}, r"lm-eval takes consecutive seeds, not \[\]"),
    ({"seeds": 10**9}, r"problems, more than the"),
])
def test_rule_fresh_or_scattered_seeds_or_too_many_problems_are_refused(args, match):
    with pytest.raises(ValueError, match=match):
        harness.lm_eval_task(TaskPlan("ts", "finchain", args))


def test_rule_a_domain_or_level_selects_every_leaf_of_it_in_domain_then_level_order():
    from finchain_tasks.engine import LEVELS, all_templates

    domains = sorted({t.domain for t in all_templates().values()})
    by_domain, _ = harness.lm_eval_task(TaskPlan("ts", "finchain", {"domain": "fintech,crypto_finance"}))
    assert by_domain == [f"finchain_{d}_{lv}" for d in ("fintech", "crypto_finance") for lv in LEVELS]
    by_level, _ = harness.lm_eval_task(TaskPlan("ts", "finchain", {"level": ["advanced"]}))
    assert by_level == [f"finchain_{d}_advanced" for d in domains]
    both, _ = harness.lm_eval_task(TaskPlan("ts", "finchain", {"domain": "fintech", "level": "easy, advanced"}))
    assert both == ["finchain_fintech_easy", "finchain_fintech_advanced"]


@pytest.mark.parametrize("tasks, selected", [
    ("classification", ["cflue_application_classification"]),
    ("translation", ["cflue_application_translation"]),
    ("extraction", ["cflue_application_extraction"]),
    ("reading_comprehension", ["cflue_application_reading_comprehension"]),
    ("generation", ["cflue_application_generation"]),
    ("generation, translation", ["cflue_application_generation", "cflue_application_translation"]),
    (None, ["cflue_application"]),
])
def test_rule_each_cflue_application_task_selects_its_own_lm_eval_task_and_none_selects_the_group(tasks, selected):
    assert harness.lm_eval_task(TaskPlan("ts", "cflue_application", {"task": tasks})) == (selected, {})


def test_rule_an_unknown_cflue_application_task_or_task_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"task set 'ts': --harness lm-eval knows the CFLUE application tasks "
                                         r"\('classification', .*'generation'\), not \['poetry'\]"):
        harness.lm_eval_task(TaskPlan("ts", "cflue_application", {"task": "translation,poetry"}))
    with pytest.raises(ValueError, match=r"task set 'ts': task 'prm_bon' has no lm-eval task"):
        harness.lm_eval_task(TaskPlan("ts", "prm_bon", {}))


# -- models and the command line -------------------------------------------------------------------

def _model(tmp_path, name="m", litellm="openai/served-m", extra=""):
    from finchain_tasks.models.registry import load_registry

    path = tmp_path / f"{name}.yaml"
    path.write_text(f"version: 1\nmodels:\n  - {{name: {name}, display_name: M, litellm_model: '{litellm}', "
                    f"category: general, open_weights: false{extra}}}\n", encoding="utf-8")
    return load_registry(path).model(name)


def test_rule_hosted_models_without_a_base_url_are_refused_all_named_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("SOME_BASE", "http://127.0.0.1:9/v1")
    served = [_model(tmp_path, "a", extra=f", api_base: '{BASE_URL}'"),
              _model(tmp_path, "b", extra=", api_base_env: SOME_BASE")]
    harness.check_models(served)
    hosted = [_model(tmp_path, "h1", "openai/gpt-4.1"), *served, _model(tmp_path, "h2", "anthropic/claude")]
    with pytest.raises(ValueError, match=r"--harness lm-eval runs models with an OpenAI-compatible base URL "
                                         r"\(self-hosted or the local model\); h1, h2 has none: use --harness "
                                         r"inspect for hosted APIs"):
        harness.check_models(hosted)


def test_rule_the_local_model_runs_under_lm_eval_without_a_base_url():
    from finchain_tasks.models.registry import load_registry

    local = [s for s in load_registry().models.values() if s.local is not None]
    assert local
    harness.check_models(local)


@pytest.mark.parametrize("litellm, served", [
    ("openai/served-m", "served-m"), ("hosted_vllm/acme/m-7b", "acme/m-7b"), ("openai/a/b/c", "a/b/c"),
])
def test_rule_the_served_id_is_the_litellm_id_without_its_provider(tmp_path, litellm, served):
    assert harness.served_id(_model(tmp_path, litellm=litellm)) == served


@pytest.mark.parametrize("base, options, expected", [
    (BASE_URL, {}, [f"base_url={BASE_URL}/chat/completions", "model=served-m", "tokenizer_backend=None",
                    "tokenized_requests=False", "num_concurrent=1", "max_retries=1"]),
    (BASE_URL + "/", {"max_connections": 8, "max_retries": 4, "timeout": 30},
     [f"base_url={BASE_URL}/chat/completions", "model=served-m", "tokenizer_backend=None",
      "tokenized_requests=False", "num_concurrent=8", "max_retries=4", "timeout=30"]),
    (BASE_URL, {"max_connections": None, "max_retries": 0}, [f"base_url={BASE_URL}/chat/completions",
                                                             "model=served-m", "tokenizer_backend=None",
                                                             "tokenized_requests=False", "num_concurrent=1",
                                                             "max_retries=1"]),
])
def test_rule_model_args_name_the_endpoint_the_id_the_connections_at_least_one_retry_and_the_timeout(
        tmp_path, base, options, expected):
    assert harness.model_args(_spec(tmp_path), base, _options(**options)).split(",") == expected


@pytest.mark.parametrize("litellm, problem", [
    ("openai/a,b", "holds a comma"), ("openai/a b", "holds whitespace"), ("openai/-x", "starting with '-'"),
])
def test_rule_a_served_id_that_would_add_a_model_arg_is_refused(litellm, problem):
    # the registry refuses such an id already; a spec built another way meets this check
    with pytest.raises(ValueError, match=rf"model 'm': served id '{litellm[7:]}' .*{problem}"):
        harness.model_args(SimpleNamespace(name="m", litellm_model=litellm), BASE_URL, _options())


@pytest.mark.parametrize("extra, env, key", [
    ("", {}, "none"),                                                         # keyless: the placeholder
    (", api_key_env: MY_SERVER_KEY", {"MY_SERVER_KEY": "sk-mine"}, "sk-mine"),
    (", api_key_env: MY_SERVER_KEY", {}, "none"),                             # its variable unset
])
def test_rule_the_child_gets_the_models_own_key_or_a_placeholder_never_the_users_openai_key(
        tmp_path, monkeypatch, extra, env, key):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own")
    monkeypatch.delenv("MY_SERVER_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert harness.child_env(_model(tmp_path, extra=f", api_base: '{BASE_URL}'{extra}"))["OPENAI_API_KEY"] == key


def _flag(cmd, name):
    return cmd[cmd.index(name) + 1] if name in cmd else None


@pytest.mark.parametrize("task, args, limit, flags", [
    ("cflue", {}, None, {"--tasks": "cflue", "--limit": None, "--samples": None, "--metadata": None}),
    ("cflue", {"n": 3}, 5, {"--tasks": "cflue", "--limit": "5", "--samples": None,
                            "--metadata": '{"cflue_n": 3}'}),
    ("finchain", {"seeds": 1, "domain": "fintech", "level": "easy"}, 2,
     {"--tasks": "finchain_fintech_easy", "--limit": None, "--samples": '{"finchain_fintech_easy": [0, 1]}',
      "--metadata": '{"finchain_seeds": 1}'}),
])
def test_rule_a_limit_is_lm_evals_own_except_for_finchain_whose_first_problems_are_chosen_documents(
        tmp_path, cache_dir, task, args, limit, flags):
    cmd = harness.command(_spec(tmp_path), TaskPlan("ts", task, args), tmp_path / "run", BASE_URL,
                          _options(limit=limit))
    assert {name: _flag(cmd, name) for name in flags} == flags
    assert cmd[1:3] == ["-m", "finchain_tasks.lm_eval.cli"]
    assert [_flag(cmd, f) for f in ("--model", "--output_path")] == [
        "local-chat-completions", str(harness.output_dir(tmp_path / "run", "m", "ts"))]
    assert {"--apply_chat_template", "--log_samples"} <= set(cmd) and "--gen_kwargs" in cmd


def test_rule_gen_kwargs_are_left_off_the_command_when_the_registry_sets_none(tmp_path, cache_dir):
    cmd = harness.command(_spec(tmp_path, "{temperature: null}"), TaskPlan("ts", "cflue", {}), tmp_path / "run",
                          BASE_URL, _options())
    assert "--gen_kwargs" not in cmd and "--metadata" not in cmd


@pytest.mark.parametrize("limit", [1, 3, 7, 36])
def test_rule_a_finchain_limit_takes_the_first_problems_of_the_stratified_order_as_each_leafs_first_documents(
        limit):
    from finchain_tasks.finchain.sampling import stratified_order
    from finchain_tasks.lm_eval.build import leaf_name

    plan = TaskPlan("ts", "finchain", {"level": "easy"})
    tasks, samples = harness.stratified_selection(plan, {"finchain_seeds": 2}, limit)
    assert sum(len(v) for v in samples.values()) == limit and tasks == list(samples)
    assert all(docs == list(range(len(docs))) for docs in samples.values())
    from finchain_tasks.engine import select

    items = [(t.domain, t.level, t.id, k) for t in select(levels=["easy"]) for k in range(2)]
    first = stratified_order(items, lambda x: x[:3], 0)[:limit]
    assert sorted(samples) == sorted({leaf_name(d, lv) for d, lv, _, _ in first})


# -- where the response cache lives, and which folders are trusted ------------------------------------

@pytest.mark.parametrize("name", ["run", "r" * 40, "r" * 41 + "-long"])
def test_rule_a_runs_cache_folder_is_its_name_up_to_40_characters_and_16_hex_of_its_resolved_path(
        tmp_path, cache_dir, name):
    import hashlib

    run_dir = tmp_path / name
    prefix = harness.cache_prefix(run_dir, "m")
    digest = hashlib.sha256(str(run_dir.resolve()).encode()).hexdigest()[:16]
    assert prefix == cache_dir / f"{name[:40]}-{digest}" / "m" / "responses"
    assert harness.cache_prefix(tmp_path / "x" / ".." / name, "m") == prefix  # the same run, however it is named


def test_rule_the_cache_root_is_the_variable_else_the_users_cache_directory(tmp_path, monkeypatch):
    monkeypatch.setenv(harness.CACHE_DIR_ENV, str(tmp_path / "mine"))
    assert harness.cache_root() == tmp_path / "mine"
    monkeypatch.setenv(harness.CACHE_DIR_ENV, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert harness.cache_root() == tmp_path / "xdg" / "finchain-tasks" / "lm_eval"


@pytest.mark.parametrize("mode, sticky, refused", [
    (0o700, False, False), (0o755, False, False), (0o750, False, False),
    (0o770, False, True), (0o707, False, True), (0o777, False, True), (0o720, False, True), (0o702, False, True),
    (0o777, True, False),                                        # /tmp-like: others cannot replace what is yours
    (0o770, True, False),
])
def test_rule_a_cache_folder_others_may_write_is_refused_unless_sticky(tmp_path, cache_dir, mode, sticky, refused):
    import stat

    prefix = harness.check_cache_owner(tmp_path / "run", "m")
    folder = prefix.parent
    folder.chmod(mode | (stat.S_ISVTX if sticky else 0))
    try:
        if refused:
            with pytest.raises(ValueError, match=rf"response cache {folder} may be written by other users; it holds "
                                                 r"pickles, which run code when read: refusing to open it \(remove "
                                                 r"it to start a fresh cache\)"):
                harness.check_cache_owner(tmp_path / "run", "m")
        else:
            harness.check_cache_owner(tmp_path / "run", "m")
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize("mode, refused", [(0o600, False), (0o644, False), (0o640, False), (0o620, True),
                                           (0o602, True), (0o1666, True)])
def test_rule_a_cache_file_others_may_write_is_refused_sticky_or_not(tmp_path, cache_dir, mode, refused):
    db = harness.check_cache_owner(tmp_path / "run", "m").with_name("responses_rank0.db")
    db.write_bytes(b"")
    db.chmod(mode)
    if refused:
        with pytest.raises(ValueError, match="responses_rank0.db may be written by other users"):
            harness.check_cache_owner(tmp_path / "run", "m")
    else:
        harness.check_cache_owner(tmp_path / "run", "m")


def test_rule_a_folder_on_the_way_to_the_cache_that_is_a_link_is_refused(tmp_path, cache_dir):
    prefix = harness.cache_prefix(tmp_path / "run", "m")
    (tmp_path / "theirs").mkdir()
    prefix.parent.parent.mkdir(parents=True)
    prefix.parent.symlink_to(tmp_path / "theirs")
    with pytest.raises(ValueError, match=rf"response cache {prefix.parent} is a link"):
        harness.check_cache_owner(tmp_path / "run", "m")


@pytest.mark.parametrize("plant", ["folder", "file", "link", None])
def test_rule_a_legacy_cache_in_the_run_directory_of_any_kind_is_named_in_one_warning(tmp_path, plant):
    from finchain_tasks.runs import LM_EVAL_CACHE

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    legacy = run_dir / LM_EVAL_CACHE
    if plant == "folder":
        legacy.mkdir()
    elif plant == "file":
        legacy.write_text("x")
    elif plant == "link":
        legacy.symlink_to(tmp_path / "nowhere")
    expected = "" if plant is None else (f"warning: {legacy} (lm-eval's pickle cache, from an older version or from "
                                          "elsewhere) is never opened; its answers are requested again")
    assert harness.legacy_cache_warning(run_dir) == expected


def test_rule_the_answers_in_the_cache_are_the_rows_of_all_its_tables_none_when_it_cannot_be_read(tmp_path,
                                                                                                 cache_dir):
    run_dir = tmp_path / "run"
    assert harness.cached_answers(run_dir, "m") is None
    db = harness.check_cache_owner(run_dir, "m").with_name("responses_rank0.db")
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE unnamed (key TEXT, value BLOB)")
        con.execute("CREATE TABLE other (key TEXT)")
        con.executemany("INSERT INTO unnamed VALUES (?, ?)", [("a", b""), ("b", b"")])
        con.execute("INSERT INTO other VALUES ('c')")
    con.close()
    assert harness.cached_answers(run_dir, "m") == 3
    db.write_bytes(b"not a database, and long enough to have a header" * 20)
    assert harness.cached_answers(run_dir, "m") is None


@pytest.mark.parametrize("log, error", [
    ("", "lm-eval exited without output"),
    ("\n  \n", "lm-eval exited without output"),
    ("loading\n  the last line  \n\n", "the last line"),                    # no error line: the last line
    ("Traceback\nKeyError: 'x'\nsomething after\n", "KeyError: 'x'"),         # the last line saying error
    ("an ERROR here\nan error there\nbye\n", "an error there"),
    ("ValueError: " + "x" * 400 + "\n", ("ValueError: " + "x" * 400)[:300]),
])
def test_rule_a_failures_error_is_the_last_line_that_says_error_else_the_last_line_cut_to_300(tmp_path, log, error):
    path = tmp_path / "lm_eval.log"
    path.write_text(log, encoding="utf-8")
    assert harness._last_error(path) == error


# -- the run: what is refused before anything starts, and what each cell is given -------------------------

def test_rule_each_cell_runs_in_model_then_task_set_order_labelled_i_of_n_against_the_models_base_url(
        tmp_path, cache_dir, monkeypatch, capsys):
    from finchain_tasks.runs import LM_EVAL_CACHE, engine

    monkeypatch.setattr(engine, "model_record", lambda spec: {"name": spec.name})
    calls = []

    def run_one(spec, plan, run_dir, base_url, options, label, progress):
        calls.append((spec.name, plan.name, base_url, label, progress))
        return True

    monkeypatch.setattr(harness, "run_one", run_one)
    (tmp_path / "run" / LM_EVAL_CACHE).mkdir(parents=True)
    specs = [_model(tmp_path, "a", extra=f", api_base: '{BASE_URL}'"),
             _model(tmp_path, "b", extra=", api_base: 'http://127.0.0.1:8/v1'")]
    ok, _ = harness.run(tmp_path / "run", specs, [TaskPlan("x", "cflue", {}), TaskPlan("y", "cflue", {})], _options())
    assert ok is True
    assert [c[:4] for c in calls] == [("a", "x", BASE_URL, "[1/4] "), ("a", "y", BASE_URL, "[2/4] "),
                                      ("b", "x", "http://127.0.0.1:8/v1", "[3/4] "),
                                      ("b", "y", "http://127.0.0.1:8/v1", "[4/4] ")]
    assert all(c[4] is harness._progress for c in calls)
    assert capsys.readouterr().err.splitlines() == [harness.legacy_cache_warning(tmp_path / "run")]


@pytest.mark.parametrize("case", ["hosted model", "task set", "foreign cache"])
def test_rule_a_hosted_model_a_task_set_lm_eval_lacks_or_an_untrusted_cache_is_refused_before_the_run_starts(
        tmp_path, cache_dir, monkeypatch, case):
    from finchain_tasks.runs import engine

    monkeypatch.setattr(harness, "run_one", lambda *a, **kw: pytest.fail("a cell ran"))
    spec = _model(tmp_path, "h", "openai/gpt-4.1") if case == "hosted model" else _spec(tmp_path)
    plan = TaskPlan("ts", "prm_bon" if case == "task set" else "cflue", {})
    if case == "foreign cache":
        harness.check_cache_owner(tmp_path / "run", "m").parent.chmod(0o777)
    with pytest.raises(ValueError):
        harness.run(tmp_path / "run", [spec], [plan], _options())
    assert not (tmp_path / "run" / engine.MANIFEST).exists()


# -- rules found by mutation testing (issue 39) ------------------------------------------------------------

def test_rule_several_task_arguments_lm_eval_has_no_key_for_are_named_together_in_name_order():
    with pytest.raises(ValueError, match=r"^task set 'ts': --harness lm-eval cannot select by temperature, top_k; "
                                         r"use --harness inspect$"):
        harness.lm_eval_task(TaskPlan("ts", "cflue", {"top_k": 5, "temperature": 0.5}))


@pytest.mark.parametrize("base, endpoint", [
    ("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1/chat/completions"),
    ("http://127.0.0.1:9/v1//", "http://127.0.0.1:9/v1/chat/completions"),
    ("http://127.0.0.1:9/BOX", "http://127.0.0.1:9/BOX/chat/completions"),    # only slashes are trimmed
    ("http://127.0.0.1:9/BOX/", "http://127.0.0.1:9/BOX/chat/completions"),
])
def test_rule_the_endpoint_is_the_base_url_less_its_trailing_slashes_plus_chat_completions(tmp_path, base, endpoint):
    assert harness.model_args(_spec(tmp_path), base, _options()).split(",")[0] == f"base_url={endpoint}"


@pytest.mark.parametrize("length", [79, 80, 81, 200])
def test_rule_a_refused_served_id_is_quoted_up_to_80_characters(length):
    served = "a," + "x" * (length - 2)
    with pytest.raises(ValueError) as refused:
        harness.model_args(SimpleNamespace(name="m", litellm_model=f"openai/{served}"), BASE_URL, _options())
    assert str(refused.value).startswith(f"model 'm': served id {served[:80]!r} ")


@pytest.mark.parametrize("task, args, limit, tasks", [
    ("cflue", {"type": "true_false,single_choice"}, None, "cflue_true_false,cflue_single_choice"),
    ("finchain", {"seeds": 1, "domain": "fintech", "level": "easy,advanced"}, 30,
     "finchain_fintech_easy,finchain_fintech_advanced"),
])
def test_rule_the_command_names_every_selected_task_comma_separated_and_its_model_args_and_cache(
        tmp_path, cache_dir, task, args, limit, tasks):
    spec, options = _spec(tmp_path), _options(limit=limit)
    cmd = harness.command(spec, TaskPlan("ts", task, args), tmp_path / "run", BASE_URL, options)
    assert _flag(cmd, "--tasks") == tasks
    assert _flag(cmd, "--model_args") == harness.model_args(spec, BASE_URL, options)
    assert _flag(cmd, "--use_cache") == str(harness.cache_prefix(tmp_path / "run", "m"))


@pytest.mark.parametrize("metadata, limit, documents", [
    ({"finchain_seeds": 1}, 200, 116),     # one seed: 116 easy problems in all, however many are asked for
    ({"finchain_seeds": 2}, 200, 200),
    ({}, 200, 200),                         # no seeds named: the canonical ones
])
def test_rule_a_finchain_limit_counts_problems_of_the_seeds_the_metadata_names(metadata, limit, documents):
    _, samples = harness.stratified_selection(TaskPlan("ts", "finchain", {"level": "easy"}), metadata, limit)
    assert sum(len(v) for v in samples.values()) == documents


def test_rule_a_finchain_limit_refuses_more_problems_than_a_run_may_hold():
    from finchain_tasks.finchain.generate import MAX_PROBLEMS

    seeds = MAX_PROBLEMS // 116 + 1  # fewer seeds than the limit, more problems with the 116 easy templates
    with pytest.raises(ValueError, match="problems, more than the"):
        harness.stratified_selection(TaskPlan("ts", "finchain", {"level": "easy"}), {"finchain_seeds": seeds}, 1)


@pytest.mark.parametrize("sample_seed", [0, 5])
def test_rule_a_finchain_limit_follows_the_sample_seed_the_documents_are_ordered_by(sample_seed):
    # lm-eval's FinChain documents are ordered by finchain_sample_seed (lm_eval/dataset.py): the chosen
    # documents must be the first ones of that same order
    from finchain_tasks.engine import select
    from finchain_tasks.finchain.sampling import leaf_counts, stratified_order
    from finchain_tasks.lm_eval.build import leaf_name

    metadata = {"finchain_seeds": 1} | ({"finchain_sample_seed": sample_seed} if sample_seed else {})
    _, samples = harness.stratified_selection(TaskPlan("ts", "finchain", {"level": "easy"}), metadata, 9)
    items = [(t.domain, t.level, t.id, 0) for t in select(levels=["easy"])]
    expected = {seed: leaf_counts(stratified_order(items, lambda x: x[:3], seed), lambda x: leaf_name(x[0], x[1]), 9)
                for seed in (0, 5)}
    assert expected[0] != expected[5]  # the two seeds choose different leaves
    assert {leaf: len(docs) for leaf, docs in samples.items()} == expected[sample_seed]


class _Clock:
    """harness.time with a monotonic clock that answers the given readings in turn."""

    def __init__(self, *readings):
        self.readings = iter(readings)

    def monotonic(self):
        return next(self.readings)


@pytest.mark.parametrize("rc, end", [(0, "done in 61 s"), (2, "failed (exit 2) in 61 s")])
def test_rule_progress_lines_name_the_cell_and_the_seconds_since_it_started_and_status_the_wall_time(
        tmp_path, cache_dir, monkeypatch, rc, end):
    monkeypatch.setattr(harness, "time", _Clock(1000.0, 1012.4, 1060.6, 1061.234567))
    monkeypatch.setattr(harness.subprocess, "Popen", lambda cmd, env, stdout, stderr: _Child(rc, 1, "", stdout))
    lines: list[str] = []
    harness.run_one(_spec(tmp_path), TaskPlan("ts", "cflue", {}), tmp_path / "run", BASE_URL, _options(),
                    progress=lines.append)  # no label: the line starts with the cell's name
    log = harness.output_dir(tmp_path / "run", "m", "ts") / harness.LOG
    assert lines == [f"m · ts: lm-eval started (console output in {log})",
                     "m · ts: running, 12 s",  # no cache yet: no count of answers
                     f"m · ts: {end}"]
    status = (log.parent / harness.STATUS).read_text("utf-8")
    assert json.loads(status)["wall_s"] == 61.235
    assert status.startswith(f'{{\n  "rc": {rc},\n  "error": ') and status.endswith("\n}\n")


def test_rule_a_cell_run_again_reuses_its_folder(tmp_path, cache_dir, monkeypatch):
    first = _run_one(tmp_path, monkeypatch, 1)
    again = _run_one(tmp_path, monkeypatch, 0)
    assert (first[0], again[0], again[1]["rc"]) == (False, True, 0)


def test_rule_the_child_runs_the_command_with_its_environment_and_both_its_streams_go_to_the_log(
        tmp_path, cache_dir, monkeypatch):
    import sys

    script = ("import os, sys; print('out', os.environ['OPENAI_API_KEY'], os.environ['TQDM_DISABLE']); "
              "print('err: to the log too', file=sys.stderr); sys.exit(3)")
    monkeypatch.setattr(harness, "command", lambda *a: [sys.executable, "-c", script])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own")
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    ok = harness.run_one(_spec(tmp_path), TaskPlan("ts", "cflue", {}), tmp_path / "run", BASE_URL, _options(),
                         progress=lambda line: None)
    out = harness.output_dir(tmp_path / "run", "m", "ts")
    assert ok is False
    assert (out / harness.LOG).read_text("utf-8").splitlines() == ["out none 1", "err: to the log too"]
    status = json.loads((out / harness.STATUS).read_text("utf-8"))
    assert (status["rc"], status["error"], status["command"]) == (3, "err: to the log too", ["-c", script])


@pytest.fixture
def latin1_locale(monkeypatch):
    """A machine whose locale codec is not UTF-8 (as on Windows): text opened without an encoding uses Latin-1."""
    import io

    real = io.text_encoding
    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: real(encoding or "latin-1"))


@pytest.mark.parametrize("log, error", [
    ("ValueError: modèle « m » absent\n".encode(), "ValueError: modèle « m » absent"),
    (b"loading \xff\xfe\nKeyError: caf\xe9\n", "KeyError: caf\ufffd"),    # bytes that are not UTF-8
])
def test_rule_the_log_is_read_as_utf8_whatever_the_locale_and_bad_bytes_never_hide_the_error(
        tmp_path, latin1_locale, log, error):
    (tmp_path / "lm_eval.log").write_bytes(log)
    assert harness._last_error(tmp_path / "lm_eval.log") == error


def test_rule_only_the_cache_root_and_the_folders_below_it_are_checked_not_those_above(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # e.g. a group-writable project folder holding the user's cache root
    try:
        monkeypatch.setenv(harness.CACHE_DIR_ENV, str(shared / "cache"))
        prefix = harness.check_cache_owner(tmp_path / "run", "m")
        assert prefix.parents[2] == shared / "cache" and (shared / "cache").stat().st_mode & 0o777 == 0o700
        (shared / "cache").chmod(0o777)
        with pytest.raises(ValueError, match=rf"response cache {shared / 'cache'} may be written by other users"):
            harness.check_cache_owner(tmp_path / "run", "m")
    finally:
        shared.chmod(0o700)
        (shared / "cache").chmod(0o700)


def test_rule_a_run_passes_its_directory_options_limit_and_each_local_models_url_to_its_cells(
        tmp_path, cache_dir, monkeypatch):
    import contextlib

    from finchain_tasks.runs import engine

    monkeypatch.setattr(engine, "model_record", lambda spec: {"name": spec.name})
    monkeypatch.setattr(engine, "local_servers", lambda specs: contextlib.nullcontext({"a": "http://127.0.0.1:7/v1"}))
    monkeypatch.setattr(harness, "time", _Clock(100.0, 161.234567))
    calls = []

    def run_one(spec, plan, run_dir, base_url, options, label, progress):
        calls.append((spec.name, run_dir, base_url, options))
        return True

    monkeypatch.setattr(harness, "run_one", run_one)
    specs = [_model(tmp_path, "a", extra=f", api_base: '{BASE_URL}'"),
             _model(tmp_path, "b", extra=", api_base: 'http://127.0.0.1:8/v1'")]
    options = _options(limit=5)
    run_dir = tmp_path / "runs" / "new" / "run"  # its parents need not exist yet
    ok, manifest = harness.run(run_dir, specs, [TaskPlan("x", "cflue", {})], options)
    assert calls == [("a", run_dir, "http://127.0.0.1:7/v1", options), ("b", run_dir, "http://127.0.0.1:8/v1", options)]
    session = json.loads((run_dir / engine.MANIFEST).read_text())["sessions"][-1]
    assert (session["sample_order"]["limit"], session["wall_s"]) == (5, 61.235)
