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
        from finchain_tasks.runs.score_file import _encode, parse_lines, score_rows

        params, embedder = state
        rows = score_rows(parse_lines(lines, Path(self.source)), params, embedder)
        return [_encode(r) for r in rows], {"rows": len(rows)}


def _json_rows(lines: list[tuple[int, bytes]], source: str) -> list[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line; a line that is not JSON is one clear error, as the
    single-process readers make it (they fail the whole file too)."""
    rows = []
    for lineno, raw in lines:
        if raw.strip():
            try:
                rows.append((lineno, json.loads(raw)))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ValueError(f"{source}:{lineno}: not JSON ({getattr(exc, 'msg', exc)})") from None
            except RecursionError:
                raise ValueError(f"{source}:{lineno}: nested too deeply to be read") from None
            except ValueError as exc:  # an integer longer than Python's conversion limit
                raise ValueError(f"{source}:{lineno}: not JSON ({str(exc).split(';')[0]})") from None
    return rows


def _items(lines: list[tuple[int, bytes]], source: str) -> list:
    """The candidate rows of a block as label items; a field of the wrong type is one line naming file and line."""
    from finchain_tasks.plumbing.safe_files import UnreadableFile
    from finchain_tasks.prm.labeling import item_from_row

    items = []
    for n, row in _json_rows(lines, source):
        try:
            items.append(item_from_row(row, n))
        except UnreadableFile as exc:
            raise ValueError(f"{source}:{n}: {exc.reason}") from None
    return items


@dataclass(frozen=True)
class PRMJob:
    """Loads one PRM per worker from a spec (``finchain_tasks.prm.load_prm``, the only place a spec becomes one)."""

    spec: str
    agg: str
    zeta: float
    options: dict = field(default_factory=dict)

    def load(self) -> Any:
        from finchain_tasks.prm import load_prm

        return load_prm(self.spec, agg=self.agg, zeta=self.zeta, **self.options)

    def _key(self, command: str) -> str:
        return _fingerprint(command=command, spec=self.spec, agg=self.agg, zeta=self.zeta, options=self.options)


@dataclass(frozen=True)
class SelectJob(PRMJob):
    """``finchain prm select``: every candidate of the pool scored, as the row ``sft.jsonl`` would hold."""

    source: str = ""

    def fingerprint(self) -> str:
        return self._key("prm select")

    def run(self, state: Any, lines: list[tuple[int, bytes]]) -> tuple[list[str], dict]:
        from finchain_tasks.prm.data_selection import candidate_rows

        items = _items(lines, self.source)
        rows = candidate_rows(items, state, self.spec) if items else []
        return [json.dumps(r, default=str) for r in rows], {"rows": len(rows)}


@dataclass(frozen=True)
class RescoreJob(PRMJob):
    """``finchain bon --prm``: the saved candidates (``{"key", "q", "t"}`` lines) scored by another PRM."""

    def fingerprint(self) -> str:
        return self._key("bon --prm")

    def run(self, state: Any, lines: list[tuple[int, bytes]]) -> tuple[list[str], dict]:
        from scorers.prm.base import prm_input

        rows = [row for _, row in _json_rows(lines, "bon candidates")]
        scores = state.score_batch([prm_input(r["q"], r["t"]) for r in rows]) if rows else []
        out = [json.dumps({"key": r["key"], "score": s.to_dict()}) for r, s in zip(rows, scores)]
        return out, {"rows": len(out), "prm": getattr(state, "name", self.spec)}


@dataclass(frozen=True)
class LabelJob:
    """``finchain prm label``: one labels row per candidate; the fused recipe's calls share the SQLite call cache."""

    source: str
    recipe: str
    models: Any = None
    cache_path: str | None = None

    def fingerprint(self) -> str:
        return _fingerprint(command="prm label", recipe=self.recipe, models=self.models, cache=self.cache_path)

    def load(self) -> Any:
        if self.recipe != "fused":
            return None, None
        from finchain_tasks.prm.labeling import CallCache, fused_signals

        return fused_signals(self.models, CallCache(self.cache_path))

    def run(self, state: Any, lines: list[tuple[int, bytes]]) -> tuple[list[str], dict]:
        from scorers.prm.labels.recipe import label_items

        signals, usage = state
        before = usage.as_dict() if usage is not None else {}
        items = _items(lines, self.source)
        labels = label_items(items, self.recipe, signals) if items else []
        spent = {k: v - before[k] for k, v in usage.as_dict().items()} if usage is not None else {}
        return [json.dumps(lab.to_dict(), default=str) for lab in labels], {"rows": len(labels), "usage": spent}
