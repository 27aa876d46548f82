"""Rules of how ``finchain prm label`` reads its candidates (issue 39): which field of a JSONL row becomes which part
of a candidate and what it defaults to, what a FinChain problem (by id or as a record) brings, the id each candidate
carries, the error a row of the wrong shape gets (one line naming the file, line and field), how Inspect logs (every
sample, epoch and Best-of-N candidate, in sub-folders too) and lm-eval samples (every response) become rows, the
prefix a step's judge reads, and what the labels file holds.

Expected values are written out by hand from the inputs; no model, no server, no subprocess: the Inspect logs are
written once per module with inspect_ai's own log API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finchain_tasks.prm import labeling
from finchain_tasks.prm.labeling import JudgeQualitative, item_from_problem, item_from_row, read_items, read_run_rows
from scorers.chaineval import gold_from_text
from scorers.prm.labels.signals import LabelItem
from scorers.steps import parse_output
from tests.prm_labels.test_labeling_rules import Replies

OUT = "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12"
LEV_Q = "What is the leverage ratio and does it meet the minimum of 3%?"
LEV_SOL = ("Step 1: Leverage ratio = 10 / 200 = 5%\n"
           "Step 2: 5% is above the 3% minimum, so yes, it meets the requirement.")
"""A gold solution whose answer depends on its question: the ratio asked for (5 %), not the verdict alone."""


@pytest.fixture(scope="module")
def problem():
    from finchain_tasks.engine.registry import all_templates

    return next(iter(all_templates().values())).generate(0)


# -- a plain row: each field and its default ------------------------------------------------------------

PLAIN = [
    # every field given
    ({"id": 7, "question": "Q?", "output": OUT, "gold_answer": 12, "gold_unit": "$", "knowledge": ["sum"],
      "reference": "ref", "template": "tpl"}, 3,
     LabelItem("7", "Q?", ("2 + 2 = 4", "4 × 3 = 12"), "12", output=OUT, gold_answer=12, gold_unit="$",
               knowledge=("sum",), reference="ref"), {"template": "tpl"}),
    # only the output: id is the line, no question, no gold, no unit, knowledge or reference
    ({"output": "Step 1: 1 + 1 = 2\nFinal answer: 2"}, 5,
     LabelItem("5", "", ("1 + 1 = 2",), "2", output="Step 1: 1 + 1 = 2\nFinal answer: 2"), {}),
    # steps + final answer without output: the output is written from them
    ({"steps": ["a = 1", "b = 2"], "final_answer": 2}, 1,
     LabelItem("1", "", ("a = 1", "b = 2"), "2", output="Step 1: a = 1\nStep 2: b = 2\nFinal answer: 2"), {}),
    # an empty output is no output
    ({"output": "", "steps": ["a = 1"], "final_answer": "1"}, 1,
     LabelItem("1", "", ("a = 1",), "1", output="Step 1: a = 1\nFinal answer: 1"), {}),
    # steps without a final answer: an empty final-answer line (the parse reads the last step's value)
    ({"steps": ["a = 1"]}, 2, LabelItem("2", "", ("a = 1",), "1", output="Step 1: a = 1\nFinal answer: "), {}),
    # steps and final answer given beside an output win over what the output says
    ({"output": "Step 1: x = 1\nFinal answer: 1", "steps": ["p", "q"], "final_answer": "9"}, 1,
     LabelItem("1", "", ("p", "q"), "9", output="Step 1: x = 1\nFinal answer: 1"), {}),
    # no output and no steps: an empty trace
    ({"question": "Q", "steps": None, "knowledge": None}, 4, LabelItem("4", "Q", (), "", output=""), {}),
]


@pytest.mark.parametrize("row, line, item, meta", PLAIN)
def test_each_field_of_a_plain_row_becomes_its_part_of_the_candidate_else_its_default(row, line, item, meta):
    got = item_from_row(row, line)
    assert got == item and got.meta == meta


def test_a_gold_solution_brings_the_gold_the_question_asks_for_unless_answer_or_unit_is_given():
    gold = gold_from_text(LEV_SOL, question=LEV_Q)
    assert (gold.answer, gold.answer_unit) == (5.0, "%")  # the question's ratio, not the verdict "yes"
    row = {"question": LEV_Q, "output": OUT, "gold_solution": LEV_SOL}
    assert item_from_row(row, 1) == LabelItem("1", LEV_Q, ("2 + 2 = 4", "4 × 3 = 12"), "12", output=OUT,
                                              gold_answer=5.0, gold_unit="%", gold=gold)
    given = item_from_row({**row, "gold_answer": "yes", "gold_unit": ""}, 1)
    assert (given.gold_answer, given.gold_unit, given.gold) == ("yes", "", gold)
    assert item_from_row({**row, "gold_solution": None}, 1).gold is None
    assert item_from_row({**row, "gold_solution": ""}, 1).gold is None


def test_a_row_read_without_a_line_number_is_line_zero():
    assert item_from_row({"output": OUT}).id == "0"


# -- a FinChain problem: by id or as a record ------------------------------------------------------------

def _problem_item(problem, ident, output):
    parsed = parse_output(output)
    gold = problem.gold()
    return LabelItem(ident, problem.question, tuple(s.text for s in parsed.steps), parsed.final_answer_text,
                     output=output, gold_answer=gold.answer, gold_unit=gold.answer_unit, gold=gold,
                     reference=problem.solution)


@pytest.mark.parametrize("how", ["problem_id", "problem"])
@pytest.mark.parametrize("extra, ident, output", [
    ({}, "{pid}#4", ""),                                         # no output: an empty trace, id = problem#line
    ({"id": "c1", "output": OUT}, "c1", OUT),                    # its own output and id
    ({"id": 9, "output": "", "steps": ["a = 1"], "final_answer": 1}, "9", "Step 1: a = 1\nFinal answer: 1"),
    ({"ID": "x", "Id": "y", "output": OUT}, "{pid}#4", OUT),     # only `id` names a candidate
])
def test_a_finchain_problem_brings_question_gold_and_reference_and_the_row_its_output_and_id(
        problem, how, extra, ident, output):
    row = {"problem_id": problem.id} if how == "problem_id" else {"problem": problem.to_dict()}
    got = item_from_row({**row, **extra}, 4)
    assert got == _problem_item(problem, ident.format(pid=problem.id), output)
    assert got.gold_unit == "$" and got.meta == {"problem_id": problem.id, "template": problem.template_id}


@pytest.mark.parametrize("args, ident, output", [
    ((), "{pid}", None), ((None, "gold"), "{pid}#gold", None), ((OUT, "c3"), "{pid}#c3", OUT), ((OUT,), "{pid}", OUT),
])
def test_a_problems_candidate_is_its_output_else_the_gold_solution_and_its_id_carries_the_suffix(
        problem, args, ident, output):
    got = item_from_problem(problem, *args)
    assert got == _problem_item(problem, ident.format(pid=problem.id), output or problem.solution)
    assert got.meta == {"problem_id": problem.id, "template": problem.template_id}


# -- a row of the wrong shape ----------------------------------------------------------------------------

@pytest.mark.parametrize("row, message", [
    ([1], "line 4: a JSON object is expected"),
    ({"question": 5}, "line 4: question: expected a string, got a whole number"),
    ({"steps": ["a", 5]}, "line 4: steps item: expected a string, got a whole number"),
    ({"knowledge": [None]}, "line 4: knowledge item: expected a string, got null"),
])
def test_a_row_of_the_wrong_shape_is_one_error_naming_its_line_and_field(row, message):
    with pytest.raises(ValueError, match=f"^{message}"):
        item_from_row(row, 4)


def test_a_jsonl_line_that_is_not_an_object_is_one_error_naming_the_file_and_line(tmp_path):
    path = tmp_path / "cands.jsonl"
    path.write_text('{"output": "Final answer: 1"}\n[1]\n')
    with pytest.raises(ValueError, match=r"^\S*cands.jsonl:2: a JSON object is expected$"):
        read_items(path)


def test_a_jsonl_row_without_an_id_is_named_by_its_line_in_the_file(tmp_path):
    path = tmp_path / "cands.jsonl"
    path.write_text('{"output": "Final answer: 1"}\n\n{"output": "Final answer: 2"}\n{"id": "k", "output": ""}\n')
    assert [item.id for item in read_items(path)] == ["1", "3", "k"]


# -- the prefix a step's judge reads ---------------------------------------------------------------------

@pytest.mark.parametrize("k, prefix", [
    (0, "Step 1: a = 1"), (1, "Step 1: a = 1\nStep 2: b = 2"), (2, "Step 1: a = 1\nStep 2: b = 2\nStep 3: c = 3"),
])
def test_step_ks_prompt_holds_the_steps_up_to_k_numbered_from_one(k, prefix):
    model = Replies("Score: 1")
    JudgeQualitative(model).qualitative(LabelItem("t", "Q", ("a = 1", "b = 2", "c = 3"), "3"), k)
    assert f"Solution so far:\n{prefix}\n\nJudge only step {k + 1}." in model.prompts[0]


# -- Inspect logs ----------------------------------------------------------------------------------------

FIN = "finchain/d/t/x/0"


def _bon(*candidates):
    from inspect_ai.scorer import Score

    from finchain_tasks.inspect.bon import SCORER

    return {SCORER: Score(value=1, metadata={"bon": {"candidates": list(candidates)}})}


def _samples():
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    def out(text):
        return ModelOutput.from_content("mockllm/model", text)

    return [
        EvalSample(id="s-text", epoch=1, input="Q text", target="", output=out("o1")),  # empty target: no gold
        EvalSample(id="s-chat", epoch=2, target=["a", "b"], output=out("o2"),
                   input=[ChatMessageSystem(content="system"), ChatMessageUser(content="U1"),
                          ChatMessageUser(content="Q last")]),
        EvalSample(id="s-one", epoch=1, input=[ChatMessageUser(content="Q only")], target="7", output=out("o3")),
        EvalSample(id=FIN, epoch=1, input="Q fin", target="gold", output=out("pick"),
                   scores=_bon({"text": "cand 0"}, {"text": None}, {})),
        EvalSample(id="s-nobon", epoch=1, input="Q", target="", output=out("o4"),
                   scores={"other": Score(value=1, metadata={"bon": {"candidates": [{"text": "x"}]}}),
                           **_bon()}),
        EvalSample(id="s-meta", epoch=1, input="Q", target="", output=out("o5"),
                   scores={**_bon(), "bon_scorer": Score(value=1, metadata=None)}),
    ]


INSPECT_ROWS = [
    {"id": "s-text#mockllm/model#e1", "question": "Q text", "output": "o1"},
    {"id": "s-chat#mockllm/model#e2", "question": "Q last", "output": "o2"},
    {"id": "s-one#mockllm/model#e1", "question": "Q only", "output": "o3", "gold_answer": "7"},
    {"id": f"{FIN}#mockllm/model#e1#c0", "question": "Q fin", "output": "cand 0", "problem_id": FIN},
    {"id": f"{FIN}#mockllm/model#e1#c1", "question": "Q fin", "output": "", "problem_id": FIN},
    {"id": f"{FIN}#mockllm/model#e1#c2", "question": "Q fin", "output": "", "problem_id": FIN},
    {"id": "s-nobon#mockllm/model#e1", "question": "Q", "output": "o4"},
    {"id": "s-meta#mockllm/model#e1", "question": "Q", "output": "o5"},
]


@pytest.fixture(scope="module")
def inspect_runs(tmp_path_factory):
    """The same log in three places: a sub-folder of ``logs/`` (bench --ray), ``logs/`` as JSON under Inspect's
    name, and the run folder itself (no ``logs/``)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec, write_eval_log

    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="finchain", dataset=EvalDataset(),
                    model="mockllm/model", config=EvalConfig())
    log = EvalLog(eval=spec, samples=_samples())
    root = tmp_path_factory.mktemp("inspect")
    places = {"sub-folder": (root / "ray", "logs/pair-1/a.eval"),
              "json": (root / "json", "logs/2026-01-01T00-00-00+00-00_finchain_x.json"),
              "no logs/": (root / "bare", "a.eval")}
    for run, file in places.values():
        write_eval_log(log, str(run / file))
    return {name: run for name, (run, _) in places.items()}


