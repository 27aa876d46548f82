"""Rules of ``finchain prm label``'s model-facing half that mutmut's survivors showed open (issue 39): the
request litellm gets (one user message, the call's temperature and token limit, a timeout, two retries, a
registry entry's model id and key), a failed call (unknown, naming what failed and its error type, counted),
how a reply of any shape is read (no choices, no content, no usage, no price), usage and cost added up over
calls, the cache (its key, what a hit returns, what a row keeps, a file shared by threads and workers), the dry
run's counts and placeholders, every prompt's parts (question, steps so far, step judged, gold, expert
analysis, knowledge), rollout importance as a share, an off-format reply shown cut, and ``run_labels``'s
defaults, refusal, cache place, embedder and written files.

No network, no model, no subprocess: litellm (an external dependency) is replaced in ``sys.modules`` by
:class:`FakeLitellm`, which records each request and answers from the replies a test gives."""

from __future__ import annotations

import json
import sys
import threading
import types
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from finchain_tasks.models.registry import KEYLESS_PLACEHOLDER, Generation, load_registry
from finchain_tasks.prm import labeling
from finchain_tasks.prm.labeling import (
    LLM,
    CallCache,
    JudgeAccuracy,
    JudgeConcepts,
    JudgeQualitative,
    Models,
    RolloutImportance,
    run_labels,
)
from scorers import chaineval
from scorers.prm.labels.signals import LabelItem, Unknown
from scorers.rows import gold_of

ITEM = LabelItem("t1", "What is (2 + 2) × 3?", ("2 + 2 = 4", "4 × 3 = 12"), "12", gold_answer=12.0,
                 knowledge=("sum", "product", "ratio"))


def reply(text: str | None = "Score: 1", usage=..., choices: bool = True):
    """A litellm response: one choice with ``text`` (none when ``choices`` is False), and ``usage``
    (120 prompt and 7 completion tokens by default; ``None``: the attribute is None; absent when omitted)."""
    resp = types.SimpleNamespace(
        choices=[types.SimpleNamespace(message=types.SimpleNamespace(content=text))] if choices else [])
    if usage is ...:
        usage = types.SimpleNamespace(prompt_tokens=120, completion_tokens=7)
    if usage != "absent":
        resp.usage = usage
    return resp


class FakeTimeout(Exception):
    """litellm.Timeout as the fake raises it."""


class FakeLitellm(types.ModuleType):
    """litellm as the job sees it: ``completion`` records its keyword arguments and answers the next of
    ``replies`` (text or a response; the last one repeats), or raises ``errors[i]`` for the i-th call."""

    Timeout = FakeTimeout

    def __init__(self, replies=("Score: 1",), errors=None, price=lambda resp: 0.0125):
        super().__init__("litellm")
        self.replies, self.errors, self.price, self.requests = list(replies), dict(errors or {}), price, []

    def completion(self, **kwargs):
        self.requests.append(kwargs)
        n = len(self.requests) - 1
        if n in self.errors:
            raise self.errors[n]
        answer = self.replies[min(n, len(self.replies) - 1)]
        return reply(answer) if isinstance(answer, str) else answer

    def completion_cost(self, completion_response):
        return self.price(completion_response)

    def prompts(self) -> list[str]:
        return [r["messages"][-1]["content"] for r in self.requests]


@pytest.fixture
def fake(monkeypatch):
    def install(**kwargs) -> FakeLitellm:
        lib = FakeLitellm(**kwargs)
        monkeypatch.setitem(sys.modules, "litellm", lib)
        return lib

    return install


@pytest.fixture
def cache(tmp_path):
    return CallCache(tmp_path / "calls.sqlite")


def _llm(cache, model="openai/fake", **kwargs) -> LLM:
    return LLM(model, cache, **kwargs)


# ------------------------------------------------------------------------------------------ the request

@pytest.mark.parametrize("kwargs, temperature, max_tokens", [
    ({}, 0.0, 256),                                     # a judge's defaults: greedy, 256 tokens
    ({"temperature": 0.7, "max_tokens": 512}, 0.7, 512),  # a rollout's
    ({"max_tokens": 16}, 0.0, 16),
])
def test_the_request_is_one_user_message_with_the_calls_temperature_token_limit_timeout_and_two_retries(
        fake, cache, kwargs, temperature, max_tokens):
    lib = fake()
    _llm(cache, timeout=30.0).complete("Judge this.", **kwargs)
    assert lib.requests == [{"messages": [{"role": "user", "content": "Judge this."}], "timeout": 30.0,
                             "num_retries": 2, "model": "openai/fake", "temperature": temperature,
                             "max_tokens": max_tokens}]
    assert lib.suppress_debug_info is True  # litellm's help banner never lands in a job's log


