"""``finchain bench --tasks cflue_application`` end to end (Inspect harness) against FakeOpenAI on 127.0.0.1:
a server that echoes each record's gold output completes every record and scores 1 on each per-record value."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cflue.application import load_application, reference_text
from finchain_tasks.cli.main import app
from finchain_tasks.runs import SUMMARY
from tests.support.bench_helpers import KEY, KEY_ENV
from tests.support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow
pytest.importorskip("jieba")

RECORDS_PATH = Path(__file__).parent / "fixtures" / "application_records.json"
GOLD = {r.prompt: reference_text(r.output) for r in load_application(RECORDS_PATH).records}


def _echo(body: dict) -> str:
    """The gold output of the record whose prompt is the last user message."""
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    return GOLD[text]


def test_bench_runs_the_cflue_application_task_set(monkeypatch, tmp_path):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CFLUE_APPLICATION_PATH", str(RECORDS_PATH))
    run_dir = tmp_path / "run"
    with FakeOpenAI(reply=_echo) as server:
        registry = tmp_path / "r.yaml"
        registry.write_text("\n".join([
            "version: 1", "models:",
            f"  - {{name: fake-a, display_name: Fake A, litellm_model: openai/fake-a, category: general, "
            f"open_weights: false, api_key_env: {KEY_ENV}, api_base: '{server.base_url}'}}",
            "task_sets:", "  cflue_application: {task: cflue_application, args: {task: [classification, extraction,"
            " generation]}}", ""]), encoding="utf-8")
        result = CliRunner().invoke(app, ["bench", "--registry", str(registry), "--models", "fake-a", "--tasks",
                                          "cflue_application", "--run-dir", str(run_dir), "--display", "none"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads((run_dir / SUMMARY).read_text())["results"]
    n = sum(1 for r in load_application(RECORDS_PATH).records
            if r.task_slug in ("classification", "extraction", "generation"))
    assert row["completed"] == n and row["failed"] == 0
    assert row["scores"]["accuracy"] == 1.0 and row["scores"]["f1"] == 1.0 and row["scores"]["rouge_l"] == 1.0
