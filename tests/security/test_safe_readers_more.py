"""The readers issue 40.3 named after the first round, each on the hostile files that apply to it: a FIFO or a link
to a device where a file is expected (refused in one line, never blocking: every such case runs under an alarm),
a link out of the folder a reader walks (skipped and listed, the rest read), a field of the wrong type and a
nesting bomb (one line naming the file, never a TypeError, AttributeError or RecursionError traceback)."""

from __future__ import annotations

import json
import os

import pytest

from tests.security.test_safe_readers import deadline

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")

BOMB = "[" * 100_000 + "]" * 100_000


# ------------------------------------------------------------------------------ finchain bon: run folders
def _pool(cluster: str = "c") -> dict:
    return {"cluster": cluster, "prm": "hf:/p:dual", "question": "q",
            "candidates": [{"text": "Final answer: 4", "key": "4", "correct": True, "chaineval": 1.0, "reward": 0.5}]}


def _bon_line(record) -> str:
    return json.dumps({"doc_id": 0, "filtered_resps": [record if isinstance(record, str) else json.dumps(record)]})


@pytest.fixture
def bon_run(tmp_path):
    run = tmp_path / "run"
    (run / "m").mkdir(parents=True)
    (run / "m" / "samples_finchain_bon_a.jsonl").write_text(_bon_line(_pool("inside")) + "\n", encoding="utf-8")
    return run


def test_bon_reads_no_fifo_device_or_link_out_of_its_run_folder_and_lists_them(bon_run, tmp_path):
    from finchain_tasks.prm.runs import load_pools

    (tmp_path / "outside.jsonl").write_text(_bon_line(_pool("outside")) + "\n", encoding="utf-8")
    (bon_run / "m" / "samples_finchain_bon_out.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (bon_run / "m" / "samples_finchain_bon_zero.jsonl").symlink_to("/dev/zero")
    os.mkfifo(bon_run / "m" / "samples_finchain_bon_fifo.jsonl")
    skipped: list = []
    with deadline():
        pools, _ = load_pools(bon_run, skipped=skipped)
    assert [p.cluster for p in pools] == ["inside"]
    assert sorted((p.name, why.split(" (")[0]) for p, why in skipped) == [
        ("samples_finchain_bon_fifo.jsonl", "a FIFO"), ("samples_finchain_bon_out.jsonl", "a link out of the folder"),
        ("samples_finchain_bon_zero.jsonl", "a link out of the folder")]


@pytest.mark.parametrize("make", ["fifo", "link"])
def test_bon_refuses_a_cache_that_is_a_fifo_or_a_link_instead_of_blocking_or_writing_through_it(bon_run, tmp_path,
                                                                                                make):
    from finchain_tasks.prm.runs import CACHE_FILE, load_pools

    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me", encoding="utf-8")
    os.mkfifo(bon_run / CACHE_FILE) if make == "fifo" else (bon_run / CACHE_FILE).symlink_to(target)
    with deadline(), pytest.raises(ValueError, match=f"{CACHE_FILE}: a (FIFO|link)") as err:
        load_pools(bon_run)
    assert "\n" not in str(err.value) and target.read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize(("line", "field"), [
    ("[1, 2]", "sample: expected a mapping, got a list"),
    ('{"filtered_resps": "x"}', "filtered_resps: expected a list, got a string"),
    (_bon_line({**_pool(), "candidates": "x"}), "candidates: expected a list, got a string"),
    (_bon_line({**_pool(), "candidates": ["x"]}), "candidate: expected a mapping, got a string"),
    (_bon_line({**_pool(), "candidates": [{"reward": "0.5"}]}), "candidate reward: expected a whole number or"),
    (_bon_line({**_pool(), "prm": ["a"]}), "prm: expected a string, got a list"),
    (_bon_line('{"candidates": ' + BOMB + "}"), "filtered_resps: nested too deeply"),
    (BOMB, ":1: nested too deeply"),
])
def test_rule_bon_names_the_file_and_field_of_a_wrong_typed_or_bombed_sample(bon_run, line, field):
    from finchain_tasks.prm.runs import load_pools

    path = bon_run / "m" / "samples_finchain_bon_a.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_pools(bon_run)
    assert str(err.value).startswith(str(path)) and field in str(err.value) and "\n" not in str(err.value)


def test_bon_reads_again_over_a_damaged_cache(bon_run):
    from finchain_tasks.prm.runs import CACHE_FILE, _stamp, find_sources, load_pools

    stamp = _stamp(find_sources(bon_run))
    (bon_run / CACHE_FILE).write_text(json.dumps({"sources": stamp, "pools": [{"c": "x"}]}), encoding="utf-8")
    pools, _ = load_pools(bon_run)
    assert [p.cluster for p in pools] == ["inside"]


# ------------------------------------------------------------------------------ prm label / select candidates
def test_prm_candidates_from_a_fifo_or_a_device_link_are_refused_at_once(tmp_path):
    from finchain_tasks.prm.labeling import read_items

    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "null.jsonl").symlink_to("/dev/null")
    for name, kind in (("fifo.jsonl", "a FIFO"), ("null.jsonl", "a character device")):
        with deadline(), pytest.raises(ValueError, match=f"{name}: {kind}, not a regular file"):
            read_items(tmp_path / name)


