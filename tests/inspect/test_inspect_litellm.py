"""The ``litellm/<provider>/<model>`` Inspect provider against a real HTTP server on 127.0.0.1.

litellm calls the fake OpenAI-compatible server as ``openai/fake`` with ``api_base``: the whole
client path runs (HTTP, status codes, JSON, timeouts). Scripted faults must be retried by
Inspect's retry machinery and the run must succeed; usage is reported, cost is None for the
unpriced fake model (and a number for a priced one), and the key never reaches the log.
"""

import json
import zipfile

import anyio
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from finchain_tasks.engine import all_templates
from finchain_tasks.inspect.tasks import finchain
from tests.support.fake_openai import (
    FakeOpenAI,
    delay,
    empty_choices,
    malformed,
    null_content,
    rate_limit,
    server_error,
    status,
)

pytestmark = pytest.mark.slow

KEY = "sk-finchain-test-7f3a9c1e55d2"
KEY_ENV = "FINCHAIN_FAKE_OPENAI_KEY"
TIMEOUT = 8
"""Seconds per request attempt: far above any prompt answer from the local fake server, even on a loaded
machine (a 1 s limit timed out ordinary answers there, which then arrived twice)."""
STALL = 600
"""A stalled answer: longer than any test; the server cuts it short when it stops."""


@pytest.fixture
def model_api_enabled(monkeypatch):
    """These tests call a model API (a local one): lift the test-wide guard, provide the key by env."""
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)


def _one_sample_task():
    template = next(iter(all_templates().values()))
    return finchain(template=template.id, seeds=[0]), template.generate(0)


def _model_args(server, **extra):
    return dict(api_base=server.base_url, api_key_env=KEY_ENV, retry_wait=0.05, **extra)


def _log_texts(path: str) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return [archive.read(name).decode("utf-8", "replace") for name in archive.namelist()]


def test_faults_are_retried_and_usage_is_reported(model_api_enabled, tmp_path):
    task, problem = _one_sample_task()
    # the stalled answer never comes (the server wakes it only to stop), so the timeout is what ends it;
    # the timeout is generous so that no prompt answer on a loaded machine is timed out and asked twice
    script = {1: rate_limit(retry_after=0), 2: delay(STALL), 3: server_error(500), 4: malformed()}
    with FakeOpenAI(script=script, reply=problem.solution) as server:
        log = inspect_eval(task, model="litellm/openai/fake",
                           model_args=_model_args(server, timeout=TIMEOUT, extra_headers={"X-Trace": "t1"}),
                           log_dir=str(tmp_path), display="none", score=False)[0]
    assert log.status == "success", log.error
    kinds = [r.fault.kind if r.fault else "ok" for r in server.requests]
    assert kinds == ["status", "delay", "status", "malformed", "ok"]
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)
    assert all(r.headers.get("x-trace") == "t1" for r in server.requests)  # an extra -M argument reaches litellm
    sample = log.samples[0]
    assert sample.output.completion == problem.solution
    attempts = [e for e in sample.events if e.event == "model"]  # Inspect logs one event per attempt
    errors = [(e.error or "").split(":")[0] for e in attempts]
    assert errors == ["litellm.RateLimitError", "litellm.Timeout", "litellm.InternalServerError",
                      "litellm.InternalServerError", ""]
    usage = log.stats.model_usage["litellm/openai/fake"]
    last = server.requests[-1].body
    prompt_words = sum(len(m["content"].split()) for m in last["messages"])
    assert usage.input_tokens == prompt_words and usage.output_tokens == len(problem.solution.split())
    assert usage.total_cost is None
    assert last["max_tokens"] == 1024 and last["model"] == "fake"
    texts = _log_texts(log.location)
    assert not any(KEY in text for text in texts)
    assert log.eval.model_args["api_key_env"] == KEY_ENV


def test_a_client_error_is_not_retried(model_api_enabled, tmp_path):
    task, _ = _one_sample_task()
    with FakeOpenAI(script={1: status(400)}) as server:
        log = inspect_eval(task, model="litellm/openai/fake", model_args=_model_args(server),
                           log_dir=str(tmp_path), display="none", score=False)[0]
    assert log.status == "error"
    assert len(server.requests) == 1


