"""Reported per sample: a published source that carries every sample's score (the FinChain authors' per-sample
files), shown apart from the reproduced rows and marked "reported, not reproduced".

Hand-typed figures (:mod:`finchain_tasks.leaderboard.reported`) are means and can enter no statistic. A per-sample
source can: its rows get the same template-bootstrap intervals, paired tests, tie groups and rank intervals as
the reproduced rows (:mod:`finchain_tasks.leaderboard.table`), computed on a frame of their own, so that they are
compared **among themselves only**: a reproduced row never joins, shifts or splits their tie groups, and they
never touch the reproduced rows' (the two were scored by different code). Each row also carries the mean its
source published beside the one recomputed from its samples, and the difference.

A source is per sample when its entry in ``data/reported.yaml`` names a ``per_sample`` format; its data are
read from a folder given at build time, never from the package (the authors' files have no licence)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.leaderboard import authors_evals, table
from finchain_tasks.leaderboard.board import Board, BoardError
from finchain_tasks.leaderboard.reported import REPORTED, STATUS, source_entries

FORMATS = ("finchain-authors",)
"""The per-sample formats a source may name: ``finchain-authors`` (:mod:`finchain_tasks.leaderboard.authors_evals`)."""


def per_sample_sources(board: Board, path: Path = REPORTED) -> dict[str, dict[str, Any]]:
    """The board's reported sources that are per sample (name -> entry), in the board's order."""
    known = source_entries(board.reported, path)
    out = {k: v for k, v in known.items() if v.get("per_sample")}
    for key, entry in out.items():
        if entry["per_sample"] not in FORMATS:
            raise BoardError(f"reported source {key}: per_sample: unknown format {entry['per_sample']!r} "
                             f"(known: {', '.join(FORMATS)})")
    return out


def _model_of(their_name: str, entry: dict[str, Any], registry: Any) -> tuple[str, Any]:
    """(model name, registry entry or None): the registry's name where the source maps their name to a model the
    registry holds, else their own name."""
    mapped = (entry.get("models") or {}).get(their_name)
    spec = getattr(registry, "models", {}).get(mapped) if mapped else None
    return (mapped, spec) if spec is not None else (their_name, None)


def _model_rows(rows: list[dict[str, Any]], their_name: str, entry: dict[str, Any], key: str,
                registry: Any) -> list[dict[str, Any]]:
    """Their rows with the model's facts: the registry's for a mapped model, else the source's ``display_names``
    entry for their name (a readable name for a model the registry lacks), else their file name."""
    model, spec = _model_of(their_name, entry, registry)
    shown = (entry.get("display_names") or {}).get(their_name, their_name)
    facts = {"model": model, "display_name": spec.display_name if spec else shown,
             "category": spec.category if spec else None, "open_weights": spec.open_weights if spec else None,
             "params_b": spec.params_b if spec else None, "harness": key, "task": entry.get("task") or "finchain"}
    return [{**r, **facts} for r in rows]


def read_source(key: str, entry: dict[str, Any], root: Path, registry: Any):
    """(frame, their names by model, published means by their name) of one per-sample source. Every text is
    redacted as the reproduced rows' are (a configured key inside a name never reaches a page)."""
    from finchain_tasks.leaderboard.ingest import redacted, to_frame

    per_model = authors_evals.read_authors_evals(root)
    rows = [r for their, model_rows in per_model.items() for r in _model_rows(model_rows, their, entry, key, registry)]
    names = redacted([{"model": _model_of(their, entry, registry)[0], "their": their} for their in per_model])
    means = authors_evals.published(root)
    return (to_frame(redacted(rows)), {n["model"]: n["their"] for n in names},
            {n["their"]: means.get(their) or {} for n, their in zip(names, per_model)})


def block(board: Board, key: str, entry: dict[str, Any], root: Path, registry: Any) -> dict[str, Any]:
    """One source's section: its rows (intervals, tie groups, ranks, published means and differences) and the
    paired comparisons behind the tie groups, all computed among its own rows."""
    frame, names, means = read_source(key, entry, root, registry)
    carried = authors_evals.METRICS
    metrics = tuple(m for m in board.metrics if m in carried) or carried
    own = dataclasses.replace(board, metrics=metrics, tasks=(entry.get("task") or "finchain",))
    rows = table.model_rows(frame, own)
    comparisons = table.tie_groups(frame, rows, own)
    table.rank_intervals(frame, rows, own)
    for row in rows:
        their = names[row["model"]]
        pub = means.get(their) or {}  # by the name as shown (redacted like it)
        row.update(label=f"{row['model']} ({key})", reported_name=their, status=STATUS, source=key,
                   published={m: pub.get(m) for m in metrics},
                   delta={m: _delta(row["metrics"][m].get("mean"), pub.get(m)) for m in metrics})
        for k in ("tie_group", "coverage", "partial"):
            row.setdefault(k, None)
    skipped = int(frame["error"].notna().sum())
    return {"source": key, "title": entry.get("title"), "url": entry.get("url"), "paper": entry.get("paper"),
            "note": entry.get("note"), "status": STATUS, "metrics": list(metrics), "primary": metrics[0],
            "rows": table.ordered(rows, own), "comparisons": comparisons, "unscored_samples": skipped,
            "max_abs_delta": {m: _max_abs(r["delta"][m] for r in rows) for m in metrics}}


def _delta(mean: Optional[float], published: Optional[float]) -> Optional[float]:
    return None if mean is None or published is None else mean - published


def _max_abs(values) -> Optional[float]:
    known = [abs(v) for v in values if v is not None]
    return max(known) if known else None


def blocks(board: Board, registry: Any, authors: Optional[Path] = None,
           sources: Optional[dict[str, dict[str, Any]]] = None) -> list[dict[str, Any]]:
    """Every per-sample section of the board (empty when it names none); the folder is resolved (and its
    absence reported in one line) before anything is read."""
    sources = per_sample_sources(board) if sources is None else sources
    if not sources:
        return []
    root = authors_evals.authors_root(authors, f"board {board.name}'s reported source {', '.join(sources)}")
    return [block(board, key, entry, root, registry) for key, entry in sources.items()]
