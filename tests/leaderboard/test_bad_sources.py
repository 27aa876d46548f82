"""One bad source or log never stops a build (issue 33, item 5): each file that cannot be read is skipped and
listed with its path and a one-line reason, and the board is built from the rest. The shapes below each gave a
traceback or stopped the whole build before; a model answer holding U+2028 (a line separator inside a JSON
string) is no bad file at all and is read whole."""

import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.ingest import IngestError, Skipped, ingest
from tests.leaderboard.handmade import STAMP, board_file, finchain_sample, write_lm_eval

GOOD = [finchain_sample(k, 0.5) for k in range(4)]
BAD_SHAPES = {
    # name: (what to write, the reason expected)
    "results-list": ("results", "[1, 2]", "expected a JSON object, found list"),
    "results-not-json": ("results", "{not json", "not JSON"),
    "line-not-json": ("line", "{oops", "not JSON"),
    "line-a-list": ("line", "[1, 2, 3]", "expected a JSON object, found list"),
    "doc-a-string": ("line", json.dumps({"doc": "text", "resps": [["x"]]}), "expected a JSON object, found str"),
    "samples-not-utf8": ("bytes", b"\xff\xfe{}\n", "not UTF-8"),
}


def _bad_folder(root, name, kind, content):
    folder = write_lm_eval(root / name, "model-" + name, "finchain_all", GOOD[:2])
    if kind == "results":
        (folder / f"results_{STAMP}.json").write_text(content, encoding="utf-8")
    elif kind == "line":  # a bad line between two good ones: the good ones are kept
        samples = folder / f"samples_finchain_all_{STAMP}.jsonl"
        good = samples.read_text("utf-8").splitlines()
        samples.write_text("\n".join([good[0], content, good[1]]) + "\n", encoding="utf-8")
    else:
        (folder / f"samples_finchain_all_{STAMP}.jsonl").write_bytes(content)
    return folder


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad-sources")
    runs = root / "runs"
    write_lm_eval(runs / "good", "good-model", "finchain_all",
                  [*GOOD[:3], finchain_sample(3, 0.5, output="Step 1: 1 + 1 = 2\u2028still step 1\x0cFinal answer: 4")])
    for name, (kind, content, _) in BAD_SHAPES.items():
        _bad_folder(runs, name, kind, content)
    manifest = root / "run-list"  # a run directory whose run.json is a list: its logs still count
    write_lm_eval(manifest / "lm_eval" / "listed-model" / "lb", "x", "finchain_all", GOOD[:1])
    (manifest / "run.json").write_text("[]", encoding="utf-8")
    logs = root / "logs"
    logs.mkdir()
    (logs / "2026-01-01T00-00-00+00-00_finchain_x.eval").write_bytes(b"PK\x03\x04 truncated")
    return root


def test_every_bad_file_is_listed_with_its_reason_and_the_rest_is_read(sources):
    problems: list[Skipped] = []
    frame = ingest([sources / "runs", sources / "run-list", sources / "logs", sources / "missing"], None, problems)
    reasons = {p.path: p.reason for p in problems}
    for name, (kind, _, reason) in BAD_SHAPES.items():
        hits = {p: r for p, r in reasons.items() if p.startswith(f"runs/{name}/")}
        assert len(hits) == 1 and reason in next(iter(hits.values())), (name, reasons)
        if kind == "line":
            assert next(iter(hits)).endswith(f"samples_finchain_all_{STAMP}.jsonl:2")  # the line, by number
    assert "not a readable Inspect log" in reasons["logs/2026-01-01T00-00-00+00-00_finchain_x.eval"]
    assert reasons["run-list/run.json"] == "expected a JSON object, found list"
    assert reasons["missing"] == "does not exist"
    assert len(problems) == len(BAD_SHAPES) + 3
    counts = frame.groupby("model").size().to_dict()
    # the good folder whole; two good lines around each bad line; the run with the bad run.json
    assert counts == {"good-model": 4, "model-line-not-json": 2, "model-line-a-list": 2, "model-doc-a-string": 2,
                      "listed-model": 1}
    kept = frame.loc[frame["sample_id"] == GOOD[3]["doc"]["id"], "output"].iloc[0]
    assert "\u2028still step 1\x0c" in kept  # a line separator inside an answer is the answer's, not a line end


def test_without_a_list_the_first_bad_file_raises_one_line(sources):
    bad = r"results_.*\.json: not a readable lm-eval results file .*expected a JSON object, found list"
    with pytest.raises(IngestError, match=bad) as info:
        ingest([sources / "runs" / "results-list"])
    assert "\n" not in str(info.value)


def test_the_build_lists_what_it_skipped_and_builds_from_the_rest(sources, tmp_path):
    board = board_file(tmp_path, "bad")
    result = CliRunner().invoke(app, ["leaderboard", "build", str(board), "-s", str(sources / "runs"),
                                      "-s", str(sources / "logs"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "skipped 7 unreadable file(s); built from the rest:" in text and "Traceback" not in text
    assert f"runs/line-not-json/samples_finchain_all_{STAMP}.jsonl:2: not JSON" in text
    assert "4 reproduced row(s)" in text and (tmp_path / "site" / "index.html").is_file()
    data = (tmp_path / "site" / "data.js").read_text("utf-8")
    assert '"skipped_files"' in data and str(sources) not in data  # listed on the site, without local paths


def test_nothing_readable_is_one_line(sources, tmp_path):
    result = CliRunner().invoke(app, ["leaderboard", "build", str(board_file(tmp_path, "bad")), "-s",
                                      str(sources / "logs"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2 and "no readable source (1 unreadable: logs/" in result.output
    assert not (tmp_path / "site").exists()
