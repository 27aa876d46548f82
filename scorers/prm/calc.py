"""``calc``: a reference-free arithmetic checker used as a PRM.

For every ``=`` (or ``≈``) in a step it reads the written expression on its left and the written
result on its right, evaluates both with a small exact-grammar parser (no ``eval``) and says whether
the result follows from the operands. It never sees the gold answer.

Grammar (operators as models write them): numbers with thousands commas and currency symbols
(``$1,200.50``), ``x%`` (= x/100), ``+ - − –``, ``× * ·``, ``÷ /``, ``^`` and ``**`` (right
associative), unary minus, parentheses, ``√x`` and ``⌈x⌉``, and scale words after a result
(``= 5.2 million``). Operators written as words or in ASCII or LaTeX are read as what they are before
anything is parsed (:func:`rewrite`): ``x`` / ``X`` between operands, ``times``, ``multiplied by``, ``of``
after a percent (``5% of 200``), ``\\times``, ``\\cdot``, ``\\div``, ``\\frac{a}{b}`` (as ``((a)/(b))``),
``\\sqrt{x}``, and LaTeX braces (``^{2}``).

Percent readings. A percent is ambiguous only where the text leaves it so:

* ``x% / 100`` (and ``÷ 100``) is the conversion of a percent figure to its decimal (``1.3% / 100 =
  0.013``): the ``%`` is a label there, read once, not divided twice, so the literal ``1.3% / 100 =
  0.00013`` is the 100-fold slip a reader sees in it. A percentage divided by a percentage (``12% / 100% =
  0.12``, ``100% / 100% = 1``) is a plain quotient: both percents are read.
* A result written with ``%`` after an expression with no ``%`` has two readings: a percent figure (``235.05
  ÷ 26,270 × 100 = 0.8947%``) or a fraction (``0.05 × 2 = 10%``), the fraction only up to 100% unless the
  expression is a return (it holds a bare 1: ``(57,317 / 12,054) − 1 = 375.50%``): ``(7.6 + 7.9) ÷ 2 =
  775%`` (7.75 as a fraction would be 775%) is the 100-fold slip it looks like and is wrong.
* When both sides carry explicit percents (``5% + 3% = 0.08%``) the result is read as written; the figure
  reading is allowed only if the expression also holds a bare number other than 1 (``10 × (1 − 67%) =
  3.3%``: ROE 10, a percent figure without its sign; ``(… − 1) × 100 = 6.73%``).

Verdicts: a step is 1.0 when every check in it holds, 0.0 when any fails, and ``None`` (no verdict,
neutral, counted) when it holds no checkable ``expression = result``: a plain statement, a function
the grammar does not know (``ln(…)``, ``N(d1)``), words inside the expression, an expression that starts
right after a word the grammar cannot read as an operator (``P (1 + r)``, ``119,492 by (1 − 34%)``: read
from the parenthesis it would be a wrong verdict on a truncated expression), an unbalanced parenthesis,
division by zero, an overflow. Nothing here raises on any text.

Tolerance: a result holds if it is within half a unit of its last written decimal, or within
:data:`REL_TOL` of the computed value (models round intermediate values and carry them on).

Measured on the FinChain authors' model generations by ``benchmarks/calc_bench.py`` (figures in
docs/best-of-n.md, "calc on real generations").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from scorers.numbers import normalize
from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRMInput, PRMScore, make_score

__all__ = ["REL_TOL", "CalcPRM", "Check", "check_step", "checks", "evaluate", "rewrite"]

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


_LATEX_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LATEX_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_OPERAND = r"(?=[ \t]*[-−–]?[ \t]*[\d(.$€£¥₹√⌈])"
_TIMES_X = re.compile(r"(?<=[\d)%])[ \t]*[xX][ \t]*" + _OPERAND)
_TIMES_WORD = re.compile(r"(?<=[\d)%])[ \t]+(?:times|multiplied[ \t]+by)[ \t]*" + _OPERAND, re.I)
_PCT_OF = re.compile(r"(?<=%)[ \t]+of[ \t]*" + _OPERAND, re.I)
_PCT_CONVERT = re.compile(r"(?<=\d)[ \t]*%(?=[ \t]*[/÷][ \t]*100(?![\d.,%]))")
_OPERATOR_WORDS = frozenset({"x", "times", "by", "of", "plus", "minus", "over", "per", "into", "divided",
                             "multiplied", "less", "and"})
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[ \t]*$")
_FIGURE = re.compile(r"(\d[\d,]*(?:\.\d+)?|\.\d+)[ \t]*(%?)")


def rewrite(text: str) -> str:
    """The text with operators in words, ASCII and LaTeX turned into the grammar's symbols (see the module
    docstring); LaTeX is unfolded first (``\\frac`` fully bracketed, so ``6 / \\frac{1}{2}`` stays 12)."""
    s = text
    if "\\" in s:
        for _ in range(4):
            s, n = _LATEX_FRAC.subn(lambda m: f"(({m.group(1)})/({m.group(2)}))", s)
            s, k = _LATEX_SQRT.subn(lambda m: f"√({m.group(1)})", s)
            if not n + k:
                break
    if _NEEDS_NORMALIZE.search(s):
        s = normalize(s)
    s = s.replace("{", "(").replace("}", ")")
    s = _TIMES_X.sub(" × ", s)
    s = _TIMES_WORD.sub(" × ", s)
    s = _PCT_OF.sub(" × ", s)
    return _PCT_CONVERT.sub("", s)


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
    word = _WORD_BEFORE.search(s, floor, start)
    if word and (word.group(1).lower() in _OPERATOR_WORDS or (len(word.group(1)) == 1 and word.group(1) != "a")):
        return None  # "P (1 + r)", "119,492 by (1 - 34%)": the expression began before; no verdict on a part
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


def _holds(computed: float, written: float, result: str, factor: float = 1.0, expression: str = "") -> bool:
    """Within half a unit of the last written decimal, or within :data:`REL_TOL`, of one reading of the
    result: as written, as a percentage figure (``0.89%`` after ``× 100``) where the percent is ambiguous
    (module docstring), or without its scale word."""
    pct = result.rstrip().endswith("%")
    half = 0.5 * 10.0 ** -_decimals(result) * (0.01 if pct else 1.0) * factor
    targets = []
    if pct:
        figures = _FIGURE.findall(expression)
        explicit = any(sign for _, sign in figures)
        bare = any(not sign and _num(n) != 1.0 for n, sign in figures)
        ones = any(not sign and _num(n) == 1.0 for n, sign in figures)  # a return: ratio - 1, (1 + r)^n - 1
        if explicit or ones or abs(written) <= 1.0 + 1e-12:  # else a fraction read as a percent: at most 100%
            targets.append((written, half))
        if not explicit or bare:
            targets.append((written * 100.0, half * 100.0))
    else:
        targets.append((written, half))
    if factor != 1.0:
        targets.append((written / factor, half / factor))
    return any(abs(computed - t) <= max(h * 1.000001, REL_TOL * abs(t)) for t, h in targets)


def _num(text: str) -> float:
    return float(text.replace(",", "")) if text.strip(",.") else float("nan")


def checks(text: str) -> list[Check]:
    """Every checkable ``expression = result`` in a step, in order."""
    s = rewrite(text)
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
        found.append(Check(left, result, computed, written, _holds(computed, written, result, factor, left)))
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
