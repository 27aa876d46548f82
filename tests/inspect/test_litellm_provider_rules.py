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
def api():
    """A fresh provider per test (Inspect's ``get_model`` would hand every test the one it memoised)."""
    return lp.LiteLLMAPI("openai/fake", api_base=BASE, api_key="none")


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
    api = get_model("litellm/openai/fake", memoize=False, **args).api
    assert arg not in api.extra and arg in lp.PROVIDER_ARGS
    assert api.extra == {"drop_params": True}  # any other arg goes to litellm as it is


@pytest.mark.parametrize(("message", "role"), [
    (ChatMessageSystem(content="s"), "system"), (ChatMessageUser(content="u"), "user"),
    (ChatMessageAssistant(content="a"), "assistant"),
])
def test_text_messages_pass_with_their_role_and_text(message, role):
    assert lp._message(message) == {"role": role, "content": message.text}


def test_a_tool_message_is_refused():
    with pytest.raises(NotImplementedError,
                       match="^the litellm provider passes text messages only, not 'tool' messages$"):
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


# ------------------------------------------------------------------------------------------ a stand-in litellm
# (issue 39's mutmut pass: the rules below are each user-visible, pinned here without a server; litellm itself is
# replaced by a plain object where the rule is what the provider does with litellm's answer)

class _Err(Exception):
    """A litellm-style failure: each subclass below stands for one of litellm's exception classes."""

    def __init__(self, message="failure", headers=None):
        super().__init__(message)
        self.litellm_response_headers = headers


def _fake_litellm(**over):
    names = ("RateLimitError", "Timeout", "APIConnectionError", "ServiceUnavailableError", "BadGatewayError",
             "InternalServerError", "AuthenticationError", "BadRequestError")
    fake = SimpleNamespace(**{n: type(n, (_Err,), {}) for n in names})
    fake.calls = []
    for name, value in over.items():
        setattr(fake, name, value)
    return fake


def _api(model="openai/fake", **args):
    """The provider as Inspect builds it for ``litellm/<model>``, without Inspect's memo of models."""
    args = {"api_base": BASE, "api_key": "none", **args}
    return lp.LiteLLMAPI(model, api_key=args.pop("api_key"), **args)


class _Reply:
    """A chat completion as litellm returns it: choices, model, usage and ``model_dump``."""

    def __init__(self, *contents, finish="stop", model="fake", usage=None, hidden=None):
        self.choices = [SimpleNamespace(message=SimpleNamespace(content=c), finish_reason=finish) for c in contents]
        self.model, self.usage = model, usage
        if hidden is not None:
            self._hidden_params = hidden

    def model_dump(self):
        return {"model": self.model, "choices": [{"message": {"content": c.message.content}} for c in self.choices]}


def _usage(prompt=10, completion=5, total=15, cached=None, reasoning=None):
    return SimpleNamespace(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total,
                           prompt_tokens_details=SimpleNamespace(cached_tokens=cached),
                           completion_tokens_details=SimpleNamespace(reasoning_tokens=reasoning))


# ------------------------------------------------------------------------------------------ keys

def _env_checker(missing, fails=False):
    def validate_environment(model):
        if fails:
            raise ValueError("unknown provider")
        return {"missing_keys": list(missing)}
    return SimpleNamespace(validate_environment=validate_environment)


NEEDS = "litellm/acme/m needs an API key: set {}, or pass -M api_key_env=NAME"
KEYLESS_HINT = " (a server that needs no key: -M api_key=none)"


