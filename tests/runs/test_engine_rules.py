"""What a run records in ``run.json`` and the rules around it, without a model or a server (issue 39, found by
the literal pass: every field of the manifest could be dropped with the group's fast tests green, since the
tests that read a finished run's ``run.json`` run a whole bench and are marked slow).

Pinned: a registry task set never opts into a checkpoint's code or pickle weights; the manifest's fields (the
run, each model's record, each task set's task and arguments, each session's argv, start, skipped models, sample
order, end, wall time, outcome, request paths and counts); a second session extends the first; the run directory
is one run's at a time. Inspect's eval-set is replaced where a session runs (no task: nothing to evaluate)."""

from __future__ import annotations

import dataclasses
import json
import os
import types

import pytest

from finchain_tasks.models.registry import load_registry
from finchain_tasks.runs import MANIFEST, engine
from finchain_tasks.runs.engine import MODEL_KEY, Options, TaskPlan

MODEL = ("  - {name: %s, display_name: Fake %s, litellm_model: openai/fake-%s, category: general, params_b: 7, "
         "open_weights: false, api_key_env: FAKE_ENGINE_KEY, api_base: 'http://127.0.0.1:9/v1'}")


def _registry(tmp_path, task_args: str = "{seeds: [0]}"):
    path = tmp_path / "registry.yaml"
    path.write_text("\n".join(["version: 1", "models:", MODEL % ("a", "a", "a"), MODEL % ("b", "b", "b"),
                               "task_sets:", "  mini:", "    task: finchain", f"    args: {task_args}", ""]),
                    encoding="utf-8")
    return load_registry(path)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    return _registry(tmp_path_factory.mktemp("engine"))


@pytest.mark.parametrize("arg", ["prm_trust_remote_code", "prm_allow_pickle"])
def test_a_registry_task_set_that_opts_into_a_checkpoints_code_or_pickle_is_refused(tmp_path, arg):
    registry = _registry(tmp_path, f"{{seeds: [0], {arg}: true}}")
    with pytest.raises(ValueError, match=f"task set 'mini' sets {arg}: running a PRM checkpoint's own code"):
        engine.plan_task_set(registry, "mini")


@pytest.mark.parametrize("arg", ["prm_trust_remote_code", "prm_allow_pickle"])
def test_a_registry_task_set_may_say_no_to_a_checkpoints_code_or_pickle(tmp_path, arg):
    assert engine.plan_task_set(_registry(tmp_path, f"{{seeds: [0], {arg}: false}}"), "mini").task == "finchain"


def test_a_models_record_holds_what_a_report_needs_and_only_the_keys_variable_name(registry):
    record = engine.model_record(registry.model("a"))
    assert sorted(record) == ["api_key_env", "batch_price", "category", "display_name", "inspect_model",
                              "litellm_model", "name", "params_b", "price"]
    assert {k: record[k] for k in ("name", "display_name", "litellm_model", "category", "params_b", "api_key_env")} \
        == {"name": "a", "display_name": "Fake a", "litellm_model": "openai/fake-a", "category": "general",
            "params_b": 7, "api_key_env": "FAKE_ENGINE_KEY"}
    assert record["inspect_model"] == engine.inspect_model_name(registry.model("a"))


def test_a_skipped_model_is_recorded_with_the_variables_not_set_or_the_reason_as_written(registry):
    skipped = [(registry.model("a"), ["FAKE_ENGINE_KEY", "OTHER"]), (registry.model("b"), "its server did not start")]
    assert engine.skipped_records(skipped) == [{"model": "a", "reason": "FAKE_ENGINE_KEY, OTHER not set"},
                                               {"model": "b", "reason": "its server did not start"}]


def test_the_manifest_records_the_run_its_models_task_sets_and_each_session(tmp_path, registry):
    plan = TaskPlan("mini", "finchain", {"seeds": [0]})
    _, first = engine.prepare(tmp_path, [registry.model("a")], [plan], ["bench", "--limit", "3"],
                              [(registry.model("b"), ["FAKE_ENGINE_KEY"])], limit=3)
    assert json.loads((tmp_path / MANIFEST).read_text()) == first
    assert sorted(first) == ["created", "models", "run_dir", "sessions", "task_sets"]
    assert first["run_dir"] == str(tmp_path) and first["created"]
    assert [m["name"] for m in first["models"]] == ["a"]
    assert first["task_sets"] == {"mini": {"task": "finchain", "args": {"seeds": [0]}}}
    (session,) = first["sessions"]
    assert sorted(session) == ["argv", "sample_order", "skipped", "started"]
    assert session["argv"] == ["bench", "--limit", "3"] and session["started"]
    assert session["skipped"] == [{"model": "b", "reason": "FAKE_ENGINE_KEY not set"}]
    assert session["sample_order"]["limit"] == 3
    _, second = engine.prepare(tmp_path, [registry.model("b")], [plan], ["bench"])
    assert second["created"] == first["created"] and len(second["sessions"]) == 2
    assert [m["name"] for m in second["models"]] == ["a", "b"]


def _task(name: str, **api) -> types.SimpleNamespace:
    return types.SimpleNamespace(model=types.SimpleNamespace(api=types.SimpleNamespace(**api)),
                                 metadata={MODEL_KEY: name})


