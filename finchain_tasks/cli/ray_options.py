"""The ``--ray`` options every per-row command shares (score, bon --prm, prm label, prm select), named once.

``--ray`` always takes its address (``--ray local`` for a cluster on this machine): Typer 0.29's bundled Click
has no options with an optional value, so a bare ``--ray`` would swallow the next word."""

from __future__ import annotations

from typing import Optional

import typer

RayOpt = typer.Option(None, "--ray", metavar="ADDRESS", help="Run the per-row work on Ray: local starts a cluster on "
                      "this machine (or joins RAY_ADDRESS's); auto, ray://HOST:PORT or HOST:PORT join one. Resumable "
                      "per block (docs/scaling-out.md). Needs the ray extra.")
RayWorkersOpt = typer.Option(None, "--ray-workers", min=1, help="With --ray: workers, each loading the model once "
                             "(default: one per CPU, or per --ray-gpus-per-worker GPUs, of the cluster).")
RayGpusOpt = typer.Option(0.0, "--ray-gpus-per-worker", min=0.0, help="With --ray: GPUs each worker asks for.")
RayBlockRowsOpt = typer.Option(256, "--ray-block-rows", min=1, help="With --ray: input lines per block, the unit "
                               "of work and of resumption.")


def ray_settings(address: str, workers: Optional[int], gpus: float, block_rows: int):
    """The checked settings (a bad address is one line, before anything is read or started)."""
    from finchain_tasks.scale.ray_map import RaySettings

    return RaySettings(address=address, workers=workers, gpus_per_worker=gpus, block_rows=block_rows)
