"""The verifier: re-checks a problem's gold program without trusting how it was made.

Each check yields readable failure strings, so ``finchain verify`` can say exactly which
template, seed, rule and step failed, in one line. It works on freshly generated problems and on
records read back from a file (it never executes code from a record: formulas are walked, not
evaluated). The per-problem rules of TEMPLATES.md section 6 live here (level, near zero, text,
arithmetic as shown, units, determinism, and "plausible": the bounds a template declares with
``b.bounds``); the rules that need many draws (vacuous steps, balance, variety, determinism in a fresh
process) live in :mod:`finchain_tasks.engine.standard`.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from finchain_tasks.engine import realism
from finchain_tasks.engine.english import PLURAL_POSSESSIVE, WRONG_ARTICLE, possessive
from finchain_tasks.engine.formatting import _COUNTED, PERCENTAGE_POINTS, result_text
from finchain_tasks.engine.formula import FormulaError, evaluate_safely, parse_formula
from finchain_tasks.engine.precision import FIXED_UNITS
from finchain_tasks.engine.problem import STEP_BOUNDS, Problem
from finchain_tasks.engine.render import Rendered, shown_decimals, shown_value

REL_TOL = 1e-9
ABS_TOL = 1e-9
MAX_MAGNITUDE = 1e13
"""No plausible amount in a FinChain question reaches ten trillion."""
MAX_PERCENT = 10_000.0


SOLVERS = frozenset({"irr"})
"""Functions that solve an equation numerically; an easy template may not call them (rule "level")."""
TIE_SLACK = 0.25
"""Rule "arithmetic as shown": the share of a half unit by which operands rounded for display may excuse
a result that a reader redoes a hair past a rounding boundary (a tie). Computed reals are shown with
enough digits (:mod:`finchain_tasks.engine.precision`) that their rounding stays within it."""
CENTS_REL_TOL = 1e-4
"""A rate or ratio computed from amounts shown to the cent may be redone 0.01% away (the cents are all a
reader has); a money result must redo to the cent from the amounts shown."""
MATH_NOTATION = frozenset({"ln", "log", "N"})
"""Names that may stand before "(" in a rendered step: math notation, not a call (√ and e^ are not letters)."""

IDENTIFIER = re.compile(r"[a-z]+_[a-z_]+")
CONDITIONAL = re.compile(r" if | else ")
CALL = re.compile(r"(?<![A-Za-z])([A-Za-z]+)\(")
_COUNTED_WORDS = sorted(_COUNTED | {"percentage points", "basis points", "dollars"}, key=len, reverse=True)
PLURAL_AFTER_ONE = re.compile(r"(?<![\d.,])[-−]?1(?:\.0+)? (" + "|".join(map(re.escape, _COUNTED_WORDS)) + r")\b")
"""A plural noun after the number one ("1 years", "1 shares"): the builder should have made it singular."""
ASKS_POINTS = re.compile(r"(?i)\(percentage points\)|\bin percentage points|how many percentage points")
"""Text that declares a value to be in percentage points (not "rose by 2 percentage points to 7%")."""


@dataclass
class Report:
    """Failures found for one problem (empty means it passed); each names template, seed and rule."""

    problem_id: str
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def failure(problem: Problem, rule: str, detail: str) -> str:
    """The one-line message every rule uses: ``<template>, seed <n>, rule <rule>: <detail>``."""
    return f"{problem.template_id}, seed {problem.seed}, rule {rule}: {' '.join(detail.split())}"


def _same(a: Any, b: Any) -> bool:
    # None (a record's missing value) compares by identity: rule "formula" then says "has no value"
    if a is None or b is None or isinstance(a, (bool, str)) or isinstance(b, (bool, str)):
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


def check_bounds(problem: Problem) -> Iterable[str]:
    """Rule "plausible": every value the template declared bounds for (``b.bounds``) lies within them.

    A bound is a number or a formula over the problem's values ("revenue", "supply * 1.6"), walked and never
    executed; a whole bound asks for a whole number. The message shows the
    value as the problem shows it and what the bound means, so "unallocated = −$3,200,000.00 is below 0
    (allocated never exceeds proceeds)" says what to fix.
    """
    values: dict[str, Any] = {**problem.params, **{s.name: s.value for s in problem.steps}}
    units = problem.step_units()
    for bound in problem.bounds:
        if bound.name not in values:
            yield f"bounds name {bound.name!r}, which is neither a parameter nor a step"
            continue
        value = values[bound.name]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            yield f"bounds name {bound.name!r}, whose value {value!r} is not a number"
            continue
        shown = problem.displays.get(bound.name) or result_text(value, units.get(bound.name, ""))
        because = f" ({bound.why})" if bound.why else ""
        for side, limit in (("below", bound.lo), ("above", bound.hi)):
            if limit is None:
                continue
            if isinstance(limit, str):
                try:
                    target = float(evaluate_safely(limit, values))
                except (FormulaError, ArithmeticError, ValueError, TypeError) as exc:
                    yield f"the bound {limit!r} on {bound.name!r} cannot be evaluated: {exc}"
                    continue
                said = f"{limit} ({target:,.6g})"
            else:
                target, said = limit, f"{limit:,g}"
            slip = 1e-9 * max(1.0, abs(target))
            if (side == "below" and value < target - slip) or (side == "above" and value > target + slip):
                yield f"{bound.name} = {shown} is {side} {said}{because}"
        if bound.whole and abs(value - round(value)) > 1e-9 * max(1.0, abs(value)):
            yield f"{bound.name} = {shown} is not a whole number{because}"


def check_question(problem: Problem) -> Iterable[str]:
    """Every sampled parameter is visible in the question text."""
    for name, display in problem.displays.items():
        if display not in problem.question:
            yield f"parameter {name!r} (shown as {display!r}) does not appear in the question"


def check_shape(problem: Problem) -> Iterable[str]:
    """Names are unique; the answer is the last step."""
    names = [s.name for s in problem.steps] + list(problem.params)
    if len(names) != len(set(names)):
        yield "step and parameter names are not unique"
    if not _same(problem.answer, problem.steps[-1].value):
        yield "answer differs from the last step's value"


def check_level(problem: Problem) -> Iterable[str]:
    """Rule "level": the step count fits the level, and an easy problem calls no numerical solver."""
    lo, hi = STEP_BOUNDS[problem.level]
    if not lo <= len(problem.steps) <= hi:
        yield f"{problem.level} problem has {len(problem.steps)} steps; allowed {lo}-{hi}"
    if problem.level == "easy":
        for k, step in enumerate(problem.steps, 1):
            called = _called(step.formula) & SOLVERS
            if called:
                yield f"step {k} ({step.name}) calls the solver {sorted(called)[0]}() in an easy template"


def _called(formula: str) -> set[str]:
    try:
        tree = parse_formula(formula)
    except FormulaError:
        return set()
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def check_floor(problem: Problem, floor: float) -> Iterable[str]:
    """Rule "near zero": a numeric answer stays above the template's declared floor."""
    answer = problem.answer
    if isinstance(answer, (int, float)) and not isinstance(answer, bool) and not abs(answer) > floor:
        yield f"|answer| = {abs(answer):.6g} is not above the declared floor {floor:g}"