@pytest.mark.parametrize("where", ["sub-folder", "json", "no logs/"])
def test_every_inspect_sample_epoch_and_best_of_n_candidate_is_a_row_wherever_the_log_lies(inspect_runs, where):
    assert sorted(read_run_rows(inspect_runs[where]), key=lambda row: row["id"]) == sorted(
        INSPECT_ROWS, key=lambda row: row["id"])


# -- lm-eval samples -------------------------------------------------------------------------------------

def _lm_eval_run(tmp_path: Path, lines: list) -> Path:
    folder = tmp_path / "lm_eval" / "m" / "finchain"
    folder.mkdir(parents=True)
    (folder / "samples_x.jsonl").write_text("".join(json.dumps(s) + "\n" for s in lines))
    return tmp_path


def test_every_lm_eval_response_is_a_row_flat_or_grouped_and_a_response_that_is_not_text_is_empty(tmp_path):
    run = _lm_eval_run(tmp_path, [
        {"doc_id": 1, "doc": {"question": "Q1", "answer": 0}, "resps": ["flat"]},
        {"doc_id": 2, "doc": {"id": FIN}, "resps": [[None, 5, "text"]]},
        {"doc_id": 3, "resps": None},
    ])
    assert read_run_rows(run) == [
        {"id": "1#samples_x#1#0", "question": "Q1", "output": "flat", "gold_answer": 0},
        {"id": f"{FIN}#samples_x#2#0", "question": "", "output": "", "problem_id": FIN},
        {"id": f"{FIN}#samples_x#2#1", "question": "", "output": "", "problem_id": FIN},
        {"id": f"{FIN}#samples_x#2#2", "question": "", "output": "text", "problem_id": FIN}]


