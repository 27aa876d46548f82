"""``-o PATH`` writes atomically only to a regular file and through to anything else (issue 33.2): a FIFO
or device stays what it is and gets every byte, a link stays a link and its regular target gets the rows.
``finchain score`` and ``finchain generate`` share the one writer (:mod:`finchain_tasks.plumbing.output`)."""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.engine import all_templates
from finchain_tasks.plumbing.output import output_file
from tests.support.timeouts import limit

TEMPLATE = next(iter(all_templates().values()))


def _command(kind, tmp_path):
    if kind == "generate":
        return ["generate", "--template", TEMPLATE.id, "-n", "2"], 2
    pred = tmp_path / "pred.jsonl"
    problem = TEMPLATE.generate(0)
    pred.write_text(json.dumps({**problem.to_dict(), "output": problem.solution}) + "\n", encoding="utf-8")
    return ["score", str(pred)], 1


def _read_fifo(path, into):
    with open(path, encoding="utf-8") as fh:
        into.append(fh.read())


@pytest.mark.parametrize("kind", ["score", "generate"])
def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path, kind):
    args, rows = _command(kind, tmp_path)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=_read_fifo, args=(fifo, got), daemon=True)
    reader.start()
    result = CliRunner().invoke(app, [*args, "-o", str(fifo)])
    reader.join(timeout=limit(30))
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # not replaced by a regular file
    assert len([json.loads(line) for line in got[0].splitlines()]) == rows
    assert not (tmp_path / "out.fifo.partial").exists()


@pytest.mark.parametrize("kind", ["score", "generate"])
def test_a_link_stays_a_link_and_its_file_gets_the_rows(tmp_path, kind):
    args, rows = _command(kind, tmp_path)
    target = tmp_path / "data" / "real.jsonl"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "out.jsonl"
    link.symlink_to(target)
    result = CliRunner().invoke(app, [*args, "-o", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len([json.loads(line) for line in target.read_text().splitlines()]) == rows
    assert sorted(p.name for p in target.parent.iterdir()) == ["real.jsonl"]


def test_dev_null_is_written_through(tmp_path):
    """/dev/null itself: written through, still a character device (before the fix, as root, replaced)."""
    before = os.stat("/dev/null")
    with output_file("/dev/null") as fh:
        fh.write("x\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_regular_file_is_still_replaced_atomically_and_a_failure_keeps_it(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("previous\n")
    with pytest.raises(RuntimeError):
        with output_file(path) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert path.read_text() == "previous\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]
    with output_file(path) as fh:
        fh.write("new\n")
    assert path.read_text() == "new\n"
