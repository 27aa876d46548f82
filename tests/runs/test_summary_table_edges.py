"""The run's tables at their edges (issue 31.18, found by mutation testing): the default width, counts wider
than their headers, the red failure count, a model name longer than the terminal, a terminal narrower than
the tables, and the column budget after a split. The rendering of ordinary runs is pinned line by line in
test_summary_tables.py."""

from __future__ import annotations

from rich.console import Console

from finchain_tasks.runs.summary import _score_chunks, tables
from tests.runs.test_summary_tables import _result

HEADLINE3 = {"chaineval": 0.5, "fac": 0.25, "step_f1": 0.5}


def _render(results: list[dict], width: int = 80, styles: bool = False) -> str:
    console = Console(width=width, record=True, color_system="standard" if styles else None, force_terminal=styles)
    for table in tables({"run_dir": "r", "results": results}, width):
        console.print(table)
    return console.export_text(styles=styles)


def _result_tables(results: list[dict], **width: int) -> int:
    return sum(str(t.title).startswith("FinChain results") for t in tables({"run_dir": "r", "results": results},
                                                                           **width))


def test_the_tables_fit_80_columns_unless_told_otherwise():
    # 11 + 8 + 9 + 12 = 40 columns of scores: one more than the 39 left at 80 columns, as many as at 81
    wide = [_result("m", scores={**HEADLINE3, "x" * 10: 0.5}, stats={})]
    assert (_result_tables(wide), _result_tables(wide, width=81)) == (2, 1)


def test_done_and_failed_counts_wider_than_their_headers_leave_less_room_for_scores():
    scores = {**HEADLINE3, "x" * 7: 0.5}  # 11 + 8 + 9 + 9 = 37 columns: fits 39, not 34
    assert _result_tables([_result("m", scores=scores, stats={})]) == 1
    assert _result_tables([_result("m", scores=scores, stats={}, completed=1000, requested=1000)]) == 2  # 9 > 4
    scores = {**HEADLINE3, "x" * 9: 0.5}  # 11 + 8 + 9 + 11 = 39 columns: fits 39, not 38
    assert _result_tables([_result("m", scores=scores, stats={})]) == 1
    # 999,999 failed + 1 missing = 1000000: 7 characters, one more than "failed"
    assert _result_tables([_result("m", scores=scores, stats={}, failed=999_999, missing=["a#1"])]) == 2


def test_after_a_split_each_table_has_the_whole_room_for_its_columns():
    fixed = ["done", "failed"]  # room: 39; a column costs max(name, 6) + 2
    assert _score_chunks(["x" * 37, "a" * 9, "b" * 9, "c" * 7, "d"], 80, fixed) == [
        ["x" * 37], ["a" * 9, "b" * 9, "c" * 7, "d"]]  # 11 + 11 + 9 + 8 = 39


def test_a_failure_count_is_red_only_where_something_failed_or_is_missing():
    out = _render([_result("ok"), _result("gap", missing=["a#1"]), _result("bad", failed=2)], styles=True)
    red = "\x1b[31m"
    lines = {line.split(" · ")[0].lstrip("│"): line for line in out.splitlines() if "│ 2/2 │" in line}
    assert red not in lines["ok"] and f"{red}1\x1b[0m" in lines["gap"] and f"{red}2\x1b[0m" in lines["bad"]


LONG = "an-organisation-with-a-long-name/a-model-name-that-is-longer-still-v2"
EXPECTED_LONG = """\
FinChain results (r)
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━┳━━━━━━━┳━━━━━━━━━━┳━━━━━┓
┃model · task                                   ┃done ┃failed ┃chaineval ┃  fac┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━╇━━━━━━━╇━━━━━━━━━━╇━━━━━┩
│an-organisation-with-a-long-name/a-model-name- │ 2/2 │     0 │    0.500 │0.250│
│that-is-longer-still-v2 · finchain             │     │       │   ±0.050 │     │
└───────────────────────────────────────────────┴─────┴───────┴──────────┴─────┘
               mean ±standard error; 95% intervals in the report
Resources
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━┓
┃model · task                                   ┃tokens in/out ┃   cost ┃wall s┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━┩
│an-organisation-with-a-long-name/a-model-name- │     1200/340 │$0.0123 │  12.3│
│that-is-longer-still-v2 · finchain             │              │        │      │
└───────────────────────────────────────────────┴──────────────┴────────┴──────┘
ChainEval by domain
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━┳━━━┳━━━━━━━━━┓
┃model · task                                           ┃domain  ┃ n ┃chaineval┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━╇━━━╇━━━━━━━━━┩
│an-organisation-with-a-long-name/a-model-name-that-is- │banking │12 │    0.500│
│longer-still-v2 · finchain                             │        │   │         │
└───────────────────────────────────────────────────────┴────────┴───┴─────────┘
"""


def test_a_model_name_longer_than_its_column_folds_whole_and_counts_stay_right_aligned():
    out = _render([_result(LONG, by_domain={"banking": {"n": 12, "chaineval": 0.5}})])
    assert [line.rstrip() for line in out.splitlines()] == EXPECTED_LONG.splitlines()


def test_on_a_narrow_terminal_headers_and_score_cells_stay_whole():
    out = _render([_result(LONG)], width=40)
    heads = [line for line in out.splitlines() if line.startswith("┃")]
    assert heads and all("model · task" in line for line in heads)
    assert "±0.050" in out and "0.500" in out
