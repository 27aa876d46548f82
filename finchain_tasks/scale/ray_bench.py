"""``finchain bench --ray``: every model × task set of the matrix as one Ray task, on whichever node has room.

What runs where: the driver holds the run directory's lock, writes the manifest (the same one a plain bench
writes) and submits one task per (model, task set). A task runs Inspect's eval-set for that pair alone, into
``<run dir>/logs/ray-<model>--<task set>/logs/``: one eval-set per log directory, since two eval-sets sharing a
directory would each rewrite its ``eval-set.json``. The summary and a plain (non-Ray) re-run read those logs too
(both list the log directory recursively), and a re-run with ``--ray`` resumes each pair in its own directory, as
eval-set resumes any run. Every task shares the run's response cache (``responses.sqlite``, SQLite in WAL mode).

Resources: an API model's task asks for one CPU (it waits on the network); with ``--serve`` (an open-weight
model served on the node that runs it) it asks for ``num_gpus`` as well, so Ray places it on a GPU node. The run
directory must be on storage every node sees, with working file locks (SQLite's WAL needs them: a local disk for
one node; on a cluster, a shared file system that supports them, or one node per run directory).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from finchain_tasks.scale.ray_map import connect

__all__ = ["forwarded_env", "pair_dir", "resources_for", "run_on_ray"]


def pair_dir(run_dir: Path, spec: Any, plan: Any) -> Path:
    """The directory whose ``logs/`` holds one pair's eval-set (a name a file system accepts)."""
    def safe(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"

    from finchain_tasks.runs import LOGS

    return Path(run_dir) / LOGS / f"ray-{safe(spec.name)}--{safe(plan.name)}"


def resources_for(spec: Any, serve: str | None, gpus: float = 1.0) -> dict[str, float]:
    """Ray resources for one pair: a CPU; GPUs too when this model is served by the node that runs it."""
    if serve and getattr(spec, "open_weights", False):
        return {"num_cpus": 1, "num_gpus": gpus}
    return {"num_cpus": 1}


def forwarded_env(spec: Any) -> dict[str, str]:
    """The variables a pair's task needs from the driver's environment: the model's key and base URL variables
    (by the names the registry gives; set on the driver, they reach the task that calls the model, and only it).
    Ray keeps a task's environment in the cluster's memory: on a shared cluster, set keys on the nodes instead."""
    import os

    names = [n for n in (getattr(spec, "api_key_env", None), getattr(spec, "api_base_env", None)) if n]
    return {n: os.environ[n] for n in names if os.environ.get(n)}


def _pair(run_dir: str, spec: Any, plan: Any, options: Any) -> bool:
    """One (model, task set) on the node Ray chose: the engine's own functions, its own log directory."""
    from finchain_tasks.runs import CACHE, engine

    run = Path(run_dir)
    engine.quiet_progress_bars()
    engine.warm_scorers([plan])
    with engine.local_servers([spec]) as urls, engine._env("FINCHAIN_RESPONSE_CACHE", str(run / CACHE)):
        task = engine.bound_task(plan, spec, options, urls.get(spec.name))
        return engine._eval_set(pair_dir(run, spec, plan), [task], options)


def run_on_ray(run_dir: Path, specs: Sequence[Any], plans: Sequence[Any], options: Any, address: str,
               serve: str | None = None, argv: Sequence[str] = (),
               skipped: Sequence[tuple[Any, list[str]]] = ()) -> tuple[bool, dict[str, Any]]:
    """Run the matrix as Ray tasks into ``run_dir`` (resuming what is there); returns (all done, manifest)."""
    from finchain_tasks.runs import CACHE, engine
    from finchain_tasks.runs.cache import set_aside_if_corrupt

    run_dir = Path(run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    with engine.exclusive(run_dir):
        engine.check_distinct(specs, plans)
        plans, manifest = engine.prepare(run_dir, specs, plans, argv, skipped, options.limit)
        warning = set_aside_if_corrupt(run_dir / CACHE)
        if warning:
            print(warning, flush=True)
        owned = connect(address)
        t0, ok = time.monotonic(), False
        try:
            import ray

            remote = ray.remote(_pair)
            refs = [remote.options(**resources_for(spec, serve), max_retries=1,
                                   runtime_env={"env_vars": forwarded_env(spec)}).remote(str(run_dir), spec, plan,
                                                                                        options)
                    for spec in specs for plan in plans]
            ok = all(ray.get(refs))
        finally:
            session = manifest["sessions"][-1]
            session.update({"finished": engine._now(), "wall_s": round(time.monotonic() - t0, 3), "ok": ok,
                            "ray": {"address": address, "serve": serve, "tasks": len(specs) * len(plans)}})
            engine.write_manifest(run_dir, manifest)
            if owned:
                import ray

                ray.shutdown()
    return ok, manifest
