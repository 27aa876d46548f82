"""Ingest's rules for sources, run directories and the frame (issue 39), one table-driven test per rule: which
Inspect log of a task is read and in what order, what a build lists when a file cannot be read (the path
relative to the source's folder, a one-line reason) and what it raises without a list, which sources are
what, the run's and the registry's facts filling rows, the realignment flag reaching every lm-eval reader,
and the frame's columns and types. Everything is written by the test in milliseconds: Inspect logs through
inspect_ai's own log API (tests/support/inspect_logs.py), lm-eval folders in the shape ``--log_samples``
writes (tests/leaderboard/handmade.py). No model, no server, no subprocess; the realignment itself (a
scoring call) is replaced by a stand-in that marks the rows it was given."""

from __future__ import annotations

import json
import math
import os
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from finchain_tasks.leaderboard import ingest
from tests.leaderboard.handmade import STAMP, finchain_sample, write_lm_eval

pytest.importorskip("inspect_ai")

from tests.support.inspect_logs import Log, Sample, _eval_log  # noqa: E402

C = "2026-12-01T10:00:00+00:00"
LOG = Log(file="x.eval", task="finchain_tasks/finchain", task_id="t", model="litellm/openai/served", created=C,
          mtime=0.0, metadata={"finchain_model": "reg-m", "finchain_task_set": "fin-set"}, sample_ids=["s1"],
          samples=(Sample("s1", scores={"chaineval": {"chaineval": 0.5}}, usage=((100, 20, None, None),)),))
SAMPLES = f"samples_finchain_x_{STAMP}.jsonl"
RESULTS = f"results_{STAMP}.json"
NOT_ZIP = "not a readable Inspect log (unexpected content (ValueError: EOCD not found))"
BAD_LINE = "not JSON (Expecting property name enclosed in double quotes at line 1, column 2)"
LINK_OUT = "a link out of the folder"


def _log(folder: Path, name: str, task_id: str = "t", created: str = C, mtime: float = 100.0,
         model: str = "reg-m") -> Path:
    """One Inspect log of one sample, written at ``mtime``."""
    from inspect_ai.log import write_eval_log

    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(_eval_log(replace(LOG, task_id=task_id, created=created,
                                     metadata={**LOG.metadata, "finchain_model": model})), str(path))
    os.utime(path, (mtime, mtime))
    return path


def _damaged_samples(folder: Path, name: str, task_id: str = "t", mtime: float = 100.0) -> Path:
    """A log whose header reads but whose sample entry is not JSON (a copy cut short inside a sample)."""
    path = _log(folder, name, task_id, mtime=mtime)
    with zipfile.ZipFile(path) as src:
        items = {n: src.read(n) for n in src.namelist()}
    with zipfile.ZipFile(path, "w") as out:
        for entry, data in items.items():
            out.writestr(entry, b"{not json" if entry.startswith("samples/") else data)
    os.utime(path, (mtime, mtime))
    return path


