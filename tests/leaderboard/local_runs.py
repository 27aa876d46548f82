"""Real runs of the bundled local model (llama.cpp serving Gemma 3 270M) for the leaderboard tests: ``finchain
bench`` through Inspect and through lm-eval on the same two problems, with a short answer budget.

The two runs are separate ``finchain bench`` processes started together: each starts its own local server
(one decoding thread), so on two cores the lm-eval child's imports overlap the Inspect run's generation and
the pair costs about as long as the slower one. The registry used is the shipped one with the local model's
``max_tokens`` lowered (the entry is copied from the shipped file, not retyped)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import yaml

from tests.leaderboard.runs import DOMAINS, TASK_SET
from tests.support.timeouts import limit

LOCAL = "local-gemma3-270m"
LIMIT = 2
MAX_TOKENS = 48
TIMEOUT_S = 600
"""Generous: two problems take well under a minute on a quiet 2-core machine, several on a loaded one."""
REPO = Path(__file__).resolve().parents[2]


def write_registry(path: Path) -> Path:
    """The shipped local model entry with a small ``max_tokens``, and the two-domain task set of ``runs.py``."""
    shipped = yaml.safe_load(resources.files("finchain_tasks.data").joinpath("registry.yaml").read_text("utf-8"))
    (entry,) = [m for m in shipped["models"] if m["name"] == LOCAL]
    entry["generation"] = {**(entry.get("generation") or {}), "max_tokens": MAX_TOKENS}
    registry = {"version": 1, "extends": "default", "models": [entry],
                "task_sets": {TASK_SET: {"task": "finchain", "args": {"seeds": 1, "domain": list(DOMAINS)}}}}
    path.write_text(yaml.safe_dump(registry, sort_keys=False), encoding="utf-8")
    return path


def _env(root: Path, harness: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("INSPECT_DISABLE_MODEL_API", "FINCHAIN_LOCAL_API_BASE")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env["XDG_DATA_HOME"] = str(root / f"xdg-{harness}")  # Inspect's sample buffer, away from the user's
    return env


def make_local_runs(root: Path) -> dict[str, Path]:
    """Run the local model through both hosts into ``root/inspect`` and ``root/lm-eval`` (at the same time);
    returns those run directories and the registry used. A failed run fails with the tail of its output."""
    registry = write_registry(root / "registry.yaml")
    out = {"inspect": root / "inspect", "lm-eval": root / "lm-eval"}
    procs = {}
    for harness, run_dir in out.items():
        log = (root / f"{harness}.out").open("wb")
        argv = [sys.executable, "-m", "finchain_tasks.cli.main", "bench", "--harness", harness, "--registry",
                str(registry), "--models", LOCAL, "--tasks", TASK_SET, "--limit", str(LIMIT), "--run-dir",
                str(run_dir), "--display", "none"]
        procs[harness] = (subprocess.Popen(argv, cwd=REPO, env=_env(root, harness), stdout=log,
                                           stderr=subprocess.STDOUT), log)
    try:
        failed = [_wait(harness, proc, root) for harness, (proc, _) in procs.items()]
    finally:
        for proc, log in procs.values():
            if proc.poll() is None:  # interrupted: stop what this fixture started (each server stops with it)
                proc.kill()
                proc.wait()
            log.close()
    assert not any(failed), "\n".join(filter(None, failed))
    return {**out, "registry": registry}


def _wait(harness: str, proc: subprocess.Popen, root: Path) -> str:
    """'' when the run succeeded, else what failed with the tail of its output."""
    try:
        rc = proc.wait(timeout=limit(TIMEOUT_S))
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    tail = (root / f"{harness}.out").read_text("utf-8", "replace")[-2000:]
    return "" if rc == 0 else f"{harness} (exit {rc}): {tail}"
