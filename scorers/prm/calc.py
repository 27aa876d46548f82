"""``calc``: a reference-free arithmetic checker used as a PRM.

For every ``=`` (or ``≈``) in a step it reads the written expression on its left and the written
result on its right, evaluates both with a small exact-grammar parser (no ``eval``) and says whether
the result follows from the operands. It never sees the gold answer.

Grammar (operators as models write them): numbers with thousands commas and currency symbols
(``$1,200.50``), ``x%`` (= x/100), ``+ - − –``, ``× * ·``, ``÷ /``, ``^`` and ``**`` (right
associative), unary minus, parentheses, ``√x`` and ``⌈x⌉``, and scale words after a result
(``= 5.2 million``). A result written with ``%`` also matches an expression that already multiplied by
100 (``235.05 ÷ 26,270 × 100 = 0.8947%``).

Verdicts: a step is 1.0 when every check in it holds, 0.0 when any fails, and ``None`` (no verdict,
neutral, counted) when it holds no checkable ``expression = result``: a plain statement, a function
the grammar does not know (``ln(…)``, ``N(d1)``), words inside the expression, an unbalanced
parenthesis, division by zero, an overflow. Nothing here raises on any text.

Tolerance: a result holds if it is within half a unit of its last written decimal, or within
:data:`REL_TOL` of the computed value (models round intermediate values and carry them on).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from scorers.numbers import normalize
from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRMInput, PRMScore, make_score

__all__ = ["REL_TOL", "CalcPRM", "Check", "check_step", "checks", "evaluate"]

REL_TOL = 5e-3
MAX_EXPR = 400
"""Longer expressions are not checked (no verdict): a hostile step cannot cost more than linear time."""

_EQ = re.compile(r"[=≈]")
_ALLOWED = frozenset("0123456789,. \t×*·÷/+-−–^()%$€£¥₹√⌈⌉")
_TOKEN = re.compile(r"\s*(?:(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)|(?P<op>\*\*|[-+−–×*·÷/^()%√⌈⌉]))")
_CURRENCY = re.compile(r"[$€£¥₹]")
_SCALE = re.compile(r"\s*(thousand|million|billion|trillion|bn|mn|k|m|b)\b", re.I)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9,
           "b": 1e9, "trillion": 1e12}
_BINARY = {"+": 1, "-": 1, "*": 2, "/": 2}
_CANON = {"−": "-", "–": "-", "×": "*", "·": "*", "÷": "/", "**": "^"}


class _Bad(Exception):
    """The expression is outside the grammar: no verdict."""


_SCAN = re.compile(_TOKEN.pattern + r"|\s*(?P<bad>\S)")
_PLAIN = re.compile(r"\s*(?P<sign>[-−–]?)\s*(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*(?P<pct>%?)\s*")
_NEEDS_NORMALIZE = re.compile(r"[\\\uFF01-\uFF5E\u200B-\u200D\u2028\u2029\uFEFF\u00AD\r]|\$(?=[^\s\d$])")


def _tokens(expr: str) -> list[tuple[str, str]]:
    """(kind, text) tokens; anything the grammar does not know makes the whole expression unreadable."""
    out = []
    for m in _SCAN.finditer(_CURRENCY.sub("", expr)):
        if m.group("bad") is not None:
            raise _Bad(expr)
        if m.group("num") is not None:
            out.append(("num", m.group("num").replace(",", "")))
        else:
            out.append(("op", _CANON.get(m.group("op"), m.group("op"))))
    return out


class _Parser:
    """Recursive descent over the tokens; precedence + - < * / < unary - < ^ < postfix %."""

    def __init__(self, tokens: list[tuple[str, str]]):
        self.toks, self.i, self.ops = tokens, 0, 0

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        if self.i >= len(self.toks):
            raise _Bad("end")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expr(self, level: int = 1) -> float:
        if level > 2:
            return self.unary()
        left = self.expr(level + 1)
        while (op := self.peek()) in _BINARY and _BINARY[op] == level:
            self.take()
            self.ops += 1
            left = _apply(op, left, self.expr(level + 1))
        return left

    def unary(self) -> float:
        if self.peek() in ("-", "+"):
            sign = -1.0 if self.take()[1] == "-" else 1.0
            return sign * self.unary()
        return self.power()

    def power(self) -> float:
        """``^`` binds tighter than a leading minus (-2^2 = -4) and is right associative."""
        base = self.postfix()
        if self.peek() != "^":
            return base
        self.take()
        self.ops += 1
        return _apply("^", base, self.unary())

    def postfix(self) -> float:
        value = self.primary()
        while self.peek() == "%":
            self.take()
            value /= 100.0
        return value

    def primary(self) -> float:
        kind, text = self.take()
        if kind == "num":
            return float(text)
        if text == "(":
            value = self.expr()
            if self.take()[1] != ")":
                raise _Bad(")")
            return value
        if text == "√":
            self.ops += 1
            value = self.postfix()
            if value < 0:
                raise _Bad("sqrt")
            return math.sqrt(value)
        if text == "⌈":
            self.ops += 1
            value = self.expr()
            if self.take()[1] != "⌉":
                raise _Bad("⌉")
            return float(math.ceil(value))
        raise _Bad(text)


def _apply(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise _Bad("division by zero")
        return a / b
    if abs(b) > 1000 or (a < 0 and not float(b).is_integer()):
        raise _Bad("power")
    return a ** b


def evaluate(expr: str) -> tuple[float, int]:
    """(value, number of operators) of a written expression; raises ``ValueError`` outside the grammar."""
    plain = _PLAIN.fullmatch(_CURRENCY.sub("", expr))
    if plain:  # a bare number (most results): no parser needed
        value = float(plain.group("num").replace(",", ""))
        value = -value if plain.group("sign") else value
        return (value / 100.0 if plain.group("pct") else value), 0
    try:
        tokens = _tokens(expr)
        parser = _Parser(tokens)
        value = parser.expr()
        if parser.i != len(tokens) or not math.isfinite(value):
            raise _Bad("trailing")
        return value, parser.ops
    except (_Bad, OverflowError, RecursionError) as exc:
        raise ValueError(f"not an expression: {expr!r}") from exc


@dataclass(frozen=True, slots=True)
class Check:
    """One ``expression = result`` found in a step and whether it holds."""

    expression: str
    result: str
    computed: float
    written: float
    holds: bool


def _left(s: str, end: int, floor: int) -> str | None:
    """The expression written just before ``end``; None when it is glued to a word (``ln(…)``)."""
    j = end - 1
    while j >= floor and s[j] in _ALLOWED:
        j -= 1
    start = j + 1
    if j >= floor and s[j].isalnum() and start < end and not s[start].isspace():
        return None
    return s[start:end].strip()


def _right(s: str, start: int, stop: int) -> tuple[str, float]:
    """The result written just after ``start`` and its scale factor (``million``)."""
    k = start
    while k < stop and s[k] in _ALLOWED:
        k += 1
    scale = _SCALE.match(s, k)
    factor = _SCALES[scale.group(1).lower()] if scale and k < stop else 1.0
    return s[start:k].strip().rstrip(".,").strip(), factor


def _decimals(text: str) -> int:
    m = re.search(r"\.(\d+)\s*%?\s*$", text)
    return len(m.group(1)) if m else 0


def _holds(computed: float, written: float, result: str, factor: float = 1.0) -> bool:
    """Within half a unit of the last written decimal, or within :data:`REL_TOL`, of one reading of
    the result: as written, as a percentage figure (``0.89%`` after ``× 100``), or without its scale word."""
    pct = result.rstrip().endswith("%")
    half = 0.5 * 10.0 ** -_decimals(result) * (0.01 if pct else 1.0) * factor
    targets = [(written, half)]
    if pct:
        targets.append((written * 100.0, half * 100.0))
    if factor != 1.0:
        targets.append((written / factor, half / factor))
    return any(abs(computed - t) <= max(h * 1.000001, REL_TOL * abs(t)) for t, h in targets)


def checks(text: str) -> list[Check]:
    """Every checkable ``expression = result`` in a step, in order."""
    s = normalize(text) if _NEEDS_NORMALIZE.search(text) else text
    eqs = [m.start() for m in _EQ.finditer(s)]
    found = []
    for n, pos in enumerate(eqs):
        floor = eqs[n - 1] + 1 if n else 0
        stop = eqs[n + 1] if n + 1 < len(eqs) else len(s)
        left = _left(s, pos, floor)
        result, factor = _right(s, pos + 1, stop)
        if not left or not result or len(left) > MAX_EXPR or len(result) > MAX_EXPR:
            continue
        try:
            computed, ops = evaluate(left)
            written, _ = evaluate(result)
        except ValueError:
            continue
        if ops == 0:
            continue
        written *= factor
        found.append(Check(left, result, computed, written, _holds(computed, written, result, factor)))
    return found


@lru_cache(maxsize=1 << 16)
def check_step(text: str) -> bool | None:
    """True when every check in the step holds, False when one fails, None when there is nothing to check.
    Cached: the candidates of one pool often share steps word for word."""
    found = checks(text)
    if not found:
        return None
    return all(c.holds for c in found)


class CalcPRM:
    """The ``calc`` backend: step probability 1.0 / 0.0 / no verdict; no trajectory probability."""

    name = "calc"

    def __init__(self, agg: str = DEFAULT_AGG, zeta: float = DEFAULT_ZETA):
        self.agg, self.zeta = agg, zeta

    def score_batch(self, items: Sequence[PRMInput]) -> list[PRMScore]:
        """Deterministic and model-free, so a batch is just a loop."""
        out = []
        for item in items:
            verdicts = [check_step(step) for step in item.steps]
            probs = [None if v is None else float(v) for v in verdicts]
            out.append(make_score(probs, None, agg=self.agg, zeta=self.zeta, prm=self.name))
        return out