def _not_zip(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PK\x03\x04 not a zip")
    return path


def _link(path: Path, target: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


# -- which log of a task is read, in which order ---------------------------------------------------------

@pytest.mark.parametrize("logs, picked", [
    # (file, task, created, mtime)
    ([("a.eval", "t", "2026-12-01T10:00", 100), ("b.eval", "t", "2026-12-01T09:00", 200)], ["b.eval"]),  # last write
    ([("a.eval", "t", C, 100), ("b.eval", "t", C, 100)], ["b.eval"]),                  # a tie: the later listed
    ([("a.eval", "u", "2026-12-01T10:00", 100), ("b.eval", "v", "2026-12-01T09:00", 100)], ["b.eval", "a.eval"]),
    # the same moment of creation: by path, wherever the walk met them or a newer log replaced an older one
    ([("a.eval", "t", C, 100), ("b.eval", "u", C, 100), ("c.eval", "t", C, 200)], ["b.eval", "c.eval"]),
    ([("b.eval", "u", C, 100), ("a/x.eval", "t", C, 100)], ["x.eval", "b.eval"]),
])
def test_rule_the_newest_log_of_each_task_is_read_ordered_by_creation_then_path(tmp_path, logs, picked):
    for name, task, created, mtime in logs:
        _log(tmp_path, name, task, created, mtime)
    assert [p.name for p in ingest.newest_inspect_logs(tmp_path)] == picked


def test_rule_a_log_whose_header_reads_is_the_newest_even_if_a_sample_is_damaged(tmp_path):
    _log(tmp_path, "old.eval", mtime=100)
    _damaged_samples(tmp_path, "new.eval", mtime=200)
    problems: list = []
    assert [p.name for p in ingest.newest_inspect_logs(tmp_path, problems)] == ["new.eval"]
    assert problems == []  # its samples are the row reader's to list


# -- what a build lists, and raises without a list -----------------------------------------------------

@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """One source of each kind, each with the files a build cannot read beside good ones."""
    root = tmp_path_factory.mktemp("tree")
    out = root / "outside"
    out.mkdir()
    for name in ("x.eval", "notes.txt", "results_y.json"):
        (out / name).write_text("{}", encoding="utf-8")
    # a run directory's Inspect logs: a good one, a damaged header, damaged samples, links out of the folder
    logs = root / "run-logs" / "logs"
    _log(logs, "a-good.eval", "a")
    _not_zip(logs / "b-header.eval")
    _damaged_samples(logs, "c-samples.eval", "c")
    _link(logs / "sub" / "link.eval", out / "x.eval")
    _link(logs / "notes.txt", out / "notes.txt")           # not a log's name: not a log, not listed
    # a run directory's lm-eval outputs: the run records the model; a bad line; a results file that is no object
    lm = root / "run-lm"
    lm.mkdir()
    (lm / "run.json").write_text(json.dumps({"models": [{"name": "served", "display_name": "Served Model",
                                                         "category": "local", "params_b": 0.5}]}), "utf-8")
    write_lm_eval(lm / "lm_eval" / "served" / "finchain", "other", "finchain_x",
                  [finchain_sample(1, 0.5), "{bad", finchain_sample(2, 0.5)])
    (lm / "lm_eval" / "served" / "cflue").mkdir(parents=True)
    (lm / "lm_eval" / "served" / "cflue" / "results_x.json").write_text("[]", encoding="utf-8")
    # a run directory with lm-eval outputs only, and one with only a bad manifest
    write_lm_eval(root / "lm-only" / "lm_eval" / "served", "other", "finchain_x", [finchain_sample(3, 0.5)])
    (root / "manifest-only").mkdir()
    (root / "manifest-only" / "run.json").write_text("[]", encoding="utf-8")
    # a folder of Inspect logs; an lm-eval output folder with a link out; a folder of runs with a link out first
    _log(root / "log-folder", "a-good.eval", "a")
    _damaged_samples(root / "log-folder", "c-samples.eval", "c")
    write_lm_eval(root / "lm-out" / "served", "served", "finchain_x", [finchain_sample(4, 0.5)])
    _link(root / "lm-out" / "served2" / "results_y.json", out / "results_y.json")
    _link(root / "runs" / "a-out", out)
    _log(root / "runs" / "b-run" / "logs", "a-good.eval", "a", model="in-runs")
    _not_zip(root / "runs" / "b-run" / "logs" / "b-header.eval")
    write_lm_eval(root / "lm-runs" / "r1" / "lm_eval" / "served", "other", "finchain_x", [finchain_sample(5, 0.5)])
    # ./finchain-runs as bench leaves it: one run with Inspect logs, one with lm-eval outputs and its manifest
    _log(root / "mixed-runs" / "r1" / "logs", "a-good.eval", "a")
    shutil.copytree(lm, root / "mixed-runs" / "r2")
    shutil.rmtree(root / "mixed-runs" / "r2" / "lm_eval" / "served" / "cflue")
    return root


FIN = "finchain_x"


def _log_skips(logs: str) -> list:
    """What the logs folder of the tree lists, under ``logs`` (its path from the source's folder)."""
    return [ingest.Skipped(f"{logs}sub/link.eval", LINK_OUT), ingest.Skipped(f"{logs}b-header.eval", NOT_ZIP),
            ingest.Skipped(f"{logs}c-samples.eval", BAD_LINE)]


@pytest.mark.parametrize("source, rows, skipped", [
    ("run-logs", [("reg-m", "run-logs/a-good.eval", "fin-set")], _log_skips("run-logs/logs/")),
    ("run-logs/logs", [("reg-m", "logs/a-good.eval", "fin-set")], _log_skips("logs/")),   # the logs folder itself
    ("run-logs/logs/c-samples.eval", [], [ingest.Skipped("logs/c-samples.eval", BAD_LINE)]),
    ("run-lm", [("served", f"run-lm/{SAMPLES}", "finchain")] * 2, [
        ingest.Skipped("run-lm/lm_eval/served/cflue/results_x.json",
                       "not a readable lm-eval results file (results: expected a JSON object, found list)"),
        ("run-lm/", f"{SAMPLES}:2", BAD_LINE)]),
    ("run-lm/lm_eval/served/finchain/" + RESULTS, [("other", f"finchain/{SAMPLES}", FIN)] * 2,
     [("finchain/", f"{SAMPLES}:2", BAD_LINE)]),
    ("run-lm/lm_eval/served/cflue/results_x.json", [], [ingest.Skipped(
        "cflue/results_x.json", "not a readable lm-eval results file (results: expected a JSON object, found list)")]),
    ("lm-only", [("served", f"lm-only/{SAMPLES}", FIN)], []),   # a run: its folders are no part of the task set
    ("manifest-only", [], [ingest.Skipped("manifest-only/run.json", "expected a JSON object, found list")]),
    ("log-folder", [("reg-m", "log-folder/a-good.eval", "fin-set")],
     [ingest.Skipped("log-folder/c-samples.eval", BAD_LINE)]),
    ("lm-out", [("served", f"lm-out/served/{SAMPLES}", FIN)], [ingest.Skipped("lm-out/served2/results_y.json",
                                                                              LINK_OUT)]),
    ("lm-runs", [("served", f"r1/{SAMPLES}", FIN)], []),   # a folder of runs, though it holds results files
    ("mixed-runs", [("reg-m", "r1/a-good.eval", "fin-set")] + [("served", f"r2/{SAMPLES}", "finchain")] * 2,
     [("r2/", f"{SAMPLES}:2", BAD_LINE)]),
    ("runs", [("in-runs", "b-run/a-good.eval", "fin-set")], [
        ingest.Skipped("runs/a-out", "a link out of the source folder (not followed)"),
        ingest.Skipped("b-run/logs/b-header.eval", NOT_ZIP)]),
])
def test_rule_with_a_list_each_unreadable_file_is_listed_relative_to_the_source_and_the_rest_is_read(
        tree, source, rows, skipped):
    problems: list = []
    got = list(ingest.source_rows(tree / source, problems, realign=False))
    assert [(r["model"], r["source"], r["task_set"]) for r in got] == rows
    assert len(problems) == len(skipped)
    for seen, want in zip(problems, skipped):
        if isinstance(want, tuple):  # a line of a samples file: under its run or folder, by its number
            start, end, reason = want
            assert seen.path.startswith(start) and seen.path.endswith(end) and seen.reason == reason, seen
        else:
            assert seen == want
    assert not any(str(tree) in s.path or str(tree) in s.reason for s in problems)  # no local path


def test_rule_the_runs_record_of_a_model_fills_its_lm_eval_rows(tree):
    rows = list(ingest.source_rows(tree / "run-lm", [], realign=False))
    assert {(r["display_name"], r["category"], r["params_b"]) for r in rows} == {("Served Model", "local", 0.5)}


@pytest.mark.parametrize("source, message", [
    ("run-logs", "b-header.eval: not a readable Inspect log (ValueError)"),
    ("run-logs/logs", "b-header.eval: not a readable Inspect log (ValueError)"),
    ("run-logs/logs/c-samples.eval", "logs/c-samples.eval: " + BAD_LINE),
    ("run-lm", "results_x.json: not a readable lm-eval results file (results: expected a JSON object, found list)"),
    ("manifest-only", "manifest-only/run.json: expected a JSON object, found list"),
    ("log-folder", "log-folder/c-samples.eval: " + BAD_LINE),
    ("runs", "runs/a-out: a link out of the source folder (not followed)"),
])
def test_rule_without_a_list_the_first_unreadable_file_raises_one_line_naming_it(tree, source, message):
    with pytest.raises(ingest.IngestError) as info:
        list(ingest.source_rows(tree / source, realign=False))
    assert str(info.value) == message


def test_rule_a_runs_link_out_is_skipped_and_the_runs_after_it_are_still_read(tree):
    problems: list = []
    assert [r["model"] for r in ingest.source_rows(tree / "runs", problems, realign=False)] == ["in-runs"]
    assert ingest._run_dirs(tree / "runs", []) == [tree / "runs" / "b-run"]


def test_rule_a_skipped_log_without_a_prefix_is_named_by_its_path_in_the_folder(tree):
    problems: list = []
    assert [p.name for p in ingest.newest_inspect_logs(tree / "run-logs" / "logs", problems)] == ["a-good.eval",
                                                                                                   "c-samples.eval"]
    assert problems == [ingest.Skipped("sub/link.eval", LINK_OUT), ingest.Skipped("b-header.eval", NOT_ZIP)]
    alone: list = []
    ingest.inspect_log_files(tree / "run-logs" / "logs", alone)
    assert alone == [ingest.Skipped("sub/link.eval", LINK_OUT)]


# -- what a source is --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, content, message", [
    ("summary.json", "{}", "source 'summary.json': not a run directory, Inspect log or lm-eval output"),
    ("results.txt", "{}", "source 'results.txt': not a run directory, Inspect log or lm-eval output"),
    ("missing", None, "source 'missing' does not exist ({where}): run `finchain bench` or pass --source"),
])
def test_rule_anything_but_a_log_a_results_file_or_a_folder_is_refused_in_one_line(tmp_path, name, content,
                                                                                    message):
    if content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(ingest.IngestError) as info:
        list(ingest.source_rows(tmp_path / name))
    assert str(info.value) == message.format(where=tmp_path / name)