@pytest.mark.parametrize(("missing", "key", "base", "env", "expected"), [
    (["ACME_API_KEY"], None, None, {}, NEEDS.format("ACME_API_KEY")),
    (["ACME_TOKEN"], None, None, {}, NEEDS.format("ACME_TOKEN")),
    (["A_KEY", "B_TOKEN"], None, None, {}, NEEDS.format("A_KEY or B_TOKEN")),
    (["ACME_API_KEY"], None, "http://h:1", {}, NEEDS.format("ACME_API_KEY") + KEYLESS_HINT),
    (["ACME_API_BASE", "ACME_API_KEY"], None, None, {}, NEEDS.format("ACME_API_KEY")),  # a base URL is no key
    (["ACME_API_KEY"], "sk-given", None, {}, None),            # a key given
    (["ACME_API_KEY"], None, None, {"ACME_API_KEY": "set"}, None),  # one of the variables is set
    (["A_KEY", "B_TOKEN"], None, None, {"B_TOKEN": "set"}, None),
    (["A_KEY"], None, None, {"A_KEY": ""}, NEEDS.format("A_KEY")),  # set but empty
    (["ACME_API_BASE"], None, None, {}, None),                 # only a base URL lacking: api_base satisfies it
    ([], None, None, {}, None),
])
def test_rule_a_model_lacking_its_key_variable_is_named_in_one_line(monkeypatch, missing, key, base, env, expected):
    for name in ("ACME_API_KEY", "ACME_TOKEN", "A_KEY", "B_TOKEN", "ACME_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert lp.missing_key(_env_checker(missing), "acme/m", key, base) == expected


def test_rule_a_provider_litellm_does_not_know_is_left_to_litellm_at_call_time():
    assert lp.missing_key(_env_checker(["ACME_API_KEY"], fails=True), "acme/m", None, None) is None


def test_rule_a_model_without_its_key_fails_before_any_request_naming_the_variable(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(lp.MissingKey, match="^litellm/anthropic/claude-x needs an API key: set ANTHROPIC_API_KEY") \
            as raised:
        lp.LiteLLMAPI("anthropic/claude-x")
    assert raised.value.message == str(raised.value)


def test_rule_api_key_env_must_name_a_set_variable(monkeypatch):
    monkeypatch.delenv("FINCHAIN_NO_SUCH_KEY", raising=False)
    with pytest.raises(RuntimeError, match="^api_key_env='FINCHAIN_NO_SUCH_KEY': that environment variable is not "
                                           "set$"):
        _api(api_key_env="FINCHAIN_NO_SUCH_KEY")


@pytest.mark.parametrize(("args", "env", "key"), [
    ({"api_key": "sk-given-123"}, {}, "sk-given-123"),
    ({"api_key": None, "api_key_env": "FINCHAIN_T_KEY"}, {"FINCHAIN_T_KEY": "sk-from-env"}, "sk-from-env"),
    ({"api_key": "sk-given-123", "api_key_env": "FINCHAIN_T_KEY"}, {"FINCHAIN_T_KEY": "sk-from-env"}, "sk-from-env"),
    ({"api_key": None}, {}, "none"),  # a keyless server on this machine: the placeholder
    ({"api_key": None}, {"OPENAI_API_KEY": "sk-env"}, None),  # ... unless the provider's variable is set
    ({"api_key": None, "api_base": "http://10.1.2.3:8000/v1"}, {"OPENAI_API_KEY": "sk-env"}, None),
])
def test_rule_the_key_sent_is_api_key_envs_else_the_given_one_else_a_placeholder_for_a_local_server(
        monkeypatch, args, env, key):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _api(**args)._key() == key


# ------------------------------------------------------------------------------------------ the request, sent

@pytest.mark.parametrize(("args", "expected"), [
    ({}, {"api_base": BASE, "num_retries": 0}),
    ({"num_retries": "2"}, {"api_base": BASE, "num_retries": 2}),
    ({"timeout": "5"}, {"api_base": BASE, "num_retries": 0, "timeout": 5.0}),
    ({"timeout": 0}, {"api_base": BASE, "num_retries": 0, "timeout": 0.0}),
    ({"drop_params": True, "num_retries": 1}, {"api_base": BASE, "num_retries": 1, "drop_params": True}),
    ({"temperature": 0.7}, {"api_base": BASE, "num_retries": 0, "temperature": 0.7}),  # an extra wins over config
])
def test_rule_the_request_carries_base_url_timeout_retries_and_extras(args, expected):
    request = _api(**args).request([ChatMessageUser(content="hi")], GenerateConfig(temperature=0.0))
    assert {k: v for k, v in request.items() if k not in ("model", "messages", "temperature")} == \
        {k: v for k, v in expected.items() if k != "temperature"}
    assert request["temperature"] == expected.get("temperature", 0.0)
    assert type(request["num_retries"]) is int and type(request.get("timeout", 0.0)) is float


def test_rule_without_a_base_url_the_request_names_none():
    request = lp.LiteLLMAPI("openai/fake", api_key="sk-given-123").request([ChatMessageUser(content="hi")],
                                                                           GenerateConfig())
    assert "api_base" not in request and request["num_retries"] == 0


@pytest.mark.parametrize(("args", "wait_low", "wait_high"), [({}, 3.0, 6.0), ({"retry_wait": "0.5"}, 0.5, 1.0)])
def test_rule_retry_wait_is_the_first_backoff(args, wait_low, wait_high):
    wait = _api(**args).retry_wait()
    assert wait.initial == wait_low and wait.maximum == 1800
    assert all(wait_low <= wait(_state(1, {})) <= wait_high for _ in range(10))


@pytest.mark.parametrize(("base", "expected"), [(BASE, f"{BASE}:openai/fake"), (None, ":openai/fake")])
def test_rule_requests_share_a_connection_per_base_url_and_model(base, expected):
    api = lp.LiteLLMAPI("openai/fake", api_key="sk-given-123", **({"api_base": base} if base else {}))
    assert api.connection_key() == expected


def _generate(api, config=None, tools=()):
    import anyio

    return anyio.run(api.generate, [ChatMessageUser(content="hi")], list(tools), "none", config or GenerateConfig())


def _sending(api, reply=None, error=None):
    """Replace litellm's send by one that records its arguments and answers ``reply`` (or raises ``error``)."""
    fake = _fake_litellm(get_model_info=lambda model: (_ for _ in ()).throw(ValueError("unpriced")))

    async def acompletion(**kwargs):
        fake.calls.append(kwargs)
        if error is not None:
            raise error
        return reply or _Reply("answer")

    fake.acompletion = acompletion
    api.litellm = fake
    return fake


@pytest.mark.parametrize(("extra", "logged_out"), [
    ({}, set()),
    ({"api_key": "sk-extra-0123456789"}, {"api_key"}),
    ({"vertex_credentials": "{}", "aws_secret_access_key": "s3cr3t-s3cr3t"}, {"vertex_credentials",
                                                                             "aws_secret_access_key"}),
    ({"my_token": "t-0123456789", "top_k": 3}, {"my_token"}),
])
def test_rule_a_secret_looking_model_arg_is_sent_but_never_logged(extra, logged_out):
    api = _api(request_path="litellm", **extra)
    fake = _sending(api)
    output, call = _generate(api)
    (sent,) = fake.calls
    assert {k for k in extra if k not in call.request} == logged_out
    assert all(sent[k] == v for k, v in extra.items())  # every extra still reaches litellm
    assert set(call.request) == set(sent) - logged_out - {"api_key"}


@pytest.mark.parametrize(("args", "env", "sent_key"), [
    ({"api_key": "sk-given-123"}, {}, "sk-given-123"),
    ({"api_key": None, "api_base": "http://10.1.2.3:8000/v1"}, {"OPENAI_API_KEY": "sk-env-123"}, None),
])
def test_rule_litellm_gets_the_key_only_when_there_is_one(monkeypatch, args, env, sent_key):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    api = _api(request_path="litellm", **args)
    fake = _sending(api)
    output, call = _generate(api)
    assert fake.calls[0].get("api_key", None) == sent_key and "api_key" not in call.request
    assert output.metadata == {"finchain_request_path": "litellm"} and output.completion == "answer"
    assert call.response == {"model": "fake", "choices": [{"message": {"content": "answer"}}]}


def test_rule_a_failed_send_loses_its_traceback_and_any_key_it_echoes():
    import openai

    api = _api(request_path="litellm", api_key="sk-echoed-0123456789")
    _sending(api, error=openai.OpenAIError("bad key sk-echoed-0123456789 given"))
    with pytest.raises(openai.OpenAIError) as raised:
        _generate(api)
    assert str(raised.value) == "bad key <redacted> given"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    import traceback

    frames = traceback.extract_tb(raised.value.__traceback__)
    assert frames[-1].filename == lp.__file__ and "acompletion" not in [f.name for f in frames]  # cut at the re-raise


def test_rule_the_fast_paths_failure_is_redacted_too(monkeypatch):
    import openai

    monkeypatch.setenv("OPENAI_API_KEY", "sk-fromenv-0123456789")
    api = _api(api_key=None, api_base="http://10.1.2.3:8000/v1")
    assert api.fast is not None and api._key() is None

    async def complete(request, body, key):
        raise openai.OpenAIError(f"no such key {key}")

    api.fast.complete = complete
    with pytest.raises(openai.OpenAIError, match="^no such key <redacted>$"):
        _generate(api)


@pytest.mark.parametrize(("config", "tools", "words"), [
    (GenerateConfig(batch=True), (), "the finchain-tasks litellm provider has no batch mode: use Inspect's own "
                                     "provider (e.g. --model openai/gpt-4.1 --batch) or finchain bench --batch"),
    (GenerateConfig(), ("a tool",), "the finchain-tasks litellm provider does not pass tools; use Inspect's own "
                                    "provider for this model (e.g. openai/..., anthropic/...)"),
])
def test_rule_tools_and_batch_are_refused_before_any_send(config, tools, words):
    import re

    api = _api(request_path="litellm")
    fake = _sending(api)
    with pytest.raises(NotImplementedError, match=f"^{re.escape(words)}$"):
        _generate(api, config, tools)
    assert fake.calls == []


def test_rule_each_send_of_a_request_after_its_first_is_a_re_send():
    api = _api(request_path="litellm")
    _sending(api)
    api._count_send("k")
    assert api.resent == 0
    api._count_send("k")
    api._count_send("other")
    assert api.resent == 1
    api._count_send("k")
    assert api.resent == 2


# ------------------------------------------------------------------------------------------ the reply, read

@pytest.mark.parametrize(("reply", "error"), [
    (SimpleNamespace(choices=[]), "the server replied 200 without any choice"),
    (SimpleNamespace(choices=None), "the server replied 200 without any choice"),
    (SimpleNamespace(), "the server replied 200 without any choice"),
    (_Reply(None), "the server replied 200 with null content (finish_reason 'stop')"),
    (_Reply(None, finish=None), "the server replied 200 with null content (finish_reason None)"),
    (_Reply("a", None), "the server replied 200 with null content (finish_reason 'stop')"),  # any choice
    (SimpleNamespace(choices=[SimpleNamespace(finish_reason="stop")]),
     "the server replied 200 with null content (finish_reason 'stop')"),  # a choice without a message
    (SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=None))]),
     "the server replied 200 with null content (finish_reason None)"),  # nor a finish reason
    (_Reply(None, finish="length"), None),  # truncated: a real answer, if empty
    (_Reply(""), None),
    (_Reply("a", "b"), None),
])
def test_rule_a_reply_without_choices_or_with_null_content_is_malformed_unless_truncated(reply, error):
    if error is None:
        lp.check_reply(reply)
    else:
        with pytest.raises(lp.MalformedResponse) as raised:
            lp.check_reply(reply)
        assert str(raised.value) == error


