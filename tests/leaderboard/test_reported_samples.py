"""Reported per sample (issue 24.3): the FinChain authors' per-sample files as a board's reported source, with
intervals, tie groups and rank intervals computed among those rows only, on a made-up repository in their shape
(``authors_fixture.py``); the real one only where FINCHAIN_AUTHORS_DIR names it."""

from __future__ import annotations

import csv
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.authors_evals import AuthorsEvalsError, read_authors_evals, read_file
from finchain_tasks.leaderboard.board import BoardError, Statistics, load_board
from finchain_tasks.leaderboard.build import compute
from finchain_tasks.leaderboard.publish import write_release
from finchain_tasks.leaderboard.reported import STATUS, load_reported
from finchain_tasks.leaderboard.reported_samples import _model_of, per_sample_sources
from finchain_tasks.leaderboard.site import write_site
from finchain_tasks.models.registry import load_registry
from finchain_tasks.reproduce.authors import authors_problems
from tests.leaderboard import authors_fixture as fx
from tests.leaderboard import browser, sitedata
from tests.leaderboard.handmade import board_file, write_lm_eval

METRICS = ("fac", "recall", "precision", "step_f1")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return fx.write_repo(tmp_path_factory.mktemp("authors") / "FinChain-Reasoning")


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    path = board_file(tmp_path_factory.mktemp("board"), "v1-test", metrics=METRICS, reported=("finchain-v1-authors",))
    return load_board(str(path))


@pytest.fixture(scope="module")
def built(board, repo):
    return compute(board, authors=repo)


@pytest.fixture(scope="module")
def block(built):
    (only,) = built.payload["reported_samples"]
    return only


def _rows(block) -> dict[str, dict]:
    return {r["reported_name"]: r for r in block["rows"]}


def test_each_row_is_its_models_scored_samples_with_template_intervals(block):
    rows = _rows(block)
    assert sorted(rows) == sorted([*fx.MODELS, *fx.REASONING])
    n_templates = sum(len(t) for t in fx.TOPICS.values()) * len(fx.TEMPLATES)
    for name, row in rows.items():
        assert row["n"] == len(fx.instances()) - 1 and row["templates"] == n_templates  # the unscored one left out
        assert row["status"] == STATUS and row["task"] == "finchain" and row["harness"] == "finchain-v1-authors"
        for m, expected in fx.means(name).items():
            s = row["metrics"][m]
            assert s["mean"] == pytest.approx(expected, abs=1e-12)
            assert s["clusters"] == n_templates and s["low"] <= s["mean"] <= s["high"]
    assert block["unscored_samples"] == len(rows)


def test_tie_groups_and_ranks_order_the_models_by_their_own_scores(block):
    rows = _rows(block)
    assert rows["gpt-4.1"]["tie_group"] == 1 and rows["weak_model"]["tie_group"] > 1
    assert rows["weak_model"]["rank"] == len(rows) and rows["gpt-4.1"]["rank_low"] == 1
    assert [r["reported_name"] for r in block["rows"]][-1] == "weak_model"
    assert {c["a"].split(" (")[1] for c in block["comparisons"]} == {"finchain-v1-authors)"}


def test_a_reproduced_row_of_the_same_model_and_samples_changes_none_of_them(board, repo, block, tmp_path):
    """A perfect reproduced gpt-4.1 on the very sample ids of the authors' rows: had it joined their statistics,
    it would lead, and gpt-4.1 (authors) would leave group 1; it is a row of the reproduced table only."""
    ids = [f"authors/{d}/{t}/{i}/{s}" for d, t, i, s in fx.instances()]
    samples = [{"doc_id": k, "doc": {"id": sid, "domain": sid.split("/")[1], "topic": sid.split("/")[2],
                                     "template": sid.split("/")[3], "level": "easy", "seed": k},
                "resps": [["Final answer: 1"]], "filtered_resps": ["1"], "fac": 1.0, "step_f1": 1.0,
                "recall": 1.0, "precision": 1.0} for k, sid in enumerate(ids)]
    run = write_lm_eval(tmp_path / "lm", "gpt-4.1", "finchain_all", samples)
    mixed = compute(board, sources=[run], authors=repo, realign=False)
    assert [r["model"] for r in mixed.payload["rows"]] == ["gpt-4.1"] and mixed.payload["rows"][0]["tie_group"] == 1
    assert json.dumps(mixed.payload["reported_samples"]) == json.dumps([block])


