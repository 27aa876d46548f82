"""Reading prediction rows written by this project or by the FinChain reference script.

A row carries the gold side as structured ``steps`` (this project's records) or as ``solution``
text (the reference script's rows), and the model side under one of a few common keys.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from typing import Any

from scorers.chaineval import gold_from_text
from scorers.final_answer import AnswerGold
from scorers.records import GoldSolution, GoldStep
from scorers.steps import segment

OUTPUT_KEYS = ("output", "model_output", "model_generation", "generation", "response", "completion", "prediction")
"""``generation`` is the FinChain authors' results files' field (``results/<model>.jsonl``)."""


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
            if has_lone_surrogate(value):
                raise RowError(f"field {key!r} is not valid Unicode (lone surrogate)")
            return value
    raise RowError(f"no model output: expected one of {', '.join(OUTPUT_KEYS)}")


def has_lone_surrogate(text: str) -> bool:
    """True for text that is not valid Unicode (a lone UTF-16 surrogate such as ``\\ud800``, which
    JSON escapes can produce): no tokenizer or UTF-8 writer accepts it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def gold_value(value: Any, field: str) -> Any:
    """A gold value as scoring needs it: a finite number, text, true/false or null. Anything else
    (a list, an object, an integer too large for a float, ±Infinity, NaN) is a row error: a
    non-finite gold would make every answer (or none) fall within tolerance."""
    if value is None or isinstance(value, (bool, str)):
        if isinstance(value, str) and has_lone_surrogate(value):
            raise RowError(f"field {field!r} is not valid Unicode (lone surrogate)")
        return value
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            raise RowError(f"field {field!r} is an integer too large for a float") from None
        if not math.isfinite(number):
            raise RowError(f"field {field!r} must be a finite number, got {value!r}")
        return value
    raise RowError(f"field {field!r} must be a number, text, true/false or null, got {type(value).__name__}")


def _gold_step(step: Any, k: int) -> GoldStep:
    if not isinstance(step, dict):
        raise RowError("field 'steps' must be a list of objects")
    texts = [step.get(key) for key in ("description", "unit", "text")]
    if any(t is not None and not isinstance(t, str) for t in texts):
        raise RowError(f"step {k}: 'description', 'unit' and 'text' must be text")
    description, unit, text = (t or "" for t in texts)
    return GoldStep(description, gold_value(step.get("value"), f"steps[{k}].value"), unit, text or description)


def as_rendered(steps: tuple[GoldStep, ...], solution: str) -> tuple[GoldStep, ...]:
    """The steps with each text as the solution shows it (read by the same parser as a model's
    output), when the solution has exactly these steps; else unchanged. A row's structured ``text``
    can differ from its rendered line in closing punctuation, and the reference profile embeds text
    as it is: without this, a model that copies the gold solution would not score 1 there."""
    texts = _solution_steps(solution)
    if len(texts) != len(steps):
        return steps
    return tuple(GoldStep(s.description, s.value, s.unit, t) for s, t in zip(steps, texts))


@lru_cache(maxsize=4096)
def _solution_steps(solution: str) -> tuple[str, ...]:
    """The solution's step texts, parsed once per distinct solution: a matrix of runs scores every problem once per
    model, and parsing the same solution again for each was nearly a quarter of the time outside the encoder
    (profile of 2,600 matrix rows)."""
    return tuple(segment(solution)[0])


def gold_of(row: dict[str, Any]) -> GoldSolution:
    """Gold steps from structured ``steps`` when present, else parsed from ``solution`` text. The answer's
    kind is the row's ``answer_kind`` when it has one, else what its question asks for
    (:meth:`scorers.final_answer.AnswerGold.for_question`: ``"magnitude"`` for a VaR, a loss amount, a drawdown)."""
    gold = _gold_of(row)
    kind = row.get("answer_kind")
    if kind is not None and not isinstance(kind, str):
        raise RowError("field 'answer_kind' must be text")
    question = row.get("question")
    reading = AnswerGold.for_question(gold.answer, gold.answer_unit, question if isinstance(question, str) else None,
                                      kind)  # the kind and two-quantity reading every grader derives alike
    gold = replace(gold, asks_two=True) if reading.asks_two else gold
    return replace(gold, answer_kind=reading.kind) if reading.kind else gold


def _gold_of(row: dict[str, Any]) -> GoldSolution:
    """Gold steps from structured ``steps`` when present, else parsed from ``solution`` text."""
    pid = str(row.get("id", ""))
    steps = row.get("steps")
    if isinstance(steps, list) and steps:
        gold_steps = tuple(_gold_step(s, k) for k, s in enumerate(steps))
        answer = gold_value(row.get("answer", gold_steps[-1].value), "answer")
        unit = row.get("answer_unit")
        if unit is not None and not isinstance(unit, str):
            raise RowError("field 'answer_unit' must be text")
        solution = row.get("solution")
        if isinstance(solution, str) and not has_lone_surrogate(solution):
            gold_steps = as_rendered(gold_steps, solution)
        return GoldSolution(gold_steps, answer, unit or gold_steps[-1].unit, pid)
    solution = row.get("solution")
    if isinstance(solution, str) and solution.strip():
        if has_lone_surrogate(solution):
            raise RowError("field 'solution' is not valid Unicode (lone surrogate)")
        question = row.get("question")
        gold = gold_from_text(solution, pid, question if isinstance(question, str) else None)
        if not gold.steps:
            raise RowError("field 'solution' has no steps to score against")
        return gold
    raise RowError("no gold: expected 'steps' (a list) or 'solution' (text)")