def test_rule_a_truncated_reply_with_null_content_reads_as_an_empty_answer_stopped_at_max_tokens(api):
    output = api.output(_Reply(None, finish="length"))
    assert output.completion == "" and output.choices[0].stop_reason == "max_tokens"


@pytest.mark.parametrize(("contents", "replaced"), [
    (("fine",), None), (("a\ud800b",), "1 lone surrogate(s) in the reply replaced with U+FFFD"),
    (("\udfff\ud800", "x\udc00"), "3 lone surrogate(s) in the reply replaced with U+FFFD"),
])
def test_rule_lone_surrogates_are_replaced_and_counted_in_the_metadata(api, contents, replaced):
    output = api.output(_Reply(*contents))
    assert [c.message.text for c in output.choices] == [lp.sanitised(c)[0] for c in contents]
    assert all("\ud800" not in c.message.text for c in output.choices)
    assert (output.metadata or {}).get("finchain_sanitised") == replaced


@pytest.mark.parametrize(("value", "expected"), [
    ("a\ud800", "a\ufffd"), (["\udc00", 1, None], ["\ufffd", 1, None]), (("x", "\ud9ff"), ["x", "\ufffd"]),
    ({"\ud800k": {"v": "\udfff"}}, {"\ufffdk": {"v": "\ufffd"}}), (3.5, 3.5), ("\U0001f600", "\U0001f600"),
])
def test_rule_the_logged_reply_has_every_lone_surrogate_replaced(value, expected):
    assert lp.sanitised_tree(value) == expected


