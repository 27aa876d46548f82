"""Issue 40.4: after an attempt timeout the litellm provider tells a slow send from a stalled one by racing them.

Against the fake OpenAI-compatible server on 127.0.0.1 (the whole HTTP path, no mock of the provider), with a
sub-second attempt timeout. The rules (:mod:`finchain_tasks.inspect.open_sends`), one test each:

- a late answer is used, not paid for twice: it came during the backoff (nothing sent again), or during the race
  with the new send (which is then cancelled);
- a stalled send never blocks recovery: the new send's answer is used and the stalled send is cancelled;
- of two answers exactly one counts: the sample's output, its usage and cost, the run's totals;
- the new send's failure ends the attempt with its own error: a 429's ``Retry-After`` is waited for;
- when every send stalls, retries run out cleanly, with at most two sends of the request open at once and none
  left open after the run.

Server-side orderings (``hold``: answer the first send when the second arrives) make the interleavings
deterministic; the clocks are the attempt timeout and the backoff, each far from every held answer. The model is
called through Inspect's own ``Model.generate`` (its retry loop, attempt timeout, ``should_retry`` and waits, and
its run-wide usage totals), after one warm-up call in the same event loop, so that no first-call import is timed.
"""

import threading
import time
from typing import Any

import anyio
import pytest
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from finchain_tasks.engine import all_templates
from tests.support.fake_openai import FakeOpenAI, Fault, delay, hold, rate_limit
from tests.support.timeouts import limit

pytestmark = pytest.mark.slow

KEY_ENV = "FINCHAIN_FAKE_OPENAI_KEY"
ATTEMPT = limit(0.5)
"""Inspect's attempt timeout here, seconds (set on the built config: Inspect's constructor takes whole seconds). Every
other time below is a multiple of it, so the suite's timeout scale stretches them together; an ordinary answer
of the local server, after the warm-up, takes a few milliseconds."""
STALL = 600.0
"""A send that never answers within a test (the server cuts it short when it stops)."""
PROBLEM = next(iter(all_templates().values())).generate(0)
PROMPT = PROBLEM.question
"""The request under test; the warm-up call asks something else, so the faults below never touch it."""


@pytest.fixture
def model_api_enabled(monkeypatch):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-finchain-test-late")


class Sends:
    """The server's rule for the request under test: the n-th send of it gets ``faults[n]`` (then ``then``), and
    ``arrived[n]`` is set when it arrives (so a ``hold`` can wait for a later send)."""

    def __init__(self, *faults: Fault | None, then: Fault | None = None) -> None:
        self.faults, self.then, self.seen = faults, then, 0
        self.arrived = [threading.Event() for _ in range(8)]

    def __call__(self, body: Any) -> Fault | None:
        if _prompt(body) != PROMPT:
            return None
        n, self.seen = self.seen, self.seen + 1  # the server calls rules under its lock
        if n < len(self.arrived):
            self.arrived[n].set()
        return self.faults[n] if n < len(self.faults) else self.then


def _prompt(body: Any) -> str:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    return str(messages[-1].get("content", "")) if messages else ""


def _model(server, name="openai/fake", retries=3, retry_wait=0.05, **args):
    config = GenerateConfig(max_retries=retries)
    config.attempt_timeout = ATTEMPT  # type: ignore[assignment]
    return get_model(f"litellm/{name}", config=config, api_base=server.base_url, api_key_env=KEY_ENV,
                     retry_wait=retry_wait, memoize=False, **args)


def _generate(model, server) -> tuple[ModelOutput | BaseException, dict[str, Any], int]:
    """(the output or the error, Inspect's run-wide usage of this call, how many of its sends the server still
    held once the asking task had ended, the event loop still running) for the request under test, after a
    warm-up call; the provider's counters start from 0 after it."""
    from inspect_ai.model._model import init_model_usage, model_usage

    async def held() -> int:
        deadline = time.monotonic() + limit(5)
        while (n := sum(1 for r in server.requests if _prompt(r.body) == PROMPT and r.ended is None)) and \
                time.monotonic() < deadline:
            await anyio.sleep(0.02)
        return n

    async def main():
        model.config.attempt_timeout = None  # the first call imports the client: no timeout for it
        await model.generate("warm up")
        model.config.attempt_timeout = ATTEMPT  # type: ignore[assignment]
        model.api.resent = model.api.late_answers = 0
        init_model_usage({})
        result: list[Any] = []

        async def ask():
            try:
                result.append(await model.generate(PROMPT))
            except Exception as ex:
                result.append(ex)

        async with anyio.create_task_group() as group:  # the asking task ends here, as a sample's does
            group.start_soon(ask)
        return result[0], dict(model_usage()), await held()

    return anyio.run(main)


def _sends(server, n: int):
    """The sends of the request under test, once the server is done with the first ``n`` (a cancelled send is seen
    closed a poll after the client closes it)."""
    deadline = time.monotonic() + limit(10)
    while time.monotonic() < deadline:
        sends = [r for r in server.requests if _prompt(r.body) == PROMPT]
        if len(sends) >= n and all(r.ended is not None for r in sends[:n]):
            break
        time.sleep(0.02)
    return sends


