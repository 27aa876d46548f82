"""The formula language of template steps, and two ways to evaluate it.

A formula is a Python expression over named earlier values, restricted to arithmetic,
comparisons, conditionals and a short list of finance-friendly functions. Generation compiles a
formula once (after checking its syntax tree against a whitelist) and evaluates the code object,
which is fast enough for tens of thousands of problems a second. The verifier never runs that
code: :func:`evaluate_safely` walks the syntax tree itself, so a stored record from an untrusted
file is re-checked without executing anything from it.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import Any

from finchain_tasks.engine.formatting import round_half_up


class FormulaError(ValueError):
    """A formula uses syntax or names the language does not allow."""


def _irr(*flows: float) -> float:
    """Internal rate of return (as a fraction) of flows at t = 0, 1, 2, ...

    Newton's method from 10% converges in a handful of steps for the conventional flows
    templates use (one sign change); bisection on [-0.99, 10] takes over if Newton leaves the
    bracket. A flow set with no root in that range is a template error.
    """
    lo, hi = -0.99, 10.0
    if _npv(lo, *flows) * _npv(hi, *flows) > 0:
        raise FormulaError(f"irr: no sign change for flows {flows}")
    rate = 0.1
    for _ in range(50):
        value = derivative = 0.0
        for t, cf in enumerate(flows):
            discount = (1.0 + rate) ** -t
            value += cf * discount
            derivative -= t * cf * discount / (1.0 + rate)
        if derivative == 0:
            break
        step = value / derivative
        rate -= step
        if not lo < rate < hi:
            break
        if abs(step) < 1e-13:
            return rate
    return _bisect_irr(flows, lo, hi)


def _bisect_irr(flows, lo: float, hi: float) -> float:
    f_lo = _npv(lo, *flows)
    for _ in range(200):
        mid = (lo + hi) / 2.0
        f_mid = _npv(mid, *flows)
        if f_mid == 0 or hi - lo < 1e-14:
            return mid
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _npv(rate: float, *flows: float) -> float:
    """Net present value at ``rate`` (fraction) of flows at t = 0, 1, 2, ..."""
    return sum(cf / (1.0 + rate) ** t for t, cf in enumerate(flows))


def _ceil(x: float) -> int:
    """Ceiling that ignores float dust: 5.0000000001 (from 1.1 * 100 / 22) counts as 5."""
    return math.ceil(round(x, 9))


def _floor(x: float) -> int:
    return math.floor(round(x, 9))


def _round(x: float, ndigits: int | None = None) -> float:
    """``round`` as a cashier does it: half away from zero, in decimal (2.675 → 2.68, 0.125 → 0.13).

    Python's own ``round`` sends a binary float's half-cent tie up in some draws and down in others.
    """
    if ndigits is None:
        return int(round_half_up(x, 0))
    return round_half_up(x, int(ndigits))


def _norm_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "min": min,
    "max": max,
    "round": _round,
    "exp": math.exp,
    "ln": math.log,
    "log": math.log,
    "log10": math.log10,
    "sqrt": math.sqrt,
    "floor": _floor,
    "ceil": _ceil,
    "norm_cdf": _norm_cdf,
    "npv": _npv,
    "irr": _irr,
}
"""Every function a formula may call: the single source of truth for both evaluators."""

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.Mod: operator.mod,
    ast.FloorDiv: operator.floordiv,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}
_ALLOWED_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.Call,
    ast.Name, ast.Load, ast.Constant, ast.Tuple, ast.List, ast.And, ast.Or,
    *_BINARY, *_UNARY, *_COMPARE,
)
_MAX_EXPONENT = 10_000


def parse_formula(source: str) -> ast.Expression:
    """Parse ``source`` and reject anything outside the formula language."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"formula {source!r} is not a valid expression: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise FormulaError(f"formula {source!r} uses {type(node).__name__}, which is not allowed")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise FormulaError(f"formula {source!r} calls something other than {sorted(FUNCTIONS)}")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise FormulaError(f"formula {source!r} uses the private name {node.id!r}")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool)):
            raise FormulaError(f"formula {source!r} has a constant of type {type(node.value).__name__}")
    return tree


@lru_cache(maxsize=4096)
def names_in(source: str) -> frozenset[str]:
    """The value names a formula reads (function names excluded). Cached: every problem of a template asks
    this of the same formula strings (display precision, wrong-step traces), and the tree walk was a third
    of generating and verifying a problem."""
    tree = _parsed(source)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return frozenset({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called)


_GLOBALS: dict[str, Any] = {"__builtins__": {}, **FUNCTIONS}


@cache
def compile_formula(source: str):
    """Whitelist-check and compile a template's formula; cached per distinct source string."""
    return compile(parse_formula(source), f"<formula {source}>", "eval")


def evaluate_compiled(source: str, values: Mapping[str, Any]) -> Any:
    """Evaluate a template's own formula quickly (generation path; trusted source only)."""
    return eval(compile_formula(source), _GLOBALS, values)  # noqa: S307 - whitelisted AST


def evaluate_safely(source: str, values: Mapping[str, Any]) -> Any:
    """Evaluate ``source`` by walking its syntax tree; never executes code from the record."""
    return _walk(_parsed(source).body, values, source)


@lru_cache(maxsize=4096)
def _parsed(source: str) -> ast.Expression:
    """Checked trees of formulas seen recently (the walk only reads them, so sharing is safe)."""
    return parse_formula(source)


def _walk(node: ast.AST, values: Mapping[str, Any], src: str) -> Any:  # noqa: C901 - a dispatch table
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise FormulaError(f"formula {src!r} reads {node.id!r}, which no earlier parameter or step defines")
        return values[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _walk(node.left, values, src), _walk(node.right, values, src)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > _MAX_EXPONENT:
            raise FormulaError(f"formula {src!r} raises to a power above {_MAX_EXPONENT}")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_walk(node.operand, values, src))
    if isinstance(node, ast.BoolOp):
        results = [_walk(v, values, src) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.Compare):
        left = _walk(node.left, values, src)
        for op, comparator in zip(node.ops, node.comparators):
            right = _walk(comparator, values, src)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        branch = node.body if _walk(node.test, values, src) else node.orelse
        return _walk(branch, values, src)
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id](*(_walk(a, values, src) for a in node.args))
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_walk(e, values, src) for e in node.elts]
    raise FormulaError(f"formula {src!r}: cannot evaluate {type(node).__name__}")