@pytest.mark.parametrize(("model", "expected"), [("served-name", "served-name"), (None, "openai/fake"),
                                                 ("", "openai/fake")])
def test_rule_the_output_names_the_model_the_server_names_else_ours(api, model, expected):
    assert api.output(_Reply("x", model=model)).model == expected


@pytest.mark.parametrize(("usage", "expected"), [
    (None, {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0, "input_tokens_cache_read": None,
            "reasoning_tokens": None}),
    (_usage(), {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15, "input_tokens_cache_read": None,
                "reasoning_tokens": None}),
    (_usage(cached=4, reasoning=2), {"input_tokens": 6, "output_tokens": 5, "total_tokens": 15,
                                     "input_tokens_cache_read": 4, "reasoning_tokens": 2}),
    (_usage(cached=0, reasoning=0), {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                                     "input_tokens_cache_read": None, "reasoning_tokens": None}),
    (_usage(total=None), {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                          "input_tokens_cache_read": None, "reasoning_tokens": None}),  # total from the parts
    (_usage(total=0), {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                       "input_tokens_cache_read": None, "reasoning_tokens": None}),
    (_usage(prompt=None, completion=None, total=None), {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
                                                        "input_tokens_cache_read": None, "reasoning_tokens": None}),
    (SimpleNamespace(prompt_tokens=7, completion_tokens=2, total_tokens=9),
     {"input_tokens": 7, "output_tokens": 2, "total_tokens": 9, "input_tokens_cache_read": None,
      "reasoning_tokens": None}),  # no details at all
])
def test_rule_usage_counts_cached_prompt_tokens_apart_and_keeps_the_cost(usage, expected):
    got = lp.usage_of(SimpleNamespace(usage=usage), 0.25)
    assert {k: getattr(got, k) for k in expected} == expected and got.total_cost == 0.25


def _pricing(priced=True, cost=0.5, raises=False):
    looked = []

    def get_model_info(model):
        looked.append(model)
        if not priced:
            raise ValueError("not mapped")
        return {}

    def completion_cost(completion_response, model):
        if raises or completion_response is None or model != "openai/fake":  # litellm prices this reply of this model
            raise ValueError("no price")
        return cost

    return _fake_litellm(get_model_info=get_model_info, completion_cost=completion_cost), looked


@pytest.mark.parametrize(("priced", "hidden", "cost", "raises", "expected"), [
    (False, {"response_cost": 0.1}, 0.5, False, None),  # unpriced: None, never 0 nor litellm's figure
    (True, {"response_cost": 0.1}, 0.5, False, 0.1),    # litellm's own figure first
    (True, {"response_cost": 2}, 0.5, False, 2.0),
    (True, {"response_cost": True}, 0.5, False, 0.5),   # a bool is no cost
    (True, {"response_cost": "0.1"}, 0.5, False, 0.5),
    (True, {"response_cost": None}, 0.5, False, 0.5),
    (True, None, 0.5, False, 0.5),
    (True, None, 0, False, 0.0),
    (True, None, 0.5, True, None),                      # litellm fails to price it: unknown
])
def test_rule_cost_is_litellms_price_or_none_when_it_has_none(api, priced, hidden, cost, raises, expected):
    api.litellm, looked = _pricing(priced, cost, raises)
    for _ in range(3):
        got = api.cost(_Reply("x", hidden=hidden))
        assert got == expected and (got is None or type(got) is float)
    assert looked == ["openai/fake"]  # whether it is priced is looked up once


def test_rule_a_fast_path_reply_is_priced_by_the_token_counts_looked_up_once(api):
    looked = []
    api.litellm = _fake_litellm(get_model_info=lambda model: looked.append(model),
                                cost_per_token=lambda model, prompt_tokens, completion_tokens: (0.25, 0.5))
    for _ in range(2):
        assert api.output(_Reply("x", usage=_usage()), "openai").usage.total_cost == 0.75
    assert looked == ["openai/fake"]


def test_rule_a_litellm_reply_is_priced_by_litellm(api):
    api.litellm, _ = _pricing(cost=0.125)
    assert api.output(_Reply("x", usage=_usage())).usage.total_cost == 0.125
    assert api.output(_Reply("x", usage=_usage(), hidden={"response_cost": 0.2})).usage.total_cost == 0.2
    usage = api.output(_Reply("x", usage=_usage(cached=4))).usage  # the reply's own token counts
    assert (usage.input_tokens, usage.output_tokens, usage.input_tokens_cache_read) == (6, 5, 4)


# ------------------------------------------------------------------------------------------ retries, by class

