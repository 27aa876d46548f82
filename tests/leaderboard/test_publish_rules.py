"""The publication's user-visible rules, one table-driven test per rule (issue 39.3): which text a licence
keeps out, which names may name a release folder, the LaTeX escapes, what the release's files hold apart, the
card's licence field and the Hugging Face target's form. Built from a hand-made Board, frame and payload (no
logs read, no site written, no network): fast, and each rule's edge is in its table. The end-to-end publish
runs are tests/leaderboard/test_publish.py (slow) and test_publish_licences.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace
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
    base = {"rows": [_row()] if rows is None else rows,
            "reported": {"rows": [{"status": "reported"}], "sources": {}}, "reported_samples": [], "gaps": [],
            "generated": "2026-12-05T00:00:00+00:00", "finchain_tasks_version": "3.1.0"}
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

@pytest.mark.parametrize("name", ["b", "B", "7", "Board", "aB", "a_b", "a.b", "a-b", "x" * 60, "x" * 82])
def test_rule_a_board_name_of_letters_digits_dot_underscore_and_dash_names_a_release(name):
    assert pub.release_name(_built(name=name)) == f"{name}-v3.1.0-2026-12-05"


@pytest.mark.parametrize("name", ["", ".b", "_b", "-b", "a/b", "a..b", "a b", "é", "a\\b", "x" * 101,
                                  "x" * 83])  # the release's name (board, version, date) is at most 100 characters
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



# -- what the command says was left out ----------------------------------------------------------------

@pytest.mark.parametrize("tasks, include, line", [
    (("finchain",), False, None),                                   # nothing restricted: nothing to say
    (("finchain", "cflue"), False,
     "left out: question and gold text of 2 cflue sample(s) (CC BY-NC-SA 4.0), whose licence forbids "
     "redistributing it here; --include-restricted-text keeps it (the release then carries that licence)"),
    (("finchain", "cflue"), True,
     "included, as asked: question and gold text of 2 cflue sample(s) (CC BY-NC-SA 4.0); the release carries "
     "that licence (see its README)"),
])
def test_rule_the_command_says_how_many_samples_text_was_left_out_or_included_under_which_licence(
        tasks, include, line):
    built, withheld = pub.withhold_text(_built(tasks=tasks), include_restricted=include)
    assert withheld.line() == line
    assert withheld.included is include and withheld.samples == ({"cflue": 2} if "cflue" in tasks else {})
    assert set(withheld.licenses) == set(tasks)


def test_rule_several_restricted_tasks_are_listed_in_name_order_and_a_task_with_none_is_not():
    lic = pub.data_licenses(("cflue", "cflue_application"))
    withheld = pub.Withheld(lic, {"cflue_application": 3, "cflue": 1}, False)
    assert withheld.line().startswith("left out: question and gold text of 1 cflue sample(s) (CC BY-NC-SA 4.0), "
                                      "3 cflue_application sample(s) (CC BY-NC-SA 4.0), whose")
    assert pub.Withheld(lic, {"cflue": 0}, False).line() is None


def test_rule_withholding_leaves_the_board_it_was_given_unchanged():
    built = _built()
    pub.withhold_text(built)
    assert (built.frame["question"] == "Q?").all() and built.samples["cflue/0"]["question"] == "Q?"
    assert built.samples["cflue/0"]["models"][0]["prompt"] == "Ask: Q?" and "withheld" not in built.samples["cflue/0"]


def test_rule_the_sample_view_says_which_licence_where_and_whose():
    entry = pub.withhold_text(_built())[0].samples["cflue/1"]
    assert entry["withheld"] == ("The question and gold text are not published: CC BY-NC-SA 4.0 "
                                 "(https://creativecommons.org/licenses/by-nc-sa/4.0/), the CFLUE authors (Zhu et al., "
                                 "2024), https://github.com/aliyun/cflue.")


@pytest.mark.parametrize("tasks", [("nope",), ("finchain", "nope", "zzz")])
def test_rule_a_task_without_a_recorded_licence_is_refused_naming_it(tasks):
    with pytest.raises(ValueError, match=r"^no data licence recorded for task\(s\) " + ", ".join(tasks[1:] or tasks)
                       + r" in licenses\.yaml$"):
        pub.data_licenses(tasks)


def test_rule_a_task_found_only_in_the_samples_needs_a_licence_too():
    built = _built(tasks=("finchain",))
    built.frame.loc[0, "task"] = "nope"
    with pytest.raises(ValueError, match="nope"):
        pub.withhold_text(built)


# -- the LaTeX table's content --------------------------------------------------------------------------

def test_rule_the_latex_table_shows_group_ranks_name_harness_and_each_metric_with_its_interval():
    built = _built(rows=[_row(), _row(model="p", display_name="P", tie_group=None, rank_low=None, partial=True,
                                  metrics={"chaineval": {"mean": 0.123456, "low": None, "high": 0.5}})],
                   metrics=("chaineval", "fac", "step_f1", "fac_strict"))
    lines = pub.latex_table(built).splitlines()
    assert lines[:4] == [r"\begin{tabular}{rrllrrr}", r"\toprule",
                         r"Group & Ranks & Model & Harness & chaineval & fac & step\_f1 \\", r"\midrule"]
    assert lines[4] == r"1 & 1--1 & M & inspect & 0.500 [0.250, 0.750] & 1.000 [--, --] & -- \\"
    assert lines[5] == r"-- & -- & P$^\dagger$ & inspect & 0.123 [--, 0.500] & -- & -- \\"
    assert lines[6:8] == [r"\bottomrule", r"\end{tabular}"]
    assert lines[8] == ("% 95% intervals: bootstrap over templates; group 1: not distinguishable from the leader "
                        "(paired tests, Holm); -- : not comparable (too few shared templates); ranks: simultaneous 95% "
                        "bootstrap range of ranks; $^\\dagger$: partial coverage.")
    assert len(lines) == 9 and pub.latex_table(built).endswith("coverage.\n")


# -- the release's files (continued) ---------------------------------------------------------------------

def test_rule_the_release_holds_its_files_under_the_release_name(tmp_path):
    out = pub.write_release(_built(), tmp_path)
    assert out == tmp_path / "b-v3.1.0-2026-12-05"
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "leaderboard.csv", "leaderboard.json",
                                                     "leaderboard.tex", "reported.json", "samples.parquet"]
    assert json.loads((out / "reported.json").read_text("utf-8")) == {"rows": [{"status": "reported"}], "sources": {}}
    assert json.loads((out / "leaderboard.json").read_text("utf-8"))["rows"][0]["model"] == "m"
    assert (out / "leaderboard.csv").read_bytes().startswith(b"tie_group,rank,")
    assert (out / "leaderboard.csv").read_bytes().endswith(b"\r\n")
    assert (out / "leaderboard.tex").read_text("utf-8") == pub.latex_table(_built())
    assert len(pd.read_parquet(out / "samples.parquet")) == 4


def test_rule_reported_samples_get_their_own_csv_and_json_and_a_line_on_the_card(tmp_path):
    block = {"source": "src", "status": "reported, not reproduced", "metrics": ["chaineval"],
             "rows": [{**_row(model="=x"), "reported_name": "R", "published": {"chaineval": 0.4},
                       "delta": {"chaineval": 0.1}}]}
    out = pub.write_release(_built(reported_samples=[block]), tmp_path)
    rows = pd.read_csv(out / "reported_samples.csv")
    assert list(rows["source"]) == ["src"] and list(rows["model"]) == ["'=x"]  # a formula cell is text
    assert list(rows["chaineval_published"]) == [0.4] and list(rows["chaineval_delta"]) == [0.1]
    assert json.loads((out / "reported_samples.json").read_text("utf-8"))[0]["source"] == "src"
    assert "- `reported_samples.csv` / `reported_samples.json`: per-sample results" in (out / "README.md").read_text()
    plain = pub.write_release(_built(), tmp_path / "plain")
    assert "reported_samples" not in (plain / "README.md").read_text() and not (plain / "reported_samples.csv").exists()


def test_rule_a_release_without_reported_sample_rows_writes_a_header_only_csv(tmp_path):
    pub._write_csv(tmp_path / "x.csv", [])
    assert (tmp_path / "x.csv").read_bytes() == b"model\r\n"
    assert pub.reported_sample_rows(_built()) == []


@pytest.mark.parametrize("include_raw", [False, True])
def test_rule_raw_logs_are_copied_only_when_asked_without_caches_or_locks(tmp_path, include_raw):
    src = tmp_path / "run1"
    (src / "logs").mkdir(parents=True)
    for name in ("logs/a.eval", "cache.sqlite", "cache.sqlite-wal", "run.lock", "run.json"):
        (src / name).write_text("x", encoding="utf-8")
    (tmp_path / "not-a-dir").write_text("x", encoding="utf-8")
    out = pub.write_release(_built(), tmp_path / "pub", include_raw=include_raw,
                            sources=(src, tmp_path / "not-a-dir"))
    raw = sorted(p.relative_to(out).as_posix() for p in (out / "raw").rglob("*") if p.is_file()) \
        if (out / "raw").exists() else []
    assert raw == (["raw/run1/logs/a.eval", "raw/run1/run.json"] if include_raw else [])


def test_rule_the_card_names_the_board_version_date_level_and_each_tasks_licence(tmp_path):
    plain = _built()
    built, withheld = pub.withhold_text(replace(plain, board=replace(plain.board, title='T "q": x')))
    card = (pub.write_release(built, tmp_path, withheld=withheld) / "README.md").read_text("utf-8")
    meta = _card_meta(tmp_path / "b-v3.1.0-2026-12-05")
    assert meta == {"license": "mit", "pretty_name": 'T "q": x'}
    assert card.startswith('---\nlicense: mit\npretty_name: "T \\"q\\": x"\n---\n# T "q": x\n\n')
    assert "Data release of the `b` leaderboard, made by finchain-tasks 3.1.0 on 2026-12-05T00:00:00+00:00." in card
    assert "means with 95% template-bootstrap intervals" in card
    assert ("- `finchain`: [MIT](https://opensource.org/license/mit), finchain-tasks (problems generated by this "
            "package's templates, after Xie et al., 2025): text included\n") in card
    assert ("- `cflue`: [CC BY-NC-SA 4.0](https://creativecommons.org/licenses/by-nc-sa/4.0/), the CFLUE authors "
            "(Zhu et al., 2024), https://github.com/aliyun/cflue: questions and gold text left out (non-commercial "
            "and share-alike terms a release under another licence cannot honour); scores and model outputs "
            "included\n") in card


@pytest.mark.parametrize("redistribute, included, why, state", [
    (True, False, "", "text included"),
    (False, True, "", "text included"),
    (False, False, "", "questions and gold text left out (not redistributable); scores and model outputs included"),
    (False, False, "terms", "questions and gold text left out (terms); scores and model outputs included"),
])
def test_rule_each_tasks_licence_line_says_whether_its_text_is_in_the_release(redistribute, included, why, state):
    lic = pub.DataLicense("x", "id", "Name", "https://u", "holder", redistribute, why)
    assert pub._licence_lines(pub.Withheld({"x": lic}, {"x": 1}, included)) == \
        f"- `x`: [Name](https://u), holder: {state}\n"


@pytest.mark.parametrize("redistribute, included, samples, ids", [
    (True, False, 0, ["mit", "id"]),      # a redistributable task's licence: always listed
    (False, False, 1, ["mit"]),           # left out: not held
    (False, True, 1, ["mit", "id"]),      # included as asked: held
    (False, True, 0, ["mit"]),            # asked, but no sample of it: not held
])
def test_rule_the_card_lists_the_licence_of_every_task_text_the_release_holds(redistribute, included, samples, ids):
    lic = pub.DataLicense("x", "id", "Name", "https://u", "holder", redistribute)
    assert pub.card_licenses(pub.Withheld({"x": lic}, {"x": samples}, included)) == ids


# -- publishing to a folder ----------------------------------------------------------------------------

def test_rule_publishing_to_a_folder_writes_the_site_and_the_release_and_records_both(tmp_path):
    where, withheld = pub.publish(_built(), str(tmp_path / "site"))
    release = tmp_path / "site" / "data" / "b-v3.1.0-2026-12-05"
    assert where == str(release) and (tmp_path / "site" / "index.html").is_file()
    marker = json.loads((tmp_path / "site" / ".finchain-leaderboard.json").read_text("utf-8"))
    assert "index.html" in marker["files"] and "data/b-v3.1.0-2026-12-05/README.md" in marker["files"]
    assert withheld.samples == {"cflue": 2} and withheld.included is False
    assert pd.read_parquet(release / "samples.parquet").query("task == 'cflue'")["question"].isna().all()


@pytest.mark.parametrize("allow", [False, True])
def test_rule_publishing_into_a_folder_of_someone_elses_needs_the_flag(tmp_path, allow):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "theirs.txt").write_text("x", encoding="utf-8")
    if allow:
        pub.publish(_built(), str(tmp_path / "site"), allow_foreign=True)
        assert (tmp_path / "site" / "theirs.txt").is_file() and (tmp_path / "site" / "index.html").is_file()
    else:
        with pytest.raises(ValueError, match="is not empty"):
            pub.publish(_built(), str(tmp_path / "site"))


def test_rule_a_board_name_that_cannot_name_a_folder_fails_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="cannot name a release folder"):
        pub.publish(_built(name="a/b"), str(tmp_path / "site"))
    assert not (tmp_path / "site").exists()


def test_rule_an_hf_upload_creates_the_dataset_and_uploads_the_release_under_its_name(monkeypatch, tmp_path):
    import huggingface_hub

    calls = []

    class Api:
        def create_repo(self, repo, **kw):
            calls.append(("create", repo, kw))

        def upload_folder(self, **kw):
            calls.append(("upload", sorted(p.name for p in Path(kw.pop("folder_path")).iterdir()), kw))

    monkeypatch.setattr(huggingface_hub, "HfApi", Api)
    release = pub.write_release(_built(), tmp_path)
    assert pub.upload_hf(release, "o/n") == "hf:o/n/b-v3.1.0-2026-12-05"
    assert calls == [("create", "o/n", {"repo_type": "dataset", "exist_ok": True}),
                     ("upload", sorted(p.name for p in release.iterdir()),
                      {"repo_id": "o/n", "repo_type": "dataset", "path_in_repo": "b-v3.1.0-2026-12-05",
                       "commit_message": "leaderboard release b-v3.1.0-2026-12-05"})]


CARD_FILES = (
    "- `leaderboard.csv` / `leaderboard.json`: one row per model × harness × task, means with 95% template-bootstrap "
    "intervals, per-sample intervals, tie groups, rank intervals (`rank_low`-`rank_high`), `partial` coverage\n"
    "- `samples.parquet`: every sample of every model (scores, tokens, cost, output)\n"
    "- `reported.json`: figures published by others, reported, not reproduced\n"
    "- `leaderboard.tex`: a LaTeX table\n\n"
    "## Licences\n\nThe tables and scores: MIT (finchain-tasks). Each task's data keeps its own licence:\n\n"
    "- `finchain`: [MIT](https://opensource.org/license/mit), finchain-tasks (problems generated by this "
    "package's templates, after Xie et al., 2025): text included\n")


def test_rule_the_card_says_what_each_file_of_the_release_holds(tmp_path):
    plain = _built(tasks=("finchain",))
    built = replace(plain, board=replace(plain.board, title="Tâble"))
    card = (pub.write_release(built, tmp_path) / "README.md").read_text("utf-8")
    assert card == ('---\nlicense: mit\npretty_name: "Tâble"\n---\n# Tâble\n\nData release of the `b` leaderboard, '
                    "made by finchain-tasks 3.1.0 on 2026-12-05T00:00:00+00:00.\n\n" + CARD_FILES)


def test_rule_a_release_written_with_its_text_names_the_licence_of_every_text_it_holds(tmp_path):
    built = _built(tasks=("finchain", "cflue", "cflue_application"))
    assert _card_meta(pub.write_release(built, tmp_path)) == {  # one id per licence, however many tasks share it
        "license": ["mit", "cc-by-nc-sa-4.0"], "pretty_name": "T"}


def test_rule_the_release_json_files_are_indented_utf8_json_and_odd_values_are_text(tmp_path):
    import datetime

    reported = {"rows": [{"name": "Modèle"}], "sources": {}}
    block = {"source": "src", "status": "reported", "metrics": ["chaineval"], "when": datetime.date(2026, 1, 2),
             "rows": [{**_row(display_name="Modèle"), "reported_name": "R", "published": {}, "delta": {}}]}
    built = _built(reported=reported, reported_samples=[block], when=datetime.date(2026, 1, 2))
    out = pub.write_release(built, tmp_path)
    payload = {k: v for k, v in built.payload.items() if k not in ("reported", "reported_samples")}
    assert (out / "leaderboard.json").read_text("utf-8") == json.dumps(payload, indent=2, default=str)
    assert (out / "reported.json").read_text("utf-8") == json.dumps(reported, indent=2, ensure_ascii=False)
    assert (out / "reported_samples.json").read_text("utf-8") == json.dumps([block], indent=2, ensure_ascii=False,
                                                                             default=str)
    assert '"when": "2026-01-02"' in (out / "leaderboard.json").read_text("utf-8")


def test_rule_the_samples_file_holds_the_samples_columns_only(tmp_path):
    import pyarrow.parquet as pq

    out = pub.write_release(_built(), tmp_path)
    assert pq.read_schema(out / "samples.parquet").names == ["task", "sample_id", "model", "chaineval", *TEXT]


def test_rule_publishing_a_release_again_replaces_it_raw_copies_included(tmp_path):
    src = tmp_path / "run1"
    src.mkdir()
    (src / "run.json").write_text("1", encoding="utf-8")
    first = pub.write_release(_built(), tmp_path / "pub", include_raw=True, sources=(src,))
    (src / "run.json").write_text("2", encoding="utf-8")
    again = pub.write_release(_built(), tmp_path / "pub", include_raw=True, sources=(src,))
    assert again == first and (again / "raw" / "run1" / "run.json").read_text("utf-8") == "2"


# -- rules found by mutation testing (issue 39): encodings, defaults, the hf path's arguments ----------------

@pytest.fixture
def latin1_locale(monkeypatch):
    """A machine whose locale codec is not UTF-8 (as on Windows): text opened without an encoding uses Latin-1."""
    import io

    real = io.text_encoding
    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: real(encoding or "latin-1"))


WIDE = "Modèle 中"  # a name whose UTF-8 bytes Latin-1 cannot write


def test_rule_every_text_file_of_a_release_is_utf8_whatever_the_locale(tmp_path, latin1_locale):
    block = {"source": "src", "status": "reported", "metrics": ["chaineval"],
             "rows": [{**_row(display_name=WIDE), "reported_name": WIDE, "published": {}, "delta": {}}]}
    plain = _built(rows=[_row(display_name=WIDE)], reported={"rows": [{"name": WIDE}], "sources": {}},
                   reported_samples=[block])
    out = pub.write_release(replace(plain, board=replace(plain.board, title=WIDE)), tmp_path)
    for name in ("leaderboard.csv", "reported.json", "reported_samples.csv", "reported_samples.json",
                 "leaderboard.tex", "README.md"):
        assert WIDE in (out / name).read_bytes().decode("utf-8"), name


def test_rule_the_licence_record_is_read_as_utf8_and_names_its_task(tmp_path, latin1_locale):
    path = tmp_path / "licenses.yaml"
    path.write_text("tasks:\n  t:\n    license: id\n    name: Nom\n    url: https://u\n    holder: Zhū 中\n"
                    "    redistribute: true\n", encoding="utf-8")
    lic = pub.data_licenses(("t",), path)["t"]
    assert (lic.task, lic.holder) == ("t", "Zhū 中")
    assert {t: lic.task for t, lic in pub.data_licenses(("finchain", "cflue")).items()} == {
        "finchain": "finchain", "cflue": "cflue"}


def test_rule_withheld_text_is_none_not_nan():  # None is JSON's null on the site; NaN is not JSON
    frame = pub.withhold_text(_built())[0].frame
    for column in pub.TEXT_COLUMNS:
        assert all(v is None for v in frame.loc[frame["task"] == "cflue", column]), column


def test_rule_several_included_restricted_tasks_are_listed_in_name_order():
    lic = pub.data_licenses(("cflue", "cflue_application"))
    assert pub.Withheld(lic, {"cflue_application": 3, "cflue": 1}, True).line() == (
        "included, as asked: question and gold text of 1 cflue sample(s) (CC BY-NC-SA 4.0), 3 cflue_application "
        "sample(s) (CC BY-NC-SA 4.0); the release carries that licence (see its README)")


def test_rule_a_refused_board_name_says_which_characters_a_name_may_hold():
    with pytest.raises(ValueError, match="^" + re.escape(
            "board name 'a/b' cannot name a release folder: use letters, digits, '.', '_' and '-' only") + "$"):
        pub.release_name(_built(name="a/b"))


def test_rule_a_release_folder_that_a_link_leads_elsewhere_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "b-v3.1.0-2026-12-05").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="^" + re.escape(
            f"release folder 'b-v3.1.0-2026-12-05' would lie outside {tmp_path / 'pub'}") + "$"):
        pub.write_release(_built(), tmp_path / "pub")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_rule_each_tasks_licence_line_is_its_own_line_on_the_card(tmp_path):
    lic = pub.data_licenses(("finchain", "cflue"))
    lines = pub._licence_lines(pub.Withheld(lic, {"cflue": 2}, True)).splitlines(keepends=True)
    assert [line[:12] for line in lines] == ["- `finchain`", "- `cflue`: ["]
    assert all(line.endswith(": text included\n") for line in lines)


def test_rule_a_cards_licence_list_is_one_yaml_item_per_line(tmp_path):
    card = (pub.write_release(_built(), tmp_path) / "README.md").read_text("utf-8")
    assert card.startswith("---\nlicense: \n- mit\n- cc-by-nc-sa-4.0\npretty_name: \"T\"\n---\n")


def test_rule_the_card_says_what_the_reported_samples_files_hold(tmp_path):
    block = {"source": "src", "status": "reported", "metrics": ["chaineval"],
             "rows": [{**_row(), "reported_name": "R", "published": {}, "delta": {}}]}
    card = (pub.write_release(_built(reported_samples=[block]), tmp_path) / "README.md").read_text("utf-8")
    assert ("- `reported.json`: figures published by others, reported, not reproduced\n"
            "- `reported_samples.csv` / `reported_samples.json`: per-sample results published by others (reported, "
            "not reproduced), with intervals, tie groups and rank intervals computed among themselves, and the means "
            "their source published\n- `leaderboard.tex`: a LaTeX table\n") in card


def test_rule_the_samples_file_never_holds_the_frames_index(tmp_path):
    import pyarrow.parquet as pq

    plain = _built()
    built = replace(plain, frame=plain.frame.iloc[[3, 1]])  # a filtered frame keeps its old row labels
    out = pub.write_release(built, tmp_path)
    assert pq.ParquetFile(out / "samples.parquet").schema_arrow.names == ["task", "sample_id", "model", "chaineval",
                                                                          *TEXT]
    assert pd.read_parquet(out / "samples.parquet").index.tolist() == [0, 1]  # no stored labels to read back


@pytest.mark.parametrize("target", ["folder", "hf"])
@pytest.mark.parametrize("raw", [None, False, True])  # None: publish's default
def test_rule_publish_copies_raw_material_only_when_asked_and_withholds_restricted_text_either_way(
        monkeypatch, tmp_path, target, raw):
    import shutil

    src = tmp_path / "run1"
    src.mkdir()
    (src / "run.json").write_text("1", encoding="utf-8")
    kept = tmp_path / "uploaded"

    def upload(release, repo):
        shutil.copytree(release, kept / release.name)
        return f"hf:{repo}"

    monkeypatch.setattr(pub, "upload_hf", upload)
    extra = {} if raw is None else {"include_raw": raw}
    pub.publish(_built(), "hf:o/n" if target == "hf" else str(tmp_path / "site"), sources=(src,), **extra)
    out = (kept if target == "hf" else tmp_path / "site" / "data") / "b-v3.1.0-2026-12-05"
    assert (out / "raw" / "run1" / "run.json").is_file() is bool(raw)
    assert ("source" in pd.read_parquet(out / "samples.parquet").columns) is bool(raw)
    assert "- `cflue`: " in (card := (out / "README.md").read_text("utf-8"))
    assert "questions and gold text left out" in card


def test_rule_every_recorded_licence_id_is_a_lowercase_hub_id():
    # the card's YAML list is built from these ids as they are (no quoting, no trimming)
    ids = [t["license"] for t in yaml.safe_load(pub.LICENSES.read_text("utf-8"))["tasks"].values()]
    assert ids and all(re.fullmatch(r"[a-z0-9][a-z0-9.-]*", i) for i in [pub.PROJECT_LICENSE, *ids]), ids
