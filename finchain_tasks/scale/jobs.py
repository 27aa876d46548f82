"""The per-row work of each ``--ray`` command, as :class:`~finchain_tasks.scale.ray_map.BlockJob` objects.

A job is built on the driver from the command's options (plain, picklable fields) and shipped to every worker,
where :meth:`load` runs once per worker (the sentence encoder, the PRM) and :meth:`run` once per block. Each job
calls the very function its single-process command calls on the whole input, so the two give the same rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import finchain_tasks


def _fingerprint(**fields: Any) -> str:
    return json.dumps({**fields, "finchain_tasks_version": finchain_tasks.__version__}, sort_keys=True, default=str)


@dataclass(frozen=True)
class ScoreJob:
    """``finchain score``: ChainEval rows, one output line per non-blank input line."""

    source: str
    profile: str
    overrides: dict = field(default_factory=dict)
    backend: str = "torch"

    def fingerprint(self) -> str:
        return _fingerprint(command="score", profile=self.profile, overrides=self.overrides, backend=self.backend)

    def load(self) -> Any:
        from scorers.embeddings import shared_embedder
        from scorers.params import resolve

        params = resolve(self.profile, **self.overrides)
        return params, shared_embedder(params.embedding_model, self.backend)

    def run(self, state: Any, lines: list[tuple[int, bytes]]) -> tuple[list[str], dict]:
        from finchain_tasks.cli.score import _encode, parse_lines, score_rows

        params, embedder = state
        rows = score_rows(parse_lines(lines, Path(self.source)), params, embedder)
        return [_encode(r) for r in rows], {"rows": len(rows)}