@pytest.mark.parametrize(("cls", "kind"), [
    ("RateLimitError", "rate_limit"), ("Timeout", "transient"), ("APIConnectionError", "transient"),
    ("ServiceUnavailableError", "transient"), ("BadGatewayError", "transient"), ("InternalServerError", "transient"),
    ("AuthenticationError", None), ("BadRequestError", None),
])
def test_rule_litellms_rate_limits_and_transient_faults_are_retried_with_the_servers_wait(api, cls, kind):
    api.litellm = _fake_litellm()
    decision = api.should_retry(getattr(api.litellm, cls)(headers={"retry-after": "4"}))
    assert (decision.kind if decision else None) == kind
    if kind:
        assert decision.retry_after == 4.0


def test_rule_a_malformed_reply_is_a_transient_fault(api):
    api.litellm = _fake_litellm()
    decision = api.should_retry(lp.MalformedResponse("no choice"))
    assert decision.kind == "transient" and decision.retry_after is None


@pytest.mark.parametrize(("cls", "auth"), [("AuthenticationError", True), ("BadRequestError", False),
                                           ("RateLimitError", False)])
def test_rule_only_an_authentication_error_is_an_auth_failure(api, cls, auth):
    api.litellm = _fake_litellm()
    assert api.is_auth_failure(getattr(api.litellm, cls)()) is auth


@pytest.mark.parametrize(("status", "expected"), [(503, 503), ("503", None), (None, None), (502.0, None)])
def test_rule_only_an_integer_status_code_counts(status, expected):
    assert lp._status(SimpleNamespace(status_code=status)) == expected


@pytest.mark.parametrize(("ex", "expected"), [
    (SimpleNamespace(litellm_response_headers={"Retry-After": "1"}), {"retry-after": "1"}),
    (SimpleNamespace(litellm_response_headers={"A": 1}, response=SimpleNamespace(headers={"B": "2"})), {"a": "1"}),
    (SimpleNamespace(litellm_response_headers=None, response=SimpleNamespace(headers={"B": "2"})), {"b": "2"}),
    (SimpleNamespace(response=SimpleNamespace(headers={"Retry-After-Ms": "5"})), {"retry-after-ms": "5"}),
    (SimpleNamespace(response=None), {}),
    (SimpleNamespace(), {}),
    (SimpleNamespace(litellm_response_headers=42), {}),        # not a mapping: no headers, no error
    (SimpleNamespace(litellm_response_headers=["ab", "c"]), {}),
])
def test_rule_headers_come_from_litellm_else_from_the_http_response_with_lower_case_names(ex, expected):
    assert lp._headers(ex) == expected


@pytest.mark.parametrize(("header", "value"), [("Retry-After", "Tue, 01 Jan 99999 00:00:00 GMT"),
                                               ("retry-after-ms", ["x"])])
def test_rule_a_retry_after_that_cannot_be_read_is_no_wait_not_an_error(header, value):
    assert lp.retry_after(SimpleNamespace(litellm_response_headers={header: value})) is None


def test_rule_no_exception_means_no_retry_after():
    assert lp.retry_after(None) is None


@pytest.mark.parametrize(("outcome", "low", "high"), [
    (None, 3.0, 6.0),
    (SimpleNamespace(failed=False, exception=lambda: _Failure(429, {"Retry-After": "100"})), 3.0, 6.0),
    (SimpleNamespace(failed=True, exception=lambda: _Failure(429, {"Retry-After": "100"})), 100.0, 100.0),
])
def test_rule_the_servers_wait_counts_only_for_a_failed_attempt(outcome, low, high):
    waits = [lp.RetryAfterWait(3)(SimpleNamespace(outcome=outcome, attempt_number=1)) for _ in range(10)]
    assert all(low <= w <= high for w in waits)


@pytest.mark.parametrize(("maximum", "after", "attempt", "expected"), [(10, "50", 1, 10), (10, None, 8, 10),
                                                                     (1000, "50", 1, 50)])
def test_rule_the_cap_applies_to_both_waits(maximum, after, attempt, expected):
    wait = lp.RetryAfterWait(3, maximum)
    assert wait(_state(attempt, {"Retry-After": after} if after else {})) == expected


# ------------------------------------------------------------------------------------------ the cache, its key

@pytest.mark.parametrize(("env", "arg", "cached"), [
    ("", None, False), ("   ", None, False), ("{}", None, True), (" {} ", None, True), ("", "{}", True),
])
def test_rule_the_cache_is_the_model_arg_else_the_environments_path(monkeypatch, tmp_path, env, arg, cached):
    path = str(tmp_path / "c.sqlite")
    monkeypatch.setenv("FINCHAIN_RESPONSE_CACHE", env.format(path) if "{}" in env else env)
    api = _api(**({"response_cache": arg.format(path)} if arg else {}))
    cache, key = api._cache(api.request([ChatMessageUser(content="hi")], GenerateConfig()))
    assert (cache is not None, bool(key)) == (cached, cached)


def test_rule_the_registry_name_keeps_two_entries_of_one_litellm_id_apart(monkeypatch, tmp_path):
    monkeypatch.setenv("FINCHAIN_RESPONSE_CACHE", str(tmp_path / "c.sqlite"))
    keys = {}
    for name in (None, "a", "b"):
        api = _api(**({"finchain_model": name} if name else {}))
        request = api.request([ChatMessageUser(content="hi")], GenerateConfig())
        keys[name] = (api._cache(request)[1], api._request_key(request))
    assert keys[None][0] == keys[None][1]  # the cache's key is the send's key
    assert len({k[0] for k in keys.values()}) == 3 and all(a == b for a, b in keys.values())


