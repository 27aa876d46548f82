"""How many decimals each computed step is shown with, so that every line can be redone from the page.

A factor shown to seven significant digits is plenty on its own line, but "14,340,000 × 4.206275" is
$1.35 away from the $23,517,982.15 printed after it: a reader who redoes the step from the page does not
get the printed result (TEMPLATES.md section 4 asks that they do, to the cent). So the display of a
computed step is its unit's convention (:func:`~finchain_tasks.engine.formatting.unit_decimals`) or more:
as many decimals as the steps that read it need for their own printed result to reproduce.

Money keeps the cent whatever a later step needs ("money always to cents"); an integer is exact. Steps
are visited from the last to the first, so a step that needs more digits of its input has already fixed
its own display (and so its own half unit) when its input is sized. Formulas are walked
(:func:`~finchain_tasks.engine.formula.evaluate_safely`), never executed: stored records are sized the
same way as fresh problems.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from finchain_tasks.engine.formatting import CURRENCY_UNITS, STABLECOINS, round_half_up, unit_decimals
from finchain_tasks.engine.formula import FormulaError, evaluate_safely, names_in

BUDGET = 0.1
"""Share of a result's half unit (half its last shown digit) that its inputs' display rounding may use up."""
MAX_SIGNIFICANT = 15
"""A float holds about 15 significant digits: no step is shown with more."""
FIXED_UNITS = frozenset(CURRENCY_UNITS) | STABLECOINS
"""Units whose display never grows: money is shown to the cent."""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _max_decimals(value: float) -> int:
    magnitude = abs(value)
    digits_before = 1 if magnitude < 1 else math.floor(math.log10(magnitude)) + 1
    return max(0, MAX_SIGNIFICANT - digits_before)


def display_decimals(steps: Sequence[Any], params: Mapping[str, Any]) -> dict[str, int]:
    """Decimals to show each computed real step with (its convention, or more where a reader needs them).

    ``steps`` are :class:`~finchain_tasks.engine.problem.Step` records (name, formula, value, unit);
    ``params`` the drawn parameters, which are shown exactly as drawn and need nothing.
    """
    values: dict[str, Any] = {**params, **{s.name: s.value for s in steps}}
    units = {s.name: s.unit for s in steps}
    shown: dict[str, int] = {}
    for s in steps:
        if _number(s.value) and (d := unit_decimals(s.value, s.unit)) is not None:
            shown[s.name] = d
    for step in reversed(steps):
        if not _number(step.value):
            continue
        half = 0.5 * 10.0 ** -shown.get(step.name, 0)
        try:
            inputs = [n for n in sorted(names_in(step.formula))
                      if n in shown and units.get(n) not in FIXED_UNITS and type(values[n]) is not int]
        except FormulaError:
            continue
        for name in inputs:
            shown[name] = _needed(step.formula, values, name, shown[name], BUDGET * half / len(inputs))
    return shown


def _needed(formula: str, values: dict[str, Any], name: str, start: int, allowed: float) -> int:
    """Fewest decimals (at least ``start``) of ``name`` whose display rounding moves ``formula`` by ≤ ``allowed``."""
    base_value = values[name]
    if abs(round_half_up(base_value, start) - base_value) <= 1e-6 * 10.0 ** -start:
        return start  # shown exactly (1,656 people): the reader has the value itself
    try:
        base = float(evaluate_safely(formula, values))
    except (FormulaError, ArithmeticError, ValueError, TypeError):
        return start
    cap = max(start, _max_decimals(base_value))

    def moved(decimals: int) -> float:
        delta = 0.5 * 10.0 ** -decimals
        worst = 0.0
        for sign in (1, -1):
            try:
                shifted = float(evaluate_safely(formula, {**values, name: base_value + sign * delta}))
            except (FormulaError, ArithmeticError, ValueError, TypeError):
                return 0.0
            worst = max(worst, abs(shifted - base)) if math.isfinite(shifted) else worst
        return worst

    decimals = start
    first = moved(decimals)
    if first <= allowed or first == 0:
        return decimals
    # first order: each extra decimal divides the move by ten; jump there, then confirm step by step
    decimals = min(cap, decimals + math.ceil(math.log10(first / allowed)))
    while decimals < cap and moved(decimals) > allowed:
        decimals += 1
    return decimals
