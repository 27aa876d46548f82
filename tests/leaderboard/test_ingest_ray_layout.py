"""The board reads a run's logs where `finchain bench --ray` writes them (one eval-set per model x task set, in a
sub-folder of the run's ``logs/``), by the same rule as the run's own summary: the newest log of each task."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from finchain_tasks.leaderboard.ingest import newest_inspect_logs  # noqa: E402
from finchain_tasks.runs.summary import latest_logs  # noqa: E402
from tests.support.inspect_logs import INSPECT_LOGS, build_run_dir  # noqa: E402


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return build_run_dir(tmp_path_factory.mktemp("run") / "run")


def test_the_board_reads_the_logs_the_summary_reads_sub_folders_included(run_dir):
    logs = run_dir / "logs"
    in_sub_folders = [spec.file for spec in INSPECT_LOGS if "/" in spec.file]
    assert in_sub_folders, "the fixture must hold a log in a sub-folder (the bench --ray layout)"
    problems: list = []
    board = {p.resolve() for p in newest_inspect_logs(logs, problems)}
    summary = {Path(str(h.location).removeprefix("file://")).resolve() for h in latest_logs(logs)}
    assert board == summary
    assert {(logs / f).resolve() for f in in_sub_folders} <= board
    assert len(problems) == 1 and "not a readable Inspect log" in problems[0].reason  # the damaged one, named
