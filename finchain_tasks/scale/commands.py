"""Driver side of each ``--ray`` command: build the job, run it over the blocks, write the output in input order
through the command's own writer, and hand back what the command reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from finchain_tasks.scale.ray_map import RaySettings, run_blocks, state_dir

SUMMARY_FIELDS = ("chaineval", "fac", "step_f1", "parse_ok", "domain", "level", "line", "error")
"""What ``finchain score``'s summary and error list read of each row (the driver keeps only these)."""


def _note(console: Any, store: Any, settings: RaySettings) -> None:
    if console is not None and store.discarded:
        console.print("the earlier unfinished --ray job had other input or settings: its blocks were discarded",
                      style="yellow")


def score_on_ray(source: Path, out: Path, params: Any, overrides: dict, settings: RaySettings,
                 console: Any = None) -> list[dict]:
    """``finchain score --ray``: writes ``out`` and returns the rows' summary fields (not the rows)."""
    from finchain_tasks.output import output_file
    from finchain_tasks.scale.jobs import ScoreJob
    from scorers.embedding_backends import default_backend

    job = ScoreJob(str(source), params.profile, overrides, default_backend())
    store = run_blocks(job, source, state_dir(out), settings)
    _note(console, store, settings)
    kept: list[dict] = []
    try:
        with output_file(out) as fh:
            for line in store.lines():
                fh.write(line + "\n")
                row = json.loads(line)
                kept.append({k: row[k] for k in SUMMARY_FIELDS if k in row})
    except (OSError, ValueError) as exc:
        raise OSError(f"cannot write {out}: {getattr(exc, 'strerror', None) or exc}") from None
    store.clear()
    return kept
