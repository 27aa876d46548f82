"""Rules of ``finchain prm label``'s model-backed signals and input reading that test_labeling_models.py's
server round trips leave open (issue 39, found by the literal pass): which judge replies read as what (every
form the strict patterns admit, and the near misses they refuse), the one user message and the request a
plain litellm id gets, the tokens and cost counted from a reply, FinChain problem ids of exactly five parts,
the type each candidate field must have, and the ids rows carry.

No server: the judges read from a stand-in model whose ``complete`` returns the reply the test gives, and
litellm's ``completion`` is replaced where the test is about what the job does with a response."""

from __future__ import annotations

import json
import sys
import types

import pytest

from finchain_tasks.prm import labeling
from finchain_tasks.prm.labeling import LLM, JudgeAccuracy, JudgeConcepts, JudgeQualitative, item_from_row, read_items
from scorers.prm.labels.signals import LabelItem, Unknown

ITEM = LabelItem("t1", "What is (2 + 2) × 3?", ("2 + 2 = 4", "4 × 3 = 12"), "12", gold_answer=12.0,
                 knowledge=("sum", "product", "ratio"))


class Replies:
    """A model that answers every prompt with ``reply`` (and keeps the prompts)."""

    def __init__(self, reply: str):
        self.reply, self.prompts = reply, []

    def complete(self, prompt, **kwargs):
        self.prompts.append(prompt)
        return self.reply


# -- the judges' reply formats ------------------------------------------------------------------------

@pytest.mark.parametrize("reply, score", [
    ("Score: 0.9", 0.9), ("Score: 1", 1.0), ("Score: 0", 0.0), ("Score: 1.0", 1.0), ("Score: 0.25", 0.25),
    ("Score: .5", 0.5),           # a bare decimal
    ("Score=0.75", 0.75),         # '=' as well as ':'
    ("**Score**: 0.3", 0.3), ("score : 0.6 ", 0.6), ("SCORE:0.1", 0.1),
])
def test_a_qualitative_reply_reads_as_its_score(reply, score):
    assert JudgeQualitative(Replies(reply)).qualitative(ITEM, 0) == score


@pytest.mark.parametrize("reply", ["Score: 2", "Score: 0.9 out of 1", "Score - 0.5", "I would say 0.5", "Score:",
                                   "Score: -0.5", "This step looks fine to me!"])
def test_any_other_qualitative_reply_is_off_format(reply):
    with pytest.raises(Unknown, match="^qualitative judge answered off-format"):
        JudgeQualitative(Replies(reply)).qualitative(ITEM, 0)


@pytest.mark.parametrize("reply, verdict", [
    ("Verdict: correct", 1.0), ("Verdict: incorrect", 0.0), ("Verdict=correct", 1.0), ("Verdict=incorrect.", 0.0),
    ("**Verdict**: Correct.", 1.0), ("verdict : INCORRECT", 0.0),
])
def test_a_verdict_reads_as_correct_or_incorrect(reply, verdict):
    assert JudgeAccuracy(Replies(reply)).accuracy(ITEM, 0) == (verdict, verdict)


@pytest.mark.parametrize("reply", ["Verdict: wrong", "Verdict - correct", "Verdict: partly correct", "correct",
                                   "Verdict: correct!"])
def test_any_other_verdict_is_off_format(reply):
    with pytest.raises(Unknown, match="^procedural judge answered off-format"):
        JudgeAccuracy(Replies(reply)).accuracy(ITEM, 0)


@pytest.mark.parametrize("reply, used", [
    ("Used: none", ()), ("Used: None.", ()), ("Used=none", ()),
    ("Used: 2", ("product",)), ("Used=1, 3", ("sum", "ratio")), ("Used: 3,1.", ("sum", "ratio")),
    ("**Used**: 1,2,3", ("sum", "product", "ratio")),
])
def test_a_concept_reply_names_the_knowledge_points_used_by_number(reply, used):
    assert JudgeConcepts(Replies(reply)).used(ITEM) == used


@pytest.mark.parametrize("reply", ["Used: 0", "Used: 4", "Used: 1, 4", "Used - 1", "Used: sum", "Used: 1 and 2"])
def test_a_concept_reply_outside_one_to_the_number_of_points_or_off_format_is_refused(reply):
    with pytest.raises(Unknown, match="^concept extractor answered off-format"):
        JudgeConcepts(Replies(reply)).used(ITEM)


