"""Gold step text in words and numbers: a formula's syntax tree written as display math.

A step reads like a textbook line: what it computes, the numbers that go in, the result with its
unit ("Terminal value ÷ present value of outflows: 1,560,715.75 ÷ 963,333.33 = 1.6201193"). No
identifier, Python conditional or call syntax reaches the text (TEMPLATES.md section 4):

* ``*`` ``/`` ``**`` and unary minus become ×, ÷, ^ and −; ``x / 100`` where ``x`` is a
  percentage becomes ``x%`` (``(1 + 7.6%)^4``), other percentages are written as bare numbers;
* ``max``/``min`` become "the larger of a and b"; ``abs`` |x|; ``sqrt`` √(x); ``exp`` e^(x);
  ``ln``/``log`` ln(x); ``norm_cdf`` N(x); ``ceil``/``floor`` ⌈x⌉/⌊x⌋;
* ``npv(r, cf0, cf1, …)`` is expanded as cf0 + cf1/(1 + r) + cf2/(1 + r)^2 …, and an ``irr`` step
  states the equation it solved: "the rate r at which −210,000 + 50,000/(1 + r) + … = 0 is r = 18.7963%";
* a conditional is written as its chosen branch, and the step says why: "(since 8 ≤ 12)".

The result always comes after the step's last "=", which is where the scorer's parser reads a
step's value. :func:`render_step` also returns every number it printed for a name, so the
verifier can redo the step from the page (:func:`shown_value`) without trusting the renderer.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from finchain_tasks.engine.formatting import (
    CURRENCY_UNITS,
    MINUS,
    PERCENTAGE_POINTS,
    plain,
    result_number,
    result_text,
)
from finchain_tasks.engine.formula import evaluate_safely, parse_formula

ATOM, POW, UNARY, MUL, ADD, CMP, NOT, AND, OR, WORDS = 10, 8, 7, 6, 5, 4, 3, 2, 1, 0
"""Binding strength of each rendered form; a child binding less tightly than its slot gets parentheses."""

_LEADING_NUMBER = re.compile(r"^[-−]?[0-9][0-9,]*(?:\.[0-9]+)?")
_SYMBOLS = tuple(sorted(set(CURRENCY_UNITS.values()), key=len, reverse=True))
_FLIP = {ast.Gt: "≤", ast.GtE: "<", ast.Lt: "≥", ast.LtE: ">", ast.Eq: "≠", ast.NotEq: "equals"}
_CMP = {ast.Gt: ">", ast.GtE: "≥", ast.Lt: "<", ast.LtE: "≤", ast.Eq: "equals", ast.NotEq: "≠"}
_SELECT = {"max": ("larger", "largest"), "min": ("smaller", "smallest")}


@dataclass(frozen=True, slots=True)
class Rendered:
    """A step's text, the number printed for each name it read, and its printed result."""

    text: str
    operands: dict[str, str]
    result: str


@dataclass
class _Ctx:
    values: Mapping[str, Any]
    displays: Mapping[str, str]
    units: Mapping[str, str]
    decimals: Mapping[str, int] = field(default_factory=dict)
    """Decimals each computed step is shown with (:mod:`finchain_tasks.engine.precision`)."""
    operands: dict[str, str] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    wordy: bool = False
    """Inside a reason, values are written with their units ("8 months ≤ 12"), as in the question."""


def shown_value(text: str) -> float:
    """The number a printed operand or result stands for: ``−1,234.50`` → -1234.5, ``7.6%`` → 7.6."""
    match = _LEADING_NUMBER.match(_strip_symbol(text.strip()))
    if match is None:
        raise ValueError(f"{text!r} does not start with a number")
    return float(match.group(0).replace(",", "").replace(MINUS, "-"))


def shown_decimals(text: str) -> int:
    """How many decimals a printed number shows (its last shown digit)."""
    match = _LEADING_NUMBER.match(_strip_symbol(text.strip()))
    number = match.group(0) if match else ""
    return len(number.split(".")[1]) if "." in number else 0


