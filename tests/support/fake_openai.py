"""A small, real OpenAI-compatible HTTP server on 127.0.0.1 for offline tests.

It serves ``POST /v1/chat/completions`` and ``POST /v1/completions`` (and ``GET /v1/models``)
over a real socket, so clients exercise their whole HTTP path: connection, headers, status codes,
JSON decoding, timeouts; a chat request with ``"stream": true`` is answered as server-sent events.
What it answers comes from a *script*: a mapping from the 1-based number
of a request (counted over both endpoints) to a fault, and a ``reply`` function for every other
request. Faults::

    FakeOpenAI(script={1: rate_limit(retry_after=0), 2: delay(5), 3: server_error(), 4: malformed()})

A ``rule`` (a function of the parsed request body returning a Fault or None) adds faults by
content, for requests the script does not name: e.g. one prompt that always gets HTTP 400.
``latency`` delays every normal answer by that many seconds (a slow server, for kill tests). ``hold(event)``
answers once the test (or a ``rule`` seeing a later request) sets the event. A request whose client closes the
connection while its answer is held back is marked ``dropped`` (the client cancelled it), and every request records
when it ended, so a test can check how many sends of one request were open at once (``most_open``).

``chaos=Chaos(rate=0.2, seed=1)`` is the fault-injection mode: every request the script and the rule
leave alone gets a fault with probability ``rate`` (empty ``choices``, ``content: null``, 429, 500, a
stall past the client's timeout, malformed JSON). The draw is a hash of the seed, the request body and
how many times that same body was asked before, so a run's faults do not depend on the order in which
concurrent requests arrive, and a retried request draws afresh.

The OpenAI Files and Batches endpoints are served too (:mod:`tests.support.fake_batches`: upload, create,
poll, output and error files; ``server.batches`` records every batch created and can hold them in progress).

Every request is recorded (path, headers, parsed body) in ``server.requests``, so a test can
check what the client sent, how often it retried, and that no secret travelled where it should
not. Use it as a context manager; ``base_url`` ends in ``/v1``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

from tests.support.fake_batches import BatchStore

DEFAULT_REPLY = "Step 1: 2 + 2 = 4\nFinal answer: 4"


@dataclass(frozen=True)
class Fault:
    """What the server does instead of answering: an HTTP error, a stall, or a broken body."""

    kind: str
    """'status' (an error status with an OpenAI-style error body), 'delay' (answer late), 'hold' (answer once an
    event is set), 'malformed'."""
    status: int = 200
    retry_after: float | None = None
    seconds: float = 0.0
    body: bytes = b""
    until: threading.Event | None = field(default=None, compare=False)


def rate_limit(retry_after: float | None = 0) -> Fault:
    """HTTP 429 with a ``Retry-After`` header (seconds) unless ``retry_after`` is None."""
    return Fault("status", 429, retry_after=retry_after)


def server_error(status: int = 500) -> Fault:
    """An HTTP 5xx with an OpenAI-style error body."""
    return Fault("status", status)


def status(code: int) -> Fault:
    """Any HTTP error status (401, 400, 503...)."""
    return Fault("status", code)


def echo_key(code: int = 401) -> Fault:
    """An error whose body quotes the request's Authorization header whole, as a careless proxy does."""
    return Fault("echo_key", code)


def delay(seconds: float) -> Fault:
    """Answer normally, but only after ``seconds`` (longer than the client timeout, to force one)."""
    return Fault("delay", seconds=seconds)


def hold(until: threading.Event, seconds: float = 600.0) -> Fault:
    """Answer normally once ``until`` is set (by the test, or by a ``rule`` seeing a later request), or after
    ``seconds``: an answer that comes at a chosen point of the client's retries rather than after a guessed time."""
    return Fault("hold", seconds=seconds, until=until)


def empty_choices() -> Fault:
    """HTTP 200 with a well-formed completion object whose ``choices`` list is empty."""
    return Fault("empty_choices")


def null_content() -> Fault:
    """HTTP 200 with one choice whose message content is null (finish_reason ``stop``)."""
    return Fault("null_content")


