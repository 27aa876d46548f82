"""A ``vllm serve`` process for one registry model: start it, wait for ``/health``, stop it and everything it
spawned. vLLM itself is never imported: its executable runs in its own process group (found on PATH, or given).

    with VllmServer(spec, log_path=Path("fin-r1.log")) as server:
        litellm.completion(model=spec.litellm_model, api_base=server.base_url, messages=[...])

Failures are one line with the log's last lines: a server that exits before it is healthy is reported at
once with its exit code; one that never answers ``/health`` when ``startup_timeout`` has passed. A progress
line goes to ``progress`` every ``progress_every`` seconds while the weights load (minutes for large models).
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.models.process_group import SigtermAsExit, die_with_parent, stop_group
from finchain_tasks.models.vllm_args import DEFAULT_GPU_MEMORY_GB, serve_args, served_name, tensor_parallel_size

VLLM_BIN_ENV = "FINCHAIN_VLLM_BIN"
"""The ``vllm`` executable when not the one on PATH (``--vllm-bin`` wins)."""
STARTUP_TIMEOUT_ENV = "FINCHAIN_VLLM_STARTUP_TIMEOUT"
DEFAULT_STARTUP_TIMEOUT = 1800.0
"""Seconds to wait for /health: a first start downloads the weights (DeepSeek's are 700 GB)."""
STOP_GRACE = 30.0
"""Seconds between SIGTERM and SIGKILL: vLLM frees its engine cores and GPU memory on SIGTERM."""
TAIL_LINES = 8


def find_vllm(vllm_bin: Optional[str] = None) -> str:
    """The ``vllm`` executable: ``vllm_bin``, else $FINCHAIN_VLLM_BIN, else ``vllm`` on PATH."""
    wanted = vllm_bin or os.environ.get(VLLM_BIN_ENV) or "vllm"
    found = shutil.which(wanted)
    if found is None:
        raise RuntimeError(f"no vLLM executable {wanted!r} (on PATH or as a path): on a GPU machine "
                           f"pip install 'finchain-tasks[vllm]', or pass --vllm-bin / set {VLLM_BIN_ENV}")
    return found


def startup_timeout_default() -> float:
    """$FINCHAIN_VLLM_STARTUP_TIMEOUT when set, else :data:`DEFAULT_STARTUP_TIMEOUT`."""
    raw = os.environ.get(STARTUP_TIMEOUT_ENV)
    try:
        value = float(raw) if raw else DEFAULT_STARTUP_TIMEOUT
    except ValueError:
        raise ValueError(f"{STARTUP_TIMEOUT_ENV}={raw!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{STARTUP_TIMEOUT_ENV}={raw!r} must be a positive number of seconds")
    return value


GPU_MEMORY_ENV = "FINCHAIN_GPU_MEMORY_GB"
"""Per-GPU memory in GB for the tensor-parallel rule, when nvidia-smi cannot tell (or should not be asked)."""


@dataclass(frozen=True)
class Gpus:
    """The GPUs a server may use: their ids for CUDA_VISIBLE_DEVICES and the smallest one's memory."""

    ids: tuple[str, ...]
    memory_gb: float
    source: str  # how it was found: nvidia-smi, --gpus, the default


def gpu_inventory(count: Optional[int] = None) -> Gpus:
    """This machine's GPUs: ids from CUDA_VISIBLE_DEVICES (else 0..n-1 of what nvidia-smi lists), memory from
    $FINCHAIN_GPU_MEMORY_GB, else nvidia-smi, else :data:`DEFAULT_GPU_MEMORY_GB`. ``count`` (``--gpus``)
    takes the first ``count`` ids; with no GPU found it stands for ``count`` GPUs numbered from 0."""
    listed = _nvidia_smi_memory_gb()
    visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    ids = visible or [str(i) for i in range(len(listed))]
    if count is not None:
        ids = ids[:count] if len(ids) >= count else [str(i) for i in range(count)]
    raw = os.environ.get(GPU_MEMORY_ENV)
    if raw:
        try:
            memory = float(raw)
        except ValueError:
            raise ValueError(f"{GPU_MEMORY_ENV}={raw!r} is not a number of GB") from None
        if not 0 < memory < float("inf"):
            raise ValueError(f"{GPU_MEMORY_ENV}={raw!r} must be a positive number of GB")
        source = f"${GPU_MEMORY_ENV}"
    elif listed:
        memory, source = min(listed), "nvidia-smi"
    else:
        memory, source = DEFAULT_GPU_MEMORY_GB, "assumed: no nvidia-smi"
    return Gpus(tuple(ids or ["0"]), memory, source)


def _nvidia_smi_memory_gb() -> list[float]:
    """Total memory of each GPU nvidia-smi lists, in GB; [] when there is no nvidia-smi or it fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "--query-gpu=memory.total", "--format=csv,noheader,nounits"], capture_output=True,
                             text=True, timeout=20, check=True).stdout
        return [float(line) / 1024 for line in out.split() if line.strip()]  # MiB
    except (OSError, subprocess.SubprocessError, ValueError):
        return []


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (the OS picks it); vLLM binds it a moment later."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _client_host(host: str) -> str:
    """Where this machine reaches a server bound to ``host`` (a wildcard bind is reached on loopback)."""
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host


class VllmServer:
    """``vllm serve`` for a registry entry with a ``vllm`` block; a context manager that always stops it.

    ``devices`` becomes CUDA_VISIBLE_DEVICES (``"0,1"``); ``extra_args`` are passed after the registry's.
    ``tensor_parallel`` overrides the memory rule; ``gpu_memory_gb`` is the per-GPU memory the rule uses.
    """

    def __init__(self, spec: Any, *, log_path: Path, vllm_bin: Optional[str] = None, host: str = "127.0.0.1",
                 port: int = 0, gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB, tensor_parallel: Optional[int] = None,
                 extra_args: Sequence[str] = (), devices: Optional[str] = None,
                 startup_timeout: Optional[float] = None, progress: Optional[Callable[[str], None]] = None,
                 progress_every: float = 15.0, stop_grace: float = STOP_GRACE) -> None:
        self.spec, self.log_path, self.host, self.devices = spec, Path(log_path), host, devices
        self.tensor_parallel = tensor_parallel or tensor_parallel_size(spec, gpu_memory_gb)
        self.port = port or free_port(_client_host(host))
        self.argv = [find_vllm(vllm_bin), *serve_args(spec, port=self.port, host=host, gpu_memory_gb=gpu_memory_gb,
                                                      tensor_parallel=self.tensor_parallel, extra=extra_args)]
        self.startup_timeout = startup_timeout if startup_timeout is not None else startup_timeout_default()
        self.progress, self.progress_every, self.stop_grace = progress, progress_every, stop_grace
        self.base_url = f"http://{_client_host(host)}:{self.port}/v1"
        self.served_name = served_name(spec)
        self.startup_s: Optional[float] = None
        self._proc: Optional[subprocess.Popen] = None
        self._sigterm = SigtermAsExit()

    @property
    def pid(self) -> Optional[int]:
        return self._proc.pid if self._proc else None

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> VllmServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> VllmServer:
        """Start ``vllm serve`` and wait until /health answers 200; on failure stop it and raise RuntimeError."""
        if self._proc is not None:
            raise RuntimeError("this VllmServer is already started")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **({"CUDA_VISIBLE_DEVICES": self.devices} if self.devices is not None else {})}
        t0 = time.monotonic()
        with open(self.log_path, "wb") as log:  # the child keeps its own descriptor
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                          env=env, start_new_session=(os.name == "posix"),
                                          preexec_fn=die_with_parent if os.name == "posix" else None)
        atexit.register(self.stop)
        self._sigterm.install()
        try:
            self._wait_healthy(t0)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - t0
        return self

    def stop(self) -> None:
        """Stop the server's process group (SIGTERM, SIGKILL after ``stop_grace``), reap it. Safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is not None:
            stop_group(proc, self.stop_grace)
        atexit.unregister(self.stop)
        self._sigterm.restore()

    def _wait_healthy(self, t0: float) -> None:
        url = f"http://{_client_host(self.host)}:{self.port}/health"
        deadline, next_note = t0 + self.startup_timeout, t0 + self.progress_every
        while True:
            code = self._proc.poll()
            if code is not None:
                raise self._failure(f"exited with code {code} before it was healthy")
            if _healthy(url):
                return
            now = time.monotonic()
            if now > deadline:
                raise self._failure(f"did not answer {url} within {self.startup_timeout:g} s")
            if self.progress is not None and now >= next_note:
                last = self.log_tail(1)
                self.progress(f"waiting for vLLM ({self.spec.name}) at {url}: {now - t0:.0f} s of "
                              f"{self.startup_timeout:g} s" + (f"; log: {last[:160]}" if last else ""))
                next_note = now + self.progress_every
            time.sleep(0.1)

    def _failure(self, what: str) -> RuntimeError:
        tail = " | ".join(line.strip() for line in self.log_tail(TAIL_LINES).splitlines() if line.strip())
        return RuntimeError(f"vLLM server for {self.spec.name} {what} (log {self.log_path}); "
                            + (f"its last log lines: {tail}" if tail else "it wrote no log"))

    def log_tail(self, n: int = TAIL_LINES) -> str:
        if not self.log_path.is_file():
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as fh:
            return "".join(deque(fh, maxlen=n)).rstrip()

    def record(self) -> dict[str, Any]:
        """What a run directory keeps about this server (no secret: the argv holds none)."""
        block = self.spec.vllm
        return {"model": self.spec.name, "argv": self.argv[1:], "executable": self.argv[0],
                "tensor_parallel_size": self.tensor_parallel, "devices": self.devices, "base_url": self.base_url,
                "revision": block.revision, "startup_s": None if self.startup_s is None else round(self.startup_s, 2),
                "log": str(self.log_path)}


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""The health check goes straight to the server: an http_proxy in the environment must not answer for it."""


def _healthy(url: str) -> bool:
    try:
        with _NO_PROXY.open(url, timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False
