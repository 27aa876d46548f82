"""Models × domains (HELM's view): one cell per row of the board and domain, with its interval.

The heat map shows one model's domain × level grid at a time; this matrix puts every model side by side, so
a reader sees at once where a model is strong and where every model is weak. FinChain groups by domain,
CFLUE application by sub-task, CFLUE by exam: whichever the board's samples carry."""

from __future__ import annotations

import math
from typing import Any, Optional

from finchain_tasks.leaderboard import stats, table
from finchain_tasks.leaderboard.board import Board

GROUPINGS = ("domain", "sub_task", "exam")


def _num(value: Any) -> Optional[float]:
    f = float(value)
    return None if math.isnan(f) else f


def domain_matrix(frame, board: Board) -> dict[str, Any]:
    """``{"by": column, "columns": [...], "rows": [{"label", "model", "harness", "cells": {col: {...}}}]}``:
    the primary metric's mean, template-bootstrap interval and sample count per row and group, for the
    board's first task. Empty when no grouping column has values."""
    data = table.scored(frame[frame["task"] == board.tasks[0]])
    by = next((c for c in GROUPINGS if c in data and data[c].notna().any()), None)
    if by is None or not len(data):
        return {"by": None, "columns": [], "rows": []}
    metric, st = board.primary, board.statistics
    data = data[data[by].notna() & data[metric].notna()]
    rows = []
    for (model, harness), group in data.groupby(["model", "harness"], sort=True):
        cells = {}
        for value, g in group.groupby(by, sort=True):
            ci = stats.cluster_interval(g[metric].to_numpy(float), g["cluster"].tolist(), st.confidence,
                                        st.resamples, st.seed)
            cells[str(value)] = {"mean": _num(ci.mean), "low": _num(ci.low), "high": _num(ci.high), "n": ci.n}
        rows.append({"label": f"{model} ({harness})", "model": model, "harness": harness, "cells": cells})
    return {"by": by, "metric": metric, "columns": sorted(str(v) for v in data[by].unique()), "rows": rows}