def test_prm_candidates_of_a_run_folder_never_come_through_a_link_out_of_it(tmp_path):
    from finchain_tasks.prm.labeling import read_items

    line = json.dumps({"doc": {"id": "d", "question": "q", "answer": 4}, "resps": [["Final answer: 4"]]})
    (tmp_path / "run" / "m").mkdir(parents=True)
    (tmp_path / "run" / "m" / "samples_a.jsonl").write_text(line + "\n", encoding="utf-8")
    (tmp_path / "outside.jsonl").write_text(line.replace('"d"', '"outside"') + "\n", encoding="utf-8")
    (tmp_path / "run" / "m" / "samples_out.jsonl").symlink_to(tmp_path / "outside.jsonl")
    os.mkfifo(tmp_path / "run" / "m" / "samples_fifo.jsonl")
    skipped: list = []
    with deadline():
        items = read_items(tmp_path / "run", skipped)
    assert [i.id.split("#")[0] for i in items] == ["d"]
    assert sorted(p.name for p, _ in skipped) == ["samples_fifo.jsonl", "samples_out.jsonl"]


@pytest.mark.parametrize(("row", "message"), [
    ('{"question": "q", "output": ["x"]}', ":1: output: expected a string or null, got a list"),
    ('{"problem_id": 5}', ":1: problem_id: expected a string, got a whole number"),
    ('{"output": "x", "gold_solution": 5}', ":1: gold_solution: expected a string or null, got a whole number"),
    ('{"output": "x", "knowledge": 5}', ":1: knowledge: expected a list or null, got a whole number"),
    ('{"output": "x", "steps": [{"a": 1}]}', ":1: steps item: expected a string, got a mapping"),
    (BOMB, ":1: nested too deeply to be read"),
])
def test_rule_a_wrong_typed_or_bombed_candidate_is_one_line_naming_file_line_and_field(tmp_path, row, message):
    from finchain_tasks.prm.labeling import read_items
    from finchain_tasks.scale.jobs import LabelJob

    path = tmp_path / "cands.jsonl"
    path.write_text(row + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_items(path)
    assert str(err.value) == f"{path}{message}"
    with pytest.raises(ValueError) as err:  # the same rows as a --ray block
        LabelJob(str(path), "exact").run((None, None), [(1, row.encode())])
    assert str(err.value) == f"{path}{message}"


# ------------------------------------------------------------------------------ finchain score and --ray blocks
def test_score_input_and_ray_blocks_refuse_a_fifo_or_a_device_link(tmp_path):
    from finchain_tasks.runs.score_file import count_rows, read_blocks
    from finchain_tasks.scale.ray_map import plan_blocks

    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "null.jsonl").symlink_to("/dev/null")
    readers = {"count_rows": count_rows, "read_blocks": lambda p: list(read_blocks(p)),
               "plan_blocks": lambda p: list(plan_blocks(p, 10))}
    for name, kind in (("fifo.jsonl", "a FIFO"), ("null.jsonl", "a character device")):
        for reader in readers.values():
            with deadline(), pytest.raises(ValueError, match=f"{name}: {kind}, not a regular file"):
                reader(tmp_path / name)


# ------------------------------------------------------------------------------ finchain-lm-eval --config, scrub
@pytest.mark.parametrize(("text", "message"), [
    ("- model_args\n", "the file: expected a mapping, got a list"),
    ("[" * 800 + "]" * 800, "nested too deeply to be read"),
    ("model_args: [\n", "not valid YAML"),
])
def test_rule_a_bad_lm_eval_config_file_is_one_line_naming_it(tmp_path, text, message):
    from types import SimpleNamespace

    from finchain_tasks.lm_eval.cli import secret_values

    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        secret_values(SimpleNamespace(model_args=None, metadata=None, config=str(path)))
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)


