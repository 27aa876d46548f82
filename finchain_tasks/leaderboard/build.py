"""Build a board: read its sources into the per-sample table, compute its statistics, and write the site."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.leaderboard import table
from finchain_tasks.leaderboard.board import Board, BoardError, selected_models
from finchain_tasks.leaderboard.ingest import Skipped, ingest
from finchain_tasks.leaderboard.matrix import domain_matrix
from finchain_tasks.leaderboard.reported import load_reported, note_cflue_profiles
from finchain_tasks.leaderboard.reported_samples import blocks, per_sample_sources
from finchain_tasks.leaderboard.versus_published import versus_published


@dataclass
class Built:
    """What a build computed: the per-sample frame (selected models), the site payload and the samples."""

    board: Board
    frame: Any
    payload: dict[str, Any]
    samples: dict[str, Any]


def _registry(path: Optional[str]) -> Any:
    from finchain_tasks.models.registry import load_registry

    return load_registry(path)


def compute(board: Board, sources: Optional[Sequence[Path]] = None, registry_path: Optional[str] = None,
            models: Optional[Sequence[str]] = None, realign: bool = True, authors: Optional[Path] = None) -> Built:
    """Everything a board shows. ``sources`` replaces the board's own; ``models`` (names, or ``["all"]``)
    replaces its model selection; ``realign`` recomputes the step alignment of lm-eval rows for the sample
    viewer (one ChainEval pass per lm-eval sample); ``authors`` is the folder a per-sample reported source is
    read from (else ``$FINCHAIN_AUTHORS_DIR``). A board whose reported sources are per sample needs no run."""
    registry = _registry(registry_path)
    paths = list(sources) if sources else board.source_paths()
    per_sample = per_sample_sources(board)
    if not paths and not per_sample:
        raise BoardError(f"{board.name}: no sources: list run directories under `sources:` or pass --source")
    reported_samples = blocks(board, registry, authors, per_sample)  # apart: never in the reproduced statistics
    problems: list[Skipped] = []
    frame = ingest(paths, registry, problems, realign)
    if not len(frame) and problems:
        listed = "; ".join(f"{p.path}: {p.reason}" for p in problems[:5])
        looked = "" if sources else f"; {board.where_sources_are_read()}"
        raise BoardError(f"{board.name}: no readable source ({len(problems)} unreadable: {listed}){looked}")
    found = sorted(frame["model"].dropna().unique()) if len(frame) else []
    if models:
        keep = found if list(models) == ["all"] else [m for m in found if m in set(models)]
    else:
        keep = selected_models(board, registry, found)
    frame = frame[frame["model"].isin(keep) & frame["task"].isin(board.tasks)].reset_index(drop=True)
    rows = table.model_rows(frame, board)
    comparisons = table.tie_groups(frame, rows, board)
    table.rank_intervals(frame, rows, board)
    for row in rows:
        row["label"] = f"{row['model']} ({row['harness']})"
        for key in ("tie_group", "coverage", "partial"):
            row.setdefault(key, None)
        if str(row.get("task") or "").startswith("cflue"):  # every CFLUE figure names its profile
            row["display_name"] = f"{row['display_name']} [profile {row.get('profile') or 'unrecorded'}]"
    rows = table.ordered(rows, board)
    reported = note_cflue_profiles(load_reported(board.reported, registry=registry), rows)
    payload = {
        "board": {**{k: v for k, v in asdict(board).items() if k not in ("path", "sources")},
                  "primary": board.primary},
        "generated": _now(), "finchain_tasks_version": _version(), "rows": rows, "comparisons": comparisons,
        "cells": table.cells(frame, board), "gaps": table.fresh_gaps(frame, board),
        "frontier": table.frontier(rows, board.primary), "reported": reported,
        "reported_samples": reported_samples,
        "versus_published": versus_published(rows, reported, board.metrics),
        "matrix": domain_matrix(frame, board), "models": model_details(rows, registry),
        "chaineval": _chaineval_settings(paths), "skipped_models": sorted(set(found) - set(keep)),
        "skipped_files": [_no_local_path(asdict(p), paths) for p in problems],
    }
    return Built(board, frame, payload, sample_payload(frame))


def _no_local_path(item: dict[str, str], paths: Sequence[Path]) -> dict[str, str]:
    """A skipped file's entry without the folders above its source (a host's error text may name them)."""
    for path in paths:
        item["reason"] = item["reason"].replace(str(Path(path).resolve().parent), "…")
    return item


DETAIL_FIELDS = ("display_name", "hf_id", "litellm_model", "category", "open_weights", "params_b", "notes")
"""What the model-details panel shows from the registry (never a key's variable, an API base or a price source:
the panel is published)."""


def model_details(rows: list[dict[str, Any]], registry: Any) -> dict[str, Any]:
    """Per model on the board: its registry facts and generation settings, and per row (harness, task) the
    harness and its version, run date, task version, profile and sample count."""
    models = getattr(registry, "models", {}) if registry is not None else {}
    out: dict[str, Any] = {}
    for row in rows:
        spec = models.get(row["model"])
        entry = out.setdefault(row["model"], {
            "model": row["model"], "in_registry": spec is not None,
            **{k: getattr(spec, k, None) for k in DETAIL_FIELDS},
            "generation": _generation(spec), "runs": []})
        entry["display_name"] = entry["display_name"] or row["display_name"]
        entry["runs"].append({k: row.get(k) for k in ("harness", "harness_version", "task", "task_version", "profile",
                                                      "date", "n", "finchain_tasks_version")})
    return out


def _generation(spec: Any) -> dict[str, Any]:
    """The registry's generation settings that are set (None and empty ones say nothing)."""
    gen = getattr(spec, "generation", None)
    if gen is None:
        return {}
    raw = asdict(gen) if hasattr(gen, "__dataclass_fields__") else dict(getattr(gen, "__dict__", {}))
    return {k: v for k, v in raw.items() if v is not None and v is not False and v != () and v != {}}