def check_text(problem: Problem, shown: Sequence[Rendered] | None = None) -> Iterable[str]:
    """Rule "text": rendered steps hold no code, and counted nouns agree with the number one."""
    texts = [r.text for r in (shown or problem.rendered_steps())]
    for k, text in enumerate(texts, 1):
        if m := IDENTIFIER.search(text):
            yield f"step {k} shows the identifier {m.group(0)!r}: {text!r}"
        if m := CONDITIONAL.search(text):
            yield f"step {k} shows a conditional expression ({m.group(0).strip()!r}): {text!r}"
        for m in CALL.finditer(text):
            if m.group(1) not in MATH_NOTATION:
                yield f"step {k} shows call syntax {m.group(0)!r}: {text!r}"
    if m := IDENTIFIER.search(problem.question):
        yield f"the question shows the identifier {m.group(0)!r}"
    for where, text in [("the question", problem.question), *((f"step {k}", t) for k, t in enumerate(texts, 1))]:
        if m := WRONG_ARTICLE.search(text):
            yield f"{where} says {m.group(0)!r} (the article does not fit the number)"
        if m := PLURAL_POSSESSIVE.search(text):
            yield f"{where} says {m.group(0)!r} (a plural name's possessive is {possessive(m.group(1))!r})"
    for where, text in [("the question", problem.question), *((f"step {k}", t) for k, t in enumerate(texts, 1)),
                        ("the answer", problem.answer_text)]:
        if m := PLURAL_AFTER_ONE.search(text):
            yield f"{where} says {m.group(0)!r} (plural after 1)"


