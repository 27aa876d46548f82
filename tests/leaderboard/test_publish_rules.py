"""The publication's user-visible rules, one table-driven test per rule (issue 39.3): which text a licence
keeps out, which names may name a release folder, the LaTeX escapes, what the release's files hold apart, the
card's licence field and the Hugging Face target's form. Built from a hand-made Board, frame and payload (no
logs read, no site written, no network): fast, and each rule's edge is in its table. The end-to-end publish
runs are tests/leaderboard/test_publish.py (slow) and test_publish_licences.py."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from finchain_tasks.leaderboard import publish as pub
from finchain_tasks.leaderboard.board import Board
from finchain_tasks.leaderboard.build import Built

TEXT = {"question": "Q?", "prompt": "Ask: Q?", "gold_steps": "1 + 1 = 2", "gold_answer": "2"}


def _row(model: str = "m", display_name: str = "M", harness: str = "inspect", **over):
    row = {"model": model, "display_name": display_name, "harness": harness, "tie_group": 1, "rank_low": 1,
           "rank_high": 1, "partial": False,
           "metrics": {"chaineval": {"mean": 0.5, "low": 0.25, "high": 0.75}, "fac": {"mean": 1.0}}}
    return {**row, **over}


def _built(tasks=("finchain", "cflue"), rows=None, name="b", metrics=("chaineval", "fac"), **payload) -> Built:
    frame = pd.DataFrame([{"task": t, "sample_id": f"{t}/{k}", "model": "m", "source": "/home/me/run/x.eval",
                           "chaineval": 0.5, **TEXT} for t in tasks for k in range(2)])
    samples = {f"{t}/{k}": {"task": t, "question": "Q?", "gold_steps": ["s"], "gold_answer": "2",
                            "models": [{"model": "m", "prompt": "Ask: Q?"}]} for t in tasks for k in range(2)}
    base = {"rows": [_row()] if rows is None else rows, "reported": {"rows": [{"status": "reported"}]},
            "reported_samples": [], "generated": "2026-12-05T00:00:00+00:00", "finchain_tasks_version": "3.1.0"}
    board = Board(name=name, title="T", tasks=tuple(tasks), metrics=metrics)
    return Built(board=board, frame=frame, payload={**base, **payload}, samples=samples)


# -- licences: the text a restricted task keeps out --------------------------------------------------

@pytest.mark.parametrize("column", list(pub.TEXT_COLUMNS))
def test_rule_each_text_column_of_a_restricted_task_is_left_out(column):
    frame = pub.withhold_text(_built())[0].frame
    assert frame.loc[frame["task"] == "cflue", column].isna().all()


@pytest.mark.parametrize("column", list(pub.TEXT_COLUMNS))
def test_rule_each_text_column_of_a_redistributable_task_is_kept(column):
    frame = pub.withhold_text(_built())[0].frame
    assert (frame.loc[frame["task"] == "finchain", column] == TEXT[column]).all()


@pytest.mark.parametrize("column", list(pub.TEXT_COLUMNS))
def test_rule_each_text_column_is_kept_when_restricted_text_is_asked_for(column):
    frame = pub.withhold_text(_built(), include_restricted=True)[0].frame
    assert (frame[column] == TEXT[column]).all()


def test_rule_the_text_columns_are_the_question_the_prompt_and_the_gold_text():
    assert set(pub.TEXT_COLUMNS) == {"question", "prompt", "gold_steps", "gold_answer"}


@pytest.mark.parametrize("task, withheld", [("cflue", True), ("finchain", False)])
def test_rule_a_restricted_tasks_sample_view_loses_its_question_gold_text_and_prompts_and_says_why(task, withheld):
    samples = pub.withhold_text(_built())[0].samples
    entry = samples[f"{task}/0"]
    shown = (entry["question"], entry["gold_steps"], entry["gold_answer"], entry["models"][0]["prompt"])
    assert shown == ((None, [], None, None) if withheld else ("Q?", ["s"], "2", "Ask: Q?"))
    assert ("CC BY-NC-SA 4.0" in entry.get("withheld", "")) is withheld


# -- release names -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["b", "B", "7", "Board", "aB", "a_b", "a.b", "a-b", "x" * 60])
def test_rule_a_board_name_of_letters_digits_dot_underscore_and_dash_names_a_release(name):
    assert pub.release_name(_built(name=name)) == f"{name}-v3.1.0-2026-12-05"


@pytest.mark.parametrize("name", ["", ".b", "_b", "-b", "a/b", "a..b", "a b", "é", "a\\b", "x" * 101])
def test_rule_any_other_board_name_is_refused_before_a_folder_is_named(name):
    with pytest.raises(ValueError, match="cannot name a release folder"):
        pub.release_name(_built(name=name))


# -- LaTeX -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("char, escaped", [
    ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"),
    ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"), ("\\", r"\textbackslash{}"),
])
def test_rule_each_latex_special_character_is_escaped(char, escaped):
    assert pub.tex(f"a{char}b") == f"a{escaped}b"


def test_rule_other_text_passes_through_latex_unchanged():
    plain = "Model (v2) - 3.5: 'x' \"y\" <z> | é 中"
    assert pub.tex(plain) == plain


@pytest.mark.parametrize("where", ["metric", "display_name", "harness"])
def test_rule_every_name_in_the_latex_table_is_escaped(where):
    evil = "a_b&c%"
    built = _built(rows=[_row(**{where: evil})] if where != "metric" else None,
                   metrics=(evil, "fac") if where == "metric" else ("chaineval", "fac"))
    text = pub.latex_table(built)
    assert r"a\_b\&c\%" in text and evil not in text


# -- the release's files -----------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["reported", "reported_samples"])
def test_rule_reported_figures_stay_out_of_leaderboard_json(tmp_path, key):
    block = {"source": "s", "status": "reported, not reproduced", "metrics": ["chaineval"],
             "rows": [{**_row(), "reported_name": "R", "published": {"chaineval": 0.4}, "delta": {"chaineval": 0.1}}]}
    out = pub.write_release(_built(reported_samples=[block]), tmp_path)
    assert key not in json.loads((out / "leaderboard.json").read_text("utf-8"))
    assert (out / f"{key}.json").is_file()


@pytest.mark.parametrize("include_raw, kept", [(False, False), (True, True)])
def test_rule_the_samples_source_column_naming_local_files_is_released_only_with_raw_material(
        tmp_path, include_raw, kept):
    out = pub.write_release(_built(), tmp_path, include_raw=include_raw)
    assert ("source" in pd.read_parquet(out / "samples.parquet").columns) is kept


def _card_meta(out: Path) -> dict:
    return yaml.safe_load((out / "README.md").read_text("utf-8").split("---")[1])


@pytest.mark.parametrize("tasks, include, licence", [
    (("finchain",), False, "mit"),
    (("finchain", "cflue"), False, "mit"),
    (("cflue",), True, ["mit", "cc-by-nc-sa-4.0"]),
    (("finchain", "cflue"), True, ["mit", "cc-by-nc-sa-4.0"]),
])
def test_rule_the_cards_licence_is_one_id_alone_and_a_list_of_several(tmp_path, tasks, include, licence):
    built, withheld = pub.withhold_text(_built(tasks=tasks), include_restricted=include)
    out = pub.write_release(built, tmp_path, withheld=withheld)
    assert _card_meta(out)["license"] == licence


# -- Hugging Face targets ---------------------------------------------------------------------------

@pytest.mark.parametrize("repo", ["owner/name", "Own.er-1/na_me.2-x", "a/b", "o_1/n"])
def test_rule_an_hf_target_of_owner_slash_name_in_word_characters_dots_and_dashes_is_uploaded(monkeypatch, repo):
    uploaded = []
    monkeypatch.setattr(pub, "upload_hf", lambda release, to: uploaded.append((release.name, to)) or f"hf:{to}")
    assert pub.publish(_built(), f"hf:{repo}")[0] == f"hf:{repo}"
    assert uploaded == [("b-v3.1.0-2026-12-05", repo)]


@pytest.mark.parametrize("repo", ["owner", "a b/c", "a/b/c", "/b", "a/", "a/b c", "a:b/c", "a/b?c"])
def test_rule_any_other_hf_target_is_refused_in_one_line(monkeypatch, repo):
    monkeypatch.setattr(pub, "upload_hf", lambda release, to: pytest.fail("uploaded"))
    with pytest.raises(ValueError, match=r"hf: expects owner/name, got "):
        pub.publish(_built(), f"hf:{repo}")

