"""Who may reach the explorer: its user, and nobody a web page sends.

The explorer makes paid model calls with the user's keys and reads any run folder the process can read,
so a request it serves must come from its user's own page. A page elsewhere can reach a server on
127.0.0.1 two ways: by DNS rebinding (its own host name now points at 127.0.0.1, so the browser sends
``Host: evil.example``) and by a cross-site request (``Origin: http://evil.example``). :class:`Guard`
wraps the whole ASGI app Gradio serves, outside Gradio's own middleware, and answers 403 to both on every
route (page, assets, ``/config``, ``/gradio_api/...`` including the queue), before anything else runs:

* ``Host`` must be the address and port the app is bound to (``127.0.0.1:PORT``, ``localhost:PORT``,
  ``[::1]:PORT`` when bound there); a missing ``Host`` is refused.
* ``Origin``, when sent (browsers send it on every POST and every cross-origin request), must be this
  very origin, ``http://<Host>``; ``Origin: null`` (sandboxed frames, ``file:`` pages) is refused.
* ``Sec-Fetch-Site`` other than ``same-origin`` / ``none`` is refused, except a top-level GET of the page
  itself (``/``), so a permalink clicked in another page still opens; the page makes no call by itself.
* Served to the network (``--share-on-network``), ``Host`` can be anything the machine is called, so a
  random token is required too: ``?token=...`` once (then an HttpOnly, SameSite=Strict cookie).

Model calls start only through Gradio's POST routes (``/gradio_api/queue/join``, ``/gradio_api/call``),
which a GET never reaches. :func:`refusal` is the rule as a plain function, so it is tested directly."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

COOKIE = "finchain_explore_token"
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
"""Addresses that only this machine reaches; any other ``--host`` needs ``--share-on-network``."""
SAFE_SITES = ("same-origin", "none")
"""``Sec-Fetch-Site`` values of the user's own requests: from this page, or typed / bookmarked."""

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]


@dataclass(frozen=True)
class Policy:
    """What a request must carry: a ``Host`` from ``hosts`` (empty: any), and ``token`` when set, unless it
    comes from this machine (a loopback peer) to one of the ``local`` names."""

    hosts: frozenset[str]
    token: str = ""
    local: frozenset[str] = frozenset()


def local_policy(host: str, port: int) -> Policy:
    """Only this machine, by the names a browser on it uses for the bound address."""
    if host not in LOOPBACK:
        raise ValueError(f"--host {host} serves the explorer beyond this machine: add --share-on-network "
                         "(the page then needs a random token from its URL), or keep --host 127.0.0.1")
    return Policy(_loopback_names(host, port))


def network_policy(port: int) -> Policy:
    """Any name the machine has on the network, with a fresh random token (128 bits); a browser on this
    machine at ``localhost`` / ``127.0.0.1`` needs none."""
    return Policy(frozenset(), secrets.token_urlsafe(16), _loopback_names("127.0.0.1", port))


def _loopback_names(host: str, port: int) -> frozenset[str]:
    names = ("[::1]", "localhost") if host.strip("[]") == "::1" else ("127.0.0.1", "localhost")
    return frozenset(f"{name}:{port}" for name in names)


def refusal(policy: Policy, method: str, path: str, headers: Mapping[str, str], query_token: str = "",
            cookie_token: str = "", peer: str = "") -> str | None:
    """Why a request is refused (one line), or None when it may go on. ``headers`` have lower-case names;
    ``peer`` is the client's address."""
    host = (headers.get("host") or "").strip().lower()
    if not host:
        return "no Host header"
    if policy.hosts and host not in policy.hosts:
        return f"Host {host[:80]!r} is not this explorer's address"
    origin = headers.get("origin")
    if origin is not None and origin.strip().lower() != f"http://{host}":
        return f"cross-origin request from {origin[:80]!r}"
    site = (headers.get("sec-fetch-site") or "none").strip().lower()
    navigation = (method in ("GET", "HEAD") and path == "/" and headers.get("sec-fetch-mode") == "navigate"
                  and headers.get("sec-fetch-dest", "document") == "document")
    if site not in SAFE_SITES and not navigation:
        return f"cross-site request (Sec-Fetch-Site: {site[:40]})"
    from_here = host in policy.local and peer in ("127.0.0.1", "::1")
    if policy.token and not from_here and not any(is_token(policy, t) for t in (query_token, cookie_token)):
        return "this explorer is shared on the network: open the address with ?token=... that it printed"
    return None


def is_token(policy: Policy, given: str) -> bool:
    """Whether ``given`` is this explorer's token (compared in constant time; an empty one never is)."""
    return bool(policy.token and given) and secrets.compare_digest(given.encode(), policy.token.encode())


class Guard:
    """ASGI middleware applying :func:`refusal` to every HTTP request and websocket of ``app``."""

    def __init__(self, app: ASGIApp, policy: Policy) -> None:
        self.app, self.policy = app, policy

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        given = (query.get("token") or [""])[0]
        jar = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header is no token, not an error
            pass
        kept = jar[COOKIE].value if COOKIE in jar else ""
        method = scope.get("method", "GET")
        peer = (scope.get("client") or ("",))[0]
        why = refusal(self.policy, method, scope.get("path", ""), headers, given, kept, peer)
        if why is not None:
            await _refuse(scope, send, why)
            return
        # only the right token is kept: a stale ?token= let in by a good cookie must not overwrite that cookie
        if given != kept and scope["type"] == "http" and is_token(self.policy, given):
            send = _with_cookie(send, f"{COOKIE}={given}; Path=/; HttpOnly; SameSite=Strict")
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Any, why: str) -> None:
    if scope["type"] == "websocket":  # closing before accepting is a 403 to the client
        await send({"type": "websocket.close", "code": 1008})
        return
    body = f"403 forbidden: {why}\n".encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _with_cookie(send: Any, cookie: str) -> Any:
    async def sending(message: dict) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())]}
        await send(message)
    return sending
