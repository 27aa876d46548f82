"""Reported results: figures published by others (``data/reported.yaml``, typed in by hand from the named
source), shown apart from reproduced rows and marked "reported, not reproduced". They never enter a
statistic: no interval, test, tie group or frontier reads them. A source that carries every sample's score
instead (``per_sample:``) is read at build time by :mod:`finchain_tasks.leaderboard.reported_samples`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import yaml

REPORTED = Path(__file__).with_name("data") / "reported.yaml"
STATUS = "reported, not reproduced"


def source_entries(sources: Optional[tuple[str, ...]] = None, path: Path = REPORTED) -> dict[str, Any]:
    """The named sources' entries (all when None), in the order named; an unknown name is a one-line error."""
    known = (yaml.safe_load(path.read_text("utf-8")) or {}).get("sources") or {}
    wanted = list(known) if sources is None else list(sources)
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise ValueError(f"reported: unknown source(s) {', '.join(unknown)} (known: {', '.join(known)})")
    return {k: known[k] for k in wanted}


def load_reported(sources: Optional[tuple[str, ...]] = None, path: Path = REPORTED,
                  registry: Any = None) -> dict[str, Any]:
    """``{"sources": {...}, "rows": [...]}`` for the named hand-typed sources (all when None; per-sample ones
    are left to :mod:`~finchain_tasks.leaderboard.reported_samples`); each row carries its source's title and
    URL, ``status`` and, from the registry, the model's display name and category."""
    data = yaml.safe_load(path.read_text("utf-8"))
    known = {k: v for k, v in source_entries(sources, path).items() if not v.get("per_sample")}
    wanted = list(known)
    models = getattr(registry, "models", {}) if registry is not None else {}
    rows = []
    for row in data.get("rows") or []:
        if row["source"] not in wanted:
            continue
        spec = models.get(row["model"])
        src = known[row["source"]]
        rows.append({**row, "status": STATUS, "source_title": src.get("title"), "source_url": src.get("url"),
                     "scale": src.get("scale"), "display_name": spec.display_name if spec else row["reported_name"],
                     "category": spec.category if spec else None,
                     "open_weights": spec.open_weights if spec else None,
                     "params_b": spec.params_b if spec else None})
    return {"sources": {k: known[k] for k in wanted}, "rows": rows}


CFLUE_PROFILE_NOTE = (" Rows of this board scored under the CFLUE profile {profiles} are NOT comparable with these "
                      "figures: only rows under profile reference (the authors' extraction and metrics) are.")


def note_cflue_profiles(reported: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Say so beside a CFLUE source's reported figures whenever a measured row of its task was scored under another
    profile than ``reference`` (a run before profiles existed counts as "unrecorded"), so that a default-profile
    number is never read as comparable with the paper's."""
    for source in reported.get("sources", {}).values():
        task = str(source.get("task") or "")
        if not task.startswith("cflue"):
            continue
        others = sorted({str(r.get("profile") or "unrecorded") for r in rows
                         if r.get("task") == task and r.get("profile") != "reference"})
        if others:
            source["note"] = (source.get("note") or "") + CFLUE_PROFILE_NOTE.format(profiles=", ".join(others))
    return reported