def test_each_models_request_path_is_recorded_with_its_reason():
    tasks = [_task("a", request_path="fast", request_path_reason="an OpenAI-compatible server"), _task("b")]
    assert engine.request_paths(tasks) == {"a": {"path": "fast", "reason": "an OpenAI-compatible server"}}


def test_requests_sent_again_and_late_answers_are_counted_per_model():
    tasks = [_task("a", resent=2, late_answers=1), _task("a", resent=1, late_answers=0), _task("b", resent=0),
             _task("c")]
    assert engine.request_counts(tasks) == {"a": {"resent": 3, "late_answers": 1},
                                            "b": {"resent": 0, "late_answers": 0}}


def test_a_finished_session_records_its_end_wall_time_outcome_and_request_counts(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "_eval_set", lambda run_dir, tasks, options: True)
    ok, manifest = engine.run(tmp_path, [], [], Options(), ["bench"])
    session = manifest["sessions"][-1]
    assert ok is True
    assert {k: session[k] for k in ("ok", "requests_resent", "request_paths")} == {
        "ok": True, "requests_resent": {}, "request_paths": {}}
    assert session["finished"] >= session["started"] and session["wall_s"] >= 0
    assert json.loads((tmp_path / MANIFEST).read_text())["sessions"][-1] == session


def test_a_run_directory_in_use_by_another_run_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "_eval_set", lambda run_dir, tasks, options: True)
    with engine.exclusive(tmp_path.resolve()):
        with pytest.raises(RuntimeError, match="is in use by another finchain run"):
            engine.run(tmp_path, [], [], Options(), ["bench"])
    assert engine.run(tmp_path, [], [], Options(), ["bench"])[0] is True  # free again once the first is done


# ------------------------------------------------------------------------------ the model each task is given

@pytest.fixture
def got_model(monkeypatch):
    """Inspect's get_model replaced by a recorder (what the engine asks Inspect for; no provider is built)."""
    import inspect_ai.model

    calls = []

    def get_model(name, **kwargs):
        calls.append((name, kwargs))
        return types.SimpleNamespace(name=name, kwargs=kwargs)

    monkeypatch.setattr(inspect_ai.model, "get_model", get_model)
    return calls


def _one(tmp_path, fields: str):
    path = tmp_path / "one.yaml"
    path.write_text("version: 1\nmodels:\n  - {name: one, display_name: One, category: general, open_weights: false, "
                    f"{fields}}}\n", encoding="utf-8")
    return load_registry(path).model("one")


@pytest.mark.parametrize("fields, base_url, key, args", [
    # a keyless OpenAI-compatible server gets the placeholder key; a model with a key variable names it
    ("litellm_model: openai/x, api_base: 'http://h:1/v1'", "http://h:1/v1", "none", {MODEL_KEY: "one"}),
    ("litellm_model: openai/x, api_base: 'http://h:1/v1', api_key_env: MY_KEY", "http://h:1/v1", None,
     {MODEL_KEY: "one", "api_key_env": "MY_KEY"}),
    ("litellm_model: anthropic/x, api_base: 'http://h:1/v1'", "http://h:1/v1", None, {MODEL_KEY: "one"}),
    ("litellm_model: openai/x, api_key_env: MY_KEY", None, None, {MODEL_KEY: "one", "api_key_env": "MY_KEY"}),
    ("litellm_model: openai/x, api_key_env: MY_KEY, generation: {extra: {seed: 3}}", None, None,
     {MODEL_KEY: "one", "api_key_env": "MY_KEY", "seed": 3}),                      # extras travel as model args
])
def test_a_model_is_its_litellm_id_with_its_registry_name_key_variable_extras_and_a_placeholder_key_if_keyless(
        tmp_path, got_model, fields, base_url, key, args):
    engine.build_model(_one(tmp_path, fields), Options())
    ((name, kwargs),) = got_model
    assert name == "litellm/" + fields.split(",")[0].split(": ")[1]
    assert (kwargs.pop("base_url"), kwargs.pop("api_key"), kwargs.pop("memoize")) == (base_url, key, False)
    kwargs.pop("config")
    assert kwargs == args


@pytest.mark.parametrize("options, local, connections, retries, timeout, wait", [
    (Options(), False, None, 6, None, None),
    (Options(), True, 1, 6, None, None),                              # the local model: one request at a time
    (Options(max_connections=4, max_retries=2, timeout=7, retry_wait=0.5), False, 4, 2, 7, 0.5),
    (Options(max_connections=4), True, 4, 6, None, None),
])
def test_a_models_transport_is_the_options_and_one_connection_for_the_local_model(
        tmp_path, got_model, options, local, connections, retries, timeout, wait):
    extra = ", local: {gguf: x.gguf}" if local else ""
    spec = _one(tmp_path, f"litellm_model: openai/x, api_base: 'http://h:1/v1'{extra}")
    engine.build_model(spec, options, base_url="http://other:2/v1")
    ((_, kwargs),) = got_model
    config = kwargs["config"]
    assert (config.max_connections, config.max_retries, config.attempt_timeout) == (connections, retries, timeout)
    assert kwargs.get("retry_wait") == wait and kwargs["base_url"] == "http://other:2/v1"  # the given URL first


