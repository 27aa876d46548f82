"""The litellm provider's user-visible rules, one table-driven test per rule (issue 39.3), without a server:
which Inspect settings reach the request and under which name, which model args the provider keeps for itself,
how a finish reason reads, which roles pass, which failures are retried, the forms of ``Retry-After`` and its
cap, and the backoff when a server gives none. (The end-to-end behaviour against a fake server is
tests/inspect/test_inspect_litellm.py, marked slow.)"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from types import SimpleNamespace

import pytest
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)

from finchain_tasks.inspect import litellm_provider as lp

BASE = "http://127.0.0.1:9/v1"


@pytest.fixture
def api(monkeypatch):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    return get_model("litellm/openai/fake", api_base=BASE, api_key="none").api


# ------------------------------------------------------------------------------------------ the request

@pytest.mark.parametrize(("field", "value", "param"), [
    ("max_tokens", 64, "max_tokens"), ("temperature", 0.0, "temperature"), ("top_p", 0.9, "top_p"),
    ("stop_seqs", ["\n\n"], "stop"), ("seed", 7, "seed"), ("frequency_penalty", 0.5, "frequency_penalty"),
    ("presence_penalty", 0.25, "presence_penalty"), ("num_choices", 2, "n"), ("logit_bias", {42: 1.0}, "logit_bias"),
    ("top_k", 5, "top_k"), ("logprobs", True, "logprobs"), ("top_logprobs", 3, "top_logprobs"),
    ("reasoning_effort", "low", "reasoning_effort"), ("extra_headers", {"X-A": "1"}, "extra_headers"),
    ("extra_body", {"k": 1}, "extra_body"),
])
def test_each_inspect_setting_reaches_the_request_under_litellms_name(api, field, value, param):
    request = api.request([ChatMessageUser(content="hi")], GenerateConfig(**{field: value}))
    assert request[param] == value
    assert field == param or field not in request


def test_a_setting_left_unset_is_not_sent(api):
    request = api.request([ChatMessageUser(content="hi")], GenerateConfig())
    assert set(request) == {"model", "messages", "api_base", "num_retries"}
    assert request["model"] == "openai/fake" and request["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(("arg", "value"), [
    ("api_base", BASE), ("api_key_env", "HOME"), ("num_retries", 2), ("timeout", 5), ("retry_wait", 0.5),
    ("response_cache", "/nonexistent/cache.sqlite"), ("finchain_model", "fake"), ("request_path", "litellm"),
])
def test_the_providers_own_model_args_are_kept_out_of_litellms_extras_and_listed(monkeypatch, arg, value):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    args = {"api_base": BASE, "api_key": "none", "drop_params": True, arg: value}
    api = get_model("litellm/openai/fake", **args).api
    assert arg not in api.extra and arg in lp.PROVIDER_ARGS
    assert api.extra == {"drop_params": True}  # any other arg goes to litellm as it is


@pytest.mark.parametrize(("message", "role"), [
    (ChatMessageSystem(content="s"), "system"), (ChatMessageUser(content="u"), "user"),
    (ChatMessageAssistant(content="a"), "assistant"),
])
def test_text_messages_pass_with_their_role_and_text(message, role):
    assert lp._message(message) == {"role": role, "content": message.text}


def test_a_tool_message_is_refused():
    with pytest.raises(NotImplementedError, match="text messages only, not 'tool'"):
        lp._message(ChatMessageTool(content="r", tool_call_id="1"))


# ------------------------------------------------------------------------------------------ the reply

@pytest.mark.parametrize(("finish", "stop_reason"), [
    ("stop", "stop"), ("length", "max_tokens"), ("tool_calls", "tool_calls"), ("function_call", "tool_calls"),
    ("content_filter", "content_filter"), ("something_new", "unknown"), (None, "unknown"),
])
def test_each_finish_reason_reads_as_inspects_stop_reason(api, finish, stop_reason):
    reply = SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="x"), finish_reason=finish)],
                            model="fake", usage=None)
    assert api.output(reply).choices[0].stop_reason == stop_reason


# ------------------------------------------------------------------------------------------ retries

class _Failure(Exception):
    def __init__(self, status_code=None, headers=None):
        super().__init__("failure")
        self.status_code = status_code
        self.litellm_response_headers = headers


@pytest.mark.parametrize(("status", "retried"), [(None, False), (400, False), (499, False), (500, True),
                                                 (503, True), (599, True)])
def test_a_server_error_status_is_retried_and_a_client_error_is_not(api, status, retried):
    decision = api.should_retry(_Failure(status))
    assert bool(decision) is retried
    if retried:
        assert decision.kind == "transient"


def _http_date(seconds_from_now: float) -> str:
    return format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds_from_now), usegmt=True)


@pytest.mark.parametrize(("headers", "expected"), [
    ({}, None),
    ({"Retry-After": "7"}, 7.0),
    ({"retry-after": " 2.5 "}, 2.5),
    ({"Retry-After": "-3"}, 0.0),                  # never a negative wait
    ({"retry-after-ms": "1500"}, 1.5),             # milliseconds, and before Retry-After when both are given
    ({"retry-after-ms": "1500", "Retry-After": "9"}, 1.5),
    ({"retry-after-ms": "-1"}, 0.0),
    ({"Retry-After": "soon"}, None),               # neither seconds nor a date
    ({"retry-after-ms": "x"}, None),
])
def test_retry_after_is_read_as_seconds_or_milliseconds(headers, expected):
    assert lp.retry_after(_Failure(429, headers)) == expected


@pytest.mark.parametrize("ahead", [60, 3600])
def test_retry_after_as_a_date_is_the_seconds_until_it(ahead):
    assert lp.retry_after(_Failure(429, {"Retry-After": _http_date(ahead)})) == pytest.approx(ahead, abs=2)
    assert lp.retry_after(_Failure(429, {"Retry-After": _http_date(-ahead)})) == 0.0  # a date past: no wait


def _state(attempt: int, headers: dict | None):
    failure = _Failure(429, headers)
    outcome = SimpleNamespace(failed=True, exception=lambda: failure)
    return SimpleNamespace(outcome=outcome, attempt_number=attempt)


@pytest.mark.parametrize(("after", "waited"), [
    ("0", 0.0), ("1799", 1799.0), ("1800", 1800.0), ("1801", 1800.0), ("86400", 1800.0),
])
def test_a_servers_retry_after_is_honoured_up_to_thirty_minutes(after, waited):
    assert lp.MAX_RETRY_AFTER == 30 * 60
    assert lp.RetryAfterWait(initial=3)(_state(1, {"Retry-After": after})) == waited


@pytest.mark.parametrize(("attempt", "low", "high"), [
    (0, 3.0, 6.0), (1, 3.0, 6.0), (2, 6.0, 9.0), (3, 12.0, 15.0), (10, 1536.0, 1539.0), (11, 1800.0, 1800.0),
    (500, 1800.0, 1800.0),
])
def test_without_retry_after_the_wait_doubles_from_the_first_with_jitter_and_is_capped(attempt, low, high):
    waits = [lp.RetryAfterWait(initial=3)(_state(attempt, {})) for _ in range(20)]
    assert all(low <= w <= high for w in waits)
    assert max(waits) > min(waits) or low == high  # jitter, unless capped


# ------------------------------------------------------------------------------------------ the cache

def test_a_cache_hit_is_answered_without_a_send_and_logged_as_a_hit_with_its_key(monkeypatch, tmp_path):
    import anyio
    from inspect_ai.model import ModelOutput

    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    api = get_model("litellm/openai/fake", api_base=BASE, api_key="none",
                    response_cache=str(tmp_path / "responses.sqlite")).api
    messages, config = [ChatMessageUser(content="hi")], GenerateConfig(temperature=0.0)
    request = api.request(messages, config)
    cache, key = api._cache(request)
    cache.put(key, api.model_name, request, ModelOutput.from_content("openai/fake", "cached answer").model_dump_json())
    output, call = anyio.run(api.generate, messages, [], "none", config)  # port 9: a send would fail
    assert output.completion == "cached answer" and output.metadata["finchain_cache"] == "hit"
    assert call.response == {"finchain_cache": "hit", "key": key}
