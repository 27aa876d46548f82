"""The explorer's guard as rules (no server): which Host / Origin / Sec-Fetch-Site / token a request needs,
and the ASGI layer that applies them (a tiny app stands in for Gradio). The served app is checked with raw
HTTP and in Chromium in test_explore_chromium.py."""

from __future__ import annotations

import asyncio

import pytest

from finchain_tasks.explore.guard import COOKIE, Guard, Policy, local_policy, network_policy, refusal

P = 7860
LOCAL = local_policy("127.0.0.1", P)
SHARED = Policy(frozenset(), "s3cret-token", frozenset({f"127.0.0.1:{P}", f"localhost:{P}"}))
SAME = {"host": f"127.0.0.1:{P}", "origin": f"http://127.0.0.1:{P}", "sec-fetch-site": "same-origin"}


@pytest.mark.parametrize("policy, method, path, headers, token, peer, allowed", [
    # Host: the bound address and port, or localhost at that port; nothing else, never none
    (LOCAL, "GET", "/", {"host": f"127.0.0.1:{P}"}, "", "", True),
    (LOCAL, "GET", "/", {"host": f"LocalHost:{P}"}, "", "", True),
    (LOCAL, "GET", "/", {"host": "evil.example"}, "", "", False),
    (LOCAL, "GET", "/", {"host": f"evil.example:{P}"}, "", "", False),
    (LOCAL, "GET", "/", {"host": "127.0.0.1"}, "", "", False),
    (LOCAL, "GET", "/", {"host": f"127.0.0.1:{P + 1}"}, "", "", False),
    (LOCAL, "GET", "/", {}, "", "", False),
    (local_policy("::1", P), "GET", "/", {"host": f"[::1]:{P}"}, "", "", True),
    (local_policy("::1", P), "GET", "/", {"host": f"127.0.0.1:{P}"}, "", "", False),
    (local_policy("[::1]", P), "GET", "/", {"host": f"localhost:{P}"}, "", "", True),
    # Origin: absent, or exactly this origin
    (LOCAL, "POST", "/gradio_api/queue/join", SAME, "", "", True),
    (LOCAL, "POST", "/gradio_api/queue/join", {**SAME, "host": f"localhost:{P}",
                                               "origin": f"http://localhost:{P}"}, "", "", True),
    (LOCAL, "POST", "/gradio_api/queue/join", {**SAME, "origin": "http://evil.example"}, "", "", False),
    (LOCAL, "POST", "/gradio_api/queue/join", {**SAME, "origin": "null"}, "", "", False),
    (LOCAL, "POST", "/gradio_api/queue/join", {**SAME, "origin": f"http://localhost:{P}"}, "", "", False),
    (LOCAL, "POST", "/gradio_api/queue/join", {**SAME, "origin": f"https://127.0.0.1:{P}"}, "", "", False),
    (LOCAL, "POST", "/gradio_api/queue/join", {**SAME, "origin": f"http://127.0.0.1:{P + 1}"}, "", "", False),
    # Sec-Fetch-Site: the user's own requests; a cross-site one only as a top-level GET of the page
    (LOCAL, "GET", "/config", {"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site"}, "", "", False),
    (LOCAL, "GET", "/config", {"host": f"127.0.0.1:{P}", "sec-fetch-site": "same-site"}, "", "", False),
    (LOCAL, "GET", "/", {"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate",
                         "sec-fetch-dest": "document"}, "", "", True),
    (LOCAL, "GET", "/config", {"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site",
                               "sec-fetch-mode": "navigate"}, "", "", False),
    (LOCAL, "POST", "/", {"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site",
                          "sec-fetch-mode": "navigate"}, "", "", False),
    (LOCAL, "GET", "/", {"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate",
                         "sec-fetch-dest": "iframe"}, "", "", False),
    # shared on the network: any Host, the token (query or cookie) required, except from this machine
    (SHARED, "GET", "/", {"host": f"192.168.1.5:{P}"}, "", "10.0.0.9", False),
    (SHARED, "GET", "/", {"host": f"192.168.1.5:{P}"}, "s3cret-token", "10.0.0.9", True),
    (SHARED, "GET", "/", {"host": f"192.168.1.5:{P}"}, "s3cret-tokeN", "10.0.0.9", False),
    (SHARED, "GET", "/", {"host": f"localhost:{P}"}, "", "10.0.0.9", False),
    (SHARED, "GET", "/", {"host": f"localhost:{P}"}, "", "127.0.0.1", True),
    (SHARED, "GET", "/", {"host": f"evil.example:{P}"}, "", "127.0.0.1", False),
    (SHARED, "POST", "/x", {"host": f"192.168.1.5:{P}", "origin": "http://evil.example"}, "s3cret-token", "", False),
])
def test_rule_only_this_explorers_own_page_gets_through(policy, method, path, headers, token, peer, allowed):
    why = refusal(policy, method, path, headers, query_token=token, peer=peer)
    assert (why is None) is allowed, why
    assert why is None or "\n" not in why


def test_rule_any_host_but_loopback_needs_the_network_flag():
    with pytest.raises(ValueError, match="--share-on-network"):
        local_policy("0.0.0.0", P)
    shared = network_policy(P)
    assert len(shared.token) >= 20 and shared.token != network_policy(P).token and not shared.hosts


def _call(guard: Guard, path: str, headers: dict[str, str], query: str = "", kind: str = "http") -> list[dict]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    scope = {"type": kind, "method": "GET", "path": path, "query_string": query.encode(),
             "client": ("10.0.0.9", 5000),
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(guard(scope, receive, send))
    return sent


async def _inner(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"app"})


def test_rule_the_guard_answers_403_before_the_app_and_sets_the_token_cookie_once():
    guard = Guard(_inner, SHARED)
    refused = _call(guard, "/", {"host": f"192.168.1.5:{P}"})
    assert refused[0]["status"] == 403 and b"token" in refused[1]["body"]
    ws = _call(guard, "/ws", {"host": f"192.168.1.5:{P}"}, kind="websocket")
    assert ws == [{"type": "websocket.close", "code": 1008}]
    first = _call(guard, "/", {"host": f"192.168.1.5:{P}"}, query="token=s3cret-token")
    cookie = dict(first[0]["headers"])[b"set-cookie"].decode()
    assert first[0]["status"] == 200 and cookie.startswith(f"{COOKIE}=s3cret-token;")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    again = _call(guard, "/config", {"host": f"192.168.1.5:{P}", "cookie": f"{COOKIE}=s3cret-token"})
    assert again[0]["status"] == 200 and b"set-cookie" not in dict(again[0]["headers"])
    assert _call(guard, "/", {"host": f"192.168.1.5:{P}", "cookie": 'bad"cookie;;='})[0]["status"] == 403


def test_rule_the_command_refuses_a_network_host_without_the_flag():
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    done = CliRunner().invoke(app, ["explore", "--host", "0.0.0.0", "--port", "7999"])
    assert done.exit_code != 0 and "--share-on-network" in done.output
