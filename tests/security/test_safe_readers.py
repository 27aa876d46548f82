"""Readers of files from elsewhere are safe on any file (issue 40.3): a FIFO, a device or a link to one is
refused at once instead of blocking; a walk never follows a link out of its folder (a source folder holding a
link to ``/`` is skipped and listed, and the build goes on); bad JSON, wrong-typed fields and deep nesting are
one line naming the file. Every blocking case runs under an alarm, so a regression fails instead of hanging."""

from __future__ import annotations

import contextlib
import json
import os
import signal

import pytest

from finchain_tasks.plumbing.safe_files import UnreadableFile, expect, load_json, open_regular, read_text, walk

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


@contextlib.contextmanager
def deadline(seconds: int = 10):
    """Fail (instead of hanging the suite) when the body blocks: SIGALRM interrupts a blocking open or read."""
    def expired(*_):
        raise TimeoutError(f"blocked for {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def hostile(tmp_path):
    """A FIFO and links to devices, each under a name a reader would pick up."""
    os.mkfifo(tmp_path / "answers.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    (tmp_path / "run.json").symlink_to("/dev/zero")
    (tmp_path / "registry.yaml").symlink_to("/dev/null")
    os.mkfifo(tmp_path / "board.yaml")
    return tmp_path


@pytest.mark.parametrize("name", ["answers.jsonl", "zero.jsonl", "run.json", "registry.yaml", "board.yaml"])
@pytest.mark.parametrize("reader", ["open_regular", "read_text", "load_json", "read_jsonl"])
def test_rule_only_regular_files_are_read_and_nothing_blocks(hostile, name, reader):
    from finchain_tasks.plumbing.jsonl import read_jsonl

    read = {"open_regular": lambda p: open_regular(p).close(), "read_text": read_text, "load_json": load_json,
            "read_jsonl": read_jsonl}[reader]
    with deadline(), pytest.raises(ValueError) as err:
        read(hostile / name)
    message = str(err.value)
    assert name in message and "not a regular file" in message and "\n" not in message


def test_the_run_manifest_and_a_registry_refuse_a_device_without_blocking(hostile):
    from finchain_tasks.models.registry import RegistryError, _read_yaml
    from finchain_tasks.runs.engine import read_manifest

    with deadline(), pytest.raises(ValueError, match=r"run.json: a character device, not a regular file"):
        read_manifest(hostile)
    with deadline(), pytest.raises(RegistryError, match=r"board.yaml: a FIFO, not a regular file"):
        _read_yaml(hostile / "board.yaml", str(hostile / "board.yaml"))


@pytest.mark.parametrize(("text", "reason"), [
    ("{oops", "not JSON (Expecting property name"), ("[]", "expected a JSON object, found list"),
    ("[" * 200_000 + "]" * 200_000, "nested too deeply"), ('"\\ud800 a string"', "expected a JSON object"),
])
def test_rule_a_damaged_run_json_names_the_file_and_the_way_back_and_is_left_as_it_was(tmp_path, text, reason):
    from finchain_tasks.runs.engine import prepare

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        prepare(run_dir, [], [], ["finchain", "bench"])
    message = str(err.value)
    assert message.startswith(f"{run_dir / 'run.json'}: {reason}") and "\n" not in message
    assert "move it aside" in message and "kept and reused" in message
    assert (run_dir / "run.json").read_text(encoding="utf-8") == text  # nothing lost
    assert sorted(p.name for p in run_dir.iterdir()) == ["run.json"]


def test_rule_a_walk_never_leaves_its_folder_and_lists_what_it_skipped(tmp_path):
    root = tmp_path / "src"
    (root / "run" / "lm_eval").mkdir(parents=True)
    (root / "run" / "lm_eval" / "results_a.json").write_text("{}", encoding="utf-8")
    (root / "run" / "lm_eval" / "results_inside.json").symlink_to(root / "run" / "lm_eval" / "results_a.json")
    (root / "run" / "lm_eval" / "results_out.json").symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text("{}", encoding="utf-8")
    (root / "run" / "lm_eval" / "results_zero.json").symlink_to("/dev/zero")
    os.mkfifo(root / "run" / "lm_eval" / "results_fifo.json")
    (root / "root").symlink_to("/")
    (root / "proc").symlink_to("/proc")
    with deadline():
        found = walk(root, ("results_*.json",))
    assert [p.name for p in found.files] == ["results_a.json", "results_inside.json"]
    skipped = {p.name: why for p, why in found.skipped}
    assert skipped["root"].startswith("a link to a folder") and skipped["proc"].startswith("a link to a folder")
    assert skipped["results_out.json"].startswith("a link out of the folder")
    assert skipped["results_zero.json"].startswith("a link out of the folder")
    assert skipped["results_fifo.json"] == "a FIFO"


def test_a_board_source_holding_a_link_to_root_is_skipped_and_listed_and_the_build_goes_on(tmp_path):
    from finchain_tasks.leaderboard.ingest import Skipped, ingest
    from tests.leaderboard.handmade import finchain_sample, write_lm_eval

    runs = tmp_path / "runs"
    write_lm_eval(runs / "good", "good-model", "finchain_all", [finchain_sample(k, 0.5) for k in range(2)])
    (runs / "escape").symlink_to("/")
    lm = runs / "good"
    (lm / "results_2099-01-01T00-00-00.000000.json").symlink_to("/dev/zero")
    os.mkfifo(lm / "samples_finchain_all_2099-01-01T00-00-00.000000.jsonl")
    problems: list[Skipped] = []
    with deadline(60):
        frame = ingest([runs], None, problems, realign=False)
    reasons = {p.path: p.reason for p in problems}
    assert reasons["runs/escape"].startswith("a link") and "not followed" in reasons["runs/escape"]
    assert reasons["runs/good/results_2099-01-01T00-00-00.000000.json"] == "a link out of the folder"
    assert set(frame["model"]) == {"good-model"} and len(frame) == 2
    assert not any(str(tmp_path) in p.path or str(tmp_path) in p.reason for p in problems)  # no local path


@pytest.mark.parametrize(("value", "types", "message"), [
    ("x", (int, float), "created: expected a whole number or a number, got a string"),
    ([1], dict, "created: expected a mapping, got a list"),
    (True, int, "created: expected a whole number, got true or false"),
    ("0.5", float, "created: expected a number, got a string"),
])
def test_rule_a_wrong_typed_field_is_one_line_naming_file_and_field(value, types, message):
    with pytest.raises(UnreadableFile) as err:
        expect(value, types, "run/journal.json", "created")
    assert str(err.value) == f"run/journal.json: {message}"


def test_a_regular_file_and_a_link_inside_are_read_as_before(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"x": [1, 2]}), encoding="utf-8")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    assert load_json(tmp_path / "b.json") == {"x": [1, 2]}
    with open_regular(tmp_path / "a.json", "rb") as fh:
        assert fh.read(1) == b"{"


