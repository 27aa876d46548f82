"""The fast request path of the ``litellm/`` provider: OpenAI-compatible endpoints through the ``openai`` client.

Why: profiled under ``finchain bench`` (200 samples, 8 connections, a zero-latency server), about 17 ms of
every request was ``litellm.acompletion``'s own machinery on the event loop (its logging objects, per-call
model-info and cost look-ups, deep copies of the request), several times the HTTP round trip; the response
cache costs about 0.5 ms. For an ``openai/<model>`` with a base URL (the local model, vLLM/llama.cpp servers,
any self-hosted OpenAI-compatible endpoint) litellm sends exactly what the ``openai`` client would: the same
JSON body with the provider prefix removed from the model. This module sends that body with the
``AsyncOpenAI`` client (litellm's own transport, and Inspect's) and keeps everything around it the same:

- the request dict, and so the cache key and cache entry, is the provider's (litellm-form) request;
- the reply is read as litellm reads it (:func:`as_litellm_reads`: ``<think>`` blocks, finish reasons);
- failures are mapped by litellm's own ``exception_type`` from the same ``OpenAIError`` its OpenAI handler
  raises, so classes, messages, status codes and ``Retry-After`` headers, and with them the provider's
  retry decisions, are litellm's;
- cost uses litellm's price table: whether a model is priced is looked up once per model, and a priced
  call is costed by ``litellm.cost_per_token`` on the reply's token counts (as litellm's own logging does).

Which path a model takes is decided once, by :func:`choose_path` (the one rule; ``finchain bench`` records
its answer per model in the run manifest, the provider in every output's metadata): the fast path for an
``openai/`` model with a base URL whose model args all map onto the request body, litellm for everything
else (other providers, OpenAI's reasoning models whose parameters litellm rewrites, litellm-only options
such as ``drop_params``). ``FINCHAIN_REQUEST_PATH=litellm`` (or the model arg ``request_path=litellm``)
forces litellm everywhere.
"""

from __future__ import annotations

import os
import re
import time
import weakref
from typing import Any

PATH_ENV = "FINCHAIN_REQUEST_PATH"
"""``litellm`` forces the litellm path for every model; ``auto`` (or unset) lets :func:`choose_path` decide."""
FAST = "openai"
LITELLM = "litellm"
BODY_EXTRAS = frozenset({"extra_body", "extra_headers", "user", "chat_template_kwargs"})
"""Model args the fast path sends as litellm does for an OpenAI-compatible server (in the body, or as headers);
any other model arg may mean something to litellm, so it keeps the model on litellm."""
BODY_PARAMS = frozenset({"model", "messages", "max_tokens", "temperature", "top_p", "stop", "seed",
                         "frequency_penalty", "presence_penalty", "n", "logit_bias", "logprobs", "top_logprobs",
                         "reasoning_effort"})
"""Request fields litellm passes unchanged to an OpenAI-compatible server (``top_k``, for one, it does not)."""
TRANSPORT = frozenset({"api_base", "timeout", "num_retries", "extra_headers", "extra_body"})
"""Request fields that are how to send, not what: never in the body."""
_REWRITTEN = re.compile(r"^(o\d|gpt-5|computer-use)", re.IGNORECASE)
"""OpenAI models whose parameters litellm rewrites (max_completion_tokens, dropped temperature...)."""
DEFAULT_TIMEOUT = 600.0
"""litellm's default request timeout for OpenAI-compatible calls, seconds."""


def forced_litellm(model_arg: Any = None) -> bool:
    """True when the user asked for litellm: model arg ``request_path=litellm`` or ``FINCHAIN_REQUEST_PATH``."""
    value = str(model_arg if model_arg is not None else os.environ.get(PATH_ENV, "")).strip().lower()
    if value not in ("", "auto", LITELLM, FAST):
        raise ValueError(f"request_path={value!r}: expected auto, litellm or openai")
    return value == LITELLM


def choose_path(model: str, base_url: str | None, model_args: dict[str, Any] | None = None,
                request_path: Any = None) -> tuple[str, str]:
    """(``openai`` or ``litellm``, why) for a ``litellm/`` model id, its base URL and its extra model args."""
    if forced_litellm(request_path):
        source = "request_path=litellm" if request_path is not None else f"{PATH_ENV}=litellm"
        return LITELLM, f"forced by {source}"
    provider, _, bare = model.partition("/")
    if provider != "openai" or not bare:
        return LITELLM, f"provider {provider!r} is served by litellm"
    if not base_url:
        return LITELLM, "no base URL: litellm resolves OpenAI's endpoint"
    if _REWRITTEN.match(bare):
        return LITELLM, f"litellm rewrites the parameters of {bare!r}"
    others = sorted(k for k in (model_args or {}) if k not in BODY_EXTRAS)
    if others:
        return LITELLM, f"model args {', '.join(others)} are litellm's"
    return FAST, "OpenAI-compatible endpoint: openai client"