CHAOS_KINDS = ("empty_choices", "null_content", "rate_limit", "server_error", "timeout", "malformed")


@dataclass(frozen=True)
class Chaos:
    """Seeded random faults (see the module docstring); ``stall`` is how long a ``timeout`` fault waits."""

    rate: float = 0.2
    seed: int = 0
    kinds: tuple[str, ...] = CHAOS_KINDS
    stall: float = 30.0

    def fault(self, body: Any, attempt: int) -> Fault | None:
        """The fault of the ``attempt``-th (0-based) request with this body, or None."""
        text = json.dumps(body, sort_keys=True, default=str)
        digest = hashlib.sha256(f"{self.seed}|{attempt}|{text}".encode()).digest()
        if int.from_bytes(digest[:8], "big") / 2**64 >= self.rate:
            return None
        kind = self.kinds[int.from_bytes(digest[8:16], "big") % len(self.kinds)]
        return {"empty_choices": empty_choices(), "null_content": null_content(), "rate_limit": rate_limit(0),
                "server_error": server_error(500), "timeout": delay(self.stall), "malformed": malformed()}[kind]


def malformed(body: bytes = b'{"id": "chatcmpl-broken", "choices": [') -> Fault:
    """HTTP 200 whose body is not valid JSON."""
    return Fault("malformed", body=body)


Reply = Union[str, Callable[[dict], str]]
"""A fixed completion text, or a function of the request body that returns it."""


@dataclass
class Request:
    number: int
    path: str
    headers: dict[str, str]
    body: Any
    fault: Fault | None = None
    received: float = 0.0
    """``time.monotonic()`` when the request arrived."""
    answered: bool = False
    """True once a normal answer (HTTP 200, valid JSON) was written to the client."""
    dropped: bool = False
    """True when the client closed the connection while the server held the answer back (``delay``, ``hold``,
    ``latency``) or as the answer was being written (a race the client won by a hair): it cancelled this send."""
    ended: float | None = None
    """``time.monotonic()`` when the server was done with the request (answered, dropped, or stopping)."""
    open_with: int = 1
    """Requests with this body open when it arrived, itself included: each one the server had not finished and
    whose client had not closed its connection (read off the socket, so a close the handler has not seen yet
    does not count)."""
    connection: Any = field(default=None, repr=False, compare=False)


@dataclass
class FakeOpenAI:
    """The server; ``start()``/``stop()`` or ``with FakeOpenAI(...) as server:``."""

    script: Mapping[int, Fault] = field(default_factory=dict)
    reply: Reply = DEFAULT_REPLY
    model: str = "fake"
    requests: list[Request] = field(default_factory=list)
    rule: Callable[[Any], Fault | None] | None = None
    latency: float = 0.0
    chaos: Chaos | None = None
    usage: Callable[[str, Any, str], tuple[int, int]] | None = None
    """(path, body, answer text) -> (prompt_tokens, completion_tokens) the server reports; default: words."""
    batches: BatchStore = field(default_factory=BatchStore)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._asked: dict[str, int] = {}

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        # a short poll interval: shutdown() waits for the next poll, 0.5 s by default, paid by every test that stops one
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- request handling (called from server threads) ---------------------------------------
    def _record(self, path: str, headers: dict[str, str], body: Any, connection: Any = None) -> Request:
        with self._lock:
            number = len(self.requests) + 1
            open_with = 1 + sum(1 for r in self.requests if r.body == body and r.ended is None
                                and not _client_closed(r.connection))
            fault = self.script.get(number)
            if fault is None and self.rule is not None:
                fault = self.rule(body)
            if fault is None and self.chaos is not None:
                text = json.dumps(body, sort_keys=True, default=str)
                attempt = self._asked.get(text, 0)
                self._asked[text] = attempt + 1
                fault = self.chaos.fault(body, attempt)
            req = Request(number, path, headers, body, fault, time.monotonic(), open_with=open_with,
                          connection=connection)
            self.requests.append(req)
        return req

    def _text_for(self, body: Any) -> str:
        return self.reply(body) if callable(self.reply) else self.reply

    def batch_answer(self, body: Any) -> tuple[dict | None, dict | None]:
        """(completion, None) or (None, error) for one line of a batch: the ``rule`` decides a failure (a
        ``status`` fault fails the item with that code), ``reply`` the text."""
        fault = self.rule(body) if self.rule is not None else None
        if fault is not None and fault.kind == "status":
            return None, {"code": fault.status, "message": f"scripted HTTP {fault.status}"}
        return completion_body("/chat/completions", body, self._text_for(body), self.model), None

    def _wait(self, seconds: float) -> bool:
        """Sleep, but wake up when the server stops; True when it is stopping."""
        return self._stopping.wait(seconds)

    def most_open(self, body: Any) -> int:
        """The most requests with this body open at one time (see ``Request.open_with``)."""
        with self._lock:
            return max((r.open_with for r in self.requests if r.body == body), default=0)