@pytest.mark.parametrize("files", [
    ("readme.txt",),  # files, none of them a log or a results file
    ("summary.json", "sub/samples_finchain_2026.jsonl"),  # samples without their results file
    (),  # nothing at all
])
def test_rule_a_folder_without_a_log_a_results_file_or_a_run_is_refused_in_one_line(tmp_path, files):
    folder = tmp_path / "notes"
    folder.mkdir()
    for rel in files:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("{}", encoding="utf-8")
    with pytest.raises(ingest.IngestError) as info:
        list(ingest.source_rows(folder))
    assert str(info.value) == "source 'notes': holds no run directory, Inspect log or lm-eval output"


def test_rule_a_folder_of_log_folders_is_read_folder_by_folder_and_a_folder_of_nothing_in_it_is_passed_over(
        tmp_path):
    root = tmp_path / "experiments"
    _log(root / "first", "a.eval", model="m-one")
    _log(root / "second" / "deeper", "b.eval", model="m-two")  # read when its folder's turn comes
    (root / "empty").mkdir()
    (root / "notes").mkdir()
    (root / "notes" / "readme.txt").write_text("no logs here", encoding="utf-8")
    problems: list = []
    rows = list(ingest.source_rows(root, problems))
    assert sorted((r["model"], r["source"]) for r in rows) == [("m-one", "first/a.eval"), ("m-two", "deeper/b.eval")]
    assert problems == []