def test_published_means_stand_beside_the_recomputed_ones(block):
    rows = _rows(block)
    for name in ("gpt-4.1", "tiny_model_x", "fin_r1"):
        assert all(abs(rows[name]["delta"][m]) < 1e-12 for m in METRICS), rows[name]["delta"]
        assert rows[name]["published"]["fac"] == pytest.approx(fx.means(name)["fac"])
    assert rows["weak_model"]["published"] == dict.fromkeys(METRICS) and rows["weak_model"]["delta"]["fac"] is None
    assert block["max_abs_delta"]["fac"] < 1e-12


def test_registry_names_where_the_source_maps_them_else_their_name(block):
    rows = _rows(block)
    assert (rows["gpt-4.1"]["model"], rows["gpt-4.1"]["display_name"]) == ("gpt-4.1", "GPT-4.1")
    assert (rows["fin_r1"]["model"], rows["fin_r1"]["display_name"]) == ("fin-r1", "Fin-R1")
    assert (rows["tiny_model_x"]["model"], rows["tiny_model_x"]["display_name"]) == ("tiny_model_x", "tiny_model_x")
    registry = load_registry(None)
    assert _model_of("x", {"models": {"x": "no-such-model"}}, registry) == ("x", None)  # mapped, not registered


def test_a_model_the_registry_lacks_shows_the_sources_display_name():
    from finchain_tasks.leaderboard.reported_samples import _model_rows

    entry = {"display_names": {"llama3p3_70b_instruct": "Llama 3.3 70B Instruct"}, "models": {"fin_r1": "fin-r1"}}
    rows = _model_rows([{"id": 1}], "llama3p3_70b_instruct", entry, "src", load_registry(None))
    assert (rows[0]["model"], rows[0]["display_name"]) == ("llama3p3_70b_instruct", "Llama 3.3 70B Instruct")
    # the registry's own name wins over a display name for a mapped model
    rows = _model_rows([{"id": 1}], "fin_r1", {**entry, "display_names": {"fin_r1": "x"}}, "src", load_registry(None))
    assert rows[0]["display_name"] == "Fin-R1"


def test_their_instances_are_the_samples_the_authors_split_serves(repo):
    """The same ids (hence templates and clusters) as `split=authors` (reproduce.authors_problems)."""
    served = {r["id"] for r in authors_problems(repo)}
    per_model = read_authors_evals(repo)
    assert all({r["sample_id"] for r in rows} == served for rows in per_model.values())
    levels = {r["sample_id"]: r["level"] for r in per_model["gpt-4.1"]}
    assert {r["id"]: r["level"] for r in authors_problems(repo)} == levels


def test_hand_typed_reported_sources_leave_the_per_sample_one_out():
    assert "finchain-v1-authors" not in load_reported()["sources"]
    assert load_reported(("finchain-v1-authors",)) == {"sources": {}, "rows": []}


def test_a_per_sample_format_the_build_cannot_read_is_one_line(board, tmp_path):
    reported = tmp_path / "reported.yaml"
    reported.write_text("sources:\n  finchain-v1-authors: {title: t, per_sample: csv-of-means}\n", encoding="utf-8")
    with pytest.raises(BoardError, match="per_sample: unknown format 'csv-of-means' .known: finchain-authors."):
        per_sample_sources(board, reported)


