"""Asking a model from the explorer: a real streamed litellm call to the fake OpenAI server on 127.0.0.1
(the registry's local model pointed at it), and every failure as one line, never a traceback."""

from __future__ import annotations

import pytest

from finchain_tasks.explore import ask as ask_mod
from finchain_tasks.explore.actions import stream_answer
from finchain_tasks.explore.ask import AskError, ask
from tests.support.fake_openai import FakeOpenAI, delay, rate_limit, server_error

REPLY = ("Step 1: Interest for one year: 1,000 × 5% = $50.00\nStep 2: Balance: 1,000 + 50 = $1,050.00\n"
         "Final answer: 1050")


@pytest.fixture()
def local_at(monkeypatch):
    def point(server: FakeOpenAI) -> str:
        monkeypatch.setenv("FINCHAIN_LOCAL_API_BASE", server.base_url)
        return ask_mod.local_model_name()
    return point


def test_the_answer_streams_in_pieces_with_its_tokens(local_at):
    with FakeOpenAI(reply=REPLY) as server:
        model = local_at(server)
        answers = [(a.text, a.done) for a in ask(model, "What is 5% of 1,000?")]
        last = next(a for a in ask(model, "What is 5% of 1,000?") if a.done)
    assert answers[-1] == (REPLY, True)
    assert len(answers) > 3 and all(REPLY.startswith(t) for t, _ in answers)  # it grew piece by piece
    assert last.input_tokens and last.output_tokens == len(REPLY.split())
    assert last.cost is None and "cost unknown" in last.status(model)  # the local model has no price
    body = server.requests[0].body
    assert body["stream"] is True and body["messages"][-1]["content"] == "What is 5% of 1,000?"


def test_a_missing_key_names_its_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AskError, match="OPENAI_API_KEY"):
        list(ask("gpt-4.1-mini", "q"))


def test_an_unknown_model_is_one_line():
    with pytest.raises(AskError, match="unknown model"):
        list(ask("no-such-model", "q"))


@pytest.mark.parametrize("fault", [rate_limit(retry_after=0), server_error(500), delay(5)])
def test_provider_failures_become_a_status_line(local_at, monkeypatch, fault, problem):
    monkeypatch.setattr(ask_mod, "TIMEOUT_S", 1.0)
    with FakeOpenAI(script={1: fault}) as server:
        model = local_at(server)
        shown = list(stream_answer(model, problem.id))
    assert len(shown) == 1 and shown[0][0] == ""
    line = shown[0][1]
    assert line.startswith("error: ") and "\n" not in line and "Traceback" not in line


def test_an_echoed_key_never_reaches_the_page(local_at, monkeypatch, problem):
    secret = "sk-explore-test-secret-0123456789abcdef"
    monkeypatch.setenv("FINCHAIN_EXPLORE_TEST_API_KEY", secret)
    with FakeOpenAI(script={1: server_error(500)}) as server:
        model = local_at(server)
        monkeypatch.setattr(ask_mod, "_request", lambda spec, q: (_ for _ in ()).throw(
            RuntimeError(f"proxy said: bad key {secret} (…{secret[-12:]})")))
        line = list(stream_answer(model, problem.id))[0][1]
    assert secret not in line and secret[-12:] not in line and "<redacted>" in line
