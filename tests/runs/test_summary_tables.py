"""The run's tables at 80 columns, cell by cell (issue 31.18, found by mutation testing): the titles, the
headers, each cell's text and alignment, the red failure count, the split of score columns into numbered
tables, and the by-domain and by-level tables. The expected text below was read line by line against the
summary it renders; a change to any of it is a visible change to `finchain eval`'s output."""

from __future__ import annotations

from rich.console import Console

from finchain_tasks.runs.summary import tables


def _stat(mean: float, se: float) -> dict:
    return {"n": 2, "mean": mean, "stderr": se, "ci95": [mean - 1.96 * se, mean + 1.96 * se]}


def _result(model: str, **extra) -> dict:
    result = {"model": model, "task_set": "finchain", "requested": 2, "completed": 2, "failed": 0, "missing": [],
              "scores": {"chaineval": 0.5, "fac": 0.25}, "stats": {"chaineval": _stat(0.5, 0.05)},
              "by_domain": {}, "by_level": {}, "input_tokens": 1200, "output_tokens": 340, "cost_usd": 0.01234,
              "wall_s": 12.345}
    return {**result, **extra}


def _render(results: list[dict], width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None)
    for table in tables({"run_dir": "runs/r1", "results": results}, width):
        console.print(table)
    return console.export_text()


EXPECTED = """\
FinChain results (runs/r1)
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━┳━━━━━━━┳━━━━━━━━━━┳━━━━━┓
┃model · task         ┃done ┃failed ┃chaineval ┃  fac┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━╇━━━━━━━╇━━━━━━━━━━╇━━━━━┩
│m1 · finchain        │ 2/2 │     0 │    0.500 │0.250│
│                     │     │       │   ±0.050 │     │
│[b]m2[/b] · finchain │ 1/2 │     2 │    0.750 │    -│
│                     │     │       │   ±0.050 │     │
└─────────────────────┴─────┴───────┴──────────┴─────┘
  mean ±standard error; 95% intervals in the report
Resources
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━┓
┃model · task         ┃tokens in/out ┃           cost ┃wall s┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━┩
│m1 · finchain        │     1200/340 │        $0.0123 │  12.3│
│[b]m2[/b] · finchain │      unknown │unknown (batch) │     -│
└─────────────────────┴──────────────┴────────────────┴──────┘
ChainEval by domain
┏━━━━━━━━━━━━━━┳━━━━━━━━┳━━┳━━━━━━━━━┓
┃model · task  ┃domain  ┃n ┃chaineval┃
┡━━━━━━━━━━━━━━╇━━━━━━━━╇━━╇━━━━━━━━━┩
│m1 · finchain │banking │2 │    0.500│
└──────────────┴────────┴──┴─────────┘
ChainEval by level
┏━━━━━━━━━━━━━━┳━━━━━━┳━━┳━━━━━━━━━┓
┃model · task  ┃level ┃n ┃chaineval┃
┡━━━━━━━━━━━━━━╇━━━━━━╇━━╇━━━━━━━━━┩
│m1 · finchain │easy  │1 │    0.250│
│m1 · finchain │hard  │1 │        -│
└──────────────┴──────┴──┴─────────┘
"""


def test_results_resources_and_group_tables_read_cell_by_cell():
    results = [_result("m1", by_domain={"banking": {"n": 2, "chaineval": 0.5}},
                       by_level={"easy": {"n": 1, "chaineval": 0.25}, "hard": {"n": 1, "chaineval": None}}),
               _result("[b]m2[/b]", completed=1, failed=1, missing=["x"], input_tokens=None, cost_usd=None,
                       batch=True, wall_s=None, scores={"chaineval": 0.75})]
    assert [line.rstrip() for line in _render(results).splitlines()] == EXPECTED.splitlines()


def test_score_columns_that_do_not_fit_go_to_numbered_tables_each_with_the_model():
    from finchain_tasks.runs.summary import _score_chunks

    fixed = ["done", "failed"]
    # room at 80 columns: 80 - 1 - (24 + 2) - (4 + 2) - (6 + 2) = 39; a column costs max(name, 6) + 2
    assert _score_chunks(["chaineval", "fac", "step_f1", "x" * 9], 80, fixed) == [["chaineval", "fac", "step_f1",
                                                                                   "x" * 9]]  # 11+8+9+11 = 39
    assert _score_chunks(["chaineval", "fac", "step_f1", "x" * 10], 80, fixed) == [["chaineval", "fac", "step_f1"],
                                                                                   ["x" * 10]]  # 40 > 39
    assert _score_chunks(["chaineval", "fac", "step_f1", "x" * 10], 81, fixed) == [["chaineval", "fac", "step_f1",
                                                                                    "x" * 10]]
    assert _score_chunks(["y" * 60, "fac"], 80, fixed) == [["y" * 60], ["fac"]]  # wider than the room: alone
    assert _score_chunks([], 80, fixed) == [[]]
    keys = ["chaineval", "fac", "step_f1", "accuracy", "answer_f1", "rouge_l"]
    out = _render([_result("m1", scores={k: 0.5 for k in keys}, stats={})])
    assert all(len(line) <= 80 for line in out.splitlines())
    titles = [line.rstrip() for line in out.splitlines() if line.startswith("FinChain results")]
    assert titles == ["FinChain results 1/2 (runs/r1)", "FinChain results 2/2 (runs/r1)"]
    heads = [line for line in out.splitlines() if line.startswith("┃model")]
    assert heads[0].replace(" ", "") == "┃model·task┃done┃failed┃chaineval┃fac┃step_f1┃accuracy┃"
    assert heads[1].replace(" ", "") == "┃model·task┃done┃failed┃answer_f1┃rouge_l┃"