def test_the_site_and_the_release_show_them_apart(board, built, tmp_path):
    site = write_site(tmp_path / "site", board, built.payload, built.samples).parent
    assert 'id="reported-samples"' in (site / "index.html").read_text("utf-8")
    assert "finchain-v1-authors" in (site / "methods.html").read_text("utf-8")
    data = sitedata.payload(site)
    assert data["rows"] == [] and [len(b["rows"]) for b in data["reported_samples"]] == [4]
    assert all(r["tie_group"] is not None and r["rank"] is not None for r in data["reported_samples"][0]["rows"])
    release = write_release(built, tmp_path / "release")
    lines = list(csv.DictReader((release / "reported_samples.csv").open(encoding="utf-8")))
    shown = built.payload["reported_samples"][0]["rows"]
    assert [r["reported_name"] for r in lines] == [r["reported_name"] for r in shown]
    assert {"fac_low", "fac_published", "fac_delta", "tie_group", "rank_low"} <= set(lines[0])
    assert "reported_samples" not in json.loads((release / "leaderboard.json").read_text("utf-8"))


@pytest.mark.slow
@pytest.mark.skipif(not browser.available(), reason="chromium and chromium-driver are not installed")
def test_the_page_renders_their_table_and_its_csv_in_chromium(board, built, tmp_path):
    """One browser, one page: the section's rows in the board's order with tie groups, ranks and published means,
    no JavaScript error, and its own CSV download holding the same rows."""
    site = write_site(tmp_path / "site", board, built.payload, built.samples).parent
    chrome = browser.start(tmp_path)
    try:
        chrome.get((site / "index.html").as_uri())
        trs = chrome.find_elements("css selector", "table.reported-samples tbody tr")
        cells = [[td.text for td in tr.find_elements("css selector", "td")] for tr in trs]
        errors = [e["message"] for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
        chrome.find_element("css selector", "button.dl-block").click()
        target = tmp_path / "v1-test-finchain-v1-authors.csv"
        for _ in range(50):
            if target.is_file() and target.stat().st_size:
                break
            time.sleep(0.1)
    finally:
        chrome.quit()
    rows = built.payload["reported_samples"][0]["rows"]
    assert not errors, errors
    assert [c[2] for c in cells] == [r["reported_name"] for r in rows]
    assert [c[0] for c in cells] == [str(r["tie_group"]) for r in rows]
    assert all("published" in c[5] and "[" in c[5] for c in cells if c[2] != "weak_model")
    downloaded = list(csv.DictReader(target.open(encoding="utf-8")))
    assert [(d["reported_name"], float(d["fac"])) for d in downloaded] == \
        [(r["reported_name"], r["metrics"]["fac"]["mean"]) for r in rows]


def _build(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["leaderboard", "build", *args], env=env)
    return result.exit_code, " ".join(result.output.split())


def test_without_the_data_the_build_says_what_to_set_in_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("FINCHAIN_AUTHORS_DIR", raising=False)
    code, out = _build(["finchain_v1", "-o", str(tmp_path / "site")], {})
    assert code == 2 and "--authors DIR or set FINCHAIN_AUTHORS_DIR" in out and "finchain-v1-authors" in out, out
    assert not (tmp_path / "site").exists()
    code, out = _build(["finchain_v1", "-o", str(tmp_path / "site")], {"FINCHAIN_AUTHORS_DIR": str(tmp_path)})
    assert code == 2 and "no evals/ folder" in out, out


def _one_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evals" / "m.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


GOOD = {"seed": 1, "id": "1", "level": "Basic", "topic": "d", "subtopic": "t", "model": "m", "recall": 0.5,
        "precision": 0.5, "final_answer_match": 1}


@pytest.mark.parametrize(("second", "message"), [
    ("{not json", "evals/m.jsonl:2: not JSON"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "recall"}), "evals/m.jsonl:2: missing key(s) recall"),
    (json.dumps({**GOOD, "seed": 2, "recall": float("nan")}), "evals/m.jsonl:2: recall: expected a number in [0, 1]"),
    (json.dumps({**GOOD, "seed": 2, "precision": 1e308}), "evals/m.jsonl:2: precision: expected a number in [0, 1]"),
    (json.dumps({**GOOD, "seed": 2, "final_answer_match": "1"}), "final_answer_match: expected a number in [0, 1]"),
    (json.dumps({**GOOD, "seed": 2, "topic": ""}), "evals/m.jsonl:2: topic: expected a non-empty name"),
    (json.dumps({**GOOD, "seed": 2, "subtopic": "x" * 10_000}), "evals/m.jsonl:2: subtopic: expected a non-empty"),
    (json.dumps({**GOOD, "seed": 2, "model": "other"}), "evals/m.jsonl:2: model 'other' in a file of 'm'"),
    (json.dumps(GOOD), "evals/m.jsonl:2: sample authors/d/t/1/1 appears twice"),
    ("[1, 2]", "evals/m.jsonl:2: expected a JSON object"),
])
def test_a_bad_line_is_one_line_naming_file_and_line(tmp_path, second, message):
    path = _one_file(tmp_path, json.dumps(GOOD) + "\n" + second + "\n")
    with pytest.raises(AuthorsEvalsError) as err:
        read_file(path, tmp_path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_odd_but_valid_lines_are_kept_as_text(tmp_path):
    """Unicode and HTML in a name are names (the site sets them as text); a CRLF file reads the same."""
    rows = [GOOD, {**GOOD, "seed": 2, "subtopic": "<script>alert(1)</script>"}, {**GOOD, "seed": 3, "topic": "金融"}]
    path = _one_file(tmp_path, "\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\r\n")
    name, read = read_file(path, tmp_path)
    assert name == "m" and [r["topic"] for r in read] == ["t", "<script>alert(1)</script>", "t"]
    assert read[2]["domain"] == "金融" and read[0]["level"] == "easy" and read[0]["step_f1"] == 0.5


def test_an_empty_file_or_folder_is_an_error_not_a_silent_gap(tmp_path):
    with pytest.raises(AuthorsEvalsError, match="no per-sample files"):
        read_authors_evals(tmp_path)
    _one_file(tmp_path, "\n")
    with pytest.raises(AuthorsEvalsError, match=r"evals/m.jsonl: no rows"):
        read_authors_evals(tmp_path)


AUTHORS = os.environ.get("FINCHAIN_AUTHORS_DIR")


@pytest.mark.skipif(not AUTHORS, reason="set FINCHAIN_AUTHORS_DIR to the FinChain authors' repository to run it")
def test_the_finchain_v1_board_on_the_authors_files():
    """30 models, 2,699 scored samples each over 266 template clusters; final-answer match, recall and precision
    equal their published means within 1e-6; step F1 too for the reasoning_parsed files, while the top-level ones
    were published with 1e-4 added to the F1 denominator (up to ~3e-5 lower). Fewer resamples: the check is of
    the data, not of the bootstrap."""
    board = load_board("finchain_v1")
    built = compute(replace(board, statistics=Statistics(resamples=200)), authors=Path(AUTHORS))
    (block,) = built.payload["reported_samples"]
    assert len(block["rows"]) == 30 and built.payload["rows"] == []
    reasoning = {p.stem for p in (Path(AUTHORS) / "evals" / "reasoning_parsed").glob("*.jsonl")}
    for row in block["rows"]:
        assert (row["n"], row["templates"]) == (2699, 266) and row["tie_group"] is not None
        assert all(abs(row["delta"][m]) <= 1e-6 for m in ("fac", "recall", "precision")), row["reported_name"]
        tolerance = 1e-6 if row["reported_name"] in reasoning else 5e-5
        assert abs(row["delta"]["step_f1"]) <= tolerance, (row["reported_name"], row["delta"])
