"""``finchain bench --batch``: models whose provider has a batch API run through Inspect's batch mode, resumably.

Which models, and under which Inspect provider, is :mod:`finchain_tasks.models.batch` (the one table). Why
Inspect's own provider (``openai/gpt-4.1``, ``anthropic/...``) rather than our ``litellm/`` one: batch mode
lives in Inspect's providers (``GenerateConfig.batch``), each with its provider's own request format, upload,
polling and result parsing for the five batch APIs; our provider speaks litellm's request form, so reusing
Inspect's batcher inside it would mean rewriting every provider's request and result shapes. The cost of the
choice: a batched model is a different Inspect model name (its logs are not the ``litellm/`` logs of the same
model, keep ``--batch`` the same when resuming a run directory), the response cache does not apply (the
journal below does its job), and the key is mapped from the registry's ``api_key_env`` at build time, the base
URL from the provider's own variable (``OPENAI_BASE_URL``...; a model with an ``api_base`` has no batch API).

Resumable: Inspect keeps its batches in memory only (``util/batch_log.py`` is logging, not state), so a killed
run would submit every unfinished request again and pay twice. :class:`Journal` keeps, in the run directory
(``batches/``, one file per batch, each written atomically), every batch created: its id, and per request its
``custom_id`` and a hash of the request (:func:`request_key`: the body without its per-call request-id header).
A restarted run installs :func:`journaled`, which patches Inspect's ``Batcher`` (private API, pinned by a test):
a request whose hash matches a journaled request is attached to that batch by id, which is polled and collected,
never created again; a failed item is marked so that its retry goes into a new batch. Left open: a kill between the
provider's answer to "create" and the journal write (milliseconds) loses that one batch id.

Inspect 0.3.285's OpenAI batcher fails the whole batch when any item failed (it builds the item's error from a
response without a request); :func:`_parse_openai_line` makes each failed item its own error, so a 5xx item is
retried by Inspect (in a new batch) and a 4xx item is reported as that sample's error, with the provider's words.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

JOURNAL = "batches"
"""The run directory's journal of batches: one JSON file per batch (its id, its requests' ids and hashes)."""
BATCH_LOG = "batches.log"
"""Inspect's batch messages (created, completed, status), one per line, instead of stdout."""
DEFAULT_TICK = 15.0
"""Seconds between polls (Inspect's default); ``--batch-tick`` lowers it for tests."""


# ------------------------------------------------------------------------------------------ which models
def route(spec: Any) -> tuple[Optional[str], str]:
    """(Inspect model name, why) for a registry model under ``--batch``: None where it runs as today."""
    from finchain_tasks.models.batch import inspect_batch_model
    from finchain_tasks.models.registry import generation_of

    name = inspect_batch_model(spec)
    if name is None:
        return None, "no batch API for this provider (or served at its own base URL)"
    _, extra, _ = generation_of(spec)
    if extra:
        return None, f"litellm-only request parameters ({', '.join(sorted(extra))}): runs through litellm"
    return name, f"batch API through Inspect's {name.partition('/')[0]}/ provider"


def build_model(spec: Any, options: Any, task_config: Any) -> Any:
    """Inspect's own provider for a batched model (see the module docstring), or None to build it as today."""
    from inspect_ai.model import BatchConfig, GenerateConfig, get_model

    name, _ = route(spec)
    if name is None:
        return None
    from finchain_tasks.models.registry import generation_of

    generation, _, _ = generation_of(spec, task_config)
    tick = options.batch_tick or DEFAULT_TICK
    batch = BatchConfig(size=options.batch_size, send_delay=tick, tick=tick)
    # no attempt timeout: a batch answers within its 24 h window, not within a request's timeout
    config = GenerateConfig(max_retries=options.max_retries, batch=batch, **generation)
    key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    args = {"responses_api": False} if name.startswith("openai/") else {}  # the endpoint litellm sends to today
    model = get_model(name, api_key=key, config=config, memoize=False, **args)
    if options.retry_wait is not None:  # the first backoff (tests), as our provider's retry_wait model arg
        from finchain_tasks.inspect.litellm_provider import RetryAfterWait

        model.api.retry_wait = lambda: RetryAfterWait(options.retry_wait)
    return model


