"""Session fixtures: one tiny real run per harness (see ``runs.py``), the paper26 site built from it."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def lb_runs(tmp_path_factory):
    """Inspect (fake-a, fake-b) and lm-eval (fake-a) run directories on the same four problems."""
    from tests.leaderboard.runs import make_runs

    return make_runs(tmp_path_factory.mktemp("lb-runs"))


@pytest.fixture(scope="session")
def lb_site(lb_runs, tmp_path_factory):
    """``finchain leaderboard build paper26`` over both runs (every model: the fakes are not paper models)."""
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    out = tmp_path_factory.mktemp("lb-site") / "site"
    registry = lb_runs["inspect"].parent / "registry.yaml"
    result = CliRunner().invoke(app, ["leaderboard", "build", "paper26", "-s", str(lb_runs["inspect"]),
                                      "-s", str(lb_runs["lm-eval"]), "--registry", str(registry),
                                      "--models", "all", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out