def _strip_symbol(text: str) -> str:
    negative = text.startswith(("-", MINUS))
    body = text[1:] if negative else text
    for symbol in _SYMBOLS:
        if body.startswith(symbol):
            body = body[len(symbol):]
            break
    return f"-{body}" if negative else body


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _operand(name: str, ctx: _Ctx) -> tuple[str, bool]:
    """(number printed for ``name``, whether it is a percentage). Steps use the result convention;
    parameters keep the number their question display shows, without currency symbol or unit word."""
    value = ctx.values.get(name)
    if not _is_number(value):
        return str(value), False
    if name in ctx.units:
        unit = ctx.units[name]
        return result_number(value, unit, ctx.decimals.get(name)), unit in ("%", PERCENTAGE_POINTS)
    display = ctx.displays.get(name, "")
    percent = display.endswith(("%", " percentage points", " percentage point"))
    match = _LEADING_NUMBER.match(_strip_symbol(display))
    if match and math.isclose(float(match.group(0).replace(",", "")), value, rel_tol=1e-12, abs_tol=1e-12):
        text = match.group(0)
    else:
        text = plain(value)
    return text.replace("-", MINUS), percent


def _paren(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _negative(text: str) -> bool:
    return text.startswith(MINUS)


# -- the tree walk -------------------------------------------------------------------------------
def _node(node: ast.AST, ctx: _Ctx) -> tuple[str, int]:  # noqa: C901 - one branch per syntax form
    """(display text, binding strength) of ``node``."""
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.Name):
        text, _ = _operand(node.id, ctx)
        ctx.operands[node.id] = text
        if ctx.wordy:
            text = _worded(node.id, text, ctx)
        return text, UNARY if _negative(text) else ATOM
    if isinstance(node, ast.BinOp):
        return _binop(node, ctx)
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.UAdd):
            return _node(node.operand, ctx)
        text, prec = _node(node.operand, ctx)
        if isinstance(node.op, ast.Not):
            return f"not {_paren(text, prec, NOT)}", NOT
        if _negative(text) or prec < UNARY:
            return f"{MINUS}({text})", UNARY
        return f"{MINUS}{text}", UNARY
    if isinstance(node, ast.Compare):
        return _compare(node, ctx, negate=False), CMP
    if isinstance(node, ast.BoolOp):
        word, prec = (" and ", AND) if isinstance(node.op, ast.And) else (" or ", OR)
        parts = [_paren(*_node(v, ctx), prec + 1) for v in node.values]
        return word.join(parts), prec
    if isinstance(node, ast.IfExp):
        return _conditional(node, ctx)
    if isinstance(node, ast.Call):
        return _call(node, ctx)
    if isinstance(node, (ast.Tuple, ast.List)):
        return "; ".join(_node(e, ctx)[0] for e in node.elts), WORDS
    raise ValueError(f"cannot render {type(node).__name__}")


def _constant(value: Any) -> tuple[str, int]:
    if isinstance(value, bool):
        return ("yes" if value else "no"), ATOM
    if _is_number(value):
        text = f"{value:,}".replace("-", MINUS)
        return text, UNARY if _negative(text) else ATOM
    return str(value), ATOM


def _binop(node: ast.BinOp, ctx: _Ctx) -> tuple[str, int]:
    op = node.op
    if isinstance(op, ast.Div) and _is_hundred(node.right):
        as_percent = _percent(node.left, ctx)
        if as_percent is not None:
            return as_percent
    left, lp = _node(node.left, ctx)
    right, rp = _node(node.right, ctx)
    if isinstance(op, ast.Pow):
        base = _paren(left, lp, POW + 1)
        exponent = right if rp == ATOM and not _negative(right) else f"({right})"
        return f"{base}^{exponent}", POW
    if isinstance(op, ast.Add):
        if _negative(right) and rp >= UNARY:
            return f"{_paren(left, lp, ADD)} {MINUS} {right[1:]}", ADD
        return f"{_paren(left, lp, ADD)} + {_paren(right, rp, ADD + 1)}", ADD
    if isinstance(op, ast.Sub):
        right = f"({right})" if _negative(right) or rp <= ADD else right
        return f"{_paren(left, lp, ADD)} {MINUS} {right}", ADD
    if isinstance(op, ast.FloorDiv):
        return f"⌊{left} ÷ {right}⌋", ATOM
    symbol = {ast.Mult: "×", ast.Div: "÷", ast.Mod: "mod"}[type(op)]
    right = f"({right})" if _negative(right) or rp <= MUL else right
    return f"{_paren(left, lp, MUL)} {symbol} {right}", MUL