AD_HOC = load_registry().model("openai/fake")


@pytest.mark.parametrize("spec, env, expected", [
    # an ad-hoc openai/ id: keyless server, so the placeholder key (never the user's OPENAI_API_KEY)
    (AD_HOC, None, {"model": "openai/fake", "temperature": 0.7, "max_tokens": 512, "api_key": KEYLESS_PLACEHOLDER}),
    # the key from the entry's variable, read at call time
    (replace(AD_HOC, litellm_model="anthropic/x", api_key_env="FINCHAIN_TEST_KEY"), "sk-test-not-a-secret",
     {"model": "anthropic/x", "temperature": 0.7, "max_tokens": 512, "api_key": "sk-test-not-a-secret"}),
    # the variable unset: no key at all (litellm reports it), never an empty one
    (replace(AD_HOC, litellm_model="anthropic/x", api_key_env="FINCHAIN_TEST_KEY"), None,
     {"model": "anthropic/x", "temperature": 0.7, "max_tokens": 512}),
    # the entry's token budget wins (a reasoning model needs its own); its temperature null: never sent
    (replace(AD_HOC, litellm_model="anthropic/x", generation=Generation(temperature=None, max_tokens=8192)), None,
     {"model": "anthropic/x", "max_tokens": 8192}),
    # the entry's benchmark temperature (0) never replaces a rollout's: N greedy samples are one answer N times
    (replace(AD_HOC, litellm_model="anthropic/x", generation=Generation(temperature=0.0)), None,
     {"model": "anthropic/x", "temperature": 0.7, "max_tokens": 512}),
    (replace(AD_HOC, litellm_model="anthropic/x", generation=Generation(omit_params=("temperature",))), None,
     {"model": "anthropic/x", "max_tokens": 512}),
])
def test_a_registry_entry_gives_the_model_id_key_and_budget_and_the_call_its_temperature(
        cache, monkeypatch, spec, env, expected):
    if env is None:
        monkeypatch.delenv("FINCHAIN_TEST_KEY", raising=False)
    else:
        monkeypatch.setenv("FINCHAIN_TEST_KEY", env)
    assert _llm(cache, spec=spec)._request(0.7, 512) == expected
    base = {**expected, "api_base": "http://127.0.0.1:9/v1"}
    assert _llm(cache, spec=spec, api_base="http://127.0.0.1:9/v1")._request(0.7, 512) == base


# ------------------------------------------------------------------------------------------ failures

@pytest.mark.parametrize("error, what, message", [
    (RuntimeError("boom"), "rollout", "rollout failed: RuntimeError"),
    (ValueError("bad"), None, "model call failed: ValueError"),  # a caller that names nothing
    (FakeTimeout("slow"), "rollout", "rollout timed out after 30s"),
])
def test_a_failed_call_is_unknown_naming_what_failed_and_its_error_type_and_each_failure_counts(
        fake, cache, error, what, message):
    lib = fake(errors={0: error, 1: error})
    llm = _llm(cache, timeout=30.0)
    named = {} if what is None else {"what": what}
    for prompt in ("first", "second"):
        with pytest.raises(Unknown) as err:
            llm.complete(prompt, **named)
        assert str(err.value) == message
    assert (llm.usage.failed, llm.usage.calls, len(lib.requests)) == (2, 0, 2)
    assert llm.cache.get(llm.key([{"role": "user", "content": "first"}], 0.0, 256, 0)) is None  # retried next run