# -- the realignment flag reaches every reader of lm-eval samples -------------------------------------

@pytest.fixture()
def marked(monkeypatch):
    """add_alignment replaced: it marks every row it is given (the flag's routing is under test, not the
    scorer)."""
    def mark(rows, docs):
        for row in rows:
            row["alignment"] = "recomputed"
    monkeypatch.setattr(ingest, "add_alignment", mark)


CALLS = {
    "results file": lambda root, **kw: list(ingest.source_rows(root / "lm-out" / "served" / RESULTS, **kw)),
    "output folder": lambda root, **kw: list(ingest.source_rows(root / "lm-out", **kw)),
    "run": lambda root, **kw: list(ingest.source_rows(root / "lm-only", **kw)),
    "run listing": lambda root, **kw: list(ingest.source_rows(root / "lm-only", [], **kw)),
    "run_dir_rows": lambda root, **kw: list(ingest.run_dir_rows(root / "lm-only", **kw)),
    "folder of runs": lambda root, **kw: list(ingest.source_rows(root / "lm-runs", [], **kw)),
    "ingest": lambda root, **kw: ingest.ingest([root / "lm-only"], **kw).to_dict("records"),
    "ingest listing": lambda root, **kw: ingest.ingest([root / "lm-only"], problems=[], **kw).to_dict("records"),
}
MARK = {"ingest": '"recomputed"', "ingest listing": '"recomputed"'}  # the frame holds it as JSON text


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("realign", [None, True, False])
def test_rule_lm_eval_rows_are_realigned_unless_the_caller_says_not(tree, marked, call, realign):
    rows = CALLS[call](tree, **({} if realign is None else {"realign": realign}))
    assert rows and {r.get("alignment") for r in rows} == {
        MARK.get(call, "recomputed") if realign is not False else None}


