"""A model answer holding U+2028, U+2029, NEL, form feed or another character ``str.splitlines`` splits at
tears no JSONL record apart (issue 33.1): the bench summary, the leaderboard's ingest and the PRM readers
read lm-eval's samples files whole."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from finchain_tasks.plumbing.jsonl import jsonl_lines

SEPARATORS = "\u2028\u2029\x85\x0c\x0b\x1c\x1d\x1e"


@given(st.lists(st.text(alphabet=st.sampled_from(list(SEPARATORS) + list("ab \n\r\"\\")), max_size=12),
                max_size=5))
def test_every_record_comes_back_whole(texts):
    text = "".join(json.dumps({"resp": t}, ensure_ascii=False) + "\n" for t in texts)
    assert [json.loads(line)["resp"] for _, line in jsonl_lines(text)] == texts


def test_crlf_and_blank_lines_and_line_numbers():
    assert list(jsonl_lines('{"a": 1}\r\n\n  \n{"b": "\u2028"}')) == [(1, '{"a": 1}'), (4, '{"b": "\u2028"}')]


def _samples(tmp_path, answer: str):
    """A results file and its samples file, as lm-eval writes them (json.dumps, ensure_ascii=False)."""
    folder = tmp_path / "lm_eval" / "m" / "ts"
    folder.mkdir(parents=True)
    results = folder / "results_2026-01-01T00-00-00.json"
    results.write_text(json.dumps({"results": {}, "configs": {}}))
    rows = [{"doc_id": k, "doc": {"id": f"finchain/d/t/x/{k}", "domain": "d", "level": "easy"},
             "resps": [[answer]], "filtered_resps": [answer], "metrics": ["chaineval"], "chaineval": 0.5}
            for k in range(3)]
    (folder / "samples_finchain_d_easy_2026-01-01T00-00-00.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return results


def test_the_bench_summary_reads_answers_with_every_separator(tmp_path):
    from finchain_tasks.runs.summary import lm_eval_rows

    rows = lm_eval_rows(_samples(tmp_path, f"Step 1: x{SEPARATORS}y\nFinal answer: 1"))
    assert [r["id"] for r in rows] == [f"finchain/d/t/x/{k}" for k in range(3)]
    assert all(r["scores"] == {"chaineval": 0.5} for r in rows)


def test_the_prm_pool_reader_reads_answers_with_every_separator(tmp_path):
    from finchain_tasks.prm.labeling import _lm_eval_rows

    _samples(tmp_path, f"a{SEPARATORS}b")
    rows = _lm_eval_rows(tmp_path)
    assert len(rows) == 3 and all(r["output"] == f"a{SEPARATORS}b" for r in rows)
