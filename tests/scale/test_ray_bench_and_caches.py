"""``bench --ray`` placement (GPU only for served open-weight models), its per-pair log directories that the
summary reads, and the label cache shared by several processes at once."""

from __future__ import annotations

import multiprocessing
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.prm.labeling import CallCache
from finchain_tasks.scale.ray_bench import forwarded_env, pair_dir, resources_for

OPEN = SimpleNamespace(name="qwen/Qwen3 8B", open_weights=True, api_key_env=None, api_base_env="QWEN_BASE")
API = SimpleNamespace(name="gpt-4.1-mini", open_weights=False, api_key_env="OPENAI_KEY_X", api_base_env=None)
PLAN = SimpleNamespace(name="finchain")


def test_only_an_open_weight_model_served_on_the_node_asks_for_a_gpu():
    assert resources_for(OPEN, "vllm") == {"num_cpus": 1, "num_gpus": 1.0}
    assert resources_for(OPEN, None) == {"num_cpus": 1}
    assert resources_for(API, "vllm") == {"num_cpus": 1}


def test_each_pair_has_its_own_log_directory_under_logs(tmp_path):
    a, b = pair_dir(tmp_path, OPEN, PLAN), pair_dir(tmp_path, API, PLAN)
    assert a != b and a.parent == b.parent == tmp_path / "logs"
    assert a.name == "ray-qwen-Qwen3-8B--finchain"


def test_only_the_models_own_variables_travel(monkeypatch):
    monkeypatch.setenv("OPENAI_KEY_X", "sk-test")
    monkeypatch.setenv("UNRELATED_SECRET", "nope")
    monkeypatch.delenv("QWEN_BASE", raising=False)
    assert forwarded_env(API) == {"OPENAI_KEY_X": "sk-test"}
    assert forwarded_env(OPEN) == {}


def test_bench_refuses_a_bad_address_in_one_line(tmp_path):
    result = CliRunner().invoke(app, ["bench", "--models", "openai/gpt-4o-mini", "--ray", "no address",
                                      "--run-dir", str(tmp_path / "run")])
    assert result.exit_code == 2 and "is not a Ray address" in " ".join(result.output.split())


def _writer(path: str, start: int) -> None:
    cache = CallCache(path)
    for k in range(start, start + 150):
        cache.put(f"k{k}", {"text": str(k)})


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_the_label_cache_takes_writers_from_several_processes(tmp_path):
    path = str(tmp_path / "calls.sqlite")
    CallCache(path)
    procs = [multiprocessing.get_context("fork").Process(target=_writer, args=(path, s)) for s in (0, 150, 300)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    cache = CallCache(path)
    assert all(cache.get(f"k{k}") == {"text": str(k)} for k in range(450))
