"""The response cache: SQLite in the run directory, keyed by a hash of what was asked.

Why our own and not litellm's or Inspect's: litellm's disk cache is gone (1.109) and its cache hits
import proxy modules; Inspect's cache lives in the user's home, keyed partly by the base URL (the local
model's port changes every run). This one lives in the run directory (runs are data) and is consulted
by the ``litellm/...`` provider before it sends a request and written right after a success, in WAL
mode with one commit per answer, so a run killed with SIGKILL keeps every answer it had received
(except one that arrived in the microseconds between the HTTP response and the commit).

The key is a SHA-256 of: the request as litellm receives it (model id, messages, generation
parameters) minus transport details (base URL, timeouts, retries, headers, anything secret-looking),
the sample's epoch (so epochs of a sampled model stay independent, as in Inspect's own cache) and the
FinChain task version (prompts and templates). A key is never part of it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.redaction import is_secret_name

CACHE_ENV = "FINCHAIN_RESPONSE_CACHE"
"""Environment variable with the path of the cache file; the engine sets it for the run."""
TRANSPORT_KEYS = frozenset({"api_base", "base_url", "timeout", "num_retries", "extra_headers", "api_key"})
"""Request fields that say how to reach the model, not what to ask it: not part of the key."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL, output TEXT NOT NULL, created REAL NOT NULL
)"""


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
        from finchain_tasks.versioning import task_version as version

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
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a committed answer survives a killed process
        self._db.execute(_SCHEMA)

    def get(self, key: str) -> Optional[str]:
        with self._lock:
            row = self._db.execute("SELECT output FROM responses WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, model: str, request: dict[str, Any], output: str) -> None:
        material = json.dumps(request_material(request), ensure_ascii=False, default=str)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
                             (key, model, material, output, time.time()))

    def entries(self) -> list[dict[str, Any]]:
        """Every cached answer: key, model, request (as hashed), output (JSON text), created."""
        with self._lock:
            rows = self._db.execute("SELECT key, model, request, output, created FROM responses").fetchall()
        return [{"key": k, "model": m, "request": json.loads(r), "output": o, "created": c} for k, m, r, o, c in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


@lru_cache(maxsize=8)
def open_cache(path: str) -> ResponseCache:
    """The process-wide cache object for ``path`` (one connection per file per process)."""
    return ResponseCache(path)


def cache_from_env() -> Optional[ResponseCache]:
    """The cache named by ``FINCHAIN_RESPONSE_CACHE``, or None when it is unset."""
    path = os.environ.get(CACHE_ENV, "").strip()
    return open_cache(str(Path(path).resolve())) if path else None
