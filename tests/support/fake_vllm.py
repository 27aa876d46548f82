"""A stand-in ``vllm`` executable for tests on machines without GPUs or vLLM: ``vllm serve <model> --port P
[--host H] [--served-model-name N] ...`` serves the fake OpenAI API (:mod:`tests.support.fake_openai`) on
that port, with vLLM's ``GET /health``, and spawns one child (as vLLM spawns its engine core) that it stops
on SIGTERM/SIGINT, as vLLM does.

Behaviour from the environment:
- ``FAKE_VLLM_MODE``: ``ok`` (default); ``never_healthy`` (serves, but /health answers 503 forever);
  ``exit`` (writes an error to its log and exits with code 3 at once).
- ``FAKE_VLLM_EXIT_FOR``: comma-separated models that behave as ``exit`` whatever the mode.
- ``FAKE_VLLM_REPLIES``: a JSON file ``{question: reply}``; other questions get the default reply.
- ``FAKE_VLLM_RECORD``: a folder; at exit it writes ``<pid>.json``: argv, CUDA_VISIBLE_DEVICES, its child's
  pid, start and stop times, and the ``model`` of every request it answered.
- ``FAKE_VLLM_DELAY``: seconds before it listens (loading weights).

:func:`install` writes the ``vllm`` script into a folder for a test to put first on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path

from tests.support.fake_openai import DEFAULT_REPLY, FakeOpenAI, _Handler

REPO = Path(__file__).resolve().parents[2]


def install(bin_dir: Path) -> Path:
    """Write an executable ``vllm`` into ``bin_dir`` that runs :func:`main` with this interpreter."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "vllm"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(REPO)!r})\n"
                      "from tests.support.fake_vllm import main\nsys.exit(main(sys.argv[1:]))\n", encoding="utf-8")
    script.chmod(0o755)
    return script


class _HealthHandler(_Handler):
    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        if self.path.split("?")[0] == "/health":
            healthy = getattr(self.server_state, "healthy", True)
            self._send(200 if healthy else 503, b"" if healthy else b'{"error": "not ready"}')
        else:
            super().do_GET()


@dataclass
class _Served(FakeOpenAI):
    """FakeOpenAI on a given host and port, with /health."""

    host: str = "127.0.0.1"
    listen_port: int = 0
    healthy: bool = True

    def start(self) -> _Served:
        handler = type("FakeVllmHandler", (_HealthHandler,), {"server_state": self})
        self._httpd = ThreadingHTTPServer((self.host, self.listen_port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="vllm")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve")
    serve.add_argument("model")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--served-model-name", default=None)
    return parser.parse_known_args(argv)[0]


def _replies() -> dict[str, str]:
    path = os.environ.get("FAKE_VLLM_REPLIES")
    return json.loads(Path(path).read_text(encoding="utf-8")) if path else {}


def main(argv: list[str]) -> int:
    args = _parse(argv)
    print(f"INFO fake vllm {args.model} on {args.host}:{args.port} (pid {os.getpid()})", flush=True)
    mode = os.environ.get("FAKE_VLLM_MODE", "ok")
    if mode == "exit" or args.model in os.environ.get("FAKE_VLLM_EXIT_FOR", "").split(","):
        print("ERROR torch.OutOfMemoryError: CUDA out of memory (stand-in)", flush=True)
        return 3
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # the "engine core"
    started = time.time()
    time.sleep(float(os.environ.get("FAKE_VLLM_DELAY") or 0))
    replies = _replies()

    def reply(body: dict) -> str:
        messages = body.get("messages") or [{}]
        return replies.get(str(messages[-1].get("content", "")), DEFAULT_REPLY)

    server = _Served(reply=reply, model=args.served_model_name or args.model, host=args.host,
                     listen_port=args.port, healthy=(mode != "never_healthy")).start()
    print("INFO Application startup complete.", flush=True)
    stop.wait()
    server.stop()
    child.terminate()
    child.wait()
    record = os.environ.get("FAKE_VLLM_RECORD")
    if record:
        Path(record).mkdir(parents=True, exist_ok=True)
        (Path(record) / f"{os.getpid()}.json").write_text(json.dumps({
            "argv": argv, "pid": os.getpid(), "child_pid": child.pid, "devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "started": started, "stopped": time.time(),
            "models": [r.body.get("model") for r in server.requests if isinstance(r.body, dict)]}), encoding="utf-8")
    return 0