def test_lm_eval_config_fifo_is_refused_and_scrub_never_writes_out_of_the_output_folder(tmp_path):
    from types import SimpleNamespace

    from finchain_tasks.lm_eval.cli import _snapshot, scrub, secret_values

    os.mkfifo(tmp_path / "config.yaml")
    with deadline(), pytest.raises(ValueError, match="config.yaml: a FIFO, not a regular file"):
        secret_values(SimpleNamespace(model_args=None, metadata=None, config=str(tmp_path / "config.yaml")))
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(out)
    (tmp_path / "elsewhere.txt").write_text("key sk-secret-1234 kept", encoding="utf-8")
    (out / "linked.json").symlink_to(tmp_path / "elsewhere.txt")
    (out / "results.json").write_text('{"k": "sk-secret-1234"}', encoding="utf-8")
    os.mkfifo(out / "samples.jsonl")
    with deadline():
        touched = scrub(out, before, {"sk-secret-1234"})
    assert [p.name for p in touched] == ["results.json"]
    assert (tmp_path / "elsewhere.txt").read_text(encoding="utf-8") == "key sk-secret-1234 kept"


# ------------------------------------------------------------------------------ finchain explore --export-space
@pytest.mark.parametrize("make", ["fifo", "link"])
def test_a_space_export_refuses_a_fifo_or_a_link_in_place_of_its_files(tmp_path, make):
    from finchain_tasks.explore.space import HEADER, write_space

    space = tmp_path / "space"
    space.mkdir()
    target = tmp_path / "elsewhere.py"
    target.write_text(HEADER + "\nkept = True\n", encoding="utf-8")  # looks like an earlier export's app.py
    os.mkfifo(space / "app.py") if make == "fifo" else (space / "app.py").symlink_to(target)
    with deadline(), pytest.raises(ValueError, match="app.py exists and was not written by finchain"):
        write_space(space, "git+https://example.org/o/r@v1")
    assert target.read_text(encoding="utf-8") == HEADER + "\nkept = True\n"


# ------------------------------------------------------------------------------ the authors' folder
def _authors_line(**over) -> str:
    row = {"seed": 1, "id": "t", "topic": "d", "subtopic": "s", "level": "basic", "final_answer_match": 1,
           "recall": 0.5, "precision": 0.5, **over}
    return json.dumps(row)


def test_the_authors_evals_skip_a_link_out_and_a_fifo_and_name_a_bomb(tmp_path):
    from finchain_tasks.leaderboard.authors_evals import AuthorsEvalsError, read_authors_evals

    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "m.jsonl").write_text(_authors_line() + "\n", encoding="utf-8")
    (tmp_path / "other.jsonl").write_text(_authors_line(model="other") + "\n", encoding="utf-8")
    (tmp_path / "evals" / "out.jsonl").symlink_to(tmp_path / "other.jsonl")
    os.mkfifo(tmp_path / "evals" / "fifo.jsonl")
    skipped: list = []
    with deadline():
        assert list(read_authors_evals(tmp_path, skipped)) == ["m"]
    assert sorted(p.name for p, _ in skipped) == ["fifo.jsonl", "out.jsonl"]
    (tmp_path / "evals" / "m.jsonl").write_text(BOMB + "\n", encoding="utf-8")
    with pytest.raises(AuthorsEvalsError, match=r"^evals/m.jsonl:1: nested too deeply to be read$"):
        read_authors_evals(tmp_path)