def test_an_api_key_model_arg_is_used_but_not_logged(model_api_enabled, tmp_path):
    task, _ = _one_sample_task()
    with FakeOpenAI() as server:
        log = inspect_eval(task, model="litellm/openai/fake",
                           model_args=dict(api_base=server.base_url, api_key=KEY),
                           log_dir=str(tmp_path), display="none", score=False)[0]
    assert log.status == "success", log.error
    assert server.requests[0].headers.get("authorization") == f"Bearer {KEY}"
    assert not any(KEY in text for text in _log_texts(log.location))


def test_cost_is_a_number_for_a_priced_model_and_none_for_an_unpriced_one(model_api_enabled):
    async def costs(server):
        out = {}
        for name in ("openai/gpt-4o-mini", "openai/fake"):
            model = get_model(f"litellm/{name}", api_base=server.base_url, api_key_env=KEY_ENV)
            output = await model.generate("What is 2 + 2?")
            out[name] = (output.usage.total_cost, output.usage.output_tokens)
        return out

    with FakeOpenAI(reply="Final answer: 4") as server:
        result = anyio.run(costs, server)
    priced_cost, tokens = result["openai/gpt-4o-mini"]
    assert tokens == 3 and isinstance(priced_cost, float) and priced_cost > 0
    assert result["openai/fake"][0] is None


def test_retry_after_is_read_from_the_real_exception(model_api_enabled):
    """A 429's Retry-After reaches Inspect's RetryDecision and the wait; a timeout is transient."""
    from tenacity import RetryCallState, Retrying

    from finchain_tasks.inspect.litellm_provider import RetryAfterWait, import_litellm

    litellm = import_litellm()

    async def failures(server):
        errors = []
        for _ in range(2):
            try:
                await litellm.acompletion(model="openai/fake", api_base=server.base_url, api_key="x", timeout=TIMEOUT,
                                          num_retries=0, messages=[{"role": "user", "content": "hi"}])
            except Exception as exc:
                errors.append(exc)
        return errors

    with FakeOpenAI(script={1: rate_limit(retry_after=7), 2: delay(STALL)}) as server:
        limited, timed_out = anyio.run(failures, server)
    api = get_model("litellm/openai/fake", api_base="http://127.0.0.1:9/v1", api_key="none").api
    decision = api.should_retry(limited)
    assert decision.retry and decision.kind == "rate_limit" and decision.retry_after == 7
    assert api.should_retry(timed_out).kind == "transient"
    state = RetryCallState(Retrying(), None, (), {})
    state.set_exception((type(limited), limited, limited.__traceback__))
    assert RetryAfterWait(initial=3)(state) == 7
    assert not api.should_retry(ValueError("not a provider error"))


def test_tools_are_refused_with_a_pointer_to_inspect_providers(model_api_enabled):
    from inspect_ai.tool import ToolInfo

    async def call():
        api = get_model("litellm/openai/fake", api_base="http://127.0.0.1:9/v1", api_key="none").api
        from inspect_ai.model import GenerateConfig

        await api.generate([], [ToolInfo(name="calc", description="a calculator")], "auto", GenerateConfig())

    with pytest.raises(NotImplementedError, match="Inspect's own provider"):
        anyio.run(call)


def test_request_log_never_holds_the_key(model_api_enabled):
    api = get_model("litellm/openai/fake", api_base="http://127.0.0.1:9/v1", api_key=KEY).api
    from inspect_ai.model import ChatMessageUser, GenerateConfig

    request = api.request([ChatMessageUser(content="hi")], GenerateConfig(temperature=0.0, stop_seqs=["\n\n"]))
    assert KEY not in json.dumps(request)
    assert request["temperature"] == 0.0 and request["stop"] == ["\n\n"] and request["num_retries"] == 0