@pytest.mark.parametrize("generation, task_max, expected", [
    ("{}", None, {"max_tokens": 1024}),                                # the task's default budget (FinChain's)
    ("{}", 77, {"max_tokens": 77}),
    ("{temperature: 0.3, max_tokens: 64}", 77, {"temperature": 0.3, "max_tokens": 64}),  # the registry wins
])
def test_a_models_generation_config_is_the_tasks_defaults_overridden_by_the_registry(
        tmp_path, got_model, generation, task_max, expected):
    from inspect_ai.model import GenerateConfig

    from finchain_tasks.finchain import prompts

    spec = _one(tmp_path, f"litellm_model: openai/x, api_key_env: MY_KEY, generation: {generation}")
    engine.build_model(spec, Options(), task_config=None if task_max is None else GenerateConfig(max_tokens=task_max))
    config = got_model[0][1]["config"]
    expected = {k: (prompts.MAX_NEW_TOKENS if v == 1024 and task_max is None else v) for k, v in expected.items()}
    assert {k: getattr(config, k) for k in expected} == expected


def test_under_batch_a_batched_model_is_inspects_own_and_any_other_is_built_as_usual(tmp_path, got_model,
                                                                                     monkeypatch):
    from finchain_tasks.runs import batch_mode

    monkeypatch.setattr(batch_mode, "build_model", lambda spec, options, config: (
        "batched", options.batch, config.max_tokens) if spec.name == "b" else None)
    assert engine.build_model(_one(tmp_path, "litellm_model: openai/x, api_key_env: K"), Options(batch=True)).name \
        == "litellm/openai/x"
    path = tmp_path / "b.yaml"
    path.write_text("version: 1\nmodels:\n  - {name: b, display_name: B, category: general, open_weights: false, "
                    "litellm_model: openai/y, api_key_env: K}\n", encoding="utf-8")
    from inspect_ai.model import GenerateConfig

    assert engine.build_model(load_registry(path).model("b"), Options(batch=True),
                              task_config=GenerateConfig(max_tokens=9)) == ("batched", True, 9)
    assert engine.build_model(load_registry(path).model("b"), Options()).name == "litellm/openai/y"


def test_a_bound_task_names_its_task_set_and_model_and_leaves_generation_to_the_model(tmp_path, got_model,
                                                                                   monkeypatch):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import GenerateConfig

    made = []

    def factory(**args):
        made.append(args)
        return Task(dataset=[Sample(input="q", target="a")], metadata={"own": 1},
                    config=GenerateConfig(temperature=0.9, top_p=0.5, max_tokens=33, reasoning_effort="low",
                                          seed=11))

    monkeypatch.setattr(engine, "task_factory", lambda name: factory)
    spec = _one(tmp_path, "litellm_model: openai/x, api_key_env: K, generation: {temperature: 0.1}")
    task = engine.bound_task(TaskPlan("mini", "finchain", {"seeds": [0]}), spec, Options(), "http://h:1/v1")
    assert made == [{"seeds": [0]}]
    assert task.metadata == {"own": 1, engine.TASK_SET_KEY: "mini", MODEL_KEY: "one"}
    assert [getattr(task.config, k) for k in ("temperature", "top_p", "max_tokens", "reasoning_effort", "seed")] \
        == [None, None, None, None, 11]
    config = got_model[0][1]["config"]
    assert (config.temperature, config.top_p, config.max_tokens, got_model[0][1]["base_url"]) == (
        0.1, 0.5, 33, "http://h:1/v1")
    assert task.model is not None and task.model.name == "litellm/openai/x"
    assert engine.build_task(TaskPlan("mini", "finchain", {}), None).metadata == {"own": 1,
                                                                                  engine.TASK_SET_KEY: "mini"}


# ------------------------------------------------------------------------------ task sets and their tasks

@pytest.mark.parametrize("name", ["finchain", "cflue", "cflue_application"])
def test_a_tasks_parameters_read_from_its_source_are_its_signatures(name):
    import inspect

    assert engine.source_parameters(name) == set(inspect.signature(engine.task_factory(name)).parameters)


@pytest.mark.parametrize("name", ["nope", "_private", "_registry", "__class__", "os"])
def test_a_name_that_is_not_one_of_our_inspect_tasks_is_refused(name):
    with pytest.raises(ValueError, match=rf"task '{name}' has no Inspect task in this version of finchain-tasks"):
        engine.task_factory(name)
    with pytest.raises(ValueError, match=rf"task '{name}' has no Inspect task in this version of finchain-tasks"):
        engine.source_parameters(name)


def test_an_unknown_task_set_is_refused_naming_the_known_ones(tmp_path):
    path = tmp_path / "registry.yaml"
    path.write_text("version: 1\ntask_sets:\n  mini: {task: finchain, args: {seeds: [0]}}\n"
                    "  more: {task: cflue, args: {}}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown task set 'big' \(known: mini, more\)$"):
        engine.plan_task_set(load_registry(path), "big")


def test_both_checkpoint_opt_ins_are_named_in_the_refusal(tmp_path):
    registry = _registry(tmp_path, "{seeds: [0], prm_trust_remote_code: true, prm_allow_pickle: true}")
    with pytest.raises(ValueError, match=r"^task set 'mini' sets prm_trust_remote_code, prm_allow_pickle: running a "
                                         r"PRM checkpoint's own code or pickle weights is opted into on the command "
                                         r"line \(inspect eval \.\.\. -T prm_trust_remote_code=true\), never by a "
                                         r"registry file$"):
        engine.plan_task_set(registry, "mini")