def check_units(problem: Problem, shown: Sequence[Rendered] | None = None) -> Iterable[str]:
    """Rule "units": percentage points are declared with unit "pp" and shown as such, never as "%"."""
    if problem.answer_unit == PERCENTAGE_POINTS and "percentage point" not in problem.answer_text:
        yield f"answer in percentage points renders as {problem.answer_text!r}"
    asks_points = bool(ASKS_POINTS.search(problem.question))
    for k, step in enumerate(problem.steps, 1):
        said = bool(ASKS_POINTS.search(step.description)) or (k == len(problem.steps) and asks_points)
        if said and step.unit == "%":
            yield (f"step {k} ({step.name}) is described as percentage points but has unit '%' "
                   f"(shown {(shown or problem.rendered_steps())[k - 1].result!r}); declare unit 'pp'")


def check_arithmetic(problem: Problem, shown: Sequence[Rendered] | None = None) -> Iterable[str]:
    """Rule "arithmetic as shown": redo each step from the numbers printed in it.

    Every number a step prints for a parameter or an earlier step is read back from the text and
    the step's formula is evaluated on those numbers (walked, never executed). The result must
    round to the printed result at its last printed digit (money to the cent): no relative tolerance,
    which let a $13 gap through on a nine-figure product.
    """
    values: dict[str, Any] = {**problem.params, **{s.name: s.value for s in problem.steps}}
    units = problem.step_units()
    for k, (step, line) in enumerate(zip(problem.steps, shown or problem.rendered_steps()), 1):
        if isinstance(step.value, (bool, str)) or not line.operands and "=" not in line.text:
            continue
        try:
            printed = {name: shown_value(text) for name, text in line.operands.items()}
            recomputed = float(evaluate_safely(step.formula, {**values, **printed}))
            result = shown_value(line.result)
        except (FormulaError, ArithmeticError, ValueError, TypeError) as exc:
            yield f"step {k} ({step.name}) cannot be redone from its text: {exc}"
            continue
        slack = _rounding_slack(step.formula, {**values, **printed}, recomputed, line.operands, values, units)
        if not _reproduces(recomputed, result, shown_decimals(line.result), *slack, money=step.unit in FIXED_UNITS):
            yield (f"step {k} ({step.name}) redone from the numbers shown gives {recomputed:,.6f}, "
                   f"not the {line.result} shown: {line.text!r}")


def _rounding_slack(formula: str, env: dict[str, Any], base: float, operands: dict[str, str],
                    exact: dict[str, Any], units: dict[str, str]) -> tuple[float, float]:
    """How far the result moves when each operand that was *rounded for display* moves by half its last
    shown digit (first order, summed): (from operands shown to the cent, from the others).

    A reader redoing the step from the page cannot tell those values apart, so an exact result a hair past
    a rounding boundary may round the other way when redone. Operands shown exactly (drawn parameters are
    rounded to what is shown) add nothing. Money is shown to the cent by convention, so its share is kept
    apart: the renderer can show a factor with more digits, never a dollar amount."""
    cents = other = 0.0
    for name, text in operands.items():
        value, half = env[name], 0.5 * 10.0 ** -shown_decimals(text)
        if not isinstance(exact.get(name), (int, float)) or abs(value - exact[name]) <= 1e-6 * half:
            continue
        try:
            moved = float(evaluate_safely(formula, {**env, name: value + half}))
        except (FormulaError, ArithmeticError, ValueError, TypeError):
            continue
        if math.isfinite(moved):
            if units.get(name) in FIXED_UNITS:
                cents += abs(moved - base)
            else:
                other += abs(moved - base)
    return cents, other


def _reproduces(recomputed: float, shown: float, decimals: int, cents: float = 0.0, other: float = 0.0,
                money: bool = False) -> bool:
    """Whether a result redone from the page is the one printed, to its last digit.

    The display rounding of other operands excuses a hair past the rounding boundary (a tie: 43.715002
    shown as 43.71), never a result a reader would redo differently ($0.33 × 3,000 is $990.00, not
    $1,000.00). Amounts shown to the cent excuse at most one cent in a money result (a difference of two
    rounded amounts), and at most 0.01% in a rate or ratio computed from them. A money result excuses nothing
    for amounts shown to the cent (issue 41): a reader who adds "1,340.00 + 3,350.00 − 3,046.88" gets
    $1,643.12, so the page must not print $1,643.13; the template rounds the amount it shows
    (``round(x, 2)``) before later lines use it.
    """
    if not math.isfinite(recomputed):
        return False
    half_unit = 0.5 * 10.0 ** -decimals
    excused = min(other, TIE_SLACK * half_unit) + (0.0 if money else min(cents, CENTS_REL_TOL * abs(shown)))
    return abs(recomputed - shown) <= half_unit * (1 + 1e-9) + 1e-12 * abs(shown) + excused