@pytest.mark.parametrize("call, errors, what", [
    (lambda llm: JudgeQualitative(llm).qualitative(ITEM, 0), {0: RuntimeError()}, "qualitative judge"),
    (lambda llm: JudgeAccuracy(llm).accuracy(ITEM, 0), {0: RuntimeError()}, "procedural judge"),
    (lambda llm: JudgeAccuracy(llm).accuracy(ITEM, 0), {1: RuntimeError()}, "factual judge"),
    (lambda llm: JudgeConcepts(llm).used(ITEM), {0: RuntimeError()}, "concept extractor"),
    (lambda llm: RolloutImportance(llm, n=2).importance(ITEM, 0), {0: RuntimeError()}, "rollout"),
])
def test_each_signal_names_itself_when_its_call_fails(fake, cache, call, errors, what):
    fake(replies=("Verdict: correct",), errors=errors)
    with pytest.raises(Unknown) as err:
        call(_llm(cache))
    assert str(err.value) == f"{what} failed: RuntimeError"


# ------------------------------------------------------------------------------------------ reading a reply

NO_COMPLETION = types.SimpleNamespace(prompt_tokens=5)


@pytest.mark.parametrize("response, text, usage", [
    (reply("Score: 1"), "Score: 1", {"prompt_tokens": 120, "completion_tokens": 7}),
    (reply(None), "", {"prompt_tokens": 120, "completion_tokens": 7}),      # no content: empty text
    (reply(choices=False), "", {"prompt_tokens": 120, "completion_tokens": 7}),  # no choice at all
    (reply(usage=None), "Score: 1", {}),                                    # no usage counted
    (reply(usage="absent"), "Score: 1", {}),
    (reply(usage=NO_COMPLETION), "Score: 1", {"prompt_tokens": 5, "completion_tokens": 0}),  # a field missing: 0
    (reply(usage=types.SimpleNamespace(prompt_tokens=None, completion_tokens=0)), "Score: 1",
     {"prompt_tokens": 0, "completion_tokens": 0}),                          # None or 0: 0
])
def test_a_reply_of_any_shape_is_read_as_text_and_token_counts(fake, cache, response, text, usage):
    fake(replies=(response,), price=lambda resp: 0.0)
    llm = _llm(cache)
    assert llm.complete("Judge this.") == text
    assert llm.cache.get(llm.key([{"role": "user", "content": "Judge this."}], 0.0, 256, 0))["usage"] == usage
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens) == (usage.get("prompt_tokens", 0),
                                                                     usage.get("completion_tokens", 0))


def _raise(resp):
    raise KeyError("no price for this model")


@pytest.mark.parametrize("price, cost", [
    (lambda resp: resp.usage.prompt_tokens * 0.001, 0.12),  # litellm's price of this very reply
    (lambda resp: None, 0.0), (lambda resp: 0, 0.0),       # no price: 0, never a made-up one
    (_raise, 0.0),                                         # a model litellm cannot price costs 0
])
def test_a_calls_cost_is_litellms_price_of_its_reply_and_zero_when_unknown(fake, cache, price, cost):
    fake(price=price)
    llm = _llm(cache)
    llm.complete("Judge this.")
    assert llm.usage.cost == pytest.approx(cost)


def test_usage_and_cost_add_up_over_calls_and_a_cached_call_adds_nothing(fake, cache):
    fake(replies=(reply("a"), reply("b", usage=types.SimpleNamespace(prompt_tokens=30, completion_tokens=3)),
                  reply("c", usage=None)), price=lambda resp: 0.5)
    llm = _llm(cache)
    assert [llm.complete(p) for p in ("one", "two", "three", "one")] == ["a", "b", "c", "a"]
    u = llm.usage
    assert (u.calls, u.cached, u.prompt_tokens, u.completion_tokens, u.cost) == (3, 1, 150, 10, 1.5)


# ------------------------------------------------------------------------------------------ the cache

def test_every_call_is_cached_with_its_text_usage_cost_and_model(fake, cache):
    fake()
    llm = _llm(cache)
    llm.complete("Judge this.", temperature=0.7, max_tokens=16, sample=3)
    key = llm.key([{"role": "user", "content": "Judge this."}], 0.7, 16, 3)
    assert cache.get(key) == {"text": "Score: 1", "usage": {"prompt_tokens": 120, "completion_tokens": 7},
                              "cost": 0.0125, "model": "openai/fake"}


@pytest.mark.parametrize("second, sent", [
    ({}, False),                             # the same call: answered from the cache
    ({"sample": 0}, False),                  # sample 0 is the default
    ({"temperature": 0.7}, True), ({"max_tokens": 16}, True), ({"sample": 1}, True),
    ({"prompt": "Judge that."}, True), ({"model": "openai/other"}, True),
])
def test_a_call_is_sent_again_when_its_model_prompt_temperature_budget_or_sample_differs(fake, cache, second,
                                                                                       sent):
    lib = fake()
    _llm(cache).complete("Judge this.")
    again = dict(second)
    model, prompt = again.pop("model", "openai/fake"), again.pop("prompt", "Judge this.")
    assert _llm(cache, model).complete(prompt, **again) == "Score: 1"
    assert len(lib.requests) == 1 + sent


