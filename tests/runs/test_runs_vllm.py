"""``finchain bench --serve vllm`` end to end against the stand-in ``vllm`` executable: servers start per wave
on their own GPUs, the bench completes and scores through them (next to an API model), and afterwards no
server process, child or bound port is left; a server that does not start is reported and the rest runs."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.runs import MANIFEST, SUMMARY
from finchain_tasks.runs.vllm_bench import plan_waves, run_with_vllm
from tests.support import fake_vllm
from tests.support.bench_helpers import KEY, KEY_ENV, TASK_SET, WRONG, plan_problems
from tests.support.fake_openai import FakeOpenAI

N_PROBLEMS = 1


def _served(name: str, params_b: float) -> str:
    return (f"  - {{name: {name}, display_name: {name}, litellm_model: hosted_vllm/org/{name}, category: general, "
            f"params_b: {params_b}, open_weights: true, hf_id: org/{name}, "
            f"api_base_env: FINCHAIN_TEST_{name.upper().replace('-', '_')}_API_BASE, vllm: {{max_model_len: 4096}}}}")


def write_registry(path: Path, api_base: str, templates: list[str]) -> Path:
    lines = ["version: 1", "models:", _served("vm-a", 7), _served("vm-b", 8), _served("vm-big", 70),
             f"  - {{name: api-x, display_name: API X, litellm_model: openai/api-x, category: general, "
             f"open_weights: false, api_key_env: {KEY_ENV}, api_base: '{api_base}'}}",
             "task_sets:", f"  {TASK_SET}:", "    task: finchain",
             f"    args: {{seeds: [0], template: [{', '.join(templates)}]}}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


@pytest.fixture(scope="module")
def problems():
    return plan_problems(N_PROBLEMS)


@pytest.fixture
def setup(tmp_path, monkeypatch, problems):
    """The stand-in first on PATH, replies by question, 24 GB GPUs (7-8B models: TP 1, 70B: TP 16)."""
    bin_dir = tmp_path / "bin"
    fake_vllm.install(bin_dir)
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({p.question: p.solution if i % 2 == 0 else WRONG for i, p in enumerate(problems)}))
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_VLLM_REPLIES", str(replies))
    monkeypatch.setenv("FAKE_VLLM_RECORD", str(tmp_path / "record"))
    monkeypatch.setenv("FINCHAIN_GPU_MEMORY_GB", "24")
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.delenv("FAKE_VLLM_MODE", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return tmp_path


def _bench(registry: Path, run_dir: Path, *extra: str):
    return CliRunner().invoke(app, ["bench", "--registry", str(registry), "--models", "vm-a,vm-b,vm-big,api-x",
                                    "--tasks", TASK_SET, "--run-dir", str(run_dir), "--serve", "vllm",
                                    "--retry-wait", "0.05", "--display", "none", *extra])


@pytest.mark.slow  # a whole bench: Inspect, the embedder, scoring (as tests/runs/test_runs_bench.py)
def test_bench_serve_vllm_runs_a_wave_on_two_gpus_next_to_an_api_model_and_leaves_nothing_running(setup, problems):
    with FakeOpenAI(reply=lambda body: WRONG) as api:
        registry = write_registry(setup / "registry.yaml", api.base_url, [p.template_id for p in problems])
        result = _bench(registry, setup / "run", "--gpus", "2")
    assert result.exit_code == 0, result.output
    summary = json.loads((setup / "run" / SUMMARY).read_text())
    done = {r["model"]: (r["requested"], r["completed"], r["failed"]) for r in summary["results"]}
    assert done == {m: (N_PROBLEMS, N_PROBLEMS, 0) for m in ("vm-a", "vm-b", "api-x")}
    scores = {r["model"]: r["scores"] for r in summary["results"]}
    assert scores["vm-a"] == scores["vm-b"] != scores["api-x"]  # answers came from the served replies: gold half
    (big,) = [s for s in summary["skipped"] if s["model"] == "vm-big"]
    assert "needs 16 GPUs of 24 GB" in big["reason"] and "vm-big" in result.output
    recs = [json.loads(p.read_text()) for p in (setup / "record").glob("*.json")]
    assert sorted(r["devices"] for r in recs) == ["0", "1"]  # one wave, a GPU each, at the same time
    assert max(r["started"] for r in recs) < min(r["stopped"] for r in recs)
    assert sorted(set(r["models"]) == {f"org/{r['argv'][1].split('/')[1]}"} for r in recs) == [True, True]
    for rec in recs:  # every server and its child reaped, every port free
        port = int(rec["argv"][rec["argv"].index("--port") + 1])
        assert gone(rec["pid"]) and gone(rec["child_pid"]) and port_free(port)
    kept = json.loads((setup / "run" / "vllm" / "vm-a.json").read_text())
    assert kept["argv"][:2] == ["serve", "org/vm-a"] and kept["tensor_parallel_size"] == 1
    assert (setup / "run" / "vllm" / "vm-a.log").is_file()
    assert "FINCHAIN_TEST_VM_A_API_BASE" not in os.environ  # pointed at the server only meanwhile


def test_a_server_that_does_not_start_is_reported_and_the_other_waves_run(setup, monkeypatch):
    """The orchestration with a recording ``run`` (the engine's own is covered above): vm-a's server exits at once
    (one line with its exit code), vm-b's wave still runs with its base URL set only during its run, the API model
    joins the first wave, vm-big is listed as too big; the manifest's last session lists both with reasons."""
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import Options, TaskPlan, read_manifest, skipped_records, write_manifest

    registry = load_registry(write_registry(setup / "registry.yaml", "http://127.0.0.1:9/v1", ["x"]))
    calls = []

    def run(run_dir, specs, plans, options, argv=(), skipped=()):
        env = os.environ.get("FINCHAIN_TEST_VM_B_API_BASE")
        calls.append(([s.name for s in specs], env, [s.name for s, _ in skipped]))
        manifest = read_manifest(run_dir)  # a session with its skipped models, as the engine's prepare() writes
        manifest.setdefault("sessions", []).append({"skipped": skipped_records(skipped)})
        write_manifest(run_dir, manifest)
        return True, {}

    monkeypatch.setenv("FAKE_VLLM_EXIT_FOR", "org/vm-a")
    models = registry.models
    lines: list[str] = []
    ok = run_with_vllm(run, setup / "run", [models["api-x"]], [models["vm-a"], models["vm-big"], models["vm-b"]],
                       [TaskPlan("mini", "finchain")], Options(), gpus=1, say=lines.append)
    assert ok is False
    assert [(names, env is not None, skipped) for names, env, skipped in calls] == [
        (["api-x"], False, ["vm-big", "vm-a"]), (["vm-b"], True, ["vm-big", "vm-a"])]
    assert calls[1][1].startswith("http://127.0.0.1:") and "FINCHAIN_TEST_VM_B_API_BASE" not in os.environ
    assert any("vLLM server for vm-a exited with code 3 before it was healthy" in line for line in lines)
    session = json.loads((setup / "run" / MANIFEST).read_text())["sessions"][-1]
    reasons = {r["model"]: r["reason"] for r in session["skipped"]}
    assert reasons["vm-a"].startswith("vLLM server did not start") and "needs 16 GPUs" in reasons["vm-big"]


def _spec(name: str, tp: int):
    return SimpleNamespace(name=name, params_b=None, vllm=SimpleNamespace(tensor_parallel_size=tp))


def test_waves_pack_models_in_order_onto_their_own_gpus():
    specs = [_spec("a", 2), _spec("b", 1), _spec("c", 2), _spec("d", 8), _spec("e", 1)]
    waves, too_big = plan_waves(specs, ["4", "5", "6", "7"], 80)
    # first fit in order: c does not fit beside a and b, so it opens the next wave, and e joins it
    assert [[(p.spec.name, p.devices) for p in wave] for wave in waves] == [
        [("a", "4,5"), ("b", "6")], [("c", "4,5"), ("e", "6")]]
    assert [(s.name, "--gpus gives 4" in why) for s, why in too_big] == [("d", True)]


def test_serve_needs_a_servable_model_and_gpus_needs_serve(setup):
    registry = write_registry(setup / "registry.yaml", "http://127.0.0.1:9/v1", ["x"])
    bench = ["bench", "--registry", str(registry), "--tasks", TASK_SET, "--models"]
    result = CliRunner().invoke(app, [*bench, "api-x", "--serve", "vllm"])
    assert result.exit_code == 2 and "none of the selected models is served by vLLM" in result.output
    result = CliRunner().invoke(app, [*bench, "api-x", "--gpus", "2"])
    assert result.exit_code == 2 and "--gpus goes with --serve vllm" in result.output
    result = CliRunner().invoke(app, [*bench, "vm-a", "--serve", "sglang"])
    assert result.exit_code == 2 and "--serve must be vllm" in result.output