def test_fac_only_skips_a_link_out_of_results_and_names_a_wrong_typed_score(tmp_path):
    from finchain_tasks.reproduce.fac import fac_only

    gen = {"seed": 1, "id": "t", "topic": "d", "subtopic": "s", "level": "basic",
           "solution": "Step 1: 2 + 2 = 4\nFinal answer: 4", "generation": "Step 1: 2 + 2 = 4\nFinal answer: 4"}
    (tmp_path / "results").mkdir()
    (tmp_path / "evals").mkdir()
    (tmp_path / "results" / "m.jsonl").write_text(json.dumps(gen) + "\n", encoding="utf-8")
    (tmp_path / "outside.jsonl").write_text(json.dumps(gen) + "\n", encoding="utf-8")
    (tmp_path / "results" / "x.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (tmp_path / "evals" / "m.jsonl").write_text(_authors_line(final_answer_match="yes") + "\n", encoding="utf-8")
    skipped: list = []
    with pytest.raises(ValueError) as err:
        fac_only(tmp_path, tmp_path / "out", skipped=skipped)
    assert str(err.value) == (f"{tmp_path / 'evals' / 'm.jsonl'}: sample 1/t/d/s/basic: final_answer_match: expected a "
                              "whole number or a number or true or false, got a string")
    assert [p.name for p, _ in skipped] == ["x.jsonl"]


# ------------------------------------------------------------------------------ the sweep: CFLUE outputs, summaries
def test_cflue_predictions_and_a_site_marker_that_are_fifos_never_block(tmp_path):
    from finchain_tasks.cflue.score import read_rows
    from finchain_tasks.cli.cflue_cmd import _records
    from finchain_tasks.leaderboard.site import MARKER, SiteFolderError, claim_folder

    os.mkfifo(tmp_path / "outputs.jsonl")
    for reader in (read_rows, _records):
        with deadline(), pytest.raises(ValueError, match="outputs.jsonl: a FIFO, not a regular file"):
            reader(tmp_path / "outputs.jsonl")
    site = tmp_path / "site"
    site.mkdir()
    os.mkfifo(site / MARKER)
    with deadline(), pytest.raises(SiteFolderError, match="not empty and was not written"):
        claim_folder(site)


def test_a_cflue_predictions_list_nested_too_deeply_is_one_line_naming_it(tmp_path):
    from finchain_tasks.cflue.score import read_rows

    (tmp_path / "outputs.json").write_text(BOMB, encoding="utf-8")
    with pytest.raises(ValueError, match=r"outputs.json: nested too deeply to be read$"):
        read_rows(tmp_path / "outputs.json")


def test_the_run_summary_reads_no_samples_file_through_a_link_out_and_names_a_wrong_typed_doc(tmp_path):
    from finchain_tasks.runs.summary import lm_eval_rows

    folder = tmp_path / "run" / "lm_eval" / "m"
    folder.mkdir(parents=True)
    results = folder / "results_s.json"
    results.write_text("{}", encoding="utf-8")
    line = {"doc": {"id": "inside"}, "metrics": ["chaineval"], "chaineval": 0.5}
    (folder / "samples_finchain_s.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    (tmp_path / "outside.jsonl").write_text(json.dumps({**line, "doc": {"id": "outside"}}) + "\n", encoding="utf-8")
    (folder / "samples_other_s.jsonl").symlink_to(tmp_path / "outside.jsonl")
    assert [r["id"] for r in lm_eval_rows(results)] == ["inside"]
    (folder / "samples_finchain_s.jsonl").write_text(json.dumps({**line, "doc": [1]}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^samples_finchain_s.jsonl:1: doc: expected a mapping, got a list$"):
        lm_eval_rows(results)


@pytest.mark.parametrize("summary", [
    [1, 2], {"results": [{"model": ["m"], "task_set": "t", "completed": 4, "output_tokens": 100}]},
])
def test_a_wrong_typed_earlier_summary_falls_back_to_the_defaults(tmp_path, summary):
    from finchain_tasks.runs.plan import earlier_from_summary

    (tmp_path / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    assert earlier_from_summary(tmp_path, {}) == {}


def test_stored_problems_from_a_fifo_are_refused_at_once(tmp_path):
    from finchain_tasks.finchain.generate import read_problems

    os.mkfifo(tmp_path / "problems.jsonl")
    with deadline(), pytest.raises(ValueError, match="problems.jsonl: a FIFO, not a regular file"):
        list(read_problems(tmp_path / "problems.jsonl"))


def test_reproduce_lists_what_it_skipped_in_the_authors_folder_and_goes_on(tmp_path):
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    gen = {"seed": 1, "id": "t", "topic": "d", "subtopic": "s", "level": "basic",
           "solution": "Step 1: 2 + 2 = 4\nFinal answer: 4", "generation": "Step 1: 2 + 2 = 4\nFinal answer: 4"}
    for folder in ("results", "evals"):
        (tmp_path / folder).mkdir()
    (tmp_path / "results" / "m.jsonl").write_text(json.dumps(gen) + "\n", encoding="utf-8")
    (tmp_path / "evals" / "m.jsonl").write_text(_authors_line() + "\n", encoding="utf-8")
    (tmp_path / "results" / "x.jsonl").symlink_to("/dev/zero")
    with deadline(60):
        result = CliRunner().invoke(app, ["reproduce", "finchain-v1", "--authors", str(tmp_path), "--fac-only",
                                          "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert f"skipped {tmp_path / 'results' / 'x.jsonl'}: a link out of the folder" in result.output
    assert "m: fac agrees on 1/1" in result.output