# -- the run's price, the registry's facts -------------------------------------------------------------

def test_rule_a_recorded_price_is_per_million_tokens():
    (row,) = ingest._with_record([{"model": "m", "input_tokens": 1000, "output_tokens": 500, "cost": None}],
                                 {"m": {"price": {"input": 3.0, "output": 15.0}}})
    assert row["cost"] == pytest.approx((1000 * 3.0 + 500 * 15.0) / 1_000_000, rel=1e-12, abs=0)


SPEC = SimpleNamespace(display_name="Reg", category="reasoning", params_b=7.0, open_weights=True)


@pytest.mark.parametrize("row, registry, filled", [
    ({"model": "m"}, SimpleNamespace(models={"m": SPEC}),
     {"model": "m", "display_name": "Reg", "category": "reasoning", "params_b": 7.0, "open_weights": True}),
    ({"model": "m", "open_weights": None, "params_b": None}, SimpleNamespace(models={"m": SPEC}),   # None: unknown
     {"model": "m", "display_name": "Reg", "category": "reasoning", "params_b": 7.0, "open_weights": True}),
    ({"model": "m", "open_weights": False, "category": "log"}, SimpleNamespace(models={"m": SPEC}),  # kept
     {"model": "m", "display_name": "Reg", "category": "log", "params_b": 7.0, "open_weights": False}),
    ({"model": "x"}, SimpleNamespace(models={"m": SPEC}), {"model": "x", "display_name": "x"}),  # not registered
    ({"model": "m"}, object(), {"model": "m", "display_name": "m"}),  # a registry without models: nothing filled
    ({"model": "m"}, None, {"model": "m", "display_name": "m"}),
])
def test_rule_the_registry_fills_exactly_what_a_row_lacks(row, registry, filled):
    assert ingest.enrich([dict(row)], registry) == [filled]


def test_rule_ingest_fills_rows_from_the_registry_it_is_given(tree):
    registry = SimpleNamespace(models={"served": replace_spec(display_name="Served (registry)")})
    frame = ingest.ingest([tree / "lm-only"], registry, realign=False)
    assert frame[["display_name", "category", "open_weights"]].values.tolist() == [
        ["Served (registry)", "reasoning", True]]


def replace_spec(**kw):
    return SimpleNamespace(**{**vars(SPEC), **kw})


# -- the frame -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def frame():
    return ingest.to_frame([
        {"model": "m", "chaineval": 0.5, "open_weights": True, "fresh": False, "gold_steps": ["5 €"], "seed": 3},
        {"model": "n", "chaineval": "n/a", "cost": "free", "seed": "abc", "epoch": None},  # text: not a number
        # a hostile or broken log: counts that are no whole number are missing, and cost the board nothing
        {"model": "o", "chaineval": 0.25, "seed": 1.5, "epoch": float("inf"), "n_gold_steps": float("nan"),
         "n_pred_steps": 2.0, "input_tokens": -float("inf"), "output_tokens": 1e300},
        {"model": "p", "seed": -3, "epoch": 2 ** 53, "n_gold_steps": 2 ** 53 + 2},  # below 0; the largest; above
    ])


def test_rule_the_frame_has_every_column_in_order_and_no_other(frame):
    assert list(frame.columns) == list(ingest.COLUMNS)


@pytest.mark.parametrize("column, dtype, values", [
    ("open_weights", "boolean", [True, None, None, None]), ("fresh", "boolean", [False, None, None, None]),
    ("chaineval", "float64", [0.5, None, 0.25, None]), ("cost", "float64", [None, None, None, None]),
    ("fac", "float64", [None, None, None, None]),
    ("seed", "Int64", [3, None, None, None]), ("epoch", "Int64", [None, None, None, 2 ** 53]),
    ("n_gold_steps", "Int64", [None, None, None, None]), ("n_pred_steps", "Int64", [None, None, 2, None]),
    ("input_tokens", "Int64", [None, None, None, None]), ("output_tokens", "Int64", [None, None, None, None]),
    ("gold_steps", None, ['["5 €"]', None, None, None]),   # JSON text, not escaped to ASCII
])
def test_rule_each_column_has_its_type_and_what_is_missing_or_not_a_number_is_missing_never_0(frame, column,
                                                                                             dtype, values):
    import pandas as pd

    assert dtype is None or str(frame[column].dtype) == dtype
    got = [None if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA else v
           for v in frame[column].tolist()]
    assert got == values
