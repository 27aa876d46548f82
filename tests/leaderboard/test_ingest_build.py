"""Ingest and build from real runs of both hosts: an lm-eval run and an Inspect run of the same model give one
comparable row each, the per-sample table holds every column and no local path or key, reported rows stay
apart, and a board file with a mistake fails in one line."""

import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.board import Board, BoardError, load_board, parse_board
from finchain_tasks.leaderboard.build import compute
from finchain_tasks.leaderboard.ingest import COLUMNS, IngestError, ingest, source_rows
from finchain_tasks.leaderboard.reported import STATUS, load_reported
from tests.leaderboard import sitedata
from tests.leaderboard.runs import KEY, LIMIT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def frame(lb_runs):
    return ingest([lb_runs["inspect"], lb_runs["lm-eval"]])


def test_the_same_model_through_both_hosts_gives_comparable_rows(frame):
    assert list(frame.columns) == list(COLUMNS)
    a = frame[frame["model"] == "fake-a"]
    by_host = {h: g.set_index("sample_id") for h, g in a.groupby("harness")}
    assert set(by_host) == {"inspect", "lm-eval"}
    assert len(by_host["inspect"]) == len(by_host["lm-eval"]) == LIMIT
    assert sorted(by_host["inspect"].index) == sorted(by_host["lm-eval"].index)  # the same problems, same ids
    joined = by_host["inspect"].merge(by_host["lm-eval"], left_index=True, right_index=True, suffixes=("_i", "_l"))
    # the same answers scored by the same ChainEval: the same numbers, whichever host ran them
    for key in ("chaineval", "fac", "step_f1", "parse_ok"):
        assert joined[f"{key}_i"].tolist() == pytest.approx(joined[f"{key}_l"].tolist()), key
    # lm-eval logs the first broken step only as err_k shares; read back, it is the position Inspect logged
    assert joined["first_error_step_i"].fillna(0).tolist() == joined["first_error_step_l"].fillna(0).tolist()
    assert joined["gold_answer_i"].notna().all() and joined["gold_answer_l"].notna().all()
    # lm-eval logs the answer ChainEval read (filtered_resps) and, recomputed at build, the alignment behind it
    assert joined["answer_l"].tolist() == joined["answer_i"].tolist() and joined["answer_l"].notna().all()
    for a_i, a_l in zip(joined["alignment_i"], joined["alignment_l"]):
        pairs_i, pairs_l = json.loads(a_i), json.loads(a_l)
        assert [(p["gold"], p["pred"], p["matched"]) for p in pairs_l] == [(p["gold"], p["pred"], p["matched"])
                                                                          for p in pairs_i]
        assert [p["similarity"] for p in pairs_l] == pytest.approx([p["similarity"] for p in pairs_i], abs=1e-6)
    assert set(joined["fac_i"]) == {0.0, 1.0}  # fake-a is right on some problems and wrong on others
    for col in ("domain", "topic", "template", "level", "task_version", "profile", "finchain_tasks_version"):
        assert joined[f"{col}_i"].tolist() == joined[f"{col}_l"].tolist(), col
    inspect_rows = by_host["inspect"]
    assert inspect_rows["input_tokens"].notna().all() and by_host["lm-eval"]["input_tokens"].isna().all()
    # the registry price the run recorded (1 and 2 USD per 1M tokens), by hand
    first = inspect_rows.iloc[0]
    assert first["cost"] == pytest.approx((first["input_tokens"] * 1.0 + first["output_tokens"] * 2.0) / 1e6)
    assert inspect_rows["harness_version"].iloc[0] and by_host["lm-eval"]["harness_version"].iloc[0]


def test_the_board_has_one_row_per_host_that_says_which_harness(lb_runs):
    board = parse_board({"name": "t", "metrics": ["chaineval", "fac"]}, "t")
    built = compute(board, sources=[lb_runs["inspect"], lb_runs["lm-eval"]],
                    registry_path=str(lb_runs["inspect"].parent / "registry.yaml"))
    rows = {(r["model"], r["harness"]): r for r in built.payload["rows"]}
    assert set(rows) == {("fake-a", "inspect"), ("fake-a", "lm-eval"), ("fake-b", "inspect")}
    a_i, a_l = rows[("fake-a", "inspect")], rows[("fake-a", "lm-eval")]
    assert a_i["metrics"]["chaineval"]["mean"] == pytest.approx(a_l["metrics"]["chaineval"]["mean"])
    assert a_i["n"] == a_l["n"] == LIMIT and a_l["cost_usd"] is None and a_i["cost_usd"] > 0
    assert rows[("fake-b", "inspect")]["metrics"]["fac"]["mean"] == 1.0
    assert all(r["tie_group"] is not None for r in rows.values())
    assert {r["model"] for r in built.payload["reported"]["rows"]} == set()  # the board names no reported source


