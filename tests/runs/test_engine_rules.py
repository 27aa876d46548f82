"""What a run records in ``run.json`` and the rules around it, without a model or a server (issue 39, found by
the literal pass: every field of the manifest could be dropped with the group's fast tests green, since the
tests that read a finished run's ``run.json`` run a whole bench and are marked slow).

Pinned: a registry task set never opts into a checkpoint's code or pickle weights; the manifest's fields (the
run, each model's record, each task set's task and arguments, each session's argv, start, skipped models, sample
order, end, wall time, outcome, request paths and counts); a second session extends the first; the run directory
is one run's at a time. Inspect's eval-set is replaced where a session runs (no task: nothing to evaluate)."""

from __future__ import annotations

import json
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