def test_the_cache_key_does_not_depend_on_the_order_of_a_messages_fields(cache):
    llm = _llm(cache)
    assert llm.key([{"role": "user", "content": "x"}], 0.0, 16, 0) == \
        llm.key([{"content": "x", "role": "user"}], 0.0, 16, 0)


def test_the_cache_file_is_made_in_new_folders_and_shared_by_threads_and_workers(tmp_path):
    path = tmp_path / "a" / "b" / "calls.sqlite"
    cache = CallCache(path)
    worker = threading.Thread(target=cache.put, args=("k", {"text": "from a thread"}))
    worker.start()
    worker.join()
    assert cache.get("k") == {"text": "from a thread"}
    assert CallCache(path).get("k") == {"text": "from a thread"}  # another worker's connection reads it
    assert cache.get("other") is None
    # WAL, and a writer waits up to a minute for another worker's commit
    assert cache._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert cache._db.execute("PRAGMA busy_timeout").fetchone()[0] == 60_000


# ------------------------------------------------------------------------------------------ the dry run

def test_a_dry_run_counts_each_call_as_a_quarter_of_its_characters_plus_one_and_its_budget(fake, cache):
    lib = fake()
    llm = _llm(cache, dry_run=True)
    assert [llm.complete(p, max_tokens=10) for p in ("", "abc", "abcd", "a" * 9)] == ["", "", "", ""]
    u = llm.usage
    assert (u.planned, u.planned_prompt_tokens, u.planned_completion_tokens) == (4, 1 + 1 + 2 + 3, 40)
    assert (u.calls, lib.requests) == (0, [])


@pytest.mark.parametrize("generation, planned", [
    (None, 10),                                     # the entry sets no budget: the call's
    (Generation(max_tokens=8192), 8192),             # a reasoning model's own budget is what would be sent
    (Generation(max_tokens=4), 4),                   # and a smaller one too: the plan is what the request says
    # an entry that never sends a budget (its provider refuses the field): the call's, what it asks for
    (Generation(max_tokens=8192, omit_params=["max_tokens"]), 10),
])
def test_a_dry_run_plans_the_completion_budget_the_request_would_send(cache, generation, planned):
    spec = AD_HOC if generation is None else replace(AD_HOC, litellm_model="anthropic/x", generation=generation)
    llm = _llm(cache, dry_run=True, spec=spec)
    llm.complete("abc", max_tokens=10)
    assert (llm.usage.planned, llm.usage.planned_completion_tokens) == (1, planned)


@pytest.mark.parametrize("call, reading", [
    (lambda llm: JudgeQualitative(llm).qualitative(ITEM, 0), 0.0),
    (lambda llm: JudgeAccuracy(llm).accuracy(ITEM, 0), (0.0, 0.0)),
    (lambda llm: JudgeConcepts(llm).used(ITEM), ()),
    (lambda llm: RolloutImportance(llm, n=2).importance(ITEM, 0), 0.0),
])
def test_a_dry_runs_placeholder_reply_reads_as_each_signals_lowest_reading(cache, call, reading):
    assert call(_llm(cache, dry_run=True)) == reading


# ------------------------------------------------------------------------------------------ the prompts

@pytest.mark.parametrize("k, part", [
    (0, "Problem:\nWhat is (2 + 2) × 3?\n\nSolution so far:\nStep 1: 2 + 2 = 4\n\nJudge only step 1."),
    (1, "Problem:\nWhat is (2 + 2) × 3?\n\nSolution so far:\nStep 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\n\n"
        "Judge only step 2."),
])
def test_the_qualitative_prompt_holds_the_question_the_steps_up_to_k_numbered_from_one_and_the_step_judged(
        fake, cache, k, part):
    lib = fake()
    JudgeQualitative(_llm(cache)).qualitative(ITEM, k)
    assert part in lib.prompts()[0]


