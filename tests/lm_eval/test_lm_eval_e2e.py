"""FinChain through lm-eval end to end: ``simple_evaluate`` in process with the deterministic
``finchain-oracle`` backend, and the real ``lm_eval`` / ``finchain-lm-eval`` commands against a fake
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess

import pytest

pytest.importorskip("lm_eval")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402
from support.fake_openai import FakeOpenAI  # noqa: E402
from support.lm_eval_helpers import VENV_BIN, cli_env, gold_reply, read_run  # noqa: E402

import finchain_tasks  # noqa: E402
import finchain_tasks.lm_eval.models  # noqa: E402,F401  (registers finchain-oracle)
from finchain_tasks.finchain.versioning import task_version  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.build import TOP, layout  # noqa: E402
from scorers.chaineval import METRIC_KEYS  # noqa: E402
from tests.support.timeouts import limit

LIMIT = 0.02
"""A fraction: 2 documents of a 100-problem leaf, 1 of a 50-problem one, so leaf sizes differ and
size weighting is visible in the group rows."""
SECRET = "sk-finchain-test-7c1d5e"


class SeedZeroOracle(finchain_tasks.lm_eval.models.FinChainOracle):
    """Gold for seed 0, nothing for the other seeds: with LIMIT a 2-document leaf (seeds 0 and 1 of
    its first template) means 0.5 and a 1-document leaf 1.0, so size weighting shows in every metric."""

    def reply(self, doc: dict) -> str:
        return super().reply(doc) if doc["seed"] == 0 else ""


def _evaluate(mode: str, **metadata) -> dict:
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata=metadata)
    model = SeedZeroOracle() if mode == "seed0" else "finchain-oracle"
    return simple_evaluate(model=model, model_args=None if mode == "seed0" else f"mode={mode}", tasks=[TOP],
                           task_manager=manager, limit=LIMIT, log_samples=True, bootstrap_iters=0)


def _weighted(out: dict, leaves: list[str], metric: str) -> float:
    sizes = [out["n-samples"][n]["effective"] for n in leaves]
    assert len(set(sizes)) > 1 or len(leaves) == 1, "equal sizes cannot show size weighting"
    return sum(out["results"][n][f"{metric},none"] * s for n, s in zip(leaves, sizes)) / sum(sizes)


def test_gold_answers_score_one_everywhere():
    out = _evaluate("gold")
    lay, results = layout(), out["results"]
    rows = {TOP, *lay.domains, *lay.leaves}
    assert rows <= set(results) and {TOP, *lay.domains} <= set(out["groups"])
    for name in rows:
        assert results[name]["chaineval,none"] == pytest.approx(1.0), name
        assert results[name]["fac,none"] == 1.0 and results[name]["parse_ok,none"] == 1.0, name
        assert results[name]["no_error,none"] == 1.0 and results[name]["err_1,none"] == 0.0, name
        assert "chaineval_stderr,none" in results[name], name
    leaf = next(iter(lay.leaves))
    assert out["versions"][leaf] == task_version()
    run = out["configs"][leaf]["metadata"]["finchain_run"]
    assert run["package_version"] == finchain_tasks.__version__ and run["chaineval"]["profile"] == "paper"
    assert run["embedder"]["embedding_model"] and run["prompt_variant"] == "chat"
    sample = out["samples"][leaf][0]
    answer = sample["doc"]["solution"].splitlines()[-1].split(": ", 1)[1]
    assert sample["filtered_resps"] == [answer]  # the filtered answer, not a JSON string of scores
    assert sample["metrics"] == list(METRIC_KEYS) and all(sample[k] in (0.0, 1.0) for k in METRIC_KEYS)
    assert json.loads(json.dumps(sample["filtered_resps"], default=str)) == [answer]


def test_groups_aggregate_by_size():
    out = _evaluate("seed0")
    lay, results = layout(), out["results"]
    for metric in ("chaineval", "fac", "no_error", "err_1"):
        for group, leaves in lay.domains.items():
            assert results[group][f"{metric},none"] == pytest.approx(_weighted(out, leaves, metric)), (group, metric)
        assert results[TOP][f"{metric},none"] == pytest.approx(_weighted(out, list(lay.leaves), metric)), metric


def test_wrong_answers_score_zero_and_the_profile_is_applied():
    out = _evaluate("wrong", finchain_profile="reference")
    for name in {TOP, *layout().leaves}:
        row = out["results"][name]
        assert row["fac,none"] == 0.0 and row["recall,none"] == 0.0 and row["err_1,none"] == 1.0, name
        # the reference profile's recurrence: an output matching nothing takes the all-gap path (0.75)
        assert row["chaineval,none"] == pytest.approx(0.75), name
    leaf = next(iter(layout().leaves))
    assert out["configs"][leaf]["metadata"]["finchain_run"]["chaineval"]["profile"] == "reference"


@pytest.fixture()
def gold_server():
    with FakeOpenAI(reply=gold_reply) as server:
        yield server


def _run(cmd: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=cli_env(), timeout=limit(timeout))
    assert proc.returncode == 0, f"{cmd[0]} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc


@pytest.mark.slow
def test_lm_eval_command_with_include_path_against_a_fake_chat_server(gold_server, tmp_path):
    model_args = (f"base_url={gold_server.base_url}/chat/completions,model=fake,"
                  "tokenizer_backend=None,tokenized_requests=False")
    _run([str(VENV_BIN / "lm_eval"), "--include_path", TASKS_DIR, "--tasks", TOP, "--model", "local-chat-completions",
          "--model_args", model_args, "--apply_chat_template", "--limit", "1",
          "--output_path", str(tmp_path), "--log_samples"])
    results, samples = read_run(tmp_path)
    lay = layout()
    assert set(samples) == set(lay.leaves)
    for rows in samples.values():  # as written to disk by --log_samples: the answer, and the metrics as numbers
        gold_answer = rows[0]["doc"]["solution"].splitlines()[-1].split(": ", 1)[1]
        assert rows[0]["filtered_resps"] == [gold_answer] and rows[0]["chaineval"] == pytest.approx(1.0)
        assert set(METRIC_KEYS) <= set(rows[0]) and rows[0]["metrics"] == list(METRIC_KEYS)
    for name in {TOP, *lay.domains, *lay.leaves}:
        assert results["results"][name]["chaineval,none"] == pytest.approx(1.0), name
        assert results["results"][name]["fac,none"] == 1.0, name
    first = gold_server.requests[0].body
    assert first["messages"][0]["role"] == "system" and first["max_tokens"] == 1024
    assert len(gold_server.requests) == len(lay.leaves)


@pytest.mark.slow
def test_wrapper_uses_the_completion_prompt_and_keeps_secrets_out(gold_server, tmp_path):
    model_args = (f"base_url={gold_server.base_url}/completions,model=fake,api_key={SECRET},"
                  "tokenizer_backend=None,tokenized_requests=False")
    proc = _run([str(VENV_BIN / "finchain-lm-eval"), "--tasks", TOP, "--model", "local-completions",
                 "--model_args", model_args, "--limit", "1", "--output_path", str(tmp_path), "--log_samples"])
    assert "finchain_prompt=completion" in proc.stderr
    assert SECRET not in proc.stdout + proc.stderr and "<redacted>" in proc.stdout
    results, samples = read_run(tmp_path)
    assert results["results"][TOP]["chaineval,none"] == pytest.approx(1.0)
    assert results["results"][TOP]["fac,none"] == 1.0
    assert all(r.path.endswith("/v1/completions") and r.body["prompt"] for r in gold_server.requests)
    leaf = next(iter(layout().leaves))
    assert results["configs"][leaf]["metadata"]["finchain_run"]["prompt_variant"] == "completion"
    assert "<redacted>" in json.dumps(results["config"])
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text("utf-8", errors="replace"), path


@pytest.mark.slow
def test_wrapper_refuses_overlapping_groups_before_running(tmp_path):
    view = next(iter(layout().views))
    proc = subprocess.run([str(VENV_BIN / "finchain-lm-eval"), "--tasks", f"{TOP},{view}", "--model", "finchain-oracle",
                           "--output_path", str(tmp_path)], capture_output=True, text=True, env=cli_env(),
                          timeout=limit(600))
    assert proc.returncode == 2 and "overlap" in proc.stderr and "Duplicate task" in proc.stderr
    assert not any(tmp_path.iterdir())


def test_paths_command_prints_the_include_path():
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    result = CliRunner().invoke(app, ["paths", "lm-eval"])
    assert result.exit_code == 0 and result.stdout.strip() == TASKS_DIR
