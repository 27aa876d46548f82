"""``finchain bench --serve vllm``: the open-weight models of a bench served by vLLM on this node, in waves.

Which models: those with a ``vllm`` block whose litellm id is ``hosted_vllm/...`` and whose base URL nobody
has set (a set ``api_base_env`` means a server already runs somewhere: it is called there, as the local model
is). The others (API models, DeepSeek through its hosts) run as without ``--serve``.

How: the models are packed, in the order given, into waves whose tensor-parallel sizes sum to at most the GPUs
(``--gpus``, else all visible); each model of a wave gets its own GPUs (CUDA_VISIBLE_DEVICES) and port. For
each wave: start its servers, point each model at its server through its ``api_base_env``, run the bench for
those models into the one run directory (the API models join the first wave, so they run meanwhile), stop the
servers. Waves, not a scheduler: one run directory takes one eval-set at a time, and a wave ends when its
slowest model does. A model whose tensor-parallel size exceeds the GPUs is skipped with its reason (in the
manifest and the report), as a model without its key is; one whose server does not start too, and the bench
goes on with the others but exits 1 (re-run it to retry).

Each server's arguments, GPUs and start-up time go to ``<run dir>/vllm/<model>.json``, its log next to it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

SERVE_ENGINES = ("vllm",)
VLLM_DIR = "vllm"


@dataclass(frozen=True)
class Placement:
    """One model of a wave: its tensor-parallel size and the GPUs it gets."""

    spec: Any
    tensor_parallel: int
    devices: str


def served_here(spec: Any) -> bool:
    """A model ``--serve vllm`` starts: a vLLM block, a hosted_vllm id, and no base URL set."""
    from finchain_tasks.models.registry import api_base
    from finchain_tasks.models.vllm_args import HOSTED_VLLM

    return spec.vllm is not None and spec.litellm_model.startswith(HOSTED_VLLM) and not api_base(spec)


def split_served(specs: Sequence[Any], engine: str) -> tuple[list[Any], list[Any]]:
    """(models to serve, the others); refuses an engine other than vllm and a selection with none to serve."""
    if engine not in SERVE_ENGINES:
        raise ValueError(f"--serve must be {' or '.join(SERVE_ENGINES)}, not {engine!r}")
    served = [s for s in specs if served_here(s)]
    if not served:
        raise ValueError("--serve vllm: none of the selected models is served by vLLM (an open-weight model with a "
                         "`vllm` block, a hosted_vllm/ id and no base URL set)")
    return served, [s for s in specs if not served_here(s)]


def plan_waves(specs: Sequence[Any], device_ids: Sequence[str], gpu_memory_gb: float) -> tuple[
        list[list[Placement]], list[tuple[Any, str]]]:
    """(waves, [(model, why it cannot run)]): first fit in the given order, each wave's tensor-parallel sizes
    summing to at most ``len(device_ids)``; each placement gets the next free ids."""
    from finchain_tasks.models.vllm_args import tensor_parallel_size

    waves: list[list[Placement]] = []
    too_big: list[tuple[Any, str]] = []
    used = 0
    for spec in specs:
        tp = tensor_parallel_size(spec, gpu_memory_gb)
        if tp > len(device_ids):
            too_big.append((spec, f"vLLM needs {tp} GPUs of {gpu_memory_gb:g} GB (tensor-parallel rule), "
                                  f"--gpus gives {len(device_ids)}"))
            continue
        if not waves or used + tp > len(device_ids):
            waves.append([])
            used = 0
        waves[-1].append(Placement(spec, tp, ",".join(device_ids[used:used + tp])))
        used += tp
    return waves, too_big


@contextlib.contextmanager
def pointed_at(urls: dict[str, str], specs: Sequence[Any]) -> Iterator[None]:
    """Set each served model's ``api_base_env`` to its server's URL for the wave; restore them after."""
    names = {s.name: s.api_base_env for s in specs if s.name in urls and s.api_base_env}
    old = {env: os.environ.get(env) for env in names.values()}
    os.environ.update({env: urls[name] for name, env in names.items()})
    try:
        yield
    finally:
        for env, value in old.items():
            if value is None:
                os.environ.pop(env, None)
            else:
                os.environ[env] = value


def start_wave(stack: contextlib.ExitStack, wave: Sequence[Placement], run_dir: Path, gpu_memory_gb: float,
               vllm_bin: Optional[str], say: Callable[[str], None]) -> tuple[dict[str, str], list[tuple[Any, str]]]:
    """Start every server of a wave (they load in parallel), then wait for each; ({model: base URL}, failures).
    Servers stop when ``stack`` closes."""
    from finchain_tasks.models.vllm_server import VllmServer, free_port

    folder = run_dir / VLLM_DIR
    servers: list[VllmServer] = []
    for place in wave:
        say(f"starting vLLM for {place.spec.name} on GPU {place.devices} (TP {place.tensor_parallel})")
        port = free_port()
        while port in {s.port for s in servers}:  # two free ports asked in a row may be the same one
            port = free_port()
        servers.append(VllmServer(place.spec, log_path=folder / f"{place.spec.name}.log", vllm_bin=vllm_bin,
                                  port=port, gpu_memory_gb=gpu_memory_gb, tensor_parallel=place.tensor_parallel,
                                  devices=place.devices, progress=say, progress_every=30.0))
    urls, failed = {}, []
    for server in servers:
        try:
            stack.enter_context(server)
        except RuntimeError as exc:
            say(f"error: {exc}")
            failed.append((server.spec, f"vLLM server did not start: {exc}"))
            continue
        (folder / f"{server.spec.name}.json").write_text(json.dumps(server.record(), indent=2) + "\n", "utf-8")
        say(f"{server.spec.name}: {server.base_url} ready in {server.startup_s:.1f} s")
        urls[server.spec.name] = server.base_url
    return urls, failed


def run_with_vllm(run: Callable[..., tuple[bool, Any]], run_dir: Path, others: Sequence[Any], served: Sequence[Any],
                  plans: Sequence[Any], options: Any, *, argv: Sequence[str] = (),
                  skipped: Sequence[tuple[Any, Any]] = (), gpus: Optional[int] = None,
                  vllm_bin: Optional[str] = None, say: Callable[[str], None] = print) -> bool:
    """The bench of ``others`` and ``served`` (see the module docstring) through ``run`` (the Inspect or the lm-eval
    engine's); True when every wave finished and every server started."""
    from finchain_tasks.models.vllm_args import serve_args
    from finchain_tasks.models.vllm_server import find_vllm, gpu_inventory

    find_vllm(vllm_bin)  # no executable: one line now, not one per model
    inventory = gpu_inventory(gpus)
    for spec in served:  # a bad chat template path: one line now, not after the first waves
        serve_args(spec, port=1, gpu_memory_gb=inventory.memory_gb)
    waves, skipped_now = plan_waves(served, inventory.ids, inventory.memory_gb)
    say(f"vLLM: {len(served)} model(s) in {len(waves)} wave(s) on {len(inventory.ids)} GPU(s) of "
        f"{inventory.memory_gb:g} GB ({inventory.source})")
    for spec, reason in skipped_now:
        say(f"skipped {spec.name}: {reason}")
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    ok = True  # a model too big for the GPUs is skipped like one without its key: listed, not a failure
    pending_others = list(others)
    for wave in waves or [[]]:
        with contextlib.ExitStack() as stack:
            urls, failed = start_wave(stack, wave, Path(run_dir), inventory.memory_gb, vllm_bin, say)
            skipped_now += failed
            ok = ok and not failed
            specs = [*pending_others, *(p.spec for p in wave if p.spec.name in urls)]
            pending_others = []
            if specs:
                with pointed_at(urls, specs):
                    wave_ok, _ = run(run_dir, specs, plans, options, argv=argv, skipped=[*skipped, *skipped_now])
                ok = ok and wave_ok
    record_skipped(Path(run_dir), skipped_now, plans, argv, options)
    return ok


def record_skipped(run_dir: Path, skipped: Sequence[tuple[Any, str]], plans: Sequence[Any], argv: Sequence[str],
                   options: Any) -> None:
    """Make the run's last session list every model ``--serve vllm`` could not run (the summary reads it),
    also those of a last wave that had nothing left to run, and of a run where nothing ran at all."""
    from finchain_tasks.runs.engine import prepare, read_manifest, skipped_records, write_manifest

    if not skipped:
        return
    manifest = read_manifest(run_dir)
    if not manifest.get("sessions"):
        prepare(run_dir, [], plans, argv, skipped, getattr(options, "limit", None))  # a session that says why
        return
    session = manifest["sessions"][-1]
    listed = {r.get("model") for r in session.get("skipped") or []}
    session["skipped"] = [*(session.get("skipped") or []),
                          *(r for r in skipped_records(skipped) if r["model"] not in listed)]
    write_manifest(run_dir, manifest)
