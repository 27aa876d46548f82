"""What `finchain leaderboard build/publish -o DIR` may touch (issue 33, items 3 and 8): a non-empty folder the
project did not write is refused and left as it was; a rebuild removes only the stale sample chunks its own
marker lists, never a file it did not write; a board name cannot lead a release outside ``--to``; a board
file's YAML alias bomb is one line, not a MemoryError; every page carries a Content-Security-Policy."""

import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.board import BoardError, load_board
from finchain_tasks.leaderboard.site import CSP, MARKER, PAGES
from tests.leaderboard.handmade import board_file, finchain_sample, write_lm_eval


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    root = tmp_path_factory.mktemp("folder-src")
    return write_lm_eval(root / "out", "some-model", "finchain_all", [finchain_sample(k, k / 6) for k in range(6)])


def _build(board, source, out, *extra):
    return CliRunner().invoke(app, ["leaderboard", "build", str(board), "-s", str(source), "-o", str(out), *extra])


def test_a_folder_it_did_not_write_is_refused_and_left_as_it_was(source, tmp_path):
    board = board_file(tmp_path / "b", "mine")
    out = tmp_path / "theirs"
    (out / "samples").mkdir(parents=True)
    (out / "samples" / "0000.js").write_text("their chunk", encoding="utf-8")
    (out / "samples.js").write_text("their file", encoding="utf-8")
    result = _build(board, source, out)
    assert result.exit_code == 2 and "not empty and was not written by `finchain leaderboard`" in result.output
    assert len(result.output.strip().splitlines()) <= 3  # one line (wrapped by the terminal width at most)
    assert sorted(p.name for p in out.rglob("*")) == ["0000.js", "samples", "samples.js"]
    assert (out / "samples" / "0000.js").read_text("utf-8") == "their chunk"
    publish = CliRunner().invoke(app, ["leaderboard", "publish", str(board), "-s", str(source), "--to", str(out)])
    assert publish.exit_code == 2 and not (out / "data").exists()
    # asked for: written into, and still nothing of theirs removed (their chunk's name is ours: replaced)
    assert _build(board, source, out, "--allow-nonempty").exit_code == 0
    assert (out / "samples.js").read_text("utf-8") == "their file" and (out / "index.html").is_file()


def test_a_rebuild_removes_only_its_own_stale_chunks(source, tmp_path):
    board = board_file(tmp_path / "b", "mine")
    out = tmp_path / "site"
    assert _build(board, source, out).exit_code == 0
    written = set(json.loads((out / MARKER).read_text("utf-8"))["files"])
    assert {"index.html", "data.js", "samples/index.js", "assets/app.js"} <= written
    (out / "samples" / "notes.txt").write_text("mine, not the build's", encoding="utf-8")
    (out / "samples" / "9999.js").write_text("a chunk the build never wrote", encoding="utf-8")
    stale = out / "samples" / "0001.js"
    assert stale.is_file()
    fewer = write_lm_eval(tmp_path / "fewer", "some-model", "finchain_all", [finchain_sample(0, 0.5)])
    assert _build(board, fewer, out).exit_code == 0  # an empty folder, then our own: both accepted
    assert not stale.exists()  # a chunk of an earlier build, listed in the marker
    assert (out / "samples" / "notes.txt").is_file() and (out / "samples" / "9999.js").is_file()
    assert "samples/0001.js" not in json.loads((out / MARKER).read_text("utf-8"))["files"]


@pytest.mark.parametrize("name", ["../../escaped", "a/b", "..", ".hidden"])
def test_a_board_name_never_leads_outside_the_folder(source, tmp_path, name):
    board = board_file(tmp_path / "b", name)
    to = tmp_path / "deep" / "er" / "pub"
    result = CliRunner().invoke(app, ["leaderboard", "publish", str(board), "-s", str(source), "--to", str(to)])
    assert result.exit_code == 2 and "cannot name a release folder" in result.output
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == ["b/board.yaml"]


def test_a_yaml_alias_bomb_in_a_board_is_one_line(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]" for k in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join([*lines, "name: *a8", ""]), encoding="utf-8")  # 9**9 strings once expanded
    with pytest.raises(BoardError, match=r"line 2: YAML aliases \(\*name\) are not allowed in a board"):
        load_board(str(path))
    result = CliRunner().invoke(app, ["leaderboard", "build", str(path), "-o", str(tmp_path / "s")])
    assert result.exit_code == 2 and "aliases" in result.output and not (tmp_path / "s").exists()


def test_every_page_allows_only_its_own_files(source, tmp_path):
    out = tmp_path / "site"
    assert _build(board_file(tmp_path / "b", "mine"), source, out).exit_code == 0
    for page in PAGES:
        text = (out / page).read_text("utf-8")
        assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in text
        assert "<script>" not in text and " on" not in text.split("<body", 1)[1].split(">", 1)[0]
    assert "default-src 'none'" in CSP and "script-src 'self'" in CSP and "unsafe" not in CSP