def _client_closed(connection: Any) -> bool:
    """True when the client has closed this connection (it reads as end of file); False for None."""
    import select
    import socket

    if connection is None:
        return False
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _count_tokens(text: str) -> int:
    return len(text.split())


def _prompt_text(path: str, body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    if path.endswith("/chat/completions"):
        return " ".join(str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict))
    prompt = body.get("prompt", "")
    return " ".join(prompt) if isinstance(prompt, list) else str(prompt)


def completion_body(path: str, body: Any, text: str, model: str) -> dict:
    """An OpenAI response object for ``text`` (chat or legacy completions shape), with usage."""
    prompt_tokens, completion_tokens = _count_tokens(_prompt_text(path, body)), _count_tokens(text)
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
             "total_tokens": prompt_tokens + completion_tokens}
    created = int(time.time())
    name = body.get("model", model) if isinstance(body, dict) else model
    if path.endswith("/chat/completions"):
        choice = {"index": 0, "finish_reason": "stop", "logprobs": None,
                  "message": {"role": "assistant", "content": text}}
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": created, "model": name,
                "choices": [choice], "usage": usage}
    choice = {"index": 0, "finish_reason": "stop", "logprobs": None, "text": text}
    return {"id": "cmpl-fake", "object": "text_completion", "created": created, "model": name,
            "choices": [choice], "usage": usage}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_state: FakeOpenAI  # set per server by _make_handler

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        return

    def _send(self, code: int, payload: bytes, headers: Mapping[str, str] | None = None) -> bool:
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False  # the client gave up (e.g. its timeout fired): nothing to answer

    def _send_json(self, payload: Any) -> None:
        if payload is None:
            self._send(404, json.dumps({"error": {"message": f"no such object {self.path}"}}).encode())
        else:
            self._send(200, json.dumps(payload).encode())

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        state, parts = self.server_state, self.path.split("?")[0].rstrip("/").split("/")
        if parts[-3:-1] == ["files", parts[-2]] and parts[-1] == "content" and len(parts) >= 4:
            data = state.batches.files.get(parts[-2])
            self._send(200, data) if data is not None else self._send_json(None)
        elif len(parts) >= 2 and parts[-2] == "batches":
            self._send_json(state.batches.retrieve(parts[-1], state.batch_answer))
        elif self.path.rstrip("/").endswith("/models"):
            model = self.server_state.model
            body = {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "fake"}]}
            self._send(200, json.dumps(body).encode())
        else:
            self._send(404, json.dumps({"error": {"message": "not found"}}).encode())

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?")[0].rstrip("/")
        req = self.server_state._record(path, {k.lower(): v for k, v in self.headers.items()}, body, self.connection)
        try:
            if self._batch_route(path, raw, body):
                return
            if not (path.endswith("/chat/completions") or path.endswith("/completions")):
                self._send(404, json.dumps({"error": {"message": f"no route {path}"}}).encode())
                return
            self._answer(req)
        finally:
            req.ended = time.monotonic()

    def _batch_route(self, path: str, raw: bytes, body: Any) -> bool:
        """The Files and Batches endpoints (True when ``path`` was one of them)."""
        store = self.server_state.batches
        if path.endswith("/v1/files"):
            self._send_json(store.upload(self.headers.get("Content-Type", ""), raw))
        elif path.endswith("/v1/batches"):
            self._send_json(store.create(body))
        elif path.endswith("/cancel") and "/batches/" in path:
            self._send_json(store.cancel(path.split("/")[-2]))
        else:
            return False
        return True

    def _answer(self, req: Request) -> None:
        state, fault = self.server_state, req.fault
        if fault is not None and fault.kind == "status":
            error = {"error": {"message": f"scripted HTTP {fault.status}", "type": "fake_error",
                               "code": str(fault.status)}}
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            self._send(fault.status, json.dumps(error).encode(), headers)
            return
        if fault is not None and fault.kind == "echo_key":
            sent = req.headers.get("authorization", "")
            error = {"error": {"message": f"Incorrect API key provided: {sent}", "type": "invalid_request_error",
                               "code": "invalid_api_key"}}
            self._send(fault.status, json.dumps(error).encode())
            return
        if fault is not None and fault.kind == "malformed":
            self._send(200, fault.body)
            return
        if fault is not None and fault.kind in ("empty_choices", "null_content"):
            body = completion_body(req.path, req.body, "", state.model)
            if fault.kind == "empty_choices":
                body["choices"] = []
            else:
                body["choices"][0].setdefault("message", {})["content"] = None
            self._send(200, json.dumps(body).encode())
            return
        if fault is not None and fault.kind in ("delay", "hold") and not self._hold(req, fault.seconds, fault.until):
            return  # server stopping, or the client gave up
        if state.latency and not self._hold(req, state.latency):
            return
        text = state._text_for(req.body)
        if isinstance(req.body, dict) and req.body.get("stream") and req.path.endswith("/chat/completions"):
            req.answered = self._stream(req, text)
            return
        req.answered = self._send(200, json.dumps(self._body_for(req, text)).encode())
        req.dropped = not req.answered  # the client closed the connection as the answer went out: it cancelled

    def _hold(self, req: Request, seconds: float, until: threading.Event | None = None) -> bool:
        """Hold the answer for ``seconds`` or until ``until`` is set; False when the server is stopping or the
        client closed the connection meanwhile (``req.dropped``), so there is no one to answer."""
        import select

        state, deadline = self.server_state, time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and not (until is not None and until.is_set()):
            if state._stopping.is_set():
                return False
            try:  # sleeps until the client sends or closes, 20 ms at most
                readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            except (OSError, ValueError):
                readable = [self.connection]
            if readable and _client_closed(self.connection):
                req.dropped = True
                return False
            if readable:  # bytes of a next request (pipelined): no close to see, just wait
                state._wait(min(left, 0.02))
        return not state._stopping.is_set()

    def _body_for(self, req: Request, text: str) -> dict:
        """The response object, its usage counted by the server's ``usage`` function when it has one."""
        state = self.server_state
        answer = completion_body(req.path, req.body, text, state.model)
        if state.usage is not None:  # counted as a real server's tokenizer would, instead of words
            prompt, completion = state.usage(req.path, req.body, text)
            answer["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion}
        return answer

    def _stream(self, req: Request, text: str) -> bool:
        """The answer as server-sent events, a few words per chunk, as OpenAI streams a chat completion
        (with a last usage chunk when ``stream_options.include_usage`` asks for it)."""
        full = self._body_for(req, text)
        words = text.split(" ")
        pieces = [" ".join(words[k:k + 4]) + (" " if k + 4 < len(words) else "") for k in range(0, len(words), 4)]
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": full["created"],
                "model": full["model"]}
        events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece},
                                        "finish_reason": None}]} for piece in pieces]
        events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (req.body.get("stream_options") or {}).get("include_usage"):
            events.append({**base, "choices": [], "usage": full["usage"]})
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False


def _make_handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    return type("FakeOpenAIHandler", (_Handler,), {"server_state": server})
