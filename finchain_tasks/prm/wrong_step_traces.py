"""Synthetic candidates for FinChain problems: the gold trace with one step's value made wrong and the
error carried through every later step that reads it, so which steps are wrong is known exactly.

Used by the label tests (the exact recipe must find exactly these steps) and the training test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from finchain_tasks.engine import Problem
from finchain_tasks.engine.formatting import result_text
from finchain_tasks.engine.formula import evaluate_safely, names_in

__all__ = ["Injected", "inject_error"]

AMBIGUOUS = (1e-9, 0.15)
"""A dependent value that moved by a relative amount inside this band is neither clearly equal nor
clearly different under ChainEval's 5% gate: such a case is not generated."""


@dataclass(frozen=True)
class Injected:
    """The candidate's text and the 0-based indices of the steps that are wrong in it."""

    output: str
    wrong: frozenset[int]
    step: int


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _moved(new, old) -> float | None:
    """Relative change for numbers, 0/1 for text; None when the value is unusable."""
    if _number(new) and _number(old):
        return abs(new - old) / max(abs(old), 1e-12)
    if isinstance(new, float) and not math.isfinite(new):
        return None
    return 0.0 if new == old else 1.0


def inject_error(problem: Problem, k: int, factor: float = 1.5) -> Injected | None:
    """The gold trace with step ``k``'s value × ``factor`` propagated; None when step k is not a nonzero
    number, a dependent value fails to evaluate, or moves by an ambiguous amount."""
    steps = list(problem.steps)
    if not _number(steps[k].value) or steps[k].value == 0:
        return None
    values = dict(problem.params)
    values.update((s.name, s.value) for s in steps)
    values[steps[k].name] = steps[k].value * factor
    new_steps, wrong, changed = list(steps), {k}, {steps[k].name}
    new_steps[k] = replace(steps[k], value=values[steps[k].name])
    for j in range(k + 1, len(steps)):
        if not names_in(steps[j].formula) & changed:
            continue
        try:
            value = evaluate_safely(steps[j].formula, values)
        except (ArithmeticError, ValueError, TypeError):
            return None
        moved = _moved(value, steps[j].value)
        if moved is None or AMBIGUOUS[0] < moved < AMBIGUOUS[1]:
            return None
        if moved:
            values[steps[j].name] = value
            new_steps[j] = replace(steps[j], value=value)
            wrong.add(j)
            changed.add(steps[j].name)
    units = {s.name: s.unit for s in steps}
    lines = [f"Step {i}: {s.render(values, problem.displays, units)}." for i, s in enumerate(new_steps, 1)]
    lines.append(f"Final answer: {result_text(new_steps[-1].value, new_steps[-1].unit)}")
    return Injected("\n".join(lines), frozenset(wrong), k)