def test_rule_a_sample_of_another_epoch_has_another_key(monkeypatch, tmp_path):
    from inspect_ai.model._cache import epoch

    monkeypatch.setenv("FINCHAIN_RESPONSE_CACHE", str(tmp_path / "c.sqlite"))
    api = _api()
    request = api.request([ChatMessageUser(content="hi")], GenerateConfig())
    keys = []
    for k in (1, 2):
        token = epoch.set(k)
        try:
            keys.append((api._request_key(request), api._cache(request)[1]))
        finally:
            epoch.reset(token)
    assert keys[0][0] != keys[1][0] and keys[0][1] != keys[1][1]  # the send's key and the cache's


class _BrokenCache:
    def __init__(self, error, stored=None):
        self.error, self.stored = error, stored

    def get(self, key):
        if self.error:
            raise self.error
        return self.stored

    def put(self, key, model, request, output):
        raise self.error


@pytest.mark.parametrize(("cache", "hit"), [
    (None, False),
    (_BrokenCache(None, None), False),
    (_BrokenCache(None, "not json"), False),
    (_BrokenCache(None, '{"model": "m", "choices": []}'), False),  # no choice: not an answer
    (_BrokenCache(__import__("sqlite3").OperationalError("locked")), False),
    (_BrokenCache(None, '{"model": "m", "choices": [{"message": {"role": "assistant", "content": "c"}, '
                        '"stop_reason": "stop"}]}'), True),
])
def test_rule_a_cache_answers_only_with_a_stored_output_that_has_a_choice(cache, hit):
    output = lp._cached_output(cache, "k")
    assert (output is not None) is hit and (not hit or output.completion == "c")


def test_rule_a_cache_that_cannot_be_written_costs_nothing_but_a_re_request():
    import sqlite3

    lp._cache_put(_BrokenCache(sqlite3.OperationalError("read-only")), "k", "m", {}, "{}")
    with pytest.raises(RuntimeError):  # any other failure is a bug, not swallowed
        lp._cache_put(_BrokenCache(RuntimeError("bug")), "k", "m", {}, "{}")


def test_rule_an_answer_is_cached_and_a_second_generate_is_a_hit_without_a_send(tmp_path):
    api = _api(request_path="litellm", response_cache=str(tmp_path / "c.sqlite"))
    fake = _sending(api, _Reply("paid once"))
    first, _ = _generate(api)
    second, call = _generate(api)
    assert len(fake.calls) == 1 and second.completion == "paid once"
    assert "finchain_cache" not in (first.metadata or {}) and second.metadata["finchain_cache"] == "hit"
    assert set(call.request) == set(fake.calls[0]) - {"api_key"}
    from finchain_tasks.runs.cache import open_cache, request_material

    (entry,) = open_cache(tmp_path / "c.sqlite").entries()
    assert (entry["key"], entry["model"]) == (call.response["key"], "openai/fake")
    assert entry["request"] == request_material(call.request)


def test_rule_a_malformed_reply_is_never_cached(tmp_path):
    api = _api(request_path="litellm", response_cache=str(tmp_path / "c.sqlite"))
    fake = _sending(api, _Reply(None))
    for _ in range(2):
        with pytest.raises(lp.MalformedResponse):
            _generate(api)
    assert len(fake.calls) == 2


@pytest.mark.parametrize(("value", "set_cost_map"), [("true", True), (" TRUE ", True), ("false", False), ("", False),
                                                    (None, False)])
def test_rule_offline_mode_also_keeps_older_litellms_off_the_network(monkeypatch, value, set_cost_map):
    import litellm as real

    if value is None:
        monkeypatch.delenv("LITELLM_OFFLINE_MODE", raising=False)
    else:
        monkeypatch.setenv("LITELLM_OFFLINE_MODE", value)
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
    monkeypatch.setattr(real, "suppress_debug_info", False)
    litellm = lp.import_litellm()
    assert litellm.suppress_debug_info is True
    import os

    assert os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP") == ("True" if set_cost_map else None)


# ------------------------------------------------------------------------------------------ late answers

def _held_sends(api):
    """litellm's send replaced by one that waits until the test releases it: ``sent[i]`` is set when send i
    starts, ``release[i]`` lets it answer ``answer i``."""
    import anyio

    fake = _sending(api)
    fake.sent, fake.release = [anyio.Event() for _ in range(3)], [anyio.Event() for _ in range(3)]

    async def acompletion(**kwargs):
        k = len(fake.calls)
        fake.calls.append(kwargs)
        fake.sent[k].set()
        await fake.release[k].wait()
        return _Reply(f"answer {k}")

    fake.acompletion = acompletion
    return fake


async def _timed_out_attempt(api, fake, k):
    """One attempt cancelled once its send ``k`` is open, in the calling task (as Inspect's attempt timeout
    cancels an attempt: open sends belong to the task that asked)."""
    import anyio

    scope = anyio.CancelScope()

    async def timeout():
        await fake.sent[k].wait()
        scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(timeout)
        with scope:
            await api.generate([ChatMessageUser(content="hi")], [], "none", GenerateConfig())