def check_stored_text(problem: Problem, row: dict[str, Any]) -> Iterable[str]:
    """Rule "text" for a stored record: the solution a grader reads is the one its steps render to.

    A record edited by hand, or written by an older renderer, carries text that the other rules
    never saw (they re-render from the structured steps); this names the first line that differs.
    """
    stored = row.get("solution")
    if not isinstance(stored, str):
        yield "the record has no solution text"
        return
    rendered = problem.solution
    if stored == rendered:
        return
    for k, (mine, theirs) in enumerate(zip(rendered.splitlines(), stored.splitlines()), 1):
        if mine != theirs:
            yield f"stored solution line {k} is {theirs!r} but its steps render {mine!r} (stale or edited record)"
            return
    yield "stored solution has a different number of lines than its steps render (stale or edited record)"


def _all_values(problem: Problem) -> dict[str, Any]:
    return {**problem.params, **{s.name: s.value for s in problem.steps}}


def check_non_negative(problem: Problem) -> Iterable[str]:
    """Rule "non-negative" (:mod:`.realism`): amounts of something are never negative, at any step."""
    units = {name: _unit_shown(text) for name, text in problem.displays.items()} | problem.step_units()
    return realism.check_non_negative(_all_values(problem), problem.signed, units)


def _unit_shown(display: str) -> str:
    """The unit a parameter's display ends with ("1,200 shares" -> "shares", "962.4 million tokens")."""
    m = re.fullmatch(r"[−-]?[$€£¥]?[\d,.]+ ([A-Za-z][A-Za-z ]*)", display)
    return m.group(1) if m else ""


def check_repeated_words(problem: Problem, shown: Sequence[Rendered] | None = None) -> Iterable[str]:
    """Rule "repeated word" (:mod:`.realism`): "posts posts" in the question or a step."""
    texts = [("the question", problem.question)]
    texts += [(f"step {k}", r.text) for k, r in enumerate(shown or problem.rendered_steps(), 1)]
    return realism.check_repeated_words(texts)


def check_company_kind(problem: Problem) -> Iterable[str]:
    """Rule "company kind" (:mod:`.realism`): names drawn with ``b.company`` and fitting what they are said to be."""
    return realism.check_company_kind(problem.question, problem.companies, problem.params)


def check_instruments(problem: Problem) -> Iterable[str]:
    """Rule "real instrument" (:mod:`.realism`): a real coin's price and supply inside its documented band."""
    return realism.check_instruments(problem.question, _all_values(problem), problem.step_units())


def check_relations(problem: Problem) -> Iterable[str]:
    """Rule "relation" (:mod:`.realism`): bond vol below equity vol, bid below ask, part within whole, ..."""
    return realism.check_relations(_all_values(problem), problem.step_units())


PER_PROBLEM_RULES = {
    "formula": check_steps, "question": check_question, "shape": check_shape, "level": check_level,
    "plausible": check_bounds,
    "text": check_text, "units": check_units, "arithmetic as shown": check_arithmetic,
    "non-negative": check_non_negative, "repeated word": check_repeated_words, "company kind": check_company_kind,
    "real instrument": check_instruments, "relation": check_relations,
}
"""Rule name -> check, run by :func:`verify` on every problem (stored records included)."""
_USE_RENDERED = frozenset({"text", "units", "arithmetic as shown", "repeated word"})


def verify(problem: Problem, regenerate: Any = None, floor: float | None = None) -> Report:
    """All per-problem rules; a template as ``regenerate`` adds its floor and the determinism check.

    ``floor`` overrides the template's declared floor (records read from a file have no template).
    """
    report = Report(problem.id)
    try:
        shown: Sequence[Rendered] | None = problem.rendered_steps()
    except (FormulaError, ArithmeticError, ValueError, TypeError) as exc:
        shown = None
        report.failures.append(failure(problem, "text", f"the gold steps cannot be rendered: {exc}"))
    for rule, check in PER_PROBLEM_RULES.items():
        if rule in _USE_RENDERED and shown is None:
            continue
        try:
            found = list(check(problem, shown) if rule in _USE_RENDERED else check(problem))  # type: ignore[call-arg]
        except (FormulaError, ArithmeticError, ValueError, TypeError) as exc:
            found = [f"could not be checked: {exc}"]
        report.failures.extend(failure(problem, rule, f) for f in found)
    if floor is None and regenerate is not None:
        floor = regenerate.floor
    if floor is not None:
        report.failures.extend(failure(problem, "near zero", f) for f in check_floor(problem, floor))
    if regenerate is not None and regenerate.generate(problem.seed) != problem:
        report.failures.append(failure(problem, "determinism", "the same seed does not reproduce the same problem"))
    return report
