"""``finchain bench --harness lm-eval`` end to end against a real OpenAI-compatible server on 127.0.0.1:
gold answers score 1 in the summary, the key reaches the server and no file, and a re-run answers from
lm-eval's response cache without sending a request again. Every answer ends in a line of the characters
``str.splitlines`` splits at (U+2028, U+2029, NEL, form feed...): they made the bench exit 2 with no
summary, its re-run fail the same way and ``finchain leaderboard build`` fail on the same files (issue 33.1)."""

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.plumbing.jsonl import jsonl_lines
from finchain_tasks.runs import LM_EVAL, SUMMARY
from tests.support.bench_helpers import KEY, KEY_ENV, UNSET_ENV, files_containing
from tests.support.fake_openai import FakeOpenAI
from tests.support.lm_eval_helpers import gold_reply

pytestmark = pytest.mark.slow
TASK_SET = "lm1"
SEPARATORS = "\u2028\u2029\x85\x0c\x0b\x1c\x1d\x1e"
"""All whitespace to ChainEval's step parser; lm-eval's JSONL keeps the first three raw inside strings."""


def _registry(path, base_url):
    path.write_text("\n".join([
        "version: 1", "models:",
        f"  - {{name: fake-a, display_name: Fake A, litellm_model: openai/fake-a, category: general, "
        f"open_weights: false, api_key_env: {KEY_ENV}, api_base: '{base_url}'}}",
        f"  - {{name: fake-nokey, display_name: Fake B, litellm_model: openai/fake-b, category: general, "
        f"open_weights: false, api_key_env: {UNSET_ENV}, api_base: '{base_url}'}}",
        "task_sets:", f"  {TASK_SET}: {{task: finchain, args: {{seeds: 1}}}}", ""]), encoding="utf-8")
    return path


def _summary_rows(run_dir):
    summary = json.loads((run_dir / SUMMARY).read_text())
    return [{k: r[k] for k in ("model", "harness", "task_set", "requested", "completed", "scores", "by_domain",
                               "by_level", "input_tokens", "cost_usd")} for r in summary["results"]]


def _sample_ids(run_dir):
    return [json.loads(line)["doc"]["id"] for path in (run_dir / LM_EVAL).rglob("samples_*.jsonl")
            for _, line in jsonl_lines(path.read_text("utf-8"))]


def test_lm_eval_harness_scores_gold_answers_keeps_the_key_out_and_resumes_from_its_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv(UNSET_ENV, raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("FINCHAIN_LM_EVAL_CACHE_DIR", str(tmp_path / "cache"))  # lm-eval's pickles: not the run dir
    run_dir = tmp_path / "run"
    with FakeOpenAI(reply=lambda body: gold_reply(body) + "\n" + SEPARATORS) as server:
        registry = _registry(tmp_path / "r.yaml", server.base_url)
        args = ["bench", "--harness", "lm-eval", "--registry", str(registry),
                "--models", "fake-a,fake-nokey", "--tasks", TASK_SET, "--limit", "2", "--run-dir", str(run_dir)]
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 0, first.output
        answered = Counter(json.dumps(r.body["messages"]) for r in server.requests if r.answered)
        rows = _summary_rows(run_dir)
        leaves = len(list((run_dir / LM_EVAL / "fake-a" / TASK_SET).rglob("samples_*.jsonl")))
        second = CliRunner().invoke(app, args)
    assert second.exit_code == 0, second.output
    assert "fake-nokey" in first.output and UNSET_ENV in first.output
    assert "[1/1] fake-a · lm1: lm-eval started" in first.output and "[1/1] fake-a · lm1: done in" in first.output
    assert "Loading weights" not in first.output
    (row,) = rows
    # --limit 2 is two problems of the task set's stratified order, the same two Inspect's --limit 2 takes
    assert row["requested"] == row["completed"] == 2 and leaves == 2
    from finchain_tasks.inspect.tasks import finchain

    inspect_first = [str(s.id) for s in list(finchain(seeds=1).dataset)[:2]]
    assert sorted(set(_sample_ids(run_dir))) == sorted(inspect_first)  # both runs asked for the same two
    assert len(row["by_domain"]) == 2  # one problem from each domain, not two of the first template
    assert (row["model"], row["harness"], row["input_tokens"], row["cost_usd"]) == ("fake-a", "lm-eval", None, None)
    assert row["scores"]["chaineval"] == pytest.approx(1.0) and row["scores"]["fac"] == 1.0
    assert row["by_domain"] and row["by_level"]
    assert all(g["chaineval"] == pytest.approx(1.0) for g in row["by_level"].values())
    full = json.loads((run_dir / SUMMARY).read_text())["results"][0]
    assert full["settings"]["limit"] == 2 and full["settings"]["sample_order"]["seed"] == 0
    assert full["stats"]["chaineval"]["mean"] == pytest.approx(1.0)
    report = (run_dir / "report.md").read_text()
    n = row["completed"]
    assert "| chaineval | fac | fac_strict | step_f1 |" in report and f"| {n}/{n} | 0 | 1.000 ±0.000 " in report
    assert len(answered) == row["completed"] and all(n == 1 for n in answered.values())
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)
    assert not any(r.body["model"] == "fake-b" for r in server.requests)
    assert len(server.requests) == row["completed"], "the re-run sent a request again"
    assert _summary_rows(run_dir) == rows
    assert files_containing(run_dir, KEY) == []
    assert not any(run_dir.rglob("*.db")) and any((tmp_path / "cache").rglob("responses_rank0.db"))
    board = CliRunner().invoke(app, ["leaderboard", "build", "local", "-s", str(run_dir), "--registry", str(registry),
                                     "--models", "fake-a", "-o", str(tmp_path / "site")])
    assert board.exit_code == 0 and "2 sample(s)" in " ".join(board.output.split()), board.output