def _chaineval_settings(paths: Sequence[Path]) -> dict[str, Any]:
    """The ChainEval parameters of the first Inspect log found (all runs of a board should share them)."""
    from finchain_tasks.plumbing.safe_files import walk

    logs = [log for path in paths for log in (walk(path, ("*.eval",)).files if Path(path).is_dir()  # no link out
                                              else [Path(path)] if Path(path).suffix == ".eval" else [])]
    if not logs:  # Inspect is slow to import: only for its logs
        return {}
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        return {}
    for log in logs:
        try:
            meta = read_eval_log(str(log), header_only=True).eval.metadata or {}
        except Exception:
            continue
        if isinstance(meta.get("chaineval"), dict):
            return dict(meta["chaineval"])
    return {}


def _steps(text: str) -> list[str]:
    from scorers.steps import segment

    try:
        return list(segment(text or "")[0])
    except Exception:  # a parser bug must not cost the page; the raw output is shown anyway
        return []


def sample_payload(frame) -> dict[str, Any]:
    """Per sample: the question, the gold steps and answer, and each model's output, steps, scores and
    alignment (the alignment viewer's data)."""
    out: dict[str, Any] = {}
    for sid, group in frame.groupby("sample_id", sort=True):
        first = group.iloc[0]
        where = {k: _present(first[k]) for k in ("domain", "topic", "template", "level")}
        entry = {"id": sid, "task": first["task"], **where, "question": first["question"],
                 "gold_steps": json.loads(first["gold_steps"]) if isinstance(first["gold_steps"], str) else [],
                 "gold_answer": first["gold_answer"], "models": []}
        for _, r in group.iterrows():
            entry["models"].append({
                "label": f"{r['model']} ({r['harness']})", "harness": r["harness"], "output": r["output"] or "",
                "prompt": r["prompt"] if isinstance(r["prompt"], str) else None,
                "steps": _steps(r["output"]),
                "answer": None if r["answer"] is None or r["answer"] != r["answer"] else str(r["answer"]),
                "chaineval": _f(r["chaineval"]), "fac": _f(r["fac"]), "first_error_step": _f(r["first_error_step"]),
                "no_error": _f(r["no_error"]),
                "alignment": json.loads(r["alignment"]) if isinstance(r["alignment"], str) else None,
                "error": r["error"] if isinstance(r["error"], str) else None})
        out[sid] = entry
    return out


def _present(value: Any) -> Any:
    """A value, or None for pandas' missing markers (NaN, NA): JSON has no NaN."""
    import pandas as pd

    return None if value is None or pd.isna(value) else value


def _f(value: Any) -> Optional[float]:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if f != f else f


def _now() -> str:
    from finchain_tasks.leaderboard.site import now

    return now()


def _version() -> str:
    import finchain_tasks

    return finchain_tasks.__version__


def build_site(board: Board, out: Path, **kwargs: Any) -> Built:
    """Compute the board and write its site under ``out``."""
    from finchain_tasks.leaderboard.site import write_site

    built = compute(board, **kwargs)
    write_site(Path(out), board, built.payload, built.samples)
    return built
