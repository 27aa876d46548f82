"""``finchain bench`` end to end against a real OpenAI-compatible server on 127.0.0.1 (FakeOpenAI).

Scripted faults (429, 500, a stalled answer, malformed JSON, one prompt that always gets HTTP 400)
must end with every sample either completed once or reported failed with its reason; a run killed
with SIGKILL and run again must end with the scores of an uninterrupted run, never re-sending a
request whose answer was in the response cache; no file of the run may hold the API key; a model
whose key is missing is listed and skipped.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.runs import CACHE, LOGS, MANIFEST, SUMMARY
from finchain_tasks.runs.summary import latest_logs, sample_rows
from tests.support.bench_helpers import (
    KEY,
    KEY_ENV,
    TASK_SET,
    UNSET_ENV,
    files_containing,
    make_reply,
    plan_problems,
    question_of,
    write_registry,
)
from tests.support.fake_openai import FakeOpenAI, delay, malformed, rate_limit, server_error, status

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CLI = "from finchain_tasks.cli.main import app; app(prog_name='finchain')"


@pytest.fixture
def bench_env(monkeypatch, tmp_path):
    """A key in the environment, one key missing, Inspect's sample buffer inside tmp_path."""
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv(UNSET_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


def _args(registry: Path, run_dir: Path, models: str, *extra: str) -> list[str]:
    return ["bench", "--registry", str(registry), "--models", models, "--tasks", TASK_SET, "--run-dir", str(run_dir),
            "--retry-wait", "0.05", "--display", "none", *extra]


def _final_scores(run_dir: Path) -> dict[tuple[str, str], dict]:
    """(model, sample id) -> scores, from the latest log of each task; a duplicate id fails the test."""
    out = {}
    for header in latest_logs(run_dir / LOGS):
        for row in sample_rows(header):
            key = (header.eval.model, row["id"])
            assert key not in out, f"sample {key} appears twice"
            out[key] = row["scores"] if row["error"] is None else {"error": row["error"]}
    return out


def test_faults_end_in_completed_or_reported_samples_missing_keys_skip_and_no_key_leaks(bench_env):
    problems = plan_problems()
    bad = problems[3]
    # the stalled answer never comes (the server cuts it short when it stops): the timeout ends it. The
    # timeout is generous so that no ordinary answer on a loaded machine is timed out and asked twice.
    script = {1: rate_limit(retry_after=0), 2: server_error(500), 3: delay(600), 4: malformed()}
    rule = lambda body: status(400) if question_of(body) == bad.question else None  # noqa: E731
    run_dir = bench_env / "run"
    with FakeOpenAI(script=script, rule=rule, reply=make_reply(problems)) as server:
        registry = write_registry(bench_env / "registry.yaml", server.base_url, ["fake-a", "fake-b"],
                                  [p.template_id for p in problems], missing=["fake-nokey"])
        result = CliRunner().invoke(app, _args(registry, run_dir, "fake-a,fake-b,fake-nokey", "--timeout", "10",
                                               "--retry-attempts", "1", "--max-connections", "3"))
    assert result.exit_code == 1, result.output  # one sample failed for good
    assert "fake-nokey" in result.output and UNSET_ENV in result.output
    summary = json.loads((run_dir / SUMMARY).read_text())
    assert sorted(r["model"] for r in summary["results"]) == ["fake-a", "fake-b"]
    for r in summary["results"]:
        n = len(problems)  # the test task set grows with the domains
        assert (r["requested"], r["completed"], r["failed"], r["missing"], r["duplicated"]) == (n, n - 1, 1, [], [])
        (failure,) = r["failures"]
        assert failure["id"] == bad.id and "400" in failure["reason"]
    ids = {p.id for p in problems}
    assert {sid for _, sid in _final_scores(run_dir)} == ids
    ok = Counter((r.body["model"], question_of(r.body)) for r in server.requests if r.fault is None)
    for model in ("fake-a", "fake-b"):
        for p in problems:
            assert ok[(model, p.question)] == (0 if p is bad else 1), (model, p.id)
    assert {r.fault.kind for r in server.requests if r.fault} == {"status", "delay", "malformed"}
    assert not any(r.body["model"] == "fake-nokey" for r in server.requests)
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)  # the key was used...
    assert files_containing(run_dir, KEY) == []  # ...and written nowhere
    assert files_containing(bench_env / "xdg", KEY) == []
    # OpenAI-compatible models with a base URL go by the openai client; the run says so per model
    paths = json.loads((run_dir / MANIFEST).read_text())["sessions"][-1]["request_paths"]
    assert {name: p["path"] for name, p in paths.items()} == {"fake-a": "openai", "fake-b": "openai"}


def _cache_rows(path: Path) -> list[str]:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return [question_of(json.loads(r[0])) for r in db.execute("SELECT request FROM responses")]
    except sqlite3.Error:
        return []


def test_a_killed_bench_resumes_to_the_uninterrupted_result_without_resending_cached_answers(bench_env):
    problems = plan_problems()
    templates = [p.template_id for p in problems]
    with FakeOpenAI(reply=make_reply(problems)) as server:
        registry = write_registry(bench_env / "ref.yaml", server.base_url, ["fake-a"], templates)
        reference = CliRunner().invoke(app, _args(registry, bench_env / "ref", "fake-a"))
    assert reference.exit_code == 0, reference.output
    expected = _final_scores(bench_env / "ref")

    run_dir = bench_env / "run"
    # Deterministic kill point: the server answers three requests, then holds every later one until the
    # test lets go; the run is killed while it waits, so exactly three answers are in the cache.
    holding = threading.Event()
    holding.set()
    answered = []

    def hold_after_three(body):
        if holding.is_set():
            answered.append(question_of(body))
            return delay(600) if len(answered) > 3 else None
        return None

    with FakeOpenAI(reply=make_reply(problems), rule=hold_after_three) as server:
        registry = write_registry(bench_env / "registry.yaml", server.base_url, ["fake-a"], templates)
        args = _args(registry, run_dir, "fake-a", "--max-connections", "1")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-c", CLI, *args], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 300
        while len(answered) < 4 or len(_cache_rows(run_dir / CACHE)) < 3:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the run never reached its fourth request"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        holding.clear()
        cached = _cache_rows(run_dir / CACHE)
        assert sorted(cached) == sorted(answered[:3])  # killed mid-way, with exactly the answered three
        resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 0, resumed.output
    assert _final_scores(run_dir) == expected
    sent = Counter(question_of(r.body) for r in server.requests)
    assert all(sent[q] == 1 for q in cached), "a cached answer was requested again"
    assert set(sent) == {p.question for p in problems}