@pytest.mark.parametrize("line, message", [
    ([1], "sample: expected a mapping, got a list"),
    ({"doc": "d", "resps": []}, "doc: expected a mapping, got a string"),
    ({"doc": {}, "resps": "r"}, "resps: expected a list, got a string"),
    ({"doc": {"answer": {"a": 1}}, "resps": ["r"]}, "gold_answer: expected a string"),
])
def test_an_lm_eval_sample_of_the_wrong_shape_is_one_error_naming_its_file_line_and_field(tmp_path, line, message):
    run = _lm_eval_run(tmp_path, [{"doc": {}, "resps": []}, line])
    with pytest.raises(ValueError, match=rf"^\S*samples_x.jsonl:2: {message}"):
        read_items(run)


def test_a_run_folder_is_read_as_candidates_and_what_was_passed_over_is_listed(tmp_path):
    run = _lm_eval_run(tmp_path / "run", [{"doc_id": 1, "doc": {"question": "Q1", "answer": 4}, "resps": [["r"]]},
                                          {"doc_id": 2, "doc": {"question": "Q2"}, "resps": [["s"]]}])
    outside = tmp_path / "samples_out.jsonl"
    outside.write_text(json.dumps({"doc": {}, "resps": [["never read"]]}) + "\n")
    link = run / "lm_eval" / "samples_link.jsonl"
    link.symlink_to(outside)
    skipped: list = []
    items = read_items(run, skipped)
    assert [(i.id, i.question, i.output, i.gold_answer) for i in items] == [
        ("1#samples_x#1#0", "Q1", "r", 4), ("2#samples_x#2#0", "Q2", "s", None)]
    assert [path for path, _ in skipped] == [link]
    assert read_items(run) == items


def test_a_folder_without_logs_or_samples_is_one_error_naming_it(tmp_path):
    with pytest.raises(ValueError, match=f"^{tmp_path}: no Inspect logs and no lm-eval samples found$"):
        read_run_rows(tmp_path)


# -- the labels file -------------------------------------------------------------------------------------

def test_each_trace_is_one_json_line_and_meta_json_cannot_hold_is_written_as_its_text(tmp_path):
    items = [LabelItem("a", "Q", ("1 + 1 = 2",), "2", meta={"source": Path("runs/x"), "n": 1}),
             LabelItem("b", "Q", (), "", meta={})]
    out = tmp_path / "labels.jsonl"
    labeling.run_labels(items, out, "exact")
    rows = [json.loads(line) for line in out.read_text().split("\n")[:-1]]
    assert [(r["id"], r["meta"]) for r in rows] == [("a", {"source": "runs/x", "n": 1}), ("b", {})]