@pytest.mark.parametrize("overrides, args", [
    ({}, {"seeds": [0]}),
    ({"profile": "strict", "limit_nothing": 1}, {"seeds": [0], "profile": "strict"}),  # only what the task takes
    ({"profile": None, "seeds": [5]}, {"seeds": [5]}),                                 # None: not given
])
def test_a_task_set_takes_the_command_lines_overrides_the_task_accepts(registry, overrides, args):
    assert engine.plan_task_set(registry, "mini", **overrides) == TaskPlan("mini", "finchain", args)


@pytest.mark.parametrize("missing, reads_source", [("inspect_ai", True), ("inspect_ai.model", True),
                                                   ("torch", False), (None, False)])
def test_without_inspect_a_tasks_parameters_come_from_its_source_and_any_other_missing_module_is_an_error(
        registry, monkeypatch, missing, reads_source):
    def factory(name):
        raise ModuleNotFoundError("no module", name=missing)

    monkeypatch.setattr(engine, "task_factory", factory)
    if reads_source:
        assert engine.plan_task_set(registry, "mini", profile="strict").args == {"seeds": [0], "profile": "strict"}
    else:
        with pytest.raises(ModuleNotFoundError):
            engine.plan_task_set(registry, "mini")


# ------------------------------------------------------------------------------ which models can run

@pytest.mark.parametrize("model, env, missing", [
    ("openai/x", {}, ["OPENAI_API_KEY"]),
    ("openai/x", {"OPENAI_API_KEY": "k"}, []),
    ("gemini/x", {"GOOGLE_API_KEY": "k"}, []),
])
def test_an_ad_hoc_model_needs_its_providers_key(registry, monkeypatch, model, env, missing):
    from finchain_tasks.models.registry import resolve_model

    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    spec = resolve_model(model, registry)
    ready, skipped = engine.split_ready([spec])
    assert (ready, skipped) == (([spec], []) if not missing else ([], [(spec, missing)]))


@pytest.mark.parametrize("check, missing", [
    ({"keys_in_environment": False, "missing_keys": ["ACME_KEY"]}, ["ACME_KEY"]),
    ({"keys_in_environment": True, "missing_keys": ["ACME_KEY"]}, []),
    ({"keys_in_environment": False, "missing_keys": None}, []),
    (RuntimeError("litellm failed"), []),                                # best effort: never stops a run
])
def test_a_provider_not_in_the_table_is_asked_of_litellm(monkeypatch, check, missing):
    from finchain_tasks.inspect import litellm_provider

    def validate_environment(model):
        assert model == "acme/x"
        if isinstance(check, Exception):
            raise check
        return check

    monkeypatch.setattr(litellm_provider, "import_litellm",
                        lambda: types.SimpleNamespace(validate_environment=validate_environment))
    assert engine._litellm_missing(types.SimpleNamespace(litellm_model="acme/x")) == missing


@pytest.mark.parametrize("fields, env, needs", [
    ("litellm_model: openai/x, local: {gguf: x.gguf}", {}, True),
    ("litellm_model: openai/x, local: {gguf: x.gguf}, api_base: 'http://h:1/v1'", {}, False),
    ("litellm_model: openai/x, api_base: 'http://h:1/v1'", {}, False),
    ("litellm_model: openai/x, api_key_env: K", {}, False),
])
def test_a_local_model_needs_a_server_unless_its_base_url_is_set(tmp_path, fields, env, needs):
    assert engine.needs_local_server(_one(tmp_path, fields)) is needs


# ------------------------------------------------------------------------------ task sets, seeds and order

def test_two_task_sets_with_the_same_task_and_arguments_in_any_key_order_are_refused(registry):
    one = TaskPlan("x", "finchain", {"seeds": [0], "profile": "paper"})
    other = TaskPlan("y", "finchain", {"profile": "paper", "seeds": [0]})
    with pytest.raises(ValueError, match=r"task sets 'x' and 'y' are the same task \(finchain with the same "
                                         r"arguments\) for a, b: eval-set cannot keep them apart; run one of them"):
        engine.check_distinct([registry.model("a"), registry.model("b")], [one, other])
    engine.check_distinct([registry.model("a")], [one, TaskPlan("z", "finchain", {"seeds": [1]})])
    engine.check_distinct([], [TaskPlan("p", "finchain", {"when": Options()}),
                               TaskPlan("q", "finchain", {"when": Options(limit=1)})])  # not JSON: its text


