"""A key that reached a log (a provider echoing it in an error or an answer, a log from an older version) never
reaches the board: not its pages, its data, its sample chunks or its data release."""

from __future__ import annotations

from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from tests.leaderboard.handmade import board_file, finchain_sample, write_lm_eval

SECRET = "sk-board-echo-0123456789abcdefghij"


def test_an_echoed_key_in_a_log_is_redacted_from_the_site_and_the_release(tmp_path, monkeypatch):
    monkeypatch.setenv("FINCHAIN_BOARD_TEST_API_KEY", SECRET)
    echoed = f"Step 1: 1 + 1 = 2\nerror body: invalid key {SECRET} (…{SECRET[-12:]})\nFinal answer: 2"
    write_lm_eval(tmp_path / "runs" / "m", "echo-model", "finchain_all",
                  [finchain_sample(0, 0.5, output=echoed), finchain_sample(1, 0.5)])
    board = board_file(tmp_path, "echo")
    built = CliRunner().invoke(app, ["leaderboard", "publish", str(board), "-s", str(tmp_path / "runs"),
                                     "--to", str(tmp_path / "out")])
    assert built.exit_code == 0, built.output
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    texts = {p: p.read_bytes().decode("utf-8", "replace") for p in files}
    assert any("<redacted>" in t or "\\u003credacted\\u003e" in t or "&lt;redacted&gt;" in t for t in texts.values())
    leaked = [p.name for p, t in texts.items() if SECRET in t or SECRET[-12:] in t]
    assert not leaked, leaked