def test_empty_choices_and_null_content_are_retried_faults_never_cached_answers(model_api_enabled, tmp_path):
    """A 200 with ``choices: []`` or ``content: null`` is retried; only the well-formed answer is cached."""
    from finchain_tasks.runs.cache import ResponseCache

    task, problem = _one_sample_task()
    cache = tmp_path / "responses.sqlite"
    with FakeOpenAI(script={1: empty_choices(), 2: null_content()}, reply=problem.solution) as server:
        log = inspect_eval(task, model="litellm/openai/fake", model_args=_model_args(server, response_cache=str(cache)),
                           log_dir=str(tmp_path), display="none", score=False)[0]
    assert log.status == "success", log.error
    assert [r.fault.kind if r.fault else "ok" for r in server.requests] == ["empty_choices", "null_content", "ok"]
    assert log.samples[0].output.completion == problem.solution
    from inspect_ai.model import ModelOutput

    (entry,) = ResponseCache(cache).entries()
    assert ModelOutput.model_validate_json(entry["output"]).completion == problem.solution


def test_a_reply_that_stays_malformed_fails_the_sample_and_is_not_cached(model_api_enabled, tmp_path):
    """When retries run out on null content the sample is an error (not an empty answer scored 0), and a
    re-run against a healthy server answers it, since nothing bad was cached."""
    from finchain_tasks.runs.cache import ResponseCache

    task, problem = _one_sample_task()
    cache = tmp_path / "responses.sqlite"
    args = dict(log_dir=str(tmp_path / "logs"), display="none", max_retries=1)
    with FakeOpenAI(rule=lambda body: null_content(), reply=problem.solution) as server:
        log = inspect_eval(task, model="litellm/openai/fake",
                           model_args=_model_args(server, response_cache=str(cache)), **args)[0]
    assert log.status == "error" and "MalformedResponse" in (log.error.message if log.error else "")
    assert len(server.requests) == 2 and len(ResponseCache(cache)) == 0
    task, _ = _one_sample_task()
    with FakeOpenAI(reply=problem.solution) as server:
        log = inspect_eval(task, model="litellm/openai/fake",
                           model_args=_model_args(server, response_cache=str(cache)), **args)[0]
    assert log.status == "success" and log.samples[0].scores["chaineval"].value["chaineval"] == pytest.approx(1.0)
    assert len(server.requests) == 1


@pytest.mark.parametrize("path", ["fast", "litellm"])
def test_a_reply_with_a_lone_surrogate_is_kept_sanitised_and_paid_for_once(model_api_enabled, tmp_path, path):
    """Issue 33.4: the answer is scored with U+FFFD in place of the surrogate, its output says so, and a
    re-run answers from the cache (before: the sample failed on every run and re-sent the paid request)."""
    from finchain_tasks.runs.cache import ResponseCache

    task, problem = _one_sample_task()
    cache = tmp_path / "responses.sqlite"
    reply = problem.solution + "\nnote \ud800 end"
    extra = {"request_path": "litellm"} if path == "litellm" else {}
    runs, sent = [], []
    for k in range(2):
        task, _ = _one_sample_task()
        with FakeOpenAI(reply=reply) as server:
            runs.append(inspect_eval(task, model="litellm/openai/fake", log_dir=str(tmp_path / f"logs{k}"),
                                     model_args=_model_args(server, response_cache=str(cache), **extra),
                                     display="none")[0])
            sent.append(len(server.requests))
    first, second = runs
    assert first.status == "success" and second.status == "success", (first.error, second.error)
    assert sent == [1, 0]
    for log in runs:
        output = log.samples[0].output
        assert output.completion == problem.solution + "\nnote \ufffd end"
        assert output.metadata["finchain_sanitised"] == "1 lone surrogate(s) in the reply replaced with U+FFFD"
    scores = [log.samples[0].scores["chaineval"].value for log in runs]
    assert scores[0] == scores[1] and scores[0]["chaineval"] > 0.99  # the gold steps, plus one note line
    assert len(ResponseCache(cache)) == 1


def test_every_send_of_a_request_after_its_first_is_counted_as_a_re_send(model_api_enabled, tmp_path):
    """The run summary's ``requests_resent`` reads the provider's count: each retry of the same request (after a
    server error, a rate limit or an attempt timeout) is a request paid again."""
    task, problem = _one_sample_task()
    with FakeOpenAI(script={1: server_error(500), 2: rate_limit(retry_after=0)}, reply=problem.solution) as server:
        model = get_model("litellm/openai/fake", **_model_args(server, timeout=TIMEOUT))
        log = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none", score=False)[0]
    assert log.status == "success", log.error
    assert len(server.requests) == 3
    assert model.api.resent == 2  # three sends of one request: the first, then two re-sends