@pytest.mark.parametrize("args, previous, pinned", [
    ({"fresh": True, "seeds": 2}, {"task": "finchain", "args": {"fresh": True, "seeds": [11, 12]}}, [11, 12]),
    ({"fresh": True}, {"task": "finchain", "args": {"fresh": True, "seeds": list(range(10))}}, list(range(10))),
    ({"fresh": True, "seeds": 2}, {"task": "cflue", "args": {"fresh": True, "seeds": [11, 12]}}, None),
    ({"fresh": True, "seeds": 2}, {"task": "finchain", "args": {"fresh": True, "seeds": [11, 12], "x": 1}}, None),
    ({"fresh": True, "seeds": 3}, {"task": "finchain", "args": {"fresh": True, "seeds": [11, 12]}}, None),
    ({"fresh": True, "seeds": 2}, None, None),
])
def test_fresh_seeds_are_those_the_manifest_pinned_for_the_same_task_and_arguments_else_drawn_anew(
        args, previous, pinned):
    got = engine.pin_fresh_seeds(TaskPlan("ts", "finchain", args), previous)
    assert (got.name, got.task) == ("ts", "finchain")
    count = args.get("seeds", 10)
    assert len(got.args["seeds"]) == count and {k: v for k, v in got.args.items() if k != "seeds"} == {
        k: v for k, v in args.items() if k != "seeds"}
    if pinned is not None:
        assert got.args["seeds"] == pinned
    else:
        assert got.args["seeds"] != list(range(count))  # fresh: not the canonical ones
        assert got.args["seeds"] != ((previous or {}).get("args") or {}).get("seeds")  # nor those pinned before


@pytest.mark.parametrize("args", [{"seeds": 2}, {"fresh": False, "seeds": 2}, {"fresh": True, "seeds": [4, 5]}])
def test_seeds_that_are_not_fresh_or_already_listed_are_left_as_they_are(args):
    plan = TaskPlan("ts", "finchain", args)
    assert engine.pin_fresh_seeds(plan, {"task": "finchain", "args": {"seeds": [9, 9]}}) is plan


@pytest.mark.parametrize("per_domain", [1, 2, 3, 4])
def test_the_default_sample_spreads_each_domain_over_the_levels_starting_one_level_later_per_domain(per_domain):
    from finchain_tasks.engine import LEVELS, all_templates

    templates = all_templates()
    chosen = engine.stratified_templates(per_domain)
    domains = sorted({t.domain for t in templates.values()})
    by_domain = {d: [templates[c] for c in chosen if templates[c].domain == d] for d in domains}
    for i, d in enumerate(domains):
        picked = by_domain[d]
        have = sorted(t.id for t in templates.values() if t.domain == d)
        assert len(picked) == min(per_domain, len(have)) and len(set(t.id for t in picked)) == len(picked)
        order = [LEVELS[(i + k) % 3] for k in range(3)]
        levels = [t.level for t in picked]
        present = [lv for lv in order if any(templates[x].level == lv for x in have)]
        assert levels[:len(present)] == present[:len(levels)]       # one per level first, in the domain's order
        first = sorted((t for t in templates.values() if t.domain == d and t.level == levels[0]), key=lambda t: t.id)
        assert picked[0].id == first[0].id                          # the first id of that level


# ------------------------------------------------------------------------------ eval-set and the run around it

def test_eval_set_runs_every_task_into_the_logs_folder_scoring_retrying_and_going_on_past_sample_errors(
        tmp_path, monkeypatch):
    import inspect_ai

    calls = []
    monkeypatch.setattr(inspect_ai, "eval_set", lambda tasks, **kw: calls.append((tasks, kw)) or (False, []))
    options = Options(limit=3, retry_attempts=5, display="none", log_level="warning")
    assert engine._eval_set(tmp_path, ["t1", "t2"], options) is False
    ((tasks, kw),) = calls
    assert tasks == ["t1", "t2"]
    assert kw == {"log_dir": str(tmp_path / engine.LOGS), "model": None, "limit": 3, "retry_attempts": 5,
                  "fail_on_error": True, "continue_on_fail": True, "log_dir_allow_dirty": True, "display": "none",
                  "log_level": "warning", "score": True}


def test_inspects_prerequisite_error_is_one_plain_line_and_any_other_error_passes_through(tmp_path, monkeypatch):
    import inspect_ai

    class PrerequisiteError(Exception):
        def __init__(self, message):
            super().__init__(message)
            self.message = message

    def failing(error):
        def eval_set(tasks, **kw):
            raise error
        return eval_set

    monkeypatch.setattr(inspect_ai, "eval_set", failing(PrerequisiteError("[bold]The log dir[/bold]  holds\n  other "
                                                                          "tasks")))
    with pytest.raises(RuntimeError) as info:
        engine._eval_set(tmp_path, [], Options())
    assert str(info.value) == "The log dir holds other tasks" and info.value.__cause__ is None
    class Bare(Exception):
        pass

    Bare.__name__ = "PrerequisiteError"                       # one without a message: its text
    monkeypatch.setattr(inspect_ai, "eval_set", failing(Bare("[b]plain[/b]  text")))
    with pytest.raises(RuntimeError, match=r"^plain text$"):
        engine._eval_set(tmp_path, [], Options())
    shown = PrerequisiteError("[i]the whole[/i] message")
    shown.args = ("a shorter text",)                          # the message, not the exception's text
    monkeypatch.setattr(inspect_ai, "eval_set", failing(shown))
    with pytest.raises(RuntimeError, match=r"^the whole message$"):
        engine._eval_set(tmp_path, [], Options())
    other = KeyError("boom")
    monkeypatch.setattr(inspect_ai, "eval_set", failing(other))
    with pytest.raises(KeyError) as info:
        engine._eval_set(tmp_path, [], Options())
    assert info.value is other