@pytest.mark.parametrize("case", ["during the backoff", "during the race"])
def test_a_late_answer_is_used_not_paid_twice(model_api_enabled, tmp_path, case):
    """Before, the attempt timeout cancelled the send and the retry sent it again: the answer on its way was lost
    and paid for again (and here the second send never answers: the call failed). With a response cache, the
    late answer (cached as it came) is still this request's late answer, not a cache hit."""
    if case == "during the backoff":  # answers 0.8 timeouts after the timeout; the next attempt starts 2-4 after it
        rule, retry_wait = Sends(delay(1.8 * ATTEMPT), then=delay(STALL)), 2 * ATTEMPT
    else:  # answers when the new send arrives, and the new send would never answer
        rule = Sends(then=delay(STALL))
        rule.faults, retry_wait = (hold(rule.arrived[1]),), 0.05
    with FakeOpenAI(rule=rule, reply=PROBLEM.solution) as server:
        model = _model(server, retry_wait=retry_wait, response_cache=str(tmp_path / "responses.sqlite"))
        output, usage, left_open = _generate(model, server)
        sends = _sends(server, 2)
    assert isinstance(output, ModelOutput), output
    assert output.completion == PROBLEM.solution and output.metadata["finchain_late_answer"] is True
    assert "finchain_cache" not in output.metadata
    assert sends[0].answered and model.api.late_answers == 1 and left_open == 0
    if case == "during the backoff":
        assert len(sends) == 1 and model.api.resent == 0  # nothing sent again
    else:
        assert len(sends) == 2 and model.api.resent == 1 and sends[1].dropped  # the new send, cancelled
    assert usage["litellm/openai/fake"].output_tokens == len(PROBLEM.solution.split())  # one answer counted


def test_a_stalled_send_never_blocks_recovery(model_api_enabled):
    """The reverted rule (a retry joins the open send) ran out of retries here: the new send's answer is used, and
    the stalled send is cancelled."""
    with FakeOpenAI(rule=Sends(delay(STALL)), reply=PROBLEM.solution) as server:
        model = _model(server, retries=1)
        output, _, left_open = _generate(model, server)
        sends = _sends(server, 2)
    assert isinstance(output, ModelOutput), output
    assert output.completion == PROBLEM.solution and "finchain_late_answer" not in output.metadata
    assert len(sends) == 2 and sends[0].dropped and sends[1].answered and left_open == 0
    assert (model.api.resent, model.api.late_answers) == (1, 0)
    assert server.most_open(sends[0].body) == 2


def test_of_two_answers_exactly_one_counts(model_api_enabled, tmp_path):
    """Both sends answer at once (the first is released by the second's arrival, the second answers at once):
    one output, its usage and cost once in Inspect's run totals, one cached answer."""
    from finchain_tasks.runs.cache import ResponseCache

    rule = Sends(None)
    rule.faults = (hold(rule.arrived[1]), None)
    cache = tmp_path / "responses.sqlite"
    with FakeOpenAI(rule=rule, reply=PROBLEM.solution) as server:
        model = _model(server, name="openai/gpt-4o-mini", response_cache=str(cache))  # a priced model: a cost
        output, usage, left_open = _generate(model, server)
        sends = _sends(server, 2)
    assert isinstance(output, ModelOutput), output
    assert len(sends) == 2 and model.api.resent == 1 and left_open == 0
    assert all(r.answered or r.dropped for r in sends)  # the loser was cancelled, or answered and dropped
    assert output.completion == PROBLEM.solution
    words = len(PROBLEM.solution.split())
    assert output.usage.output_tokens == words and output.usage.total_cost > 0
    total = usage["litellm/openai/gpt-4o-mini"]
    assert (total.output_tokens, total.input_tokens) == (words, output.usage.input_tokens)
    assert total.total_cost == pytest.approx(output.usage.total_cost)
    assert len(ResponseCache(cache)) == 2  # the warm-up's answer and this one


def test_the_new_sends_failure_ends_the_attempt_and_its_retry_after_is_waited_for(model_api_enabled):
    """A 429 to the new send is not hidden behind the open one: Inspect sees it and waits its Retry-After, then
    the third send answers while the first is still stalled."""
    wait = round(1.6 * ATTEMPT, 3)
    with FakeOpenAI(rule=Sends(delay(STALL), rate_limit(retry_after=wait)), reply=PROBLEM.solution) as server:
        model = _model(server)
        output, _, left_open = _generate(model, server)
        sends = _sends(server, 3)
    assert isinstance(output, ModelOutput), output
    assert [r.fault.kind if r.fault else "ok" for r in sends] == ["delay", "status", "ok"]
    assert sends[2].received - sends[1].received >= wait  # the Retry-After, not the 0.05 s backoff
    assert sends[0].dropped and sends[2].answered and model.api.resent == 2 and left_open == 0
    assert server.most_open(sends[0].body) == 2


def test_when_every_send_stalls_retries_run_out_with_at_most_two_open_and_none_left(model_api_enabled):
    with FakeOpenAI(rule=Sends(then=delay(STALL))) as server:
        model = _model(server, retries=3)
        error, _, left_open = _generate(model, server)
        sends = _sends(server, 4)
        assert all(r.dropped for r in sends)  # every send cancelled by the client, none left to the server
    assert isinstance(error, Exception) and not isinstance(error, ModelOutput)
    assert left_open == 0 and len(sends) == 4 and (model.api.resent, model.api.late_answers) == (3, 0)
    assert server.most_open(sends[0].body) == 2