@pytest.mark.parametrize("cached", [False, True])
def test_rule_an_answer_that_came_in_the_backoff_answers_the_next_attempt_without_a_send(tmp_path, cached):
    import anyio

    api = _api(request_path="litellm", **({"response_cache": str(tmp_path / "c.sqlite")} if cached else {}))
    fake = _held_sends(api)

    async def attempts():
        await _timed_out_attempt(api, fake, 0)
        fake.release[0].set()
        for _ in range(5):
            await anyio.sleep(0)  # the open send answers during the backoff
        return await api.generate([ChatMessageUser(content="hi")], [], "none", GenerateConfig())

    output, call = anyio.run(attempts)
    assert output.completion == "answer 0" and len(fake.calls) == 1
    assert output.metadata == {"finchain_request_path": "litellm", "finchain_late_answer": True}  # not a cache hit
    assert (api.late_answers, api.resent) == (1, 0)
    assert call.response["choices"][0]["message"]["content"] == "answer 0"


def test_rule_a_re_sent_request_takes_whichever_send_answers_first_and_counts_both():
    import anyio

    api = _api(request_path="litellm")
    fake = _held_sends(api)

    async def attempts():
        await _timed_out_attempt(api, fake, 0)

        async def first_answers():
            await fake.sent[1].wait()
            fake.release[0].set()  # the first, timed-out send answers first

        async with anyio.create_task_group() as group:
            group.start_soon(first_answers)
            result = await api.generate([ChatMessageUser(content="hi")], [], "none", GenerateConfig())
        fake.release[1].set()
        return result

    output, _ = anyio.run(attempts)
    assert output.completion == "answer 0" and output.metadata["finchain_late_answer"] is True
    assert (len(fake.calls), api.resent, api.late_answers) == (2, 1, 1)


def test_rule_under_trio_each_attempt_sends_in_place_and_a_second_send_is_a_re_send():
    import anyio

    api = _api(request_path="litellm")
    fake = _sending(api, _Reply("trio answer"))
    outputs = [anyio.run(api.generate, [ChatMessageUser(content="hi")], [], "none", GenerateConfig(),
                         backend="trio")[0] for _ in range(2)]
    assert [o.completion for o in outputs] == ["trio answer"] * 2 and len(fake.calls) == 2
    assert outputs[0].metadata == {"finchain_request_path": "litellm"}
    assert (api.resent, api.late_answers) == (1, 0)


def test_rule_without_litellm_installed_the_error_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "litellm", None)  # `import litellm` now raises ImportError
    with pytest.raises(RuntimeError, match=r"^the litellm model provider needs `pip install finchain-tasks\[inspect\]` "
                                           r"\(or `pip install litellm tenacity`\)$") as raised:
        lp.import_litellm()
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


# ------------------------------------------------------------------------------------------ the fast path

@pytest.mark.parametrize(("args", "timeout"), [({}, 600.0), ({"timeout": "5"}, 5.0)])
def test_rule_the_fast_path_sends_to_the_base_url_as_this_model_with_the_timeout(args, timeout):
    api = _api(**args)
    assert (api.fast.model, api.fast.base_url, api.fast.litellm, api.fast.timeout) == ("openai/fake", BASE,
                                                                                      api.litellm, timeout)


def _fast_sends(api):
    sent = []

    async def complete(request, body, key):
        sent.append((request, body, key))
        return _Reply("fast answer", usage=_usage())

    api.fast.complete = complete
    return sent


@pytest.mark.parametrize(("config", "path"), [(GenerateConfig(temperature=0.0), "openai"),
                                              (GenerateConfig(top_k=3), "litellm")])  # top_k: litellm's to send
def test_rule_a_request_goes_the_fast_way_only_when_its_every_field_is_one_the_fast_path_sends(config, path):
    api = _api(api_key="sk-given-123")
    sent = _fast_sends(api)
    fake = _sending(api, _Reply("litellm answer"))
    output, _ = _generate(api, config)
    assert output.metadata["finchain_request_path"] == path
    if path == "openai":
        ((request, body, key),) = sent
        assert body == {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0}
        assert key == "sk-given-123" and request["api_base"] == BASE and fake.calls == []
        assert output.completion == "fast answer" and output.usage.total_cost is None  # unpriced: no cost
    else:
        assert sent == [] and fake.calls[0]["top_k"] == 3 and output.completion == "litellm answer"