def _bound(plan, spec, options, base_url=None):
    api = types.SimpleNamespace(request_path="fast", request_path_reason="why", resent=1, late_answers=0)
    return types.SimpleNamespace(plan=plan.name, spec=spec.name, options=options, base_url=base_url,
                                 model=types.SimpleNamespace(api=api), metadata={MODEL_KEY: spec.name})


def test_a_session_evaluates_each_model_on_each_task_set_with_the_cache_variable_set_during_the_run(
        tmp_path, registry, monkeypatch):
    from finchain_tasks.runs import CACHE

    monkeypatch.setattr(engine, "bound_task", _bound)
    monkeypatch.setattr(engine, "warm_scorers", lambda plans: None)
    monkeypatch.delenv("FINCHAIN_RESPONSE_CACHE", raising=False)
    seen = []
    monkeypatch.setattr(engine, "_eval_set", lambda run_dir, tasks, options: seen.append(
        (run_dir, [(t.spec, t.plan, t.options, t.base_url) for t in tasks], os.environ.get("FINCHAIN_RESPONSE_CACHE")))
        or True)
    plans = [TaskPlan("x", "finchain", {"seeds": [0]}), TaskPlan("y", "finchain", {"seeds": [1]})]
    options = Options(limit=2)
    ok, manifest = engine.run(tmp_path / "deep" / "run", [registry.model("a"), registry.model("b")], plans, options)
    run_dir = (tmp_path / "deep" / "run").resolve()
    assert ok is True and seen == [(run_dir, [("a", "x", options, None), ("a", "y", options, None),
                                              ("b", "x", options, None), ("b", "y", options, None)],
                                    str(run_dir / CACHE))]
    assert "FINCHAIN_RESPONSE_CACHE" not in os.environ
    session = manifest["sessions"][-1]
    assert session["request_paths"] == {"a": {"path": "fast", "reason": "why"}, "b": {"path": "fast", "reason": "why"}}
    assert session["requests_resent"] == {"a": {"resent": 2, "late_answers": 0}, "b": {"resent": 2, "late_answers": 0}}
    assert session["sample_order"]["limit"] == 2 and "warnings" not in session
    with pytest.raises(ValueError, match="are the same task"):
        engine.run(tmp_path / "run2", [registry.model("a")], [plans[0], TaskPlan("z", "finchain", {"seeds": [0]})],
                   options)


def test_a_session_that_fails_records_it_and_keeps_the_environment(tmp_path, registry, monkeypatch):
    monkeypatch.setattr(engine, "bound_task", _bound)
    monkeypatch.setattr(engine, "warm_scorers", lambda plans: None)
    monkeypatch.setenv("FINCHAIN_RESPONSE_CACHE", "/elsewhere.sqlite")

    def broken(run_dir, tasks, options):
        raise RuntimeError("eval-set broke")

    monkeypatch.setattr(engine, "_eval_set", broken)
    with pytest.raises(RuntimeError, match="eval-set broke"):
        engine.run(tmp_path, [registry.model("a")], [TaskPlan("x", "finchain", {})], Options())
    session = json.loads((tmp_path / MANIFEST).read_text())["sessions"][-1]
    assert session["ok"] is False and session["requests_resent"] == {"a": {"resent": 1, "late_answers": 0}}
    assert isinstance(session["wall_s"], float) and 0 <= session["wall_s"] < 60 and session["finished"]
    assert os.environ["FINCHAIN_RESPONSE_CACHE"] == "/elsewhere.sqlite"


def test_a_damaged_cache_and_unreadable_logs_are_set_aside_with_a_warning_each_on_stderr_and_in_the_session(
        tmp_path, monkeypatch, capsys):
    from finchain_tasks.runs import CACHE, LOGS

    monkeypatch.setattr(engine, "_eval_set", lambda run_dir, tasks, options: True)
    (tmp_path / CACHE).write_bytes(b"not a database" * 100)
    (tmp_path / LOGS).mkdir()
    (tmp_path / LOGS / "2026-12-01T10-00-00+00-00_finchain_x.eval").write_bytes(b"PK\x03\x04 not a whole zip")
    _, manifest = engine.run(tmp_path, [], [], Options())
    warnings = manifest["sessions"][-1]["warnings"]
    assert len(warnings) == 2 and warnings[0].startswith("warning: the response cache")
    assert warnings[1].startswith("warning: the log ")
    assert capsys.readouterr().err.splitlines() == warnings


def test_under_batch_the_session_records_each_models_route_and_the_journals_counts(tmp_path, registry, monkeypatch):
    monkeypatch.setattr(engine, "bound_task", _bound)
    monkeypatch.setattr(engine, "warm_scorers", lambda plans: None)
    monkeypatch.setattr(engine, "_eval_set", lambda run_dir, tasks, options: True)
    _, manifest = engine.run(tmp_path, [registry.model("a")], [TaskPlan("x", "finchain", {})], Options(batch=True))
    session = manifest["sessions"][-1]
    assert session["batch"]["a"]["inspect_model"] is None   # a model with its own base URL has no batch API
    assert session["batch_journal"] == {"batches": 0, "sent": 0, "answered": 0, "failed": 0}
    _, manifest = engine.run(tmp_path, [registry.model("a")], [TaskPlan("x", "finchain", {})], Options())
    assert "batch" not in manifest["sessions"][-1] and "batch_journal" not in manifest["sessions"][-1]


