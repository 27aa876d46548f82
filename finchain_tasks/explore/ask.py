"""A model's answer to one problem, streamed: any registry name or litellm id through litellm, the local
model started on demand (as ``finchain eval`` starts it) and kept for the app's lifetime.

Every failure a user can cause or meet (no key, an unknown name, a timeout, a 429, a server that will not
start) ends as one line in :class:`AskError`, never a traceback in the page. No key is ever shown."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from finchain_tasks.finchain import prompts

TIMEOUT_S = 120.0


class AskError(RuntimeError):
    """A model call that did not give an answer, in one line."""


@dataclass
class Answer:
    text: str
    done: bool = False
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    """USD at the registry's (or litellm's) price; None when the price is unknown (never 0 for unknown)."""

    def status(self, model: str) -> str:
        if not self.done:
            return f"{model}: answering… ({len(self.text):,} characters so far)"
        tokens = (f"{self.input_tokens:,} in / {self.output_tokens:,} out tokens"
                  if self.input_tokens is not None and self.output_tokens is not None else "tokens unknown")
        cost = f"${self.cost:.6f}" if self.cost is not None else "cost unknown"
        return f"{model}: done · {tokens} · {cost}"


_LOCAL: dict[str, Any] = {}
_LOCAL_LOCK = threading.Lock()


def local_model_name() -> str:
    from finchain_tasks.models.registry import load_registry

    local = [m.name for m in load_registry().models.values() if m.local is not None]
    return local[0] if local else ""


def _spec(name: str) -> Any:
    from finchain_tasks.models.registry import load_registry, missing_env, resolve_model

    spec = resolve_model(name.strip(), load_registry())
    missing = [v for v in missing_env(spec) if not (spec.local is not None and v == spec.api_base_env)]
    if missing:
        raise AskError(f"model {spec.name!r} needs {', '.join(missing)}: set it in the environment that runs "
                       "`finchain explore`")
    return spec


def _local_base(spec: Any) -> str:
    """The base URL of the model's local server, starting it on first use (one server per model)."""
    from finchain_tasks.models.local import LocalModelServer

    with _LOCAL_LOCK:
        server = _LOCAL.get(spec.name)
        if server is None or not server.running():
            try:
                server = LocalModelServer.for_spec(spec).start()
            except (RuntimeError, ImportError, OSError) as exc:
                raise AskError(f"the local model did not start: {str(exc).splitlines()[0]}") from None
            _LOCAL[spec.name] = server
        return server.base_url


def stop_local_models() -> None:
    with _LOCAL_LOCK:
        for server in _LOCAL.values():
            server.stop()
        _LOCAL.clear()


def _request(spec: Any, question: str) -> dict[str, Any]:
    from finchain_tasks.models.registry import api_base, api_key, litellm_kwargs

    kwargs = litellm_kwargs(spec, max_tokens=prompts.MAX_NEW_TOKENS, temperature=0.0)
    if spec.local is not None and not api_base(spec):
        kwargs["api_base"] = _local_base(spec)
    key = api_key(spec)
    if key:
        kwargs["api_key"] = key
    return {**kwargs, "messages": prompts.chat_messages(question), "stream": True,
            "stream_options": {"include_usage": True}, "timeout": TIMEOUT_S, "num_retries": 0}


def _cost(spec: Any, answer: Answer) -> float | None:
    from finchain_tasks.models.registry import resolve_price

    price = resolve_price(spec)
    if price is None or answer.input_tokens is None or answer.output_tokens is None:
        return None
    return (answer.input_tokens * price.input + answer.output_tokens * price.output) / 1e6


def _one_line(exc: BaseException) -> str:
    """The error in one line, with every configured secret (and its last 12 characters) redacted."""
    from finchain_tasks.plumbing.redaction import redact

    return redact(f"{type(exc).__name__}: {' '.join(str(exc).split()) or '(no message)'}")[:300]


def ask(model: str, question: str) -> Iterator[Answer]:
    """Stream the answer of ``model`` (a registry name or a provider/model id) to ``question``."""
    from finchain_tasks.inspect.litellm_provider import import_litellm

    try:
        spec = _spec(model)
    except ValueError as exc:
        raise AskError(str(exc)) from None
    litellm = import_litellm()
    answer = Answer("")
    try:
        for chunk in litellm.completion(**_request(spec, question)):
            delta = chunk.choices[0].delta.content if chunk.choices else None
            if delta:
                answer.text += delta
                yield answer
            usage = getattr(chunk, "usage", None)
            if usage:
                answer.input_tokens, answer.output_tokens = usage.prompt_tokens, usage.completion_tokens
    except AskError:
        raise
    except Exception as exc:  # a provider's error of any kind becomes one line for the page
        raise AskError(f"{spec.name}: {_one_line(exc)}") from None
    answer.done, answer.cost = True, _cost(spec, answer)
    yield answer