def session_record(specs: Any) -> dict[str, dict[str, Any]]:
    """{registry name: {inspect_model | None, reason, batch price}} for the manifest's session."""
    from dataclasses import asdict

    from finchain_tasks.models.batch import resolve_batch_price

    out = {}
    for spec in specs:
        name, reason = route(spec)
        price = resolve_batch_price(spec) if name else None
        out[spec.name] = {"inspect_model": name, "reason": reason, "price": asdict(price) if price else None}
    return out


def check_distinct(specs: Any) -> None:
    """Two registry entries batched as one Inspect model with the same settings would be one eval-set task
    (Inspect's provider takes no ``finchain_model`` arg to keep them apart): refuse in one line."""
    from finchain_tasks.models.registry import generation_of

    seen: dict[str, str] = {}
    for spec in specs:
        name, _ = route(spec)
        if name is None:
            continue
        key = json.dumps([name, generation_of(spec)[0]], sort_keys=True, default=str)
        if key in seen:
            raise ValueError(f"models {seen[key]!r} and {spec.name!r} are both {name} with the same settings under "
                             "--batch: one eval-set task; run them in separate run directories")
        seen[key] = spec.name


# ------------------------------------------------------------------------------------------ the journal
def request_key(provider: str, request: dict[str, Any]) -> str:
    """A hash of what a request asks (its body without the per-call ``extra_headers``), the same in every run."""
    from inspect_ai._util.notgiven import sanitize_notgiven

    body = {k: v for k, v in sanitize_notgiven(request).items() if k != "extra_headers"}
    text = json.dumps([provider, body], sort_keys=True, ensure_ascii=False, default=_jsonable)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _jsonable(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else str(value)


class Journal:
    """The batches of a run directory, one small JSON file per batch in ``batches/`` (``{id, provider, created,
    requests: {custom_id: {key, state}}}``, state ``sent``, ``answered`` or ``failed``), each written whole and
    renamed into place: a kill never leaves half a file, and a write costs one batch, not the run (one file for
    the whole run would be rewritten ~1,500 times at the paper's scale, 12 MB at the end: see
    ``benchmarks/batch_journal_bench.py``). Loaded requests not failed are *claimable*: a request of a
    restarted run with the same key takes one (in creation order) instead of going into a new batch."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.batches: dict[str, dict[str, Any]] = {}
        files = sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []
        for path in files:
            try:
                batch = _batch_record(path)
            except ValueError as exc:
                raise ValueError(f"{exc} ({path.name} is not a batch record; move it aside to resubmit its "
                                 "requests)") from None
            self.batches[batch["id"]] = batch
        self.batches = dict(sorted(self.batches.items(), key=lambda item: item[1].get("created", 0)))
        self._claimable: dict[str, collections.deque[tuple[str, str]]] = collections.defaultdict(collections.deque)
        for batch_id, batch in self.batches.items():
            for custom_id, entry in batch["requests"].items():
                if entry["state"] != "failed":
                    self._claimable[entry["key"]].append((batch_id, custom_id))
        self.stash: dict[tuple[str, str], Any] = {}
        self.resumed: set[str] = set()

    def claim(self, key: str) -> Optional[tuple[str, str]]:
        queue = self._claimable.get(key)
        return queue.popleft() if queue else None

    def record(self, batch_id: str, provider: str, requests: list[tuple[str, str]]) -> None:
        self.batches[batch_id] = {"id": batch_id, "provider": provider, "created": time.time(),
                                  "requests": {cid: {"key": key, "state": "sent"} for cid, key in requests}}
        self._save(batch_id)

    def mark(self, batch_id: str, states: dict[str, str]) -> None:
        requests = self.batches.get(batch_id, {}).get("requests", {})
        for custom_id, state in states.items():
            if custom_id in requests:
                requests[custom_id]["state"] = state
                if state == "failed":  # its retry is a new request, in a new batch
                    queue = self._claimable.get(requests[custom_id]["key"])
                    if queue and (batch_id, custom_id) in queue:
                        queue.remove((batch_id, custom_id))
        if batch_id in self.batches:
            self._save(batch_id)

    def _save(self, batch_id: str) -> None:
        """One batch's file, written whole then renamed (ids may hold ``/``: the file is named by their hash)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{hashlib.sha256(batch_id.encode()).hexdigest()[:20]}.json"
        tmp = path.with_name(path.name + ".partial")
        tmp.write_text(json.dumps(self.batches[batch_id]) + "\n", encoding="utf-8")
        tmp.replace(path)

    def counts(self) -> dict[str, int]:
        states = collections.Counter(e["state"] for b in self.batches.values() for e in b["requests"].values())
        return {"batches": len(self.batches), **{s: states.get(s, 0) for s in ("sent", "answered", "failed")}}


_STATES = ("sent", "answered", "failed")


def _batch_record(path: Path) -> dict[str, Any]:
    """One journal file, every field of the type the journal relies on (a regular file only: a FIFO or a link
    to a device is refused without blocking); else ValueError, one line naming the file and the field."""
    from finchain_tasks.plumbing.safe_files import expect, load_json

    where = str(path)
    batch = expect(load_json(path), dict, where, "the record")
    expect(batch.get("id"), str, where, "id")
    expect(batch.get("created", 0), (int, float), where, "created")
    for custom_id, entry in expect(batch.get("requests"), dict, where, "requests").items():
        expect(entry, dict, where, f"requests.{custom_id}")
        expect(entry.get("key"), str, where, f"requests.{custom_id}.key")
        if entry.get("state") not in _STATES:
            raise ValueError(f"{where}: requests.{custom_id}.state: expected one of {', '.join(_STATES)}")
    return batch


_ACTIVE: Optional[Journal] = None


# ------------------------------------------------------------------------------------------ Inspect's batcher
@contextlib.contextmanager
def journaled(run_dir: Path) -> Iterator[Journal]:
    """Install the journal of ``run_dir`` into Inspect's ``Batcher`` (see the module docstring) for the run."""
    global _ACTIVE
    from inspect_ai.model._providers._openai_batch import OpenAIBatcher
    from inspect_ai.model._providers.util import batch_log
    from inspect_ai.model._providers.util.batch import Batcher

    journal = Journal(Path(run_dir) / JOURNAL)
    patches = {(Batcher, "generate_for_request"): _generate_for_request,
               (Batcher, "_wrapped_create_batch"): _wrapped_create_batch,
               (Batcher, "_resolve_inflight_batch"): _resolve_inflight_batch,
               (OpenAIBatcher, "_parse_jsonl_line"): _parse_openai_line}
    originals = {target: target[0].__dict__[target[1]] for target in patches}
    log = open(Path(run_dir) / BATCH_LOG, "a", encoding="utf-8")
    for (cls, name), fn in patches.items():
        setattr(cls, name, _bind(fn, originals[(cls, name)]))
    batch_log.set_batch_log_callback(lambda m: (log.write(f"{time.strftime('%H:%M:%S')} {m}\n"), log.flush()))
    batch_log.set_batch_status_callback(_status_writer(log))
    _ACTIVE = journal
    try:
        yield journal
    finally:
        _ACTIVE = None
        for (cls, name), fn in originals.items():
            setattr(cls, name, fn)
        batch_log.set_batch_log_callback(None)
        batch_log.set_batch_status_callback(None)
        log.close()


def _bind(fn: Any, original: Any) -> Any:
    async def patched(self: Any, *args: Any) -> Any:
        return await fn(original, self, *args)

    def patched_sync(self: Any, *args: Any) -> Any:
        return fn(original, self, *args)

    import inspect

    return patched if inspect.iscoroutinefunction(fn) else patched_sync


def _status_writer(log: Any) -> Any:
    last: list[Any] = [None]

    def write(status: Any) -> None:
        line = (status.batch_count, status.pending_requests, status.completed_requests, status.failed_requests)
        if line != last[0]:
            last[0] = line
            log.write(f"{time.strftime('%H:%M:%S')} batches {line[0]}, requests pending/completed/failed "
                      f"{line[1]}/{line[2]}/{line[3]}\n")
            log.flush()

    return write


async def _generate_for_request(original: Any, self: Any, request: dict[str, Any]) -> Any:
    journal = _ACTIVE
    claim = journal.claim(request_key(type(self).__name__, request)) if journal is not None else None
    if claim is None:
        return await original(self, request)
    return await _collect(self, journal, *claim, request)


async def _collect(self: Any, journal: Journal, batch_id: str, custom_id: str, request: dict[str, Any]) -> Any:
    """Wait for a request's answer from the batch a killed run created (attached by id, never resubmitted)."""
    import anyio
    from inspect_ai._util.background import run_in_background
    from inspect_ai.model._providers.util.batch import Batch, BatchRequest

    if (batch_id, custom_id) in journal.stash:
        return journal.stash.pop((batch_id, custom_id))
    send, receive = anyio.create_memory_object_stream[Any](1)
    request.pop("extra_headers", None)  # its request id is this run's; the batch has the first run's custom_id
    batch = self._inflight_batches.get(batch_id)
    if batch is None:
        batch = self._inflight_batches[batch_id] = Batch(id=batch_id, requests={})
        if batch_id not in journal.resumed:
            journal.resumed.add(batch_id)
            from inspect_ai.model._providers.util.batch_log import log_batch

            log_batch(f"Resumed batch {batch_id} (created by an earlier run): collecting, not resubmitting")
    batch.requests[custom_id] = BatchRequest(request=request, result_stream=send, custom_id=custom_id)
    if not self._is_batch_worker_running:
        self._is_batch_worker_running = True
        run_in_background(self._batch_worker)
    result = await receive.receive()
    if isinstance(result, Exception):
        raise result
    return result


async def _wrapped_create_batch(original: Any, self: Any, batch_requests: list[Any]) -> str:
    batch_id = await original(self, batch_requests)
    if _ACTIVE is not None:
        provider = type(self).__name__
        _ACTIVE.record(batch_id, provider, [(r.custom_id, request_key(provider, r.request)) for r in batch_requests])
    return batch_id


async def _resolve_inflight_batch(original: Any, self: Any, batch: Any, results: dict[str, Any]) -> None:
    """Deliver a batch's results: to the requests waiting (a resumed batch may hold results for requests not asked
    again yet: kept for them), an error to any waiting request the batch has no result for, and the states to
    the journal (a request without a result is failed too: its retry goes into a new batch, not back to this
    one, which would answer it the same way on every restart)."""
    journal = _ACTIVE
    if journal is not None:
        for cid, result in results.items():
            if cid not in batch.requests and not isinstance(result, Exception):
                journal.stash[(batch.id, cid)] = result
        missing = {cid: RuntimeError(f"batch {batch.id} returned no result for request {cid}")
                   for cid in batch.requests if cid not in results}
        journal.mark(batch.id, {cid: "failed" if isinstance(r, Exception) else "answered"
                                for cid, r in {**results, **missing}.items()})
        results = {cid: r for cid, r in results.items() if cid in batch.requests} | missing
    await original(self, batch, results)


def _parse_openai_line(original: Any, self: Any, line: dict[str, Any]) -> tuple[str, Any]:
    """One result line; a failed item (an ``error`` object, or a response whose status is not 200) becomes the
    openai client's own status error for that item alone."""
    response = line.get("response") or {}
    error = line.get("error")
    status = response.get("status_code") if isinstance(response, dict) else None
    if error is None and (status is None or status == 200):
        return original(self, line)
    import httpx2  # the openai client's HTTP library (its errors are built from its responses)

    code = error.get("code") if isinstance(error, dict) else None
    status = status if isinstance(status, int) and status != 200 else code if isinstance(code, int) else 500
    body = response.get("body") if isinstance(response, dict) and response.get("body") else {"error": error}
    request = httpx2.Request("POST", f"https://batch.invalid/{line.get('custom_id')}")
    exc = self._openai_client._make_status_error_from_response(httpx2.Response(status, json=body, request=request))
    exc.message = f"batch item failed: {exc.message}"
    exc.args = (exc.message,)
    return str(line.get("custom_id") or ""), exc