def test_the_per_sample_table_holds_no_local_path_or_key(frame, lb_runs):
    text = frame.astype(str).to_csv()
    assert str(lb_runs["inspect"].parent) not in text and KEY not in text
    assert set(frame["source"].str.split("/").str[0]) == {"inspect", "lm-eval"}  # run directory names only


def test_reported_rows_are_the_published_table_and_stay_apart():
    reported = load_reported(("finchain-leaderboard",))
    rows = {r["model"]: r for r in reported["rows"]}
    assert len(rows) == 25 and all(r["status"] == STATUS for r in rows.values())
    # two rows checked against the authors' page by hand
    gemini = rows["gemini-2.5-pro"]["scores"]
    assert gemini == {"chaineval": 58.65, "rouge2": 17.61, "rougeL": 27.36, "bertscore": 85.94}
    assert rows["metamath"]["spread"]["chaineval"] == 9.24
    cflue = {r["model"]: r for r in load_reported(("cflue-paper",))["rows"]}
    assert len(cflue) == 17 and cflue["qwen-72b"]["scores"]["accuracy"] == 72.8  # the CFLUE README's first row
    assert all(r["task"] == "cflue" and r["source_url"].startswith("https://github.com/aliyun/cflue")
               for r in cflue.values())
    with pytest.raises(ValueError, match="unknown source"):
        load_reported(("nope",))


def test_paper26_selects_the_papers_models_and_shows_reported_rows_apart(lb_runs):
    board = load_board("paper26")
    built = compute(board, sources=[lb_runs["inspect"]], registry_path=str(lb_runs["inspect"].parent / "registry.yaml"))
    assert built.payload["rows"] == [] and set(built.payload["skipped_models"]) == {"fake-a", "fake-b"}
    assert len(built.payload["reported"]["rows"]) == 25


def test_bad_boards_and_sources_fail_in_one_line(tmp_path):
    with pytest.raises(BoardError, match="unknown field"):
        parse_board({"name": "x", "metricz": []}, "x.yaml")
    with pytest.raises(BoardError, match="unknown rouge"):
        parse_board({"name": "x", "metrics": ["rouge"]}, "x.yaml")
    with pytest.raises(IngestError, match="does not exist"):
        list(source_rows(tmp_path / "missing"))
    (tmp_path / "broken.eval").write_bytes(b"not a zip")
    with pytest.raises(IngestError, match="not a readable Inspect log"):
        list(source_rows(tmp_path / "broken.eval"))
    result = CliRunner().invoke(app, ["leaderboard", "build", "no-such-board", "-o", str(tmp_path / "s")])
    assert result.exit_code == 2 and "no board 'no-such-board'" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists()
    assert isinstance(load_board("local"), Board) and load_board("cflue").tasks == ("cflue",)


def test_the_site_data_escape_markup(lb_site):
    data = "".join(p.read_text("utf-8") for p in (lb_site / "samples").glob("*.js"))
    assert "<script>" not in data and "\\u003cscript\\u003e" in data
    assert not (lb_site / "samples.js").exists()  # split: no single file of every output
    payload = sitedata.payload(lb_site)
    assert {r["harness"] for r in payload["rows"]} == {"inspect", "lm-eval"}


def test_raw_host_outputs_read_like_the_run_directories(lb_runs, frame):
    """An Inspect log folder and an lm-eval output folder given directly (as a user of either host has them,
    without `finchain bench`) give the same samples and scores as the run directories they sit in."""
    logs = lb_runs["inspect"] / "logs"
    (lm_folder,) = [p for p in (lb_runs["lm-eval"] / "lm_eval").glob("*/*") if p.is_dir()]
    raw = ingest([logs, lm_folder])
    key = ["model", "harness", "sample_id"]
    left = frame.sort_values(key)[[*key, "chaineval", "fac"]].reset_index(drop=True)
    right = raw.sort_values(key)[[*key, "chaineval", "fac"]].reset_index(drop=True)
    assert left.equals(right)
    assert set(raw["source"].str.split("/").str[0]) == {"logs", lm_folder.name}