# ------------------------------------------------------------------------------ logs a resume cannot read

def test_an_unreadable_log_is_renamed_aside_with_the_time_and_a_readable_one_is_kept(tmp_path, monkeypatch):
    from inspect_ai.log import write_eval_log

    from tests.support.inspect_logs import INSPECT_LOGS, _eval_log

    assert engine.set_aside_unreadable_logs(tmp_path / "none") == []
    good = tmp_path / INSPECT_LOGS[2].file
    write_eval_log(_eval_log(INSPECT_LOGS[2]), str(good))
    bad = tmp_path / "2026-12-01T10-00-00+00-00_finchain_x.eval"
    bad.write_bytes(b"PK\x03\x04 not a whole zip")
    (tmp_path / "sub").mkdir()
    deeper = tmp_path / "sub" / "2026-12-01T10-00-00+00-00_finchain_y.eval"
    deeper.write_bytes(b"not read: in a sub-folder")
    monkeypatch.setattr(engine.time, "strftime", lambda fmt: {"%Y%m%d-%H%M%S": "20261205-101500"}[fmt])
    (warning,) = engine.set_aside_unreadable_logs(tmp_path)
    target = bad.with_name(bad.name + ".unreadable-20261205-101500")
    assert target.exists() and not bad.exists() and good.exists() and deeper.exists()
    assert warning.startswith(f"warning: the log {bad} is unreadable (")
    assert warning.endswith(f"); set aside as {target.name}, its samples are run again (answers in the response cache "
                            "are not requested again)")


@pytest.mark.parametrize("error, reason", [
    (ValueError("bad   header\n  here"), "bad header here"),
    (ValueError("x" * 200), "x" * 160),
    (ValueError(""), "ValueError"),                                    # no message: the error's name
])
def test_an_unreadable_logs_reason_is_its_error_on_one_line_cut_to_160_or_its_name(tmp_path, monkeypatch, error,
                                                                                   reason):
    import inspect_ai.log

    bad = tmp_path / "2026-12-01T10-00-00+00-00_finchain_x.eval"
    bad.write_bytes(b"")

    def read(path, header_only):
        assert (path, header_only) == (str(bad), True)
        raise error

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", read)
    (warning,) = engine.set_aside_unreadable_logs(tmp_path)
    assert warning.split(" is unreadable (", 1)[1].split("); set aside as ", 1)[0] == reason


# ------------------------------------------------------------------------------ the warm-up and the progress bars

@pytest.mark.parametrize("plans, profiles", [
    ([], []),
    ([TaskPlan("c", "cflue", {})], []),                                           # no ChainEval: nothing to warm
    ([TaskPlan("f", "finchain", {})], [("paper", {})]),
    ([TaskPlan("f", "finchain", {"profile": "strict", "chaineval_params": {"step_threshold": 0.5}}),
      TaskPlan("c", "cflue", {})], [("strict", {"step_threshold": 0.5})]),
])
def test_the_scorer_is_warmed_once_per_finchain_task_set_with_its_profile_and_embedder(monkeypatch, plans, profiles):
    import scorers.chaineval
    import scorers.embeddings
    import scorers.params
    from finchain_tasks.engine import all_templates

    calls = []
    monkeypatch.setattr(scorers.params, "resolve", lambda profile, **kw: types.SimpleNamespace(
        profile=profile, kw=kw, embedding_model=f"emb-{profile}"))
    monkeypatch.setattr(scorers.embeddings, "shared_embedder", lambda name: f"embedder {name}")
    monkeypatch.setattr(scorers.chaineval, "score_batch", lambda gold, pred, profile, embedder: calls.append(
        (gold, pred, profile.profile, profile.kw, embedder)))
    engine.warm_scorers(plans)
    problem = next(iter(all_templates().values())).generate(0)
    assert calls == [([problem.gold()], [problem.solution], p, kw, f"embedder emb-{p}") for p, kw in profiles]


@pytest.mark.parametrize("before, after", [(None, "1"), ("0", "0")])
def test_hugging_faces_progress_bars_are_switched_off_unless_the_user_set_them(monkeypatch, before, after):
    import sys

    if before is None:
        monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS", raising=False)
    else:
        monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", before)
    switched = []
    fake = types.SimpleNamespace(utils=types.SimpleNamespace(logging=types.SimpleNamespace(
        disable_progress_bar=lambda: switched.append(True))))
    monkeypatch.setitem(sys.modules, "transformers", fake)
    engine.quiet_progress_bars()
    assert os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == after and switched == [True]
    broken = types.SimpleNamespace(utils=types.SimpleNamespace(logging=types.SimpleNamespace(
        disable_progress_bar=lambda: 1 / 0)))
    monkeypatch.setitem(sys.modules, "transformers", broken)
    engine.quiet_progress_bars()                                          # a transformers without the switch: ignored
    monkeypatch.delitem(sys.modules, "transformers")
    engine.quiet_progress_bars()


# ------------------------------------------------------------------------------ the manifest, read and written