# -- the model call ----------------------------------------------------------------------------------

@pytest.fixture
def llm(tmp_path):
    return LLM("openai/fake", labeling.CallCache(tmp_path / "calls.sqlite"))


def test_a_prompt_is_sent_as_one_user_message(llm):
    sent = []
    llm._call = lambda messages, *args: sent.append(messages) or ("Score: 1", {}, 0.0)
    llm.complete("Judge this.")
    assert sent == [[{"role": "user", "content": "Judge this."}]]


def test_a_plain_litellm_id_is_sent_with_its_temperature_and_token_limit(llm):
    assert llm._request(0.7, 512) == {"model": "openai/fake", "temperature": 0.7, "max_tokens": 512}
    llm.api_base = "http://127.0.0.1:9/v1"
    assert llm._request(0.0, 16)["api_base"] == "http://127.0.0.1:9/v1"


def test_a_replys_prompt_and_completion_tokens_and_cost_are_counted(llm, monkeypatch):
    response = types.SimpleNamespace(
        choices=[types.SimpleNamespace(message=types.SimpleNamespace(content="Score: 1"))],
        usage=types.SimpleNamespace(prompt_tokens=120, completion_tokens=7))
    # litellm as the job sees it (its import alone takes seconds): a completion with usage, and its price
    fake = types.SimpleNamespace(completion=lambda **kwargs: response, Timeout=TimeoutError,
                                 completion_cost=lambda completion_response: 0.0125)
    monkeypatch.setitem(sys.modules, "litellm", fake)
    assert llm.complete("Judge this.") == "Score: 1"
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens, llm.usage.cost) == (
        1, 120, 7, 0.0125)


# -- reading candidates ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def finchain_id():
    from finchain_tasks.engine.registry import all_templates

    return next(iter(all_templates().values())).generate(0).id


def test_a_finchain_problem_id_of_five_parts_brings_its_gold_and_ids(finchain_id):
    item = item_from_row({"problem_id": finchain_id, "id": "cand-1", "template": "t"}, 1)
    assert item.gold is not None and item.id == "cand-1"
    assert item.meta == {"problem_id": finchain_id, "template": "/".join(finchain_id.split("/")[1:4])}


@pytest.mark.parametrize("cut", [
    lambda parts: parts[:4],                  # four parts
    lambda parts: [*parts, "0"],              # six
    lambda parts: ["cflue", *parts[1:]],      # five, but not FinChain's
])
def test_any_other_problem_id_is_refused_with_the_shape_expected(finchain_id, cut):
    bad = "/".join(cut(finchain_id.split("/")))
    with pytest.raises(ValueError, match=r"is not a FinChain problem id \(finchain/domain/topic/template/seed\)"):
        item_from_row({"problem_id": bad}, 1)


def test_a_row_without_a_problem_keeps_its_template_and_problem_id_as_meta():
    row = {"id": 7, "question": "q", "output": "Step 1: 1 + 1 = 2\nFinal answer: 2", "template": "tpl",
           "problem_id": None}
    row.pop("problem_id")
    assert item_from_row(row, 1).meta == {"template": "tpl"}
    assert item_from_row({**row, "question_id": "x"}, 1).meta == {"template": "tpl"}


@pytest.mark.parametrize("field, value, expected", [
    ("question", 5, "a string"), ("output", 5, "a string or null"), ("steps", "x", "a list or null"),
    ("final_answer", [], "a string"), ("gold_solution", 5, "a string or null"), ("gold_answer", {}, "a string"),
    ("gold_unit", 5, "a string"), ("knowledge", "x", "a list or null"), ("reference", 5, "a string"),
    ("problem", "x", "a mapping"), ("problem_id", 5, "a string"), ("id", 1.5, "a string"),
])
def test_every_candidate_field_of_the_wrong_type_is_one_error_naming_it(tmp_path, field, value, expected):
    path = tmp_path / "cands.jsonl"
    path.write_text(json.dumps({"question": "q", "output": "Final answer: 1", field: value}) + "\n")
    with pytest.raises(ValueError, match=rf"cands.jsonl:1: {field}: expected {expected}"):
        read_items(path)


