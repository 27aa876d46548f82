"""How the fast path's errors read (issue 31.18, found by mutation testing): an error is mapped the way
``litellm.acompletion`` maps it, so Inspect retries and reports it the same; a timeout says its limit and
the time taken (to the hundredth), a rate limit keeps the server's retry-after header, and an error litellm
already built passes through its own mapping."""

from __future__ import annotations

import pytest

litellm = pytest.importorskip("litellm")
openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

from finchain_tasks.inspect.openai_fast import litellm_error  # noqa: E402

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def test_a_timeout_says_its_limit_and_the_time_taken():
    mapped = litellm_error(litellm, openai.APITimeoutError(request=REQUEST), "gpt-4o-mini", 30.0, 1.23456)
    assert isinstance(mapped, litellm.Timeout)
    assert "timeout value=30.0, time taken=1.23 seconds" in str(mapped)


def test_a_rate_limit_keeps_the_retry_after_header():
    response = httpx.Response(429, headers={"retry-after": "7"}, request=REQUEST)
    mapped = litellm_error(litellm, openai.RateLimitError("slow down", response=response, body=None),
                           "gpt-4o-mini", 30.0, 0.5)
    assert isinstance(mapped, litellm.RateLimitError)
    assert mapped.litellm_response_headers["retry-after"] == "7"


def test_an_error_litellm_built_is_mapped_as_it_stands():
    from litellm.llms.openai.common_utils import OpenAIError

    mapped = litellm_error(litellm, OpenAIError(status_code=429, message="too many"), "gpt-4o-mini", 30.0, 0.5)
    assert isinstance(mapped, litellm.RateLimitError) and "too many" in str(mapped)


def test_an_error_carrying_its_own_headers_keeps_them():
    """An exception with ``headers`` and no response (a proxy's own error class) keeps its retry-after."""

    class ProxyError(Exception):
        status_code = 429
        headers = {"retry-after": "3"}

    mapped = litellm_error(litellm, ProxyError("busy"), "gpt-4o-mini", 30.0, 0.5)
    assert isinstance(mapped, litellm.RateLimitError)
    assert mapped.litellm_response_headers["retry-after"] == "3"


def test_a_mapped_error_names_the_model_and_keeps_the_upstream_response():
    """The server's own status and body reach the report (not litellm's placeholder response)."""
    response = httpx.Response(503, headers={"x-secret": "k"}, request=REQUEST, text="down")
    mapped = litellm_error(litellm, openai.InternalServerError("down", response=response, body=None),
                           "gpt-4o-mini", 30.0, 0.5)
    assert isinstance(mapped, litellm.ServiceUnavailableError)
    assert mapped.model == "gpt-4o-mini" and mapped.llm_provider == "openai"
    assert mapped.response.status_code == 503
    assert mapped.response.text == "down" and str(mapped.response.request.url) == str(REQUEST.url)
