"""lm-eval's ChainEval filter hands each document its own score: outputs of mixed quality (gold,
empty, wrong, another document's gold) and mixed profiles in one batch, each checked against the
same output scored alone (a second path through the scorer that has no batch to misorder) and
against what is known by hand (gold scores 1, an empty reply 0)."""

from __future__ import annotations

import json
import pickle

import pytest

pytest.importorskip("lm_eval")

from finchain_tasks.engine import all_templates  # noqa: E402
from finchain_tasks.finchain import prompts  # noqa: E402
from finchain_tasks.lm_eval.scoring import (  # noqa: E402
    ChainEvalFilter,
    ScoredAnswer,
    gold_row,
    process_results,
    reply_text,
)
from scorers.chaineval import score  # noqa: E402
from scorers.params import METRIC_KEYS, resolve  # noqa: E402
from scorers.rows import gold_of  # noqa: E402

TEMPLATES = sorted(all_templates().values(), key=lambda t: t.id)
PROBLEMS = [TEMPLATES[k].generate(1) for k in (0, 7, 19, 31, 44, 58)]
PAPER = json.dumps(resolve("paper").to_dict(), sort_keys=True)
REFERENCE = json.dumps(resolve("reference").to_dict(), sort_keys=True)


def _doc(problem, params: str, arrow: bool = False, completion: bool = False) -> dict:
    """A document as lm-eval hands it over: the problem row, prompt fields, ChainEval settings; arrow
    (the datasets cache) stores ``steps`` and ``answer`` as JSON text."""
    row = problem.to_dict()
    if arrow:
        row["steps"], row["answer"] = json.dumps(row["steps"]), json.dumps(row["answer"])
    prefix = prompts.completion_prompt(problem.question).rsplit("\n", 1)[-1] if completion else ""
    return {**row, "chaineval_params": params, "response_prefix": prefix}


def _alone(doc: dict, reply: str) -> dict[str, float]:
    """The same reply scored on its own, straight through the scorer."""
    params = resolve("paper") if doc["chaineval_params"] == PAPER else resolve("reference")
    return score(gold_of(gold_row(doc)), reply, params).metrics()


def test_mixed_outputs_and_profiles_each_get_their_own_score():
    p = PROBLEMS
    docs = [_doc(p[0], PAPER), _doc(p[1], REFERENCE, arrow=True), _doc(p[2], PAPER), _doc(p[3], PAPER, arrow=True),
            _doc(p[4], REFERENCE), _doc(p[5], PAPER), _doc(p[0], REFERENCE)]
    replies = [p[0].solution,        # gold
               "",                   # empty
               p[3].solution,        # another document's gold: wrong here
               p[3].solution,        # gold (the same text as the one before)
               "I cannot answer.",   # no step matches
               p[5].solution,        # gold
               p[0].solution]        # gold, other profile
    out = ChainEvalFilter().apply([[r] for r in replies], docs)
    assert len(out) == len(docs) and all(isinstance(a, ScoredAnswer) for a in out)
    results = [process_results(doc, [answer]) for doc, answer in zip(docs, out)]
    for k, (doc, reply, got) in enumerate(zip(docs, replies, results)):
        assert set(got) == set(METRIC_KEYS)
        assert got == pytest.approx(_alone(doc, reply), abs=1e-6), k
    # by hand: gold scores 1 with a right answer; empty scores 0 and does not parse
    for k in (0, 3, 5, 6):
        assert results[k]["chaineval"] == pytest.approx(1.0, abs=1e-6) and results[k]["fac"] == 1.0, k
        assert results[k]["no_error"] == 1.0
    assert results[1]["chaineval"] == 0.0 and results[1]["parse_ok"] == 0.0 and results[1]["fac"] == 0.0
    assert results[2]["fac"] == 0.0 and results[2]["chaineval"] < 1.0
    assert results[4]["chaineval"] == 0.75 and results[4]["fac"] == 0.0  # reference: the all-gap path
    # the filtered answer is the final answer read from the document's own reply
    assert out[0] == score(gold_of(gold_row(docs[0])), replies[0]).final_answer and out[1] == ""
    assert out[3] == out[2]


def test_reversing_the_batch_reverses_the_scores():
    docs = [_doc(PROBLEMS[k], PAPER) for k in range(4)]
    replies = [PROBLEMS[0].solution, "", "Step 1: nothing useful here.", PROBLEMS[3].solution]
    forward = [a.metrics for a in ChainEvalFilter().apply([[r] for r in replies], docs)]
    backward = [a.metrics for a in ChainEvalFilter().apply([[r] for r in replies[::-1]], docs[::-1])]
    assert forward == backward[::-1]
    assert [m["fac"] for m in forward] == [1.0, 0.0, 0.0, 1.0]


def test_the_completion_primer_is_put_back_in_front_of_the_reply():
    problem = PROBLEMS[2]
    doc = _doc(problem, PAPER, completion=True)
    assert doc["response_prefix"] == "Step 1:"
    reply = problem.solution.removeprefix("Step 1:")
    (answer,) = ChainEvalFilter().apply([[reply]], [doc])
    assert answer.metrics["chaineval"] == pytest.approx(1.0, abs=1e-6) and answer.metrics["fac"] == 1.0


@pytest.mark.parametrize("resps, expected", [
    (["first", "second"], "Step 1:first"), ("plain", "Step 1:plain"), (None, ""), ([], ""), ([None], ""),
    (["   "], "   "), ([""], ""),
])
def test_reply_text(resps, expected):
    assert reply_text(resps, {"response_prefix": "Step 1:"}) == expected


def test_reply_text_without_a_prefix():
    assert reply_text(["a"], {}) == "a" == reply_text(["a"], {"response_prefix": None})
    assert reply_text(["a"], {"response_prefix": ""}) == "a"


def test_gold_row_decodes_json_text_only():
    doc = {"steps": '[{"name": "x"}]', "answer": "1.5", "other": "[1]"}
    row = gold_row(doc)
    assert row == {"steps": [{"name": "x"}], "answer": 1.5, "other": "[1]"}
    assert doc["steps"] == '[{"name": "x"}]'  # the document itself is left alone
    assert gold_row({"steps": [1], "answer": 2}) == {"steps": [1], "answer": 2}
    assert gold_row({}) == {}


def test_process_results_needs_the_filter_output():
    with pytest.raises(TypeError) as err:
        process_results({}, ["a plain string"])
    assert str(err.value) == "process_results needs the ChainEval filter's output (filter_list: ChainEvalFilter)"
    answer = ScoredAnswer("42", {k: 0.5 for k in METRIC_KEYS} | {"extra": 9.0})
    assert process_results({}, [answer]) == {k: 0.5 for k in METRIC_KEYS}


def test_scored_answer_is_a_plain_string_that_keeps_its_metrics():
    answer = ScoredAnswer("42", {"chaineval": 1})
    assert answer == "42" and json.dumps(answer) == '"42"' and answer.metrics == {"chaineval": 1}
    again = pickle.loads(pickle.dumps(answer))
    assert again == "42" and again.metrics == {"chaineval": 1}
    assert ScoredAnswer().metrics == {} and ScoredAnswer() == ""
    source = {"fac": 1.0}
    kept = ScoredAnswer("x", source)
    source["fac"] = 0.0
    assert kept.metrics == {"fac": 1.0}  # a copy, not the caller's dict