@pytest.mark.parametrize("item, proc_part, fact_part", [
    (replace(ITEM, reference="Add, then triple.", knowledge=("sum", "product")),
     "Reference answer: 12.0\nExpert analysis:\nAdd, then triple.\n\nSolution so far:\nStep 1: 2 + 2 = 4\n"
     "Step 2: 4 × 3 = 12\n\nIs step 2 a",
     "Knowledge:\n- sum\n- product\nExpert analysis:\nAdd, then triple.\n\nSolution so far:\nStep 1: 2 + 2 = 4\n"
     "Step 2: 4 × 3 = 12\n\nAre the facts and financial concepts in step 2 accurate"),
    (replace(ITEM, gold_answer=None, knowledge=()),  # no gold, no analysis, no knowledge: said so, never "None"
     "Reference answer: \n\nSolution so far:\n", "Knowledge:\n(none given)\n\nSolution so far:\n"),
])
def test_the_accuracy_prompts_hold_the_gold_answer_expert_analysis_and_knowledge_when_given(
        fake, cache, item, proc_part, fact_part):
    lib = fake(replies=("Verdict: correct",))
    assert JudgeAccuracy(_llm(cache)).accuracy(item, 1) == (1.0, 1.0)
    proc, fact = lib.prompts()
    assert proc.startswith("Problem:\nWhat is (2 + 2) × 3?\n\n") and proc_part in proc
    assert fact.startswith("Problem:\nWhat is (2 + 2) × 3?\n\n") and fact_part in fact
    assert "None" not in proc + fact


def test_the_concept_prompt_lists_the_knowledge_points_from_one_and_the_whole_trace_with_its_answer(fake, cache):
    lib = fake(replies=("Used: 2",))
    assert JudgeConcepts(_llm(cache)).used(ITEM) == ("product",)
    assert lib.prompts()[0].startswith("Knowledge points:\n1. sum\n2. product\n3. ratio\n\nSolution:\n"
                                       "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12\n\nWhich")
    assert lib.requests[0]["max_tokens"] == 32


@pytest.mark.parametrize("reply_text, shown", [
    ("This step\n  looks\tfine.", "This step looks fine."),  # whitespace collapsed to single spaces
    ("x" * 70, "x" * 60),                                     # cut at 60 characters
    ("  " + "y " * 40, "y " * 30),                            # cut after collapsing
])
def test_an_off_format_reply_is_shown_collapsed_and_cut_at_sixty_characters(fake, cache, reply_text, shown):
    fake(replies=(reply_text,))
    with pytest.raises(Unknown) as err:
        JudgeQualitative(_llm(cache)).qualitative(ITEM, 0)
    assert str(err.value) == f"qualitative judge answered off-format: {shown!r}"


# ------------------------------------------------------------------------------------------ rollouts

@pytest.mark.parametrize("answers, share", [
    ((12, 12, 12, 12), 1.0), ((12, 13, 12, 13), 0.5), ((12, 12, 12, 13), 0.75), ((13, 13, 13, 12), 0.25),
    ((13, 13, 13, 13), 0.0),
])
def test_importance_is_the_share_of_n_sampled_rollouts_that_reach_the_gold_answer(fake, cache, answers, share):
    lib = fake(replies=tuple(f"Step 2: 4 × 3 = {a}\nFinal answer: {a}" for a in answers))
    assert RolloutImportance(_llm(cache), n=4).importance(ITEM, 0) == share
    assert len(lib.requests) == 4  # each sample its own call (its own cache key)
    assert all((r["temperature"], r["max_tokens"]) == (0.7, 512) for r in lib.requests)
    assert lib.prompts()[0].startswith("Solve the problem step by step.") and lib.prompts()[0].endswith(
        "Problem:\nWhat is (2 + 2) × 3?\n\nSteps so far:\nStep 1: 2 + 2 = 4\n\nContinue:")


def test_importance_without_a_gold_answer_is_unknown_before_any_call(fake, cache):
    lib = fake()
    with pytest.raises(Unknown) as err:
        RolloutImportance(_llm(cache)).importance(replace(ITEM, gold_answer=None), 0)
    assert (str(err.value), lib.requests) == ("missing gold answer", [])


# ------------------------------------------------------------------------------------------ the job

def _registry_pair() -> tuple:
    """Two registry entries whose names are not their litellm ids and whose temperature is sent."""
    found = [s for s in load_registry().models.values()
             if s.name != s.litellm_model and s.generation.temperature is not None and s.api_key_env][:2]
    assert len(found) == 2, "the shipped registry has two ordinary API models"
    return tuple(found)


