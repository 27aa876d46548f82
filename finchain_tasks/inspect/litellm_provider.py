"""``--model litellm/<provider>/<model>``: any model litellm reaches, as an Inspect model provider.

Inspect has no in-process litellm provider, so this package registers one
(``@modelapi(name="litellm")``). Prefer Inspect's own provider where one exists
(``openai/gpt-4.1-mini``, ``anthropic/...``): it knows the provider's features (tools, reasoning,
batching) that this text-only bridge does not.

Model args (``-M``): ``api_base`` (or ``--model-base-url``), ``api_key_env`` (the name of the
environment variable holding the key; ``api_key`` also works and Inspect drops it from the log),
``num_retries`` (litellm-side retries, default 0 so that Inspect's retry machinery owns retries),
``timeout`` (seconds per request), ``retry_wait`` (first backoff in seconds, default 3 as Inspect's),
``response_cache`` (a SQLite file: answers are read from it before a request is sent and written to it
after a success; default: the path in ``FINCHAIN_RESPONSE_CACHE``, else no cache; see
:mod:`finchain_tasks.runs.cache`), ``finchain_model`` (the registry name ``finchain bench`` runs this model
under: it names the model in the log and keeps two registry entries of one litellm id apart, in the
eval-set and in the cache; never sent), and any other key, passed through to ``litellm.acompletion``
(``drop_params=true``, ``extra_body``...).

Retries: ``should_retry`` classifies litellm's RateLimitError as a rate limit and Timeout,
APIConnectionError, ServiceUnavailableError, BadGatewayError, InternalServerError (and any other
5xx) as transient; ``retry_wait`` honours a server's ``Retry-After``. Usage comes from the
response; cost is litellm's price for the model, or None when litellm has no price (never 0).

Attempt timeouts (Inspect's ``attempt_timeout``, ``finchain bench --timeout``) cancel the attempt, not its send
(:mod:`finchain_tasks.inspect.open_sends`): the next attempt uses the send's answer if it came during the backoff
(a *late answer*, nothing sent again), else sends anew and races the two, using whichever answers first and
cancelling the other; at most two sends of a request are open. The run summary counts both (``resent``,
``late_answers``); a late answer's output says so in its metadata (``finchain_late_answer``).

Request path: an ``openai/<model>`` with a base URL (the local model, self-hosted OpenAI-compatible servers)
is sent by the ``openai`` client directly (:mod:`finchain_tasks.inspect.openai_fast`: same body, cache keys,
errors, retries, usage and cost as litellm, without litellm's per-call machinery); every other model goes
through ``litellm.acompletion``. ``request_path=litellm`` (model arg) or ``FINCHAIN_REQUEST_PATH=litellm``
forces litellm; every output's metadata says which path answered (``finchain_request_path``).

Only well-formed answers count: a 200 reply with no choices, or a choice whose content is null (unless
the model stopped at its token limit, a real if truncated answer), raises :class:`MalformedResponse`,
a transient fault that Inspect retries and, when retries run out, records as the sample's error. Such
a reply is never cached and never scored as an empty answer.

A reply whose text is not valid Unicode (a lone UTF-16 surrogate such as ``\\ud800``, which JSON can carry
but UTF-8 cannot) is a paid answer all the same: it is kept with each surrogate replaced by U+FFFD, the
output's metadata says so (``finchain_sanitised``: how many were replaced), and it is cached like any
answer, so a re-run never pays for it again (before, the log could not be written, the sample failed and
every re-run re-sent the request).
"""

from __future__ import annotations

import os
import random
import re
from email.utils import parsedate_to_datetime
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.model._model import RetryDecision
from inspect_ai.model._model_call import ModelCall
from inspect_ai.tool import ToolChoice, ToolInfo

from finchain_tasks.inspect import openai_fast
from finchain_tasks.inspect.errors import Plain
from finchain_tasks.inspect.open_sends import OpenSends, asyncio_running
from finchain_tasks.models.provider_keys import LOOPBACK, keyless_reason
from finchain_tasks.models.registry import KEYLESS_PLACEHOLDER
from finchain_tasks.plumbing.redaction import configured_secrets, is_secret_name, redact_exception

PROVIDER_ARGS = ("api_base", "api_key_env", "num_retries", "timeout", "retry_wait", "response_cache", "finchain_model",
                 "request_path")
