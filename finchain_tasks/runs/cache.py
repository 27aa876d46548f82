"""The response cache: SQLite in the run directory, keyed by a hash of what was asked.

Why our own and not litellm's or Inspect's: litellm's disk cache is gone (1.109) and its cache hits
import proxy modules; Inspect's cache lives in the user's home, keyed partly by the base URL (the local
model's port changes every run). This one lives in the run directory (runs are data) and is consulted
by the ``litellm/...`` provider before it sends a request and written right after a success, in WAL
mode with one commit per answer, so a run killed with SIGKILL keeps every answer it had received
(except one that arrived in the microseconds between the HTTP response and the commit).

The key is a SHA-256 of: the request as litellm receives it (model id, messages, generation
parameters) minus transport details (base URL, timeouts, retries, headers, anything secret-looking),
the sample's epoch (so epochs of a sampled model stay independent, as in Inspect's own cache), the
registry name when the provider has one (two registry entries of one litellm id never share answers) and
the FinChain task version (prompts and templates). A key is never part of it.

Only well-formed answers are written (the provider checks a reply before it caches it). A cache file
that SQLite cannot read (:func:`set_aside_if_corrupt`) is renamed ``responses.sqlite.corrupt-<time>``
with a one-line warning and the run goes on with a fresh cache: it costs re-sent requests, never a run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.plumbing.redaction import is_secret_name, redact

CACHE_ENV = "FINCHAIN_RESPONSE_CACHE"
"""Environment variable with the path of the cache file; the engine sets it for the run."""
TRANSPORT_KEYS = frozenset({"api_base", "base_url", "timeout", "num_retries", "extra_headers", "api_key"})
"""Request fields that say how to reach the model, not what to ask it: not part of the key."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL, output TEXT NOT NULL, created REAL NOT NULL
)"""
# The statements, named once. SQLite reads keywords, pragma and table names in any letter case, so these
# strings live at module level, where mutation testing does not rewrite them (see tests/MUTANTS.md).
_COLUMNS = ["key", "model", "request", "output", "created"]
_SETUP = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", _SCHEMA)  # NORMAL: a commit survives a kill
_GET = "SELECT output FROM responses WHERE key = ?"
_PUT = "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)"
_ALL = "SELECT key, model, request, output, created FROM responses"
_COUNT = "SELECT count(*) FROM responses"
_QUICK_CHECK = "PRAGMA quick_check"
_TABLE_INFO = "PRAGMA table_info(responses)"


def request_material(request: dict[str, Any]) -> dict[str, Any]:
    """What identifies a request: everything but transport details and secret-looking fields."""
    return {k: v for k, v in request.items()
            if k not in TRANSPORT_KEYS and not is_secret_name(k)}


def request_key(request: dict[str, Any], epoch: Optional[int] = None, version: Optional[str] = None) -> str:
    """The cache key of one request (see the module docstring for what goes in)."""
    payload = {"request": request_material(request), "epoch": epoch,
               "version": task_version() if version is None else version}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def task_version() -> str:
    """The FinChain task version, or ``unknown`` outside a full install (the cache must never fail a call)."""
    try:
        from finchain_tasks.finchain.versioning import task_version as version

        return version()
    except Exception:  # pragma: no cover - a broken install still caches, under its own namespace
        return "unknown"


class ResponseCache:
    """One SQLite file; safe to share between the threads and processes of a run."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False, isolation_level=None)
        for statement in _SETUP:
            self._db.execute(statement)

    def get(self, key: str) -> Optional[str]:
        with self._lock:
            row = self._db.execute(_GET, (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, model: str, request: dict[str, Any], output: str) -> None:
        material = json.dumps(request_material(request), ensure_ascii=False, default=str)
        output = redact(output)  # a reply that quotes the key (a proxy's echo) is stored without it
        with self._lock:
            self._db.execute(_PUT, (key, model, material, output, time.time()))

    def entries(self) -> list[dict[str, Any]]:
        """Every cached answer: key, model, request (as hashed), output (JSON text), created."""
        with self._lock:
            rows = self._db.execute(_ALL).fetchall()
        return [{"key": k, "model": m, "request": json.loads(r), "output": o, "created": c} for k, m, r, o, c in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute(_COUNT).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


_OPEN: dict[str, ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(path: str | os.PathLike) -> ResponseCache:
    """The process-wide cache object for ``path`` (one connection per file per process).

    Keyed by the resolved path, as :func:`forget` looks it up: a relative or symlinked spelling of the same
    file shares its connection and is closed by ``forget`` under any spelling."""
    key = str(Path(path).resolve())
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = ResponseCache(key)
        return _OPEN[key]


def forget(path: str | os.PathLike) -> None:
    """Close and drop this process's connection to ``path`` (before the file is renamed or replaced)."""
    with _OPEN_LOCK:
        cache = _OPEN.pop(str(Path(path).resolve()), None)
    if cache is not None:
        with contextlib.suppress(sqlite3.Error):
            cache.close()


def corruption(path: str | os.PathLike) -> Optional[str]:
    """Why ``path`` is not a usable cache (SQLite's message), or None when it is sound or absent."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
        try:
            check = db.execute(_QUICK_CHECK).fetchone()
            columns = [row[1] for row in db.execute(_TABLE_INFO)]
        finally:
            db.close()
    except sqlite3.Error as exc:
        return str(exc) or type(exc).__name__
    if not check or check[0] != "ok":
        return f"integrity check: {check[0] if check else 'no answer'}"
    if columns and columns != _COLUMNS:
        return f"not a response cache (table responses has columns {', '.join(columns)})"
    return None


def set_aside_if_corrupt(path: str | os.PathLike) -> Optional[str]:
    """Rename an unreadable cache (and its WAL files) out of the way; returns the one-line warning, or None."""
    path = Path(path)
    reason = corruption(path)
    if reason is None:
        return None
    forget(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    path.replace(target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.replace(target.with_name(target.name + suffix))
    return (f"warning: the response cache {path} is unreadable ({_one_line(reason)}); set aside as {target.name}, "
            "continuing with a fresh cache (answers it held are requested again)")


def _one_line(text: str, limit: int = 120) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def cache_from_env() -> Optional[ResponseCache]:
    """The cache named by ``FINCHAIN_RESPONSE_CACHE``, or None when it is unset."""
    path = os.environ.get(CACHE_ENV, "").strip()
    return open_cache(str(Path(path).resolve())) if path else None