def test_fused_signals_send_each_registry_names_litellm_id_key_and_the_signals_temperatures(fake, cache,
                                                                                           monkeypatch):
    policy, judge = _registry_pair()
    for spec in (policy, judge):
        monkeypatch.setenv(spec.api_key_env, "sk-test-not-a-secret")
    lib = fake(replies=("Final answer: 12", "Score: 1"))
    signals, usage = labeling.fused_signals(Models(policy.name, judge.name, rollouts=1), cache)
    assert signals.importance.importance(ITEM, 0) == 1.0 and signals.qualitative.qualitative(ITEM, 0) == 1.0
    assert [(r["model"], r["temperature"], r["api_key"]) for r in lib.requests] == [
        (policy.litellm_model, 0.7, "sk-test-not-a-secret"), (judge.litellm_model, 0.0, "sk-test-not-a-secret")]
    assert usage.calls == 2


@pytest.mark.parametrize("role", ["policy", "judge"])
def test_a_changed_policy_or_judge_model_is_never_answered_from_the_other_models_cache(fake, cache, role):
    lib = fake(replies=("Score: 1",))
    first = Models("openai/a", "openai/b", rollouts=1)
    for models in (first, replace(first, **{role: "openai/c"})):
        signals, _ = labeling.fused_signals(models, cache)
        if role == "policy":
            signals.importance.importance(ITEM, 0)
        else:
            signals.qualitative.qualitative(ITEM, 0)
    assert len(lib.requests) == 2


def test_run_labels_defaults_to_the_exact_recipe_and_writes_its_summary_one_field_a_line(tmp_path):
    out = tmp_path / "labels.jsonl"
    summary = run_labels([LabelItem("a", "Q?", ("1 + 1 = 2",), "2")], out)
    assert summary["recipe"] == "exact"
    written = (tmp_path / "labels.jsonl.summary.json").read_text()
    assert written == json.dumps(summary, indent=1) and json.loads(written)["recipe"] == "exact"


def test_the_fused_recipe_without_models_is_refused_naming_the_options_to_give(tmp_path):
    with pytest.raises(ValueError) as err:
        run_labels([ITEM], tmp_path / "labels.jsonl", "fused")
    assert str(err.value) == "the fused recipe needs --policy and --judge models"


@pytest.mark.parametrize("given, expected", [
    (None, "labels.cache.sqlite"),               # beside the labels, named after them
    ("cache/calls.sqlite", "cache/calls.sqlite"),
])
def test_the_fused_recipes_call_cache_sits_beside_the_labels_unless_one_is_given(tmp_path, given, expected):
    run_labels([ITEM], tmp_path / "labels.jsonl", "fused", Models("openai/a", "openai/b", rollouts=1),
               None if given is None else tmp_path / given, dry_run=True)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.sqlite")) == [expected]


class SameVector:
    """Every text the same unit vector: ChainEval's gate alone pairs the steps."""

    def encode_cached(self, texts):
        out = np.zeros((len(texts), 4), np.float32)
        out[:, 0] = 1.0
        return out


def test_the_embedder_given_to_run_labels_is_the_one_chaineval_uses(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("ChainEval's default embedding model was loaded instead of the one given")

    monkeypatch.setattr(chaineval, "shared_embedder", refuse)
    gold = gold_of({"id": "t", "question": "What is 2 + 2, times 3?", "answer": 12, "answer_unit": "",
                    "steps": [{"description": "Add", "value": 4, "unit": ""},
                              {"description": "Triple", "value": 12, "unit": ""}]})
    item = LabelItem("c", "What is 2 + 2, times 3?", ("2 + 2 = 4", "4 × 3 = 12"), "12", gold_answer=12.0, gold=gold)
    assert run_labels([item], tmp_path / "labels.jsonl", embedder=SameVector())["steps_correct"] == 2


def test_a_label_value_json_cannot_hold_is_written_as_its_text(tmp_path):
    out = tmp_path / "labels.jsonl"
    run_labels([LabelItem("a", "Q?", ("1 + 1 = 2",), "2", meta={"source": Path("runs/a")})], out)
    assert json.loads(out.read_text())["meta"] == {"source": "runs/a"}
