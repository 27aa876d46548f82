"""The verifier: re-checks a problem's gold program without trusting how it was made.

Each check returns readable failure strings, so ``finchain verify`` can say exactly which
template, seed, step and rule failed. It works on freshly generated problems and on records read
back from a file (it never executes code from a record: formulas are walked, not evaluated).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from finchain_tasks.engine.formula import FormulaError, evaluate_safely
from finchain_tasks.engine.problem import STEP_BOUNDS, Problem

REL_TOL = 1e-9
ABS_TOL = 1e-9
MAX_MAGNITUDE = 1e13
"""No plausible amount in a FinChain question reaches ten trillion."""
MAX_PERCENT = 10_000.0


@dataclass
class Report:
    """Failures found for one problem (empty means it passed)."""

    problem_id: str
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)


def check_steps(problem: Problem) -> Iterable[str]:
    """Every formula re-evaluates to its stored value; values are finite and plausible."""
    values: dict[str, Any] = dict(problem.params)
    for k, step in enumerate(problem.steps, 1):
        where = f"step {k} ({step.name})"
        try:
            recomputed = evaluate_safely(step.formula, values)
        except (FormulaError, ArithmeticError, ValueError, TypeError) as exc:
            yield f"{where}: formula {step.formula!r} fails: {exc}"
            values[step.name] = step.value
            continue
        if not _same(recomputed, step.value):
            yield f"{where}: stored value {step.value!r} but {step.formula!r} gives {recomputed!r}"
        yield from _plausible(where, step.value, step.unit)
        values[step.name] = step.value


def _plausible(where: str, value: Any, unit: str) -> Iterable[str]:
    if isinstance(value, (bool, str)) or value is None:
        if value is None or value == "":
            yield f"{where}: has no value"
        return
    if not math.isfinite(value):
        yield f"{where}: value {value!r} is not finite"
    elif abs(value) > MAX_MAGNITUDE:
        yield f"{where}: value {value:.4g} is implausibly large"
    elif unit == "%" and abs(value) > MAX_PERCENT:
        yield f"{where}: percentage {value:.4g}% is implausible"


def check_question(problem: Problem) -> Iterable[str]:
    """Every sampled parameter is visible in the question text."""
    for name, display in problem.displays.items():
        if display not in problem.question:
            yield f"parameter {name!r} (shown as {display!r}) does not appear in the question"


def check_shape(problem: Problem) -> Iterable[str]:
    """Step count fits the level; the answer is the last step; names are unique."""
    lo, hi = STEP_BOUNDS[problem.level]
    if not lo <= len(problem.steps) <= hi:
        yield f"{problem.level} problem has {len(problem.steps)} steps; allowed {lo}-{hi}"
    names = [s.name for s in problem.steps] + list(problem.params)
    if len(names) != len(set(names)):
        yield "step and parameter names are not unique"
    if not _same(problem.answer, problem.steps[-1].value):
        yield "answer differs from the last step's value"


def verify(problem: Problem, regenerate: Any = None) -> Report:
    """All checks; ``regenerate`` (a template) adds the determinism check for this seed."""
    report = Report(problem.id)
    for check in (check_steps, check_question, check_shape):
        report.failures.extend(check(problem))
    if regenerate is not None and regenerate.generate(problem.seed).to_dict() != problem.to_dict():
        report.failures.append(f"seed {problem.seed} does not reproduce the same problem")
    return report