"""Model args this provider consumes; every other ``-M`` key goes to ``litellm.acompletion``."""
MAX_RETRY_AFTER = 30 * 60
"""The longest ``Retry-After`` honoured (as Inspect's own backoff cap)."""
_CONFIG_PARAMS = {
    "max_tokens": "max_tokens", "temperature": "temperature", "top_p": "top_p", "stop_seqs": "stop",
    "seed": "seed", "frequency_penalty": "frequency_penalty", "presence_penalty": "presence_penalty",
    "num_choices": "n", "logit_bias": "logit_bias", "top_k": "top_k", "logprobs": "logprobs",
    "top_logprobs": "top_logprobs", "reasoning_effort": "reasoning_effort", "extra_headers": "extra_headers",
    "extra_body": "extra_body",
}
"""Inspect GenerateConfig field -> litellm/OpenAI parameter (set fields only)."""


class MissingKey(Plain, RuntimeError):  # type: ignore[misc,valid-type]
    """No key for a provider that needs one: litellm would report it as a 500 on every attempt, and Inspect
    would retry that for many minutes. Raised before the first request, on either request path."""

    def __init__(self, message: str) -> None:
        RuntimeError.__init__(self, message)
        self.message = message


def missing_key(litellm: Any, model: str, key: str | None, base_url: str | None) -> str | None:
    """One line naming the environment variable(s) this model needs and lacks, or None when it can be called.

    litellm's ``validate_environment`` knows each provider's variables; only key variables count (a base URL
    variable such as ``OLLAMA_API_BASE`` is satisfied by ``api_base``)."""
    if key:
        return None
    try:
        missing = litellm.validate_environment(model).get("missing_keys") or []
    except Exception:  # an unknown provider: let litellm say what it needs at call time
        return None
    keys = [name for name in missing if "KEY" in name or "TOKEN" in name]
    if not keys or any(os.environ.get(name) for name in keys):
        return None
    keyless = " (a server that needs no key: -M api_key=none)" if base_url else ""
    return (f"litellm/{model} needs an API key: set {' or '.join(keys)}, or pass -M api_key_env=NAME{keyless}")


class MalformedResponse(Exception):
    """A reply with HTTP 200 that holds no usable answer (no choices, or null content): a transient fault."""


_STOP_REASONS = {"stop": "stop", "length": "max_tokens", "tool_calls": "tool_calls",
                 "function_call": "tool_calls", "content_filter": "content_filter"}