def test_rule_without_any_key_a_local_model_goes_through_litellm_without_one(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("FINCHAIN_EMPTY_KEY", "")
    api = _api(api_key=None, api_key_env="FINCHAIN_EMPTY_KEY")
    assert api.fast is not None and api._key() == ""
    sent = _fast_sends(api)
    fake = _sending(api)
    output, _ = _generate(api)
    assert sent == [] and "api_key" not in fake.calls[0] and output.metadata["finchain_request_path"] == "litellm"


def test_rule_the_fast_path_takes_openais_key_from_the_environment_when_none_is_given(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-0123")
    monkeypatch.setenv("FINCHAIN_EMPTY_KEY", "")
    api = _api(api_key=None, api_key_env="FINCHAIN_EMPTY_KEY")
    sent = _fast_sends(api)
    _generate(api)
    assert sent[0][2] == "sk-env-0123"


def test_rule_a_model_lacking_its_key_at_a_remote_base_url_is_told_how_to_call_a_keyless_server(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(lp.MissingKey, match=r"needs an API key: set ANTHROPIC_API_KEY, or pass -M api_key_env=NAME "
                                            r"\(a server that needs no key: -M api_key=none\)$"):
        lp.LiteLLMAPI("anthropic/claude-x", api_base="http://10.1.2.3:8000/v1")


@pytest.mark.parametrize(("args", "path", "reason"), [
    ({}, "openai", "OpenAI-compatible endpoint: openai client"),
    ({"extra_body": {"k": 1}}, "openai", "OpenAI-compatible endpoint: openai client"),
    ({"drop_params": True}, "litellm", "model args drop_params are litellm's"),
    ({"request_path": "litellm"}, "litellm", "forced by request_path=litellm"),
    ({"request_path": "openai", "drop_params": True}, "litellm", "model args drop_params are litellm's"),
])
def test_rule_a_local_openai_model_takes_the_fast_path_unless_a_model_arg_is_litellms_or_litellm_is_forced(
        monkeypatch, args, path, reason):
    monkeypatch.delenv("FINCHAIN_REQUEST_PATH", raising=False)
    api = _api(**args)
    assert (api.request_path, api.request_path_reason) == (path, reason)
    assert (api.fast is not None) is (path == "openai")


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_rule_a_different_request_is_never_a_re_send_nor_answered_by_anothers_late_send(backend):
    import anyio

    api = _api(request_path="litellm")
    fake = _sending(api)

    async def two_requests():
        first = await api.generate([ChatMessageUser(content="one")], [], "none", GenerateConfig())
        second = await api.generate([ChatMessageUser(content="two")], [], "none", GenerateConfig())
        return first, second

    (first, _), (second, _) = anyio.run(two_requests, backend=backend)
    assert [c["messages"][0]["content"] for c in fake.calls] == ["one", "two"]
    assert (api.resent, api.late_answers) == (0, 0)
    assert "finchain_late_answer" not in second.metadata


def test_rule_under_trio_an_answer_is_cached_too(tmp_path):
    import anyio

    api = _api(request_path="litellm", response_cache=str(tmp_path / "c.sqlite"))
    fake = _sending(api, _Reply("trio, paid once"))
    outputs = [anyio.run(api.generate, [ChatMessageUser(content="hi")], [], "none", GenerateConfig(),
                         backend="trio")[0] for _ in range(2)]
    assert len(fake.calls) == 1 and [o.completion for o in outputs] == ["trio, paid once"] * 2
    assert outputs[1].metadata["finchain_cache"] == "hit"


def test_rule_a_cache_hit_cancels_the_requests_send_still_open_from_a_timed_out_attempt(tmp_path):
    import asyncio

    import anyio
    from inspect_ai.model import ModelOutput

    api = _api(request_path="litellm", response_cache=str(tmp_path / "c.sqlite"))
    fake = _held_sends(api)
    fake.cancelled = []
    held = fake.acompletion

    async def acompletion(**kwargs):
        try:
            return await held(**kwargs)
        except asyncio.CancelledError:
            fake.cancelled.append(len(fake.calls))
            raise

    fake.acompletion = acompletion

    async def attempts():
        await _timed_out_attempt(api, fake, 0)
        request = api.request([ChatMessageUser(content="hi")], GenerateConfig())
        cache, key = api._cache(request)  # meanwhile another run of the same request stored its answer
        cache.put(key, api.model_name, request, ModelOutput.from_content("openai/fake", "stored").model_dump_json())
        output = await api.generate([ChatMessageUser(content="hi")], [], "none", GenerateConfig())
        for _ in range(5):
            await anyio.sleep(0)
        return output, list(fake.cancelled)  # before the loop's shutdown cancels whatever is left

    (output, _), cancelled = anyio.run(attempts)
    assert output.completion == "stored" and output.metadata["finchain_cache"] == "hit"
    assert cancelled == [1] and len(fake.calls) == 1  # the open send was cancelled, nothing sent again


def test_rule_a_fast_path_answer_is_priced_from_its_token_counts_not_by_litellms_reply_pricing():
    api = _api(api_key="sk-given-123")
    _fast_sends(api)
    api.litellm = _fake_litellm(get_model_info=lambda model: {},
                                cost_per_token=lambda model, prompt_tokens, completion_tokens: (0.25, 0.5),
                                completion_cost=lambda completion_response, model: 0.125)
    output, _ = _generate(api)
    assert output.metadata["finchain_request_path"] == "openai" and output.usage.total_cost == 0.75


def test_rule_every_late_answer_is_counted():
    import anyio

    api = _api(request_path="litellm")
    fake = _held_sends(api)

    async def two_rounds():
        outputs = []
        for k in range(2):
            await _timed_out_attempt(api, fake, k)
            fake.release[k].set()
            for _ in range(5):
                await anyio.sleep(0)
            outputs.append((await api.generate([ChatMessageUser(content="hi")], [], "none", GenerateConfig()))[0])
        return outputs

    outputs = anyio.run(two_rounds)
    assert [o.completion for o in outputs] == ["answer 0", "answer 1"] and api.late_answers == 2


def test_rule_each_answer_is_an_assistant_message_of_this_model_from_generate(api):
    (choice,) = api.output(_Reply("x", model="served-name")).choices
    assert (choice.message.role, choice.message.model, choice.message.source) == ("assistant", "openai/fake",
                                                                                 "generate")


def test_rule_a_reply_without_a_usage_block_has_only_its_cost():
    usage = lp.usage_of(SimpleNamespace(), 0.5)
    assert (usage.input_tokens, usage.output_tokens, usage.total_cost) == (0, 0, 0.5)
