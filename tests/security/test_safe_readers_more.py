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