def body_of(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON body litellm sends for ``request`` to an OpenAI-compatible server, or None when a field of it
    is one this path does not reproduce (the call then goes through litellm)."""
    body: dict[str, Any] = {}
    for key, value in request.items():
        if key in TRANSPORT:
            continue
        if key not in BODY_PARAMS and key not in BODY_EXTRAS:
            return None
        body[key] = value
    body["model"] = str(request["model"]).partition("/")[2]
    return body


class FastClient:
    """Sends chat completions with one ``AsyncOpenAI`` client per event loop and key (an httpx pool is bound to
    the loop it was opened on; Inspect runs one loop, tests and benchmarks several)."""

    def __init__(self, model: str, base_url: str, litellm: Any, timeout: float | None = None) -> None:
        self.model = model
        self.base_url = base_url
        self.litellm = litellm
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self._clients: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()

    def client(self, key: str) -> Any:
        """The client of this loop and key. Its HTTP pool is a plain ``DefaultAsyncHttpxClient``: the SDK's own
        wrapper closes itself on garbage collection by scheduling the close on whatever loop is running then,
        which fails ("Event loop is closed") when that is a later loop than the one the pool was opened on."""
        import asyncio

        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        per_loop = self._clients.setdefault(asyncio.get_running_loop(), {})
        if key not in per_loop:
            per_loop[key] = AsyncOpenAI(api_key=key, base_url=self.base_url, max_retries=0, timeout=self.timeout,
                                        http_client=DefaultAsyncHttpxClient(timeout=self.timeout))
        return per_loop[key]

    async def complete(self, request: dict[str, Any], body: dict[str, Any], key: str) -> Any:
        """The reply (an ``openai`` ChatCompletion); a failure is raised as litellm raises it (see module doc)."""
        from openai._base_client import make_request_options
        from openai.types.chat import ChatCompletion

        timeout = float(request.get("timeout") or self.timeout)
        options = make_request_options(extra_headers=request.get("extra_headers"),
                                       extra_body=request.get("extra_body"), timeout=timeout)
        start = time.time()
        try:
            reply = await self.client(key).post("/chat/completions", body=body, cast_to=ChatCompletion,
                                                options=options)
            if not hasattr(reply, "model_dump"):
                raise _openai_error(status_code=500, message=(
                    f"Empty or invalid response from LLM endpoint. Received: {reply!r}. Check the reverse proxy "
                    "or model server configuration."))
        except Exception as ex:
            raise litellm_error(self.litellm, ex, self.model, timeout, time.time() - start) from None
        return as_litellm_reads(reply)


def as_litellm_reads(reply: Any) -> Any:
    """The reply with each choice's content and finish reason as litellm's response conversion leaves them, by
    litellm's own helpers: a leading ``<think>...</think>`` block moves out of the content (unless the server sent
    ``reasoning_content``/``reasoning`` apart), a missing finish reason is ``stop`` (``tool_calls`` with tool
    calls), and provider-specific reasons are mapped (``eos`` -> ``stop``, ``max_tokens`` -> ``length``...)."""
    from litellm.litellm_core_utils.core_helpers import map_finish_reason
    from litellm.litellm_core_utils.prompt_templates.reasoning_utils import extract_reasoning_content

    for choice in getattr(reply, "choices", None) or []:
        message = choice.message
        extra = getattr(choice, "model_extra", None) or {}
        if message is not None:
            _, message.content = extract_reasoning_content({"content": message.content,
                                                            **(getattr(message, "model_extra", None) or {})})
        reason = choice.finish_reason or extra.get("finish_details") or "stop"
        if reason == "stop" and message is not None and message.tool_calls:
            reason = "tool_calls"
        choice.finish_reason = map_finish_reason(reason)
    return reply


def _openai_error(**kwargs: Any) -> Exception:
    """litellm's OpenAI handler error (what its ``exception_type`` maps from)."""
    from litellm.llms.openai.common_utils import OpenAIError

    return OpenAIError(**kwargs)


def litellm_error(litellm: Any, ex: BaseException, model: str, timeout: float, elapsed: float) -> BaseException:
    """The exception ``litellm.acompletion`` raises for ``ex`` from its OpenAI handler (built the way that
    handler builds it, then mapped by litellm's ``exception_type``); an already mapped one passes through."""
    import openai
    from litellm.llms.openai.common_utils import OpenAIError, upstream_error_response

    if isinstance(ex, OpenAIError):
        wrapped: BaseException = ex
    else:
        if isinstance(ex, openai.APITimeoutError):
            ex.message += f" - timeout value={timeout}, time taken={round(elapsed, 2)} seconds"
        response = getattr(ex, "response", None)
        headers = getattr(ex, "headers", None)
        if headers is None and response:
            headers = getattr(response, "headers", None)
        wrapped = OpenAIError(status_code=getattr(ex, "status_code", 500), message=getattr(ex, "message", str(ex)),
                              response=upstream_error_response(ex), headers=headers, body=getattr(ex, "body", None))
    try:
        return litellm.exception_type(model=model, custom_llm_provider="openai", original_exception=wrapped,
                                      completion_kwargs={}, extra_kwargs={})
    except Exception as mapped:  # exception_type raises what it maps to
        return mapped


class Pricing:
    """litellm's price for one model, looked up once: ``cost(usage)`` is None for a model litellm does not
    price (unknown, never 0), else ``litellm.cost_per_token`` on the reply's token counts."""

    def __init__(self, litellm: Any, model: str) -> None:
        self.litellm = litellm
        self.model = model
        try:
            litellm.get_model_info(model=model)
            self.priced = True
        except Exception:
            self.priced = False

    def cost(self, usage: Any) -> float | None:
        if not self.priced or usage is None:
            return None
        cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
        try:
            prompt, completion = self.litellm.cost_per_token(
                model=self.model, prompt_tokens=int(usage.prompt_tokens or 0),
                completion_tokens=int(usage.completion_tokens or 0),
                **({"cache_read_input_tokens": int(cached)} if cached else {}))
        except Exception:
            return None
        return float(prompt) + float(completion)
