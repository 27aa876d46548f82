"""Where a board's relative ``sources`` are read (issue 45, item 1): a shipped board from the working directory
(as if it sat in ``./leaderboards``, which need not exist), a board the user wrote from its own folder; a build
that finds nothing says where it looked and why."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.board import PACKAGE_BOARDS, REPO_BOARDS, load_board


@pytest.mark.parametrize("where", ["package", "checkout-link", "user-board"])
def test_rule_relative_sources_of_a_shipped_board_resolve_in_the_working_directory(where, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # no ./leaderboards here: the path must not be walked through it
    if where == "user-board":
        own = tmp_path / "mine"
        own.mkdir()
        (own / "b.yaml").write_text("name: b\nsources: [../finchain-runs]\n", encoding="utf-8")
        board, expected = load_board(str(own / "b.yaml")), own / ".." / "finchain-runs"
    else:
        folder = PACKAGE_BOARDS if where == "package" else REPO_BOARDS
        if not (folder / "local.yaml").is_file():
            pytest.skip("no checkout here")
        board, expected = load_board(str(folder / "local.yaml")), work / "finchain-runs"
    assert board.shipped is (where != "user-board")
    assert board.source_paths() == [expected]


def test_a_shipped_board_that_finds_no_runs_says_where_it_looked_and_why(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["leaderboard", "build", "local", "-o", "site"])
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "finchain-runs: does not exist" in text, text
    assert f"looked in {Path(tmp_path) / 'finchain-runs'}" in text
    assert "a shipped board reads its relative sources from the working directory" in text
