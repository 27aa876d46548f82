"""Reading prediction rows written by this project or by the FinChain reference script.

A row carries the gold side as structured ``steps`` (this project's records) or as ``solution``
text (the reference script's rows), and the model side under one of a few common keys.
"""

from __future__ import annotations

from typing import Any

from scorers.chaineval import gold_from_text
from scorers.records import GoldSolution, GoldStep

OUTPUT_KEYS = ("output", "model_output", "model_generation", "response", "completion", "prediction")


class RowError(ValueError):
    """A row that cannot be scored; the message says which field is wrong."""


def output_of(row: dict[str, Any]) -> str:
    """The model's text; a row with none of the known keys is an error (null counts as empty)."""
    for key in OUTPUT_KEYS:
        if key in row:
            value = row[key]
            if value is None:
                return ""
            if not isinstance(value, str):
                raise RowError(f"field {key!r} must be text, got {type(value).__name__}")
            return value
    raise RowError(f"no model output: expected one of {', '.join(OUTPUT_KEYS)}")


def gold_of(row: dict[str, Any]) -> GoldSolution:
    """Gold steps from structured ``steps`` when present, else parsed from ``solution`` text."""
    pid = str(row.get("id", ""))
    steps = row.get("steps")
    if isinstance(steps, list) and steps:
        try:
            gold_steps = tuple(
                GoldStep(str(s.get("description", "")), s.get("value"), str(s.get("unit") or ""),
                         str(s.get("text") or s.get("description", "")))
                for s in steps
            )
        except AttributeError:
            raise RowError("field 'steps' must be a list of objects") from None
        answer = row.get("answer", gold_steps[-1].value)
        return GoldSolution(gold_steps, answer, str(row.get("answer_unit") or gold_steps[-1].unit), pid)
    solution = row.get("solution")
    if isinstance(solution, str) and solution.strip():
        gold = gold_from_text(solution, pid)
        if not gold.steps:
            raise RowError("field 'solution' has no steps to score against")
        return gold
    raise RowError("no gold: expected 'steps' (a list) or 'solution' (text)")