def import_litellm():
    """litellm, quiet and offline-aware.

    litellm 1.110 reads LITELLM_OFFLINE_MODE itself; older releases only know
    LITELLM_LOCAL_MODEL_COST_MAP, so offline mode also sets that (else importing litellm fetches
    the price map).
    """
    if os.environ.get("LITELLM_OFFLINE_MODE", "").strip().lower() == "true":
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise RuntimeError("the litellm model provider needs `pip install finchain-tasks[inspect]` "
                           "(or `pip install litellm tenacity`)") from None
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMAPI(ModelAPI):
    """Chat completions through ``litellm.acompletion`` (text in, text out; no tools)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url=model_args.pop("api_base", None) or base_url, api_key=api_key,
                         config=config or GenerateConfig())
        self.litellm = import_litellm()
        self.api_key_env = model_args.pop("api_key_env", None)
        if self.api_key_env and self.api_key_env not in os.environ:
            raise RuntimeError(f"api_key_env={self.api_key_env!r}: that environment variable is not set")
        self.num_retries = int(model_args.pop("num_retries", 0))
        timeout = model_args.pop("timeout", None)
        self.timeout = float(timeout) if timeout is not None else None
        self.first_wait = float(model_args.pop("retry_wait", 3.0))
        self.response_cache = model_args.pop("response_cache", None)
        self.registry_name = model_args.pop("finchain_model", None)
        forced = model_args.pop("request_path", None)
        self.extra = model_args
        lacking = missing_key(self.litellm, model_name, self._key() or self.extra.get("api_key"), self.base_url)
        self.keyless = keyless_reason(self.base_url, self.extra) if lacking else None
        if lacking and not self.keyless:
            raise MissingKey(lacking)
        self._priced: bool | None = None
        self.request_path, self.request_path_reason = openai_fast.choose_path(model_name, self.base_url, model_args,
                                                                               forced)
        self.fast = (openai_fast.FastClient(model_name, str(self.base_url), self.litellm, self.timeout)
                     if self.request_path == openai_fast.FAST else None)
        self._pricing: openai_fast.Pricing | None = None
        self.resent = 0
        """Sends of a request sent before in this run (its earlier send failed, or is still open after an attempt
        timeout and is raced by this one)."""
        self.late_answers = 0
        """Attempts answered by a send an earlier, timed-out attempt started (see :mod:`.open_sends`)."""
        self._sent: set[str] = set()
        self._open: OpenSends[tuple[ModelOutput, Any, str]] = OpenSends()

    # -- the call ---------------------------------------------------------------------------
    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> tuple[ModelOutput | Exception, ModelCall]:
        if tools:
            raise NotImplementedError("the finchain-tasks litellm provider does not pass tools; use Inspect's "
                                      "own provider for this model (e.g. openai/..., anthropic/...)")
        if config.batch:  # silently sending at full price what the user asked to batch would bill them twice over
            raise NotImplementedError("the finchain-tasks litellm provider has no batch mode: use Inspect's own "
                                      "provider (e.g. --model openai/gpt-4.1 --batch) or finchain bench --batch")
        request = self.request(input, config)
        logged = {k: v for k, v in request.items() if not is_secret_name(k)}  # sent, never logged
        cache, cache_key = self._cache(request)
        key = cache_key or self._request_key(request)
        racing = asyncio_running()
        early = self._open.answered(key) if racing else None  # came in the backoff (and is cached: not a hit)
        output = _cached_output(cache, cache_key) if early is None else None
        if output is not None:
            if racing:
                self._open.discard(key)
            output.metadata = {**(output.metadata or {}), "finchain_cache": "hit"}
            return output, ModelCall.create(request=logged, response={"finchain_cache": "hit", "key": cache_key})
        if early is not None:
            (output, response, path), late = early, True
        elif racing:
            (output, response, path), late = await self._open.answer(
                key, lambda: self._answer(request, cache, cache_key), on_send=lambda: self._count_send(key))
        else:  # trio: no task can outlive the attempt, send in place
            self._count_send(key)
            (output, response, path), late = await self._answer(request, cache, cache_key), False
        output.metadata = {**(output.metadata or {}), "finchain_request_path": path}  # not cached: either path's
        if late:
            self.late_answers += 1
            output.metadata["finchain_late_answer"] = True  # an earlier attempt's send answered this one
        return output, ModelCall.create(request=logged, response=sanitised_tree(response.model_dump()))

    async def _answer(self, request: dict[str, Any], cache: Any, cache_key: str) -> tuple[ModelOutput, Any, str]:
        """One send and its output, cached as soon as it arrives: an answer that comes after its attempt timed
        out is kept for the next attempt and for a re-run, whether or not an attempt still waits for it."""
        response, path = await self._send(request)
        output = self.output(response, path)  # raises MalformedResponse before anything is cached
        if cache is not None:
            _cache_put(cache, cache_key, self.model_name, request, output.model_dump_json())
        return output, response, path

    def _request_key(self, request: dict[str, Any]) -> str:
        from finchain_tasks.runs.cache import request_key

        material = {**request, "finchain_model": self.registry_name} if self.registry_name else request
        return request_key(material, epoch=_epoch())

    def _count_send(self, key: str) -> None:
        """Count a second send of the same request (after a failure, or racing a send still open after an
        attempt timeout) as a re-send for the run summary."""
        if key in self._sent:
            self.resent += 1
        self._sent.add(key)

    async def _send(self, request: dict[str, Any]) -> tuple[Any, str]:
        """(the reply, the path that sent it): the fast path when this model takes it and the request's fields
        are all ones it reproduces, else litellm."""
        key = self._key()
        body = openai_fast.body_of(request) if self.fast is not None else None
        fast_key = key or os.environ.get("OPENAI_API_KEY")
        try:
            if body is not None and fast_key and self.fast is not None:
                return await self.fast.complete(request, body, fast_key), openai_fast.FAST
            return await self.litellm.acompletion(**request, **({"api_key": key} if key else {})), openai_fast.LITELLM
        except _api_error() as ex:
            # Inspect renders every failed attempt's traceback with rich, in the event loop: litellm's
            # chained 50-frame tracebacks take about a second each on a small CPU and stall every request
            # in flight. The exception (status, headers) is unchanged but for its stack, cut here, and any
            # configured secret in its message: a provider or proxy may echo the request's key in the body.
            raise redact_exception(ex, configured_secrets([key, fast_key])).with_traceback(None) from None

    def _cache(self, request: dict[str, Any]) -> tuple[Any, str]:
        """The response cache for this call and the request's key there, or (None, "") without a cache."""
        from finchain_tasks.runs.cache import CACHE_ENV, open_cache, request_key

        path = self.response_cache or os.environ.get(CACHE_ENV, "").strip()
        if not path:
            return None, ""
        material = {**request, "finchain_model": self.registry_name} if self.registry_name else request
        return open_cache(os.path.abspath(str(path))), request_key(material, epoch=_epoch())

    def request(self, input: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        """The acompletion arguments without the key (the log records them, less secret-looking extras)."""
        request: dict[str, Any] = {"model": self.model_name, "messages": [_message(m) for m in input]}
        for field, param in _CONFIG_PARAMS.items():
            value = getattr(config, field, None)
            if value is not None:
                request[param] = value
        if self.base_url:
            request["api_base"] = self.base_url
        if self.timeout is not None:
            request["timeout"] = self.timeout
        request["num_retries"] = self.num_retries
        request.update(self.extra)
        return request

    def _key(self) -> str | None:
        """The key to send: ``api_key_env``'s, else the one given; a keyless server on this machine that has
        neither (nor the provider's variable) gets the placeholder, as the registry's keyless models do."""
        if self.api_key_env:
            return os.environ.get(self.api_key_env)
        if not self.api_key and getattr(self, "keyless", None) == LOOPBACK:
            return KEYLESS_PLACEHOLDER
        return self.api_key

    def output(self, response: Any, path: str = openai_fast.LITELLM) -> ModelOutput:
        """Inspect's output of a reply (litellm's or the openai client's: the same fields); raises
        :class:`MalformedResponse` when the reply holds no usable answer."""
        check_reply(response)
        texts = [sanitised(c.message.content or "") for c in response.choices]
        choices = [
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=text, model=self.model_name, source="generate"),
                stop_reason=_STOP_REASONS.get(c.finish_reason or "", "unknown"),  # type: ignore[arg-type]
            )
            for c, (text, _) in zip(response.choices, texts)
        ]
        cost = self.fast_cost(response) if path == openai_fast.FAST else self.cost(response)
        output = ModelOutput(model=response.model or self.model_name, choices=choices, usage=usage_of(response, cost))
        replaced = sum(n for _, n in texts)
        if replaced:
            output.metadata = {**(output.metadata or {}), "finchain_sanitised":
                               f"{replaced} lone surrogate(s) in the reply replaced with U+FFFD"}
        return output

    def fast_cost(self, response: Any) -> float | None:
        """The cost of a fast-path reply: litellm's price table, consulted per model once (see openai_fast)."""
        if self._pricing is None:
            self._pricing = openai_fast.Pricing(self.litellm, self.model_name)
        return self._pricing.cost(getattr(response, "usage", None))

    def cost(self, response: Any) -> float | None:
        """litellm's price for this call, or None when litellm does not know the model's price.

        Per request this is on the event loop's path, so: whether the model has a price is looked up
        once (for an unpriced model litellm raises, about a millisecond each time), and the cost
        litellm already computed for its own logging (``_hidden_params``) is used when it is there."""
        if self._priced is None:
            try:
                self.litellm.get_model_info(model=self.model_name)
                self._priced = True
            except Exception:
                self._priced = False
        if not self._priced:
            return None
        known = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
        if isinstance(known, (int, float)) and not isinstance(known, bool):
            return float(known)
        try:
            return float(self.litellm.completion_cost(completion_response=response, model=self.model_name))
        except Exception:
            return None

    # -- Inspect's hooks ---------------------------------------------------------------------
    def should_retry(self, ex: Exception) -> bool | RetryDecision:
        lt = self.litellm
        if isinstance(ex, lt.RateLimitError):
            return RetryDecision.rate_limit(retry_after=retry_after(ex))
        transient = (lt.Timeout, lt.APIConnectionError, lt.ServiceUnavailableError, lt.BadGatewayError,
                     lt.InternalServerError)
        if isinstance(ex, (MalformedResponse, *transient)) or (_status(ex) or 0) >= 500:
            return RetryDecision.transient(retry_after=retry_after(ex))
        return RetryDecision.no()

    def retry_wait(self):
        return RetryAfterWait(self.first_wait)

    def connection_key(self) -> str:
        return f"{self.base_url or ''}:{self.model_name}"

    def is_auth_failure(self, ex: Exception) -> bool:
        return isinstance(ex, self.litellm.AuthenticationError)


