"""``finchain eval`` with no model: the real local model (llama.cpp serving Gemma 3 270M) end to end."""

import html
import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.runs import MANIFEST, REPORT_HTML, REPORT_MD, SUMMARY

pytestmark = pytest.mark.slow


def test_eval_without_arguments_runs_the_local_model_and_writes_the_run_dir(tmp_path, monkeypatch):
    from finchain_tasks.models.local import LOCAL_MODEL_NOTE

    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.delenv("FINCHAIN_LOCAL_API_BASE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "--limit", "1", "--run-dir", str(run_dir), "--display", "none"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads((run_dir / SUMMARY).read_text())["results"]
    assert (row["model"], row["category"], row["requested"], row["completed"]) == ("local-gemma3-270m", "local", 1, 1)
    assert row["output_tokens"] > 0 and row["cost_usd"] is None  # a local model has no price: unknown, not 0
    assert "not a meaningful baseline" in (run_dir / REPORT_MD).read_text()
    assert html.escape(LOCAL_MODEL_NOTE) in (run_dir / REPORT_HTML).read_text()
    manifest = json.loads((run_dir / MANIFEST).read_text())
    assert manifest["sessions"][-1]["ok"] is True and list((run_dir / "logs").glob("*.eval"))