def _is_hundred(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and _is_number(node.value) and node.value == 100


def _percent(node: ast.AST, ctx: _Ctx) -> tuple[str, int] | None:
    """``node / 100`` written with a % sign on a percentage inside ``node``, or None if none fits.

    ``rate / 100`` → "7.6%", ``(rate - growth) / 100`` → "(12.5% − 2.8%)", ``salary * pct / 100``
    → "179,000 × 6%": the % sign carries the division, so the line reads as a person writes it.
    """
    if isinstance(node, ast.Name):
        text, percent = _operand(node.id, ctx)
        if not percent:
            return None
        ctx.operands[node.id] = text
        return f"{text}%", UNARY if _negative(text) else ATOM
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = _percent(node.left, ctx), _percent(node.right, ctx)
        if left is None or right is None:
            return None
        sign = "+" if isinstance(node.op, ast.Add) else MINUS
        rtext = f"({right[0]})" if _negative(right[0]) or (right[1] <= ADD) else right[0]
        return f"{_paren(left[0], left[1], ADD)} {sign} {rtext}", ADD
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return _percent_product(node, ctx)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _percent(node.operand, ctx)
        return None if inner is None else (f"{MINUS}{_paren(inner[0], inner[1], ATOM)}", UNARY)
    if _selection(node) or isinstance(node, ast.IfExp):
        return _percent_choice(node, ctx)
    return None


def _percent_product(node: ast.BinOp, ctx: _Ctx) -> tuple[str, int] | None:
    """``a × b / 100`` → the % sign on whichever factor is a percentage (a dividend only, for ÷)."""
    symbol = "×" if isinstance(node.op, ast.Mult) else "÷"
    sides = [(node.left, True), (node.right, False)] if isinstance(node.op, ast.Div) else \
        [(node.left, True), (node.right, True)]
    for index, (child, allowed) in enumerate(sides):
        if not allowed or not _percent_leaf(child, ctx):
            continue
        shown = _percent(child, ctx)
        if shown is None:
            continue
        other = _node(node.right if index == 0 else node.left, ctx)
        left, right = (shown, other) if index == 0 else (other, shown)
        rtext = f"({right[0]})" if _negative(right[0]) or right[1] <= MUL else right[0]
        return f"{_paren(left[0], left[1], MUL)} {symbol} {rtext}", MUL
    return None


def _percent_choice(node: ast.AST, ctx: _Ctx) -> tuple[str, int] | None:
    """``max(a, b) / 100`` → "the larger of a% and b%"; a conditional → its branch with the % sign."""
    if _selection(node):
        if not all(_percent_leaf(a, ctx) for a in node.args):  # type: ignore[attr-defined]
            return None
        shown = [_percent(a, ctx) for a in node.args]  # type: ignore[attr-defined]
        if any(s is None for s in shown):
            return None
        pair, many = _SELECT[node.func.id]  # type: ignore[attr-defined]
        word = pair if len(shown) == 2 else many
        return f"the {word} of {' and '.join(_paren(t, p, ATOM) for t, p in shown)}", WORDS  # type: ignore[misc]
    if isinstance(node, ast.IfExp):
        holds = bool(evaluate_safely(ast.unparse(node.test), ctx.values))
        branch = node.body if holds else node.orelse
        if not _percent_leaf(branch, ctx):
            return None
        ctx.reasons.append(_reason(node.test, holds, ctx))
        return _percent(branch, ctx)
    return None


def _selection(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "id", "") in _SELECT and len(node.args) > 1


def _percent_leaf(node: ast.AST, ctx: _Ctx) -> bool:
    """Whether :func:`_percent` can place the % sign inside ``node`` (checked before rendering it)."""
    if isinstance(node, ast.Name):
        return _operand(node.id, ctx)[1]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _percent_leaf(node.left, ctx) and _percent_leaf(node.right, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _percent_leaf(node.left, ctx) or _percent_leaf(node.right, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        # a nested ``x / 100`` writes its own % sign; a second one on top would read as x ÷ 100 ÷ 100
        return not _is_hundred(node.right) and _percent_leaf(node.left, ctx)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _percent_leaf(node.operand, ctx)
    if _selection(node):
        return all(_percent_leaf(a, ctx) for a in node.args)  # type: ignore[attr-defined]
    if isinstance(node, ast.IfExp):
        holds = bool(evaluate_safely(ast.unparse(node.test), ctx.values))
        return _percent_leaf(node.body if holds else node.orelse, ctx)
    return False


def _compare(node: ast.Compare, ctx: _Ctx, negate: bool) -> str:
    """``8 > 12`` (or, negated, ``8 ≤ 12``); a chain is written link by link."""
    left = _paren(*_node(node.left, ctx), ADD)
    parts = [left]
    for op, comparator in zip(node.ops, node.comparators):
        symbol = (_FLIP if negate else _CMP).get(type(op))
        if symbol is None:
            raise ValueError(f"cannot render comparison {type(op).__name__}")
        parts += [symbol, _paren(*_node(comparator, ctx), ADD)]
    return " ".join(parts)


def _reason(test: ast.AST, holds: bool, ctx: _Ctx) -> str:
    """The condition that chose a branch, as it held: "8 months ≤ 12", "$121,000 > $120,000"."""
    ctx.wordy = True
    try:
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return _compare(test, ctx, negate=not holds)
        text, prec = _node(test, ctx)
        return text if holds else f"not {_paren(text, prec, ATOM)}"
    finally:
        ctx.wordy = False


def _worded(name: str, number: str, ctx: _Ctx) -> str:
    """``number`` with the unit its value is shown with elsewhere (the question's display, or a step's)."""
    value = ctx.values.get(name)
    if not _is_number(value):
        return number
    if name in ctx.units:
        return result_text(value, ctx.units[name], ctx.decimals.get(name)).replace("-", MINUS)
    display = ctx.displays.get(name, "")
    match = _LEADING_NUMBER.match(_strip_symbol(display))
    return display.replace("-", MINUS) if match and match.group(0).replace("-", MINUS) == number else number


def _conditional(node: ast.IfExp, ctx: _Ctx) -> tuple[str, int]:
    """The branch taken, with the condition that chose it recorded as a reason for the step."""
    holds = bool(evaluate_safely(ast.unparse(node.test), ctx.values))
    ctx.reasons.append(_reason(node.test, holds, ctx))
    return _node(node.body if holds else node.orelse, ctx)


def _call(node: ast.Call, ctx: _Ctx) -> tuple[str, int]:  # noqa: C901 - one branch per function
    name = node.func.id  # type: ignore[attr-defined]
    if name == "npv":
        return _npv_sum(node.args[0], node.args[1:], ctx, rate=None), ADD
    if name == "irr":
        equation = _npv_sum(None, node.args, ctx, rate="r")
        ctx.reasons.append(f"r is the rate at which {equation} = 0")
        return "r", ATOM
    args = [_node(a, ctx) for a in node.args]
    if name in _SELECT:
        pair, many = _SELECT[name]
        shown = [_paren(text, prec, ATOM) for text, prec in args]
        word = pair if len(shown) == 2 else many
        return f"the {word} of {' and '.join(shown)}", WORDS
    (arg, prec), rest = args[0], args[1:]
    if name == "abs":
        return f"|{arg}|", ATOM
    if name == "sqrt":
        return f"√({arg})", ATOM
    if name == "exp":
        return f"e^({arg})", POW
    if name in ("ln", "log"):
        return f"ln({arg})", ATOM
    if name == "log10":
        return f"log₁₀({arg})", ATOM
    if name == "norm_cdf":
        return f"N({arg})", ATOM
    if name == "ceil":
        return f"⌈{arg}⌉", ATOM
    if name == "floor":
        return f"⌊{arg}⌋", ATOM
    if name == "round":
        places = int(_ctx_value(node.args[1], ctx)) if rest else 0
        return f"{_paren(arg, prec, ATOM)} rounded to {places} decimals", WORDS
    raise ValueError(f"cannot render a call to {name}")


def _ctx_value(node: ast.AST, ctx: _Ctx) -> Any:
    return evaluate_safely(ast.unparse(node), ctx.values)


def _npv_sum(rate_node: ast.AST | None, flows: list[ast.AST], ctx: _Ctx, rate: str | None) -> str:
    """cf0 + cf1/(1 + r) + cf2/(1 + r)^2 + …, with the rate shown as a number (npv) or as r (irr)."""
    if rate is None:
        rate_text, prec = _node(rate_node, ctx)  # type: ignore[arg-type]
        rate = _paren(rate_text, prec, ATOM) if prec < ADD else rate_text
    terms: list[str] = []
    for t, flow in enumerate(flows):
        text, prec = _node(flow, ctx)
        negative = _negative(text) and prec >= UNARY
        body = text[1:] if negative else text
        if t:
            body = _paren(body, prec if not negative else ATOM, ATOM) + f"/(1 + {rate})" + (f"^{t}" if t > 1 else "")
        if not terms:
            terms.append(f"{MINUS}{body}" if negative else body)
        else:
            terms.append(f"{MINUS if negative else '+'} {body}")
    return " ".join(terms)


# -- the step line -------------------------------------------------------------------------------
@cache
def _tree(formula: str) -> ast.AST:
    return parse_formula(formula).body


def _solver(body: ast.AST) -> ast.Call | None:
    """The ``irr(...)`` call when the whole step is the rate (``irr(...)`` or ``irr(...) * 100``)."""
    if isinstance(body, ast.Call) and getattr(body.func, "id", "") == "irr":
        return body
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.Mult):
        for call, other in ((body.left, body.right), (body.right, body.left)):
            if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "irr" and _is_hundred(other):
                return call
    return None


def render_step(
    description: str, formula: str, value: Any, unit: str, values: Mapping[str, Any],
    displays: Mapping[str, str], units: Mapping[str, str], decimals: Mapping[str, int] | None = None,
    own_decimals: int | None = None,
) -> Rendered:
    """The gold line for one step.

    ``values`` holds every parameter and earlier step (what the formula reads), ``displays`` the
    parameters' question displays and ``units`` the earlier steps' units, which decide how each
    number is printed, and ``decimals`` how many decimals each computed step shows (``own_decimals``
    this step's result), so that the line can be redone from the page. Categorical steps read
    "Description: value".
    """
    result = result_text(value, unit, own_decimals)
    if not _is_number(value):
        return Rendered(f"{description}: {result}", {}, result)
    ctx = _Ctx(values, displays, units, decimals or {})
    body = _tree(formula)
    solver = _solver(body)
    if solver is not None:
        equation = _npv_sum(None, solver.args, ctx, rate="r")
        return Rendered(f"{description}: the rate r at which {equation} = 0 is r = {result}", ctx.operands, result)
    expression, _ = _node(body, ctx)
    head = description + (f" (since {' and '.join(ctx.reasons)})" if ctx.reasons else "")
    if _LEADING_NUMBER.fullmatch(expression.removesuffix("%")):  # nothing was computed: a chosen value
        return Rendered(f"{head} = {result}", ctx.operands, result)
    return Rendered(f"{head}: {expression} = {result}", ctx.operands, result)
