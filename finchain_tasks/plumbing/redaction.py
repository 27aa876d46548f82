"""Which argument names hold secrets, and their values redacted from everything written: one rule for every
place that keeps keys out of files.

A name is secret-looking when one of its ``_``-separated words is a key, token, secret, password or
credential word (``api_key``, ``OPENAI_API_KEY``, ``access_token``, ``authorization``), or when it
starts with ``auth``. Whole words only, so ``max_tokens`` and ``top_k`` are ordinary parameters.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

SECRET_NAME = re.compile(
    r"(?:^|_)(?:api_?key|key|secret|token|password|passwd|credentials?|authorization)(?:$|_)|^auth",
    re.IGNORECASE,
)


def is_secret_name(name: object) -> bool:
    """True for argument names whose values must never be written to a log, result or cache key."""
    return bool(SECRET_NAME.search(str(name)))


REDACTED = "<redacted>"
TAIL = 12
"""A key's last characters are redacted too: providers echo keys as ``sk-...<last 4-12 characters>``."""
MIN_SECRET = 8
"""Shorter values are placeholders (``none``, ``EMPTY``), not secrets: redacting them would mangle ordinary text."""


def configured_secrets(extra: Iterable[object] = ()) -> set[str]:
    """Every secret this process could send: the values of secret-named environment variables (``*_API_KEY``,
    ``*_TOKEN``...), the variables the model registry names as keys, and ``extra`` values (model args), with
    the last ``TAIL`` characters of each. Read now, so a key set after import is covered."""
    names = {name for name in os.environ if is_secret_name(name)} | _registry_key_names()
    values = {os.environ.get(name, "") for name in names} | {str(v) for v in extra if v is not None}
    whole = {v for v in values if len(v) >= MIN_SECRET and v.strip() == v}
    return whole | {v[-TAIL:] for v in whole if len(v) > TAIL}


@functools.lru_cache(maxsize=1)
def _registry_key_names() -> frozenset[str]:
    """The ``api_key_env`` names of the shipped registry (custom names such as ``MY_PROVIDER_KEY``); read once
    per process, since the response cache redacts every answer it stores."""
    try:
        from finchain_tasks.models.registry import load_registry

        return frozenset(spec.api_key_env for spec in load_registry().models.values() if spec.api_key_env)
    except Exception:  # a broken registry must not stop redaction of the environment's keys
        return frozenset()


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (and its JSON-escaped form) replaced by ``<redacted>``; longest first, so a
    whole key goes before its tail."""
    found = configured_secrets() if secrets is None else set(secrets)
    if not found or not text:
        return text
    forms = {form for s in found for form in (s, json.dumps(s)[1:-1]) if form}
    for form in sorted(forms, key=len, reverse=True):
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def redact_exception(exc: BaseException, secrets: Iterable[str] | None = None) -> BaseException:
    """``exc`` with the secrets removed from its message, arguments and body (in place; returned for ``raise``):
    a provider or proxy that echoes the request's key in its error body would otherwise put it in every log."""
    found = configured_secrets() if secrets is None else set(secrets)
    if not found:
        return exc
    exc.args = tuple(redact(a, found) if isinstance(a, str) else a for a in exc.args)
    for attr in ("message", "body", "text", "llm_provider_response"):
        value = getattr(exc, attr, None)
        try:
            if isinstance(value, str):
                setattr(exc, attr, redact(value, found))
            elif isinstance(value, dict):
                setattr(exc, attr, json.loads(redact(json.dumps(value), found)))
        except (AttributeError, TypeError, ValueError):  # read-only or unserialisable: the message is what logs
            continue
    return exc


def write_redacted(path: Path, text: str) -> None:
    """Write a text file with every configured secret redacted (reports, summaries, logs we write)."""
    path.write_text(redact(text), encoding="utf-8")
