"""Servers we start run as the leader of their own process group, so that stopping them stops every process
they spawned (vLLM's engine cores, llama.cpp's worker) and nothing outlives a finchain command.

Shared by :mod:`finchain_tasks.models.local` (llama.cpp) and :mod:`finchain_tasks.models.vllm_server`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from typing import Any, Optional


def signal_group(proc: subprocess.Popen, sig: int) -> None:
    """Send ``sig`` to the process group ``proc`` leads (its pid is the group id); gone groups are ignored."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, sig)
        else:  # pragma: no cover
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` is still there (signal 0 only checks)."""
    if os.name != "posix":  # pragma: no cover
        return False
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a member we may not signal is still a member
        return True


def stop_group(proc: subprocess.Popen, grace: float) -> None:
    """SIGTERM the group, reap the leader, SIGKILL what is left after ``grace`` seconds (leader or stragglers
    that outlived it, e.g. a vLLM engine core), so the port and the GPUs are free when this returns."""
    if proc.poll() is None:
        signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            signal_group(proc, signal.SIGKILL)
            proc.wait()
    deadline = time.monotonic() + min(grace, 5.0)
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if group_alive(proc.pid):
        signal_group(proc, signal.SIGKILL)


def _prctl() -> Any:
    """glibc's prctl, resolved once in the parent (None elsewhere): the child between fork and exec must not
    import or look anything up, since another thread of the parent may have held a lock at the fork."""
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - not glibc Linux
        return None


_PRCTL = _prctl() if os.name == "posix" else None
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """``preexec_fn`` on Linux: the child gets SIGTERM when the thread that started it dies, even by SIGKILL
    (prctl PR_SET_PDEATHSIG), so a killed finchain never leaves a server holding GPUs. Elsewhere: nothing."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def raise_system_exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


class SigtermAsExit:
    """Turn SIGTERM into SystemExit (so ``with`` blocks and atexit run) while installed, when nobody else
    handles SIGTERM and we are on the main thread (only it may set handlers)."""

    def __init__(self) -> None:
        self._old: Optional[Any] = None

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._old = signal.signal(signal.SIGTERM, raise_system_exit)

    def restore(self) -> None:
        if self._old is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._old)
        self._old = None