@pytest.mark.parametrize(("row", "message"), [
    ('{"id": 1, "seed": 0, "recall": "0.5", "precision": 0.5}', "row 1: recall: expected a number, got str"),
    ('{"id": 1, "seed": 0, "recall": 0.5, "precision": [1]}', "row 1: precision: expected a number, got list"),
    ('[1, 2]', "row 1: expected a JSON object, found list"),
    ('"a row"', "row 1: expected a JSON object, found str"),
    ("[" * 100_000 + "]" * 100_000, "1: nested too deeply to be read"),
])
def test_rule_the_authors_files_with_wrong_types_are_one_line_naming_file_and_row(tmp_path, row, message):
    from finchain_tasks.reproduce.authors import AuthorsDataError, their_scores

    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "m.jsonl").write_text(row + "\n", encoding="utf-8")
    with pytest.raises(AuthorsDataError) as err:
        their_scores(tmp_path, "m")
    assert str(err.value) == f"{tmp_path / 'evals' / 'm.jsonl'}:{message}".replace(".jsonl:row", ".jsonl: row")


def test_a_cflue_file_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    from finchain_tasks.cflue.loader import CflueDataError, read_rows

    os.mkfifo(tmp_path / "cflue.json")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    for name, kind in (("cflue.json", "a FIFO"), ("zero.jsonl", "a character device")):
        with deadline(), pytest.raises(CflueDataError, match=f"{name}: cannot read CFLUE file \\({kind}, not a"):
            read_rows(tmp_path / name)