@modelapi(name="litellm")
def litellm_api() -> type[ModelAPI]:
    return LiteLLMAPI


_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitised(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many were replaced."""
    return _SURROGATE.subn("\ufffd", text)


def sanitised_tree(value: Any) -> Any:
    """A JSON-like value with :func:`sanitised` applied to every string (the raw reply the log records)."""
    if isinstance(value, str):
        return sanitised(value)[0]
    if isinstance(value, dict):
        return {sanitised_tree(k): sanitised_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitised_tree(v) for v in value]
    return value


def check_reply(response: Any) -> None:
    """Raise :class:`MalformedResponse` for a reply without choices or with a null content that is not a
    truncation (finish_reason ``length``: the model spent its tokens, an answer to score as it is)."""
    choices = list(getattr(response, "choices", None) or [])
    if not choices:
        raise MalformedResponse("the server replied 200 without any choice")
    for choice in choices:
        message = getattr(choice, "message", None)
        if getattr(message, "content", None) is None and getattr(choice, "finish_reason", None) != "length":
            raise MalformedResponse(f"the server replied 200 with null content (finish_reason "
                                    f"{getattr(choice, 'finish_reason', None)!r})")


def _cached_output(cache: Any, key: str) -> ModelOutput | None:
    """The cached answer, or None: no cache, no entry, an entry that does not parse or has no choice, or a
    cache that fails to read (a cache can cost a request, never a sample)."""
    import sqlite3

    if cache is None:
        return None
    try:
        hit = cache.get(key)
        output = ModelOutput.model_validate_json(hit) if hit is not None else None
    except (sqlite3.Error, ValueError):
        return None
    return output if output is not None and output.choices else None


def _cache_put(cache: Any, key: str, model: str, request: dict[str, Any], output: str) -> None:
    import sqlite3

    try:
        cache.put(key, model, request, output)
    except sqlite3.Error:  # a cache that cannot be written costs a re-request on resume, not the answer
        pass


def _api_error() -> type[Exception]:
    """The base of litellm's provider exceptions (they subclass the openai client's)."""
    import openai

    return openai.OpenAIError


def _epoch() -> int | None:
    """The epoch of the sample being generated (Inspect's own cache keys on it too), or None."""
    try:
        from inspect_ai.model._cache import epoch

        return epoch.get(None)
    except Exception:  # a private API: without it every epoch shares one answer
        return None


def _message(message: ChatMessage) -> dict[str, str]:
    if message.role not in ("system", "user", "assistant"):
        raise NotImplementedError(f"the litellm provider passes text messages only, not {message.role!r} messages")
    return {"role": message.role, "content": message.text}


def usage_of(response: Any, cost: float | None) -> ModelUsage:
    """Inspect's usage from an OpenAI-style usage block (cached prompt tokens counted apart)."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return ModelUsage(total_cost=cost)
    prompt, completion = int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
    reasoning = getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None)
    return ModelUsage(
        input_tokens=prompt - int(cached or 0), output_tokens=completion,
        total_tokens=int(usage.total_tokens or prompt + completion),
        input_tokens_cache_read=int(cached) if cached else None,
        reasoning_tokens=int(reasoning) if reasoning else None, total_cost=cost,
    )


def _status(ex: BaseException) -> int | None:
    code = getattr(ex, "status_code", None)
    return code if isinstance(code, int) else None


def _headers(ex: BaseException) -> dict[str, str]:
    headers = getattr(ex, "litellm_response_headers", None)
    if headers is None:
        response = getattr(ex, "response", None)
        headers = getattr(response, "headers", None)
    try:
        return {str(k).lower(): str(v) for k, v in dict(headers or {}).items()}
    except (TypeError, ValueError):
        return {}


def retry_after(ex: BaseException | None) -> float | None:
    """Seconds a server asked us to wait (``Retry-After`` as seconds or a date, or ``retry-after-ms``)."""
    if ex is None:
        return None
    headers = _headers(ex)
    try:
        if "retry-after-ms" in headers:
            return max(float(headers["retry-after-ms"]) / 1000, 0.0)
        if "retry-after" in headers:
            value = headers["retry-after"].strip()
            try:
                return max(float(value), 0.0)
            except ValueError:
                from datetime import datetime, timezone

                return max((parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds(), 0.0)
    except (TypeError, ValueError, OverflowError):
        return None
    return None


class RetryAfterWait:
    """Tenacity wait: the server's Retry-After when it gave one, else exponential backoff with jitter.

    The backoff is Inspect's own shape (``initial * 2^(n-1)`` plus up to ``initial`` of jitter,
    capped), written out so it does not depend on a tenacity version.
    """

    def __init__(self, initial: float, maximum: float = MAX_RETRY_AFTER) -> None:
        self.initial = initial
        self.maximum = maximum

    def __call__(self, retry_state: Any) -> float:
        outcome = retry_state.outcome
        after = retry_after(outcome.exception() if outcome is not None and outcome.failed else None)
        if after is not None:
            return min(after, self.maximum)
        attempt = max(int(retry_state.attempt_number), 1)
        backoff = self.initial * 2 ** min(attempt - 1, 60) + random.uniform(0, self.initial)
        return min(backoff, self.maximum)
