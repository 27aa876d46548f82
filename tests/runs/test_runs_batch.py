"""``finchain bench --batch`` against the fake OpenAI Files and Batches API on 127.0.0.1.

A batched model (``openai/fake-batch``, no ``api_base``: the provider's own endpoint, which ``OPENAI_BASE_URL``
points at the fake) runs through Inspect's batch mode: the run completes and scores, is priced at the batch
price, a 5xx item is retried in a new batch and a 4xx item is reported as its sample's error; a run killed while
its batch is in progress is restarted and collects that batch by id: no batch is created twice, every sample is
scored exactly once.
The run directory's journal and logging are unit-tested in test_batch_mode.py.
"""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.runs import MANIFEST, SUMMARY
from finchain_tasks.runs.batch_mode import BATCH_LOG, JOURNAL
from tests.support.bench_helpers import KEY, KEY_ENV, TASK_SET, files_containing, make_reply, plan_problems, question_of
from tests.support.fake_openai import FakeOpenAI, status

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CLI = "from finchain_tasks.cli.main import app; app(prog_name='finchain')"
N = 4  # problems: small, one batch


@pytest.fixture(scope="module")
def problems():
    return plan_problems(N)


@pytest.fixture
def batch_env(monkeypatch, tmp_path):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


def _registry(path: Path, problems) -> Path:
    templates = ", ".join(p.template_id for p in problems)
    path.write_text(
        "version: 1\nmodels:\n"
        f"  - {{name: fake-batch, display_name: Fake batch, litellm_model: openai/fake-batch, category: general, "
        f"open_weights: false, api_key_env: {KEY_ENV}, price: {{input: 2.0, output: 8.0}}}}\n"
        f"task_sets:\n  {TASK_SET}:\n    task: finchain\n    args: {{seeds: [0], template: [{templates}]}}\n",
        encoding="utf-8")
    return path


def _args(registry: Path, run_dir: Path) -> list[str]:
    return ["bench", "--registry", str(registry), "--models", "fake-batch", "--tasks", TASK_SET, "--run-dir",
            str(run_dir), "--batch", "--batch-tick", "0.1", "--retry-wait", "0.05", "--display", "none"]


def _result(run_dir: Path) -> dict:
    (result,) = json.loads((run_dir / SUMMARY).read_text())["results"]
    return result


def test_a_bench_killed_mid_batch_collects_it_on_restart_retries_a_5xx_item_reports_a_4xx_one_at_batch_price(
        batch_env, problems, monkeypatch):
    """One bench run (killed while its batch is in progress) and its restart: the batch is collected by id, never
    created twice; of its items, one fails once with a 500 (retried, alone, in a new batch) and one always with
    a 400 (reported with the provider's words); every sample is scored or failed exactly once, at the batch price.
    (One test, not three: each bench run costs seconds of CPU.)"""
    flaky, bad = problems[1].question, problems[2].question
    asked: Counter = Counter()

    def rule(body):
        q = question_of(body)
        asked[q] += 1
        return status(500) if q == flaky and asked[q] == 1 else status(400) if q == bad else None

    run_dir = batch_env / "run"
    with FakeOpenAI(reply=make_reply(problems), rule=rule) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        args = [*_args(_registry(batch_env / "r.yaml", problems), run_dir), "--retry-attempts", "0"]
        server.batches.hold.set()  # batches stay in_progress until the test lets go
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-c", CLI, *args], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 300
        while not (server.batches.created and list((run_dir / JOURNAL).glob("*.json")) and server.batches.polls >= 2):
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the run never created its batch"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        (first,) = server.batches.created
        assert len(first.lines) == N
        (record,) = (json.loads(f.read_text()) for f in (run_dir / JOURNAL).glob("*.json"))
        assert record["id"] == first.id and len(record["requests"]) == N
        server.batches.hold.clear()
        resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 1, resumed.output  # the 400 item failed for good
    created = server.batches.created
    assert [b.id for b in created].count(first.id) == 1 and len(created) == 2, "a batch was created twice"
    assert [question_of(line["body"]) for line in created[1].lines] == [flaky], "the 5xx item alone, once"
    assert not [r for r in server.requests if r.path.endswith("/chat/completions")], "nothing sent outside batches"
    r = _result(run_dir)
    assert (r["requested"], r["completed"], r["failed"], r["missing"], r["duplicated"]) == (N, N - 1, 1, [], [])
    (failure,) = r["failures"]
    assert failure["id"] == problems[2].id and "batch item failed: Error code: 400" in failure["reason"]
    assert r["inspect_model"] == "openai/fake-batch" and r["batch"] is True
    tokens = r["input_tokens"] * 1.0 + r["output_tokens"] * 4.0  # the registry price halved: 1 and 4 $/1M
    assert r["cost_usd"] == pytest.approx(tokens / 1e6) and r["cost_source"].startswith("batch price")
    assert "(batch)" in resumed.output
    session = json.loads((run_dir / MANIFEST).read_text())["sessions"][-1]
    assert session["batch"]["fake-batch"]["inspect_model"] == "openai/fake-batch"
    assert session["batch_journal"] == {"batches": 2, "sent": 0, "answered": N - 1, "failed": 2}
    assert "Resumed batch" in (run_dir / BATCH_LOG).read_text()
    assert files_containing(run_dir, KEY) == []
