"""The samples of run directories and logs (anything ``finchain leaderboard build`` reads), with the filters
a user reaches for while looking for what went wrong: model, domain, level, wrong final answer, first error
at step k, and where two models disagree most."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KEEP = ("model", "harness", "sample_id", "epoch", "domain", "level", "template", "seed", "chaineval", "fac",
        "first_error_step", "output", "source", "profile")


@dataclass(frozen=True)
class Filters:
    model: str = ""
    domain: str = ""
    level: str = ""
    wrong_answer: bool = False
    first_error: int | None = None
    """Keep samples whose first wrong gold step is this one (0 = none broke, 4 = the fourth or later)."""
    versus: str = ""
    """With ``model``: sort by the largest ChainEval difference between ``model`` and ``versus`` on the same
    sample (samples only one of them answered are left out)."""


def load_samples(paths: Iterable[str | Path]) -> tuple[list[dict], list[str]]:
    """FinChain samples of every source (lm-eval and Inspect alike), and one line per source that could not be
    read (the others still load)."""
    from finchain_tasks.leaderboard.ingest import source_rows

    rows: list[dict] = []
    problems: list[str] = []
    for path in paths:
        path = Path(str(path).strip()).expanduser()
        try:
            found = [r for r in source_rows(path) if str(r.get("sample_id") or "").startswith("finchain/")]
        except Exception as exc:  # one unreadable source must not hide the rest
            problems.append(f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            continue
        rows.extend({k: r.get(k) for k in KEEP} for r in found)
    return rows, problems


def _num(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def apply(rows: Sequence[dict], f: Filters) -> list[dict]:
    """The rows that pass every filter, in a useful order (largest disagreement first, else as read)."""
    out = [r for r in rows
           if (not f.domain or r.get("domain") == f.domain) and (not f.level or r.get("level") == f.level)
           and (not f.wrong_answer or _num(r.get("fac")) == 0.0)
           and _first_error_is(r.get("first_error_step"), f.first_error)]
    if f.versus and f.model:
        return disagreements(out, f.model, f.versus)
    return [r for r in out if not f.model or r.get("model") == f.model]


def _first_error_is(step: Any, wanted: int | None) -> bool:
    """``wanted`` None: any; 0: no step broke; 4: the fourth or a later step (lm-eval logs record only 1, 2, 3
    and "4 or later"); else exactly that step."""
    if wanted is None:
        return True
    step = int(step or 0)
    return step >= 4 if wanted == 4 else step == wanted


def disagreements(rows: Sequence[dict], a: str, b: str) -> list[dict]:
    """``a``'s rows that ``b`` also answered, each with ``b``'s ChainEval and the difference, largest first."""
    other = {(r["sample_id"], r.get("epoch")): r for r in rows if r.get("model") == b}
    paired = []
    for r in rows:
        mate = other.get((r["sample_id"], r.get("epoch"))) if r.get("model") == a else None
        x, y = _num(r.get("chaineval")), _num(mate.get("chaineval")) if mate else None
        if x is not None and y is not None:
            paired.append({**r, "versus": b, "versus_chaineval": y, "difference": x - y})
    return sorted(paired, key=lambda r: -abs(r["difference"]))


def models(rows: Sequence[dict]) -> list[str]:
    return sorted({str(r.get("model")) for r in rows if r.get("model")})