@pytest.mark.parametrize("text, reason", [
    ("[1, 2]", "expected a JSON object, found list"),
    ('"run"', "expected a JSON object, found str"),
])
def test_a_manifest_that_is_not_an_object_is_one_line_naming_it_and_how_to_recover(tmp_path, text, reason):
    from finchain_tasks.plumbing.safe_files import UnreadableFile

    path = tmp_path / MANIFEST
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UnreadableFile) as info:
        engine.read_manifest(tmp_path)
    assert info.value.path == str(path) and info.value.reason == (
        f"{reason}. Nothing was changed: restore it from a copy, or move it aside (mv {path} {path}.damaged) and "
        "run again: the logs and the response cache are kept and reused (fresh seeds it pinned are drawn anew)")
    assert path.read_text(encoding="utf-8") == text


def test_the_manifest_is_written_whole_as_indented_utf8_json_with_any_value_as_text(tmp_path):
    from pathlib import PurePosixPath

    manifest = {"run_dir": PurePosixPath("/r"), "note": "médaille 金融", "n": [1]}
    engine.write_manifest(tmp_path, manifest)
    raw = (tmp_path / MANIFEST).read_bytes()
    assert raw.decode("utf-8") == json.dumps({"run_dir": "/r", "note": "médaille 金融", "n": [1]}, indent=2,
                                             ensure_ascii=False) + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST]     # no partial file left behind
    assert engine.read_manifest(tmp_path)["note"] == "médaille 金融"


def test_prepare_creates_the_run_directory_and_keeps_the_fresh_seeds_it_pinned(tmp_path, registry):
    run_dir = tmp_path / "a" / "b"
    plan = TaskPlan("mini", "finchain", {"fresh": True, "seeds": 2})
    (pinned,), first = engine.prepare(run_dir, [registry.model("a")], [plan], ["bench"])
    assert run_dir.is_dir() and len(pinned.args["seeds"]) == 2
    (again,), second = engine.prepare(run_dir, [registry.model("a")], [plan], ["bench"])
    assert again.args["seeds"] == pinned.args["seeds"]
    assert second["task_sets"]["mini"]["args"]["seeds"] == pinned.args["seeds"]
    assert second["sessions"][-1]["sample_order"] == {**second["sessions"][-1]["sample_order"], "seed": 0,
                                                      "limit": None}


def test_a_models_record_holds_its_list_and_batch_price(tmp_path):
    from finchain_tasks.models.batch import resolve_batch_price
    from finchain_tasks.models.registry import resolve_price

    spec = load_registry().model("gpt-4.1-mini")
    record = engine.model_record(spec)
    assert record["price"] == dataclasses.asdict(resolve_price(spec))
    assert record["batch_price"] == dataclasses.asdict(resolve_batch_price(spec))


def test_a_counter_that_is_not_a_whole_number_counts_nothing():
    tasks = [_task("a", resent=2, late_answers=True), _task("a", resent=1, late_answers=2.0),
             _task("b", resent=1), types.SimpleNamespace(model=None, metadata={MODEL_KEY: "c"}),
             types.SimpleNamespace(metadata=None)]
    assert engine.request_counts(tasks) == {"a": {"resent": 3, "late_answers": 0},
                                            "b": {"resent": 1, "late_answers": 0}}
    assert engine.request_paths(tasks[3:]) == {}


def test_a_run_keeps_the_creation_time_of_its_first_session_and_times_are_utc(tmp_path, registry):
    engine.write_manifest(tmp_path, {"created": "2020-01-01T00:00:00+00:00", "sessions": []})
    _, manifest = engine.prepare(tmp_path, [registry.model("a")], [], ["bench"])
    assert manifest["created"] == "2020-01-01T00:00:00+00:00"
    assert manifest["sessions"][-1]["started"].endswith("+00:00") and engine._now().endswith("+00:00")


def test_each_task_gets_its_models_local_server_url_the_options_and_a_wall_time_to_the_millisecond(
        tmp_path, registry, monkeypatch):
    import contextlib
    import itertools

    monkeypatch.setattr(engine, "bound_task", _bound)
    monkeypatch.setattr(engine, "warm_scorers", lambda plans: None)
    monkeypatch.setattr(engine, "local_servers", lambda specs: contextlib.nullcontext({"b": "http://127.0.0.1:7/v1"}))
    ticks = itertools.count(100.0, 1.23456)
    monkeypatch.setattr(engine, "time", types.SimpleNamespace(monotonic=lambda: next(ticks)))
    seen = []
    monkeypatch.setattr(engine, "_eval_set", lambda run_dir, tasks, options: seen.append(
        ([(t.spec, t.base_url) for t in tasks], options)) or True)
    options = Options(max_retries=2)
    _, manifest = engine.run(tmp_path, [registry.model("a"), registry.model("b")], [TaskPlan("x", "finchain", {})],
                             options)
    assert seen == [([("a", None), ("b", "http://127.0.0.1:7/v1")], options)]
    assert manifest["sessions"][-1]["wall_s"] == 1.235


def test_a_provider_in_the_key_table_is_never_asked_of_litellm(monkeypatch):
    from finchain_tasks.inspect import litellm_provider

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(litellm_provider, "import_litellm", lambda: pytest.fail("litellm was asked"))
    assert engine._litellm_missing(types.SimpleNamespace(litellm_model="openai/x")) == ["OPENAI_API_KEY"]
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert engine._litellm_missing(types.SimpleNamespace(litellm_model="openai/x")) == []