@pytest.mark.parametrize("row", [
    {"question": "q", "output": None, "steps": ["1 + 1 = 2"], "final_answer": 2, "gold_answer": [1, 2],
     "gold_solution": None, "knowledge": None, "id": 3},
    {"question": "q", "steps": None, "final_answer": 2.5, "gold_answer": None, "gold_unit": "%", "reference": "r"},
    {"question": "q", "output": "Final answer: 1", "gold_answer": "yes", "knowledge": ["k"], "id": "a"},
])
def test_every_type_a_candidate_field_may_have_is_read(tmp_path, row):
    path = tmp_path / "cands.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert len(read_items(path)) == 1


@pytest.mark.parametrize("field", ["steps", "knowledge"])
def test_an_item_of_steps_or_knowledge_that_is_not_text_is_one_error_naming_it(tmp_path, field):
    path = tmp_path / "cands.jsonl"
    path.write_text(json.dumps({"question": "q", "output": "Final answer: 1", field: ["ok", 5]}) + "\n")
    with pytest.raises(ValueError, match=rf"cands.jsonl:1: {field} item: expected a string"):
        read_items(path)


# -- candidates from a run directory -----------------------------------------------------------------

FINCHAIN_ID = "finchain/d/t/x/0"


def test_every_lm_eval_response_is_a_candidate_with_its_doc_file_line_and_response_in_its_id(tmp_path):
    folder = tmp_path / "lm_eval" / "m" / "finchain"
    folder.mkdir(parents=True)
    lines = [{"doc": {"id": FINCHAIN_ID, "question": "Q1"}, "resps": [["first", "second"]]},
             {"doc_id": 4, "doc": {"question": "Q2", "answer": 7}, "resps": [["third"]]}]
    (folder / "samples_finchain_1.jsonl").write_text("".join(json.dumps(s) + "\n" for s in lines))
    assert labeling.read_run_rows(tmp_path) == [
        {"id": f"{FINCHAIN_ID}#samples_finchain_1#1#0", "question": "Q1", "output": "first", "problem_id": FINCHAIN_ID},
        {"id": f"{FINCHAIN_ID}#samples_finchain_1#1#1", "question": "Q1", "output": "second",
         "problem_id": FINCHAIN_ID},
        {"id": "4#samples_finchain_1#2#0", "question": "Q2", "output": "third", "gold_answer": 7}]


def test_every_inspect_sample_and_epoch_is_a_candidate_with_its_model_in_its_id(tmp_path):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ModelOutput

    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="finchain", dataset=EvalDataset(),
                    model="mockllm/model", config=EvalConfig())
    samples = [EvalSample(id=FINCHAIN_ID, epoch=epoch, input="Q1", target="gold text",
                          output=ModelOutput.from_content("mockllm/model", f"answer {epoch}")) for epoch in (1, 2)]
    samples.append(EvalSample(id="other-1", epoch=1, input="Q2", target="42",
                              output=ModelOutput.from_content("mockllm/model", "41")))
    write_eval_log(EvalLog(eval=spec, samples=samples), str(tmp_path / "logs" / "a.eval"))
    assert sorted(labeling.read_run_rows(tmp_path), key=lambda row: row["id"]) == [
        {"id": f"{FINCHAIN_ID}#mockllm/model#e1", "question": "Q1", "output": "answer 1", "problem_id": FINCHAIN_ID},
        {"id": f"{FINCHAIN_ID}#mockllm/model#e2", "question": "Q1", "output": "answer 2", "problem_id": FINCHAIN_ID},
        {"id": "other-1#mockllm/model#e1", "question": "Q2", "output": "41", "gold_answer": "42"}]


def test_a_dry_run_says_what_it_would_label_and_writes_nothing(tmp_path):
    items = [LabelItem("a", "Q?", ("1 + 1 = 2", "2 × 2 = 4"), "4"), LabelItem("b", "Q?", ("3",), "3")]
    out = tmp_path / "labels.jsonl"
    plan = labeling.run_labels(items, out, "exact", dry_run=True)
    assert {k: plan[k] for k in ("recipe", "traces", "steps")} == {"recipe": "exact", "traces": 2, "steps": 3}
    assert plan["usage"]["calls"] == plan["usage"]["planned"] == 0 and not out.exists()
