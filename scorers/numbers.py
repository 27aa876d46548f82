"""Reading numbers out of model text, the way a grader would read them.

Everything here is pure Python and ``re``: one precompiled token regex (no nested unbounded
quantifiers, so a 100 KB hostile input is scanned in linear time) plus small post-processing.
No function raises on any string, and nothing non-finite is ever returned: ``NaN``/``inf`` are not
numbers, and a token that overflows (``1e999``, ``1e308k``) or divides by zero (``3/0``) is skipped.

Rules (``find_numbers`` applies them to running text, ``parse_number`` to a string that should be
exactly one number):

* Currency: ``$ € £ ¥ ₹`` (also ``US$``, ``HK$``...) before or after the number, and the words
  ``USD EUR GBP JPY CNY RMB INR``, ``dollars euros yuan yen 元``. ``Number.unit`` holds the symbol.
* Percent: ``%``, ``percent``, ``per cent``, ``pct``, ``percentage points`` give unit ``"%"``; basis
  points ``bp``, ``bps``, ``basis points`` give unit ``"bp"``. Values are kept as written
  (``5%`` is 5 with unit ``%``); :func:`compare_values` does the scaling.
* Scale words multiply: ``k/K`` and ``thousand`` (1e3), ``m/M``, ``mn``, ``MM``, ``million`` (1e6),
  ``B``, ``bn``, ``billion`` (1e9), ``T``, ``tn``, ``trillion`` (1e12), and ``千 万 亿``. Single letters
  must touch the number (``1.2M``) and not start a word (``5min`` is 5); words may follow a space.
* Signs: ``-x``, unicode minus ``−x``, en-dash ``–x``, before or after a currency symbol
  (``-$5``, ``$-5``). A dash right after a letter or digit is a hyphen or a range, not a sign
  (``2020-2024`` is 2020 and 2024).
* Accounting negatives ``(x)``: ``parse_number`` negates a string that is wholly one parenthesised
  number (``"(3.2%)"``, ``"($1,234)"``, ``"(500)"``). In running text the parentheses must wrap just
  the number (optionally with currency/%), stand in a value position (start of text or line, or
  after ``= : | ≈ →``) and not feed an operator (``(1.05)^5``, ``(1.05) × 2``); otherwise they are
  an aside: ``the rate (8%)`` is +8.
* Scientific notation: ``1.2e5``, ``1.2E-3``, ``1.2 × 10^5``, ``1.2×10⁵``, ``1.2*10**5``,
  ``1.2 \\times 10^{5}``.
* Fractions: ``a/b`` of plain integers with no spaces (``3/4`` is 0.75); ``3/4/2024`` is not one.
* LaTeX and markup are normalised first (:func:`normalize`): ``\\$ \\% {,} \\,``, ``\\frac{a}{b}``,
  ``\\text{}``, ``$…$``/``\\(…\\)`` delimiters, fullwidth digits. ``Number.text`` is the match in that
  normalised text. Approximation marks (``≈ ~ about approximately``) are ignored.

Separator rule (one reading per token, decided by its shape alone):

1. ``,`` followed by exactly three digits, repeated, groups thousands: ``1,234`` is 1234,
   ``1,234,567.5`` is 1234567.5 (also Indian ``12,34,567``).
2. A single space, U+00A0, U+2009 or U+202F followed by exactly three digits groups thousands:
   ``1 234 567``; such a number may end in a decimal ``.`` or ``,``: ``1 234,5`` is 1234.5.
   (So ``100 200`` written with one space reads as 100200; write lists with commas.)
3. Dots group thousands only when unambiguous: two or more dot groups (``1.234.567``) or one dot
   group followed by a decimal comma (``1.234,56`` is 1234.56). ``1.234`` alone is 1.234.
4. A lone comma is a decimal comma when it is followed by 1-2 or 4+ digits, the number has no dot,
   and no further ``,digit`` follows: ``3,5%`` is 3.5%, ``12,3456`` is 12.3456.
5. ``1, 2, 3`` (comma + space) and ``1,2,3`` (a comma list) are separate numbers.
"""

from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass

__all__ = ["Number", "compare_values", "concluding_value", "find_numbers", "normalize", "number_spans",
           "parse_number", "strip_step_marker"]


@dataclass(frozen=True, slots=True)
class Number:
    """A number read from text: its value (always finite), unit and the text it came from."""

    value: float
    unit: str = ""
    text: str = ""


# ---------------------------------------------------------------------------------------------
# Normalisation: fullwidth forms, invisible characters, LaTeX.

_TRANSLATE = {0xFF10 + i: ord("0") + i for i in range(10)}
_TRANSLATE.update({ord("％"): "%", ord("＄"): "$", ord("￥"): "¥", ord("－"): "-", ord("＋"): "+",
                   ord("＝"): "=", ord("．"): ".", ord("⁄"): "/", ord("\r"): "\n", 0x2028: "\n", 0x2029: "\n\n",
                   0x200B: None, 0x200C: None, 0x200D: None, 0xFEFF: None, 0x00AD: None})
_DISPLAY_DOLLARS = re.compile(r"(?<!\\)\$\$")
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=[^\s\d$])([^$\n]{1,400}?)(?<=\S)\$(?![0-9$])")
_TEXT_CMD = re.compile(r"\\(?:text|textrm|textnormal|textit|textsf|mathrm|mathit|mathsf|operatorname|mbox|emph)"
                       r"\s*\{([^{}]*)\}")
_BOLD_CMD = re.compile(r"\\(?:textbf|mathbf|bm|boldsymbol)\s*\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SIMPLE = re.compile(r"\s*[-\w.,$%]*\s*")
_ENV = re.compile(r"\\(?:begin|end)\s*\{[^{}\n]{0,30}\}(?:\{[^{}\n]{0,30}\})?")
_COMMAND = re.compile(r"\\\\[ \t]*\n?|\\([A-Za-z]+)|\\([,;:! $%&#_{}()\[\]])")
_ALIGN_AMP = re.compile(r"&[ \t]*(?=[=≈])|(?<=[=≈])[ \t]*&")
_COMMANDS = {
    "times": "×", "cdot": "·", "approx": "≈", "simeq": "≈", "div": "÷", "to": "→", "rightarrow": "→",
    "Rightarrow": "⇒", "implies": "⇒", "longrightarrow": "→", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥",
    "neq": "≠", "ne": "≠", "pm": "±", "left": "", "right": "", "big": "", "Big": "", "bigl": "", "bigr": "",
    "displaystyle": "", "quad": " ", "qquad": " ", "ldots": "…", "dots": "…", "cdots": "…", "percent": "%",
    "therefore": "∴", "$": "$", "%": "%", "&": "&", "#": "#", "_": "_", "{": "", "}": "", "(": "", ")": "",
    "[": "", "]": "", ",": "\u2009", ";": " ", ":": " ", "!": "", " ": " ",
}


def _frac(m: re.Match) -> str:
    a, b = m.group(1).strip(), m.group(2).strip()
    if _SIMPLE.fullmatch(a) and _SIMPLE.fullmatch(b):
        return f"{a}/{b}"
    return f"({a})/({b})"


def _command(m: re.Match) -> str:
    if m.group(0).startswith("\\\\"):
        return "\n"
    name = m.group(1) or m.group(2)
    return _COMMANDS.get(name, m.group(0))


def normalize(text: str) -> str:
    """Fold the ways a number can be dressed up (LaTeX, fullwidth forms) into plain text.

    Math delimiters go but their content stays; ``\\\\`` becomes a line break; ``\\textbf{x}``
    becomes ``**x**`` so that one highlight rule covers Markdown and LaTeX; ``\\boxed{}`` stays.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    s = text.replace("\r\n", "\n").replace("{,}", ",").translate(_TRANSLATE)
    # each pattern below needs a character most steps lack ('$', a backslash, '&'), and no substitution adds one
    # an earlier check found absent: skipping a scan that cannot match leaves the text as it would have been
    if "$" in s:
        s = _DISPLAY_DOLLARS.sub("", s)
        s = _INLINE_MATH.sub(r"\1", s)
    if "\\" in s:
        s = _TEXT_CMD.sub(r"\1", s)
        s = _BOLD_CMD.sub(r"**\1**", s)
        for _ in range(3):
            s, n = _FRAC.subn(_frac, s)
            if not n:
                break
        s = _ENV.sub("", s)
        s = _COMMAND.sub(_command, s)
    return _ALIGN_AMP.sub("", s) if "&" in s else s


# ---------------------------------------------------------------------------------------------
# The number token.

_MINUS = frozenset("-−–‒")
_NUMBER = re.compile(r"""
(?<![0-9A-Za-z_.])
(?P<open>\([\ \t]?)?
(?P<s1>[-+−–‒])?
(?P<c1>US\$|A\$|C\$|HK\$|S\$|NZ\$|R\$|[$€£¥₹]|(?:USD|EUR|GBP|JPY|CNY|RMB|INR|Rs\.?)[\ \u00a0]?)?
(?P<s2>[-+−–‒])?
(?P<num>
    (?P<frac>(?<![0-9]/)[0-9]{1,15}/[0-9]{1,15}(?![0-9]|[/.,][0-9]))
  | (?P<gcomma>[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?)
  | (?P<gindian>[0-9]{1,2}(?:,[0-9]{2})+,[0-9]{3}(?![0-9])(?:\.[0-9]+)?)
  | (?P<gdot>[0-9]{1,3}(?:\.[0-9]{3}){2,}(?![0-9])(?:,[0-9]+)?|[0-9]{1,3}\.[0-9]{3},[0-9]+)
  | (?P<gspace>[0-9]{1,3}(?:[\ \u00a0\u2009\u202f][0-9]{3})+(?![0-9])(?:[.,][0-9]+)?)
  | (?P<dcomma>(?<![0-9],)[0-9]+,(?:[0-9]{1,2}|[0-9]{4,})(?![0-9]|[.,][0-9]))
  | (?P<plain>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)
)
(?P<exp>[eE][-+−]?[0-9]+)?
(?P<sci>[\ \t]{0,2}[×xX*·][\ \t]{0,2}10
    (?:\^\{?[\ \t]?(?P<e1>[-+−]?[0-9]+)[\ \t]?\}?|\*\*(?P<e3>[-+−]?[0-9]+)|(?P<e2>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)))?
(?P<mult>
    [\ \t]?(?i:thousand|million|billion|trillion|mn|mln|mio|bn|bln|tn)(?![A-Za-z])
  | [\ \t]?MM(?![A-Za-z])
  | [kKmMBT](?![A-Za-z])
  | 万亿|千|万|亿
)?
(?P<unit>
    [\ \t]?(?P<pct>%|(?i:percent(?:age[\ \t]points?)?|per[\ \t]?cent|pct)(?![A-Za-z]))
  | [\ \t]?(?P<bp>(?i:bps|bp|basis[\ \t]points?)(?![A-Za-z]))
  | [\ \t]?(?P<c2>[$€£¥₹](?![0-9])|(?:USD|EUR|GBP|JPY|CNY|RMB|INR)(?![A-Za-z])
              |(?i:dollars?|euros?|yuan|yen)(?![A-Za-z])|美元|元)
)?
(?P<close>[\ \t]?\))?
""", re.VERBOSE)

_SCALE = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12, "mn": 6, "mln": 6, "mio": 6, "bn": 9,
          "bln": 9, "tn": 12, "MM": 6, "k": 3, "K": 3, "m": 6, "M": 6, "B": 9, "T": 12, "千": 3, "万": 4,
          "亿": 8, "万亿": 12}
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_CURRENCY = {"€": "€", "EUR": "€", "euro": "€", "euros": "€", "£": "£", "GBP": "£", "¥": "¥", "JPY": "¥",
             "CNY": "¥", "RMB": "¥", "yuan": "¥", "yen": "¥", "元": "¥", "₹": "₹", "INR": "₹", "Rs": "₹"}
_MAX_EXP_DIGITS = 5


def _currency(token: str | None) -> str:
    if not token:
        return ""
    token = token.strip().rstrip(".")
    if "$" in token or token.upper() == "USD" or token.lower().startswith("dollar") or token == "美元":
        return "$"
    return _CURRENCY.get(token, _CURRENCY.get(token.lower(), _CURRENCY.get(token.upper(), "")))


def _exponent(m: re.Match) -> int | None:
    """Total power of ten from ``e5``, ``× 10^5`` and scale words; None when absurdly large."""
    total = 0
    parts = [m.group("exp")[1:] if m.group("exp") else None, m.group("e1"), m.group("e3"),
             m.group("e2").translate(_SUPERSCRIPT) if m.group("e2") else None]
    for part in parts:
        if part:
            part = part.replace("−", "-")
            if len(part.lstrip("+-")) > _MAX_EXP_DIGITS:
                return None
            total += int(part)
    if m.group("mult"):
        word = m.group("mult").strip()
        total += _SCALE.get(word, _SCALE.get(word.lower(), 0))
    return total


def _mantissa(m: re.Match) -> str | None:
    """The core digits as a string ``float()`` accepts, or None (zero denominator)."""
    num = m.group("num")
    if m.group("frac"):
        a, b = num.split("/")
        if int(b) == 0:
            return None
        return repr(float(a) / float(b))
    if m.group("gcomma") or m.group("gindian"):
        return num.replace(",", "")
    if m.group("gdot"):
        return num.replace(".", "").replace(",", ".")
    if m.group("gspace"):
        for sep in " \u00a0\u2009\u202f":
            num = num.replace(sep, "")
        return num.replace(",", ".")
    if m.group("dcomma"):
        return num.replace(",", ".")
    return num


def _value(m: re.Match) -> float | None:
    mantissa, shift = _mantissa(m), _exponent(m)
    if mantissa is None or shift is None:
        return None
    if "e" in mantissa:  # a fraction's repr, e.g. 1e-15
        mantissa, extra = mantissa.split("e")
        shift += int(extra)
    try:
        value = float(f"{mantissa}e{shift}")
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


_OPERATORS = frozenset("×*/÷·^+-−–")
_TIMES_LETTER = re.compile(r"[xX](?=[ \t0-9(])")
"""``x``/``X`` written as a times sign (``(1.05) x 2``), as the token regex reads it in ``1.2 x 10^5``."""
_VALUE_LEFT = frozenset("=:：|≈→⇒\n")


def _in_value_position(s: str, start: int, end: int) -> bool:
    """Whether ``(x)`` spanning ``s[start:end]`` reads as a value, not as an aside or a factor."""
    left = s[max(0, start - 40):start].rstrip(" \t")
    if left.endswith(("**", "__")) and not left[:-2][-1:].isalnum():
        left = left[:-2].rstrip(" \t")
    if left and left[-1] not in _VALUE_LEFT:
        return False
    right = s[end:end + 3].lstrip(" \t")
    if right.startswith(("**", "__")):
        return True
    return not right or (right[0] not in _OPERATORS and right[0] != "(" and not _TIMES_LETTER.match(right))


def _build(m: re.Match, s: str, strict: bool) -> Number | None:
    value = _value(m)
    if value is None:
        return None
    unit = "%" if m.group("pct") else "bp" if m.group("bp") else _currency(m.group("c1") or m.group("c2"))
    negative = bool({m.group("s1"), m.group("s2")} & _MINUS)
    start, end = m.start(), m.end()
    wrapped = bool(m.group("open") and m.group("close"))
    if wrapped and not (m.group("s1") or m.group("s2")) and (strict or _in_value_position(s, start, end)):
        negative = True
    else:
        start += len(m.group("open") or "")
        end -= len(m.group("close") or "")
    value = -value if negative else value
    return Number(value + 0.0, unit, s[start:end].strip())


def _scan(s: str, pos: int = 0):
    """Numbers of already-normalised text, from ``pos`` on, lazily and in reading order."""
    for m in _NUMBER.finditer(s, pos):
        number = _build(m, s, False)
        if number is not None:
            yield number


def number_spans(s: str) -> list[tuple[int, int, Number]]:
    """(start, end, number) for every number of already-normalised text ``s``, in reading order:
    what :mod:`scorers.answers` needs to judge each number by the words around it."""
    out = []
    for m in _NUMBER.finditer(s):
        number = _build(m, s, False)
        if number is not None:
            out.append((m.start(), m.end(), number))
    return out


def find_numbers(text: str) -> list[Number]:
    """Every number in ``text``, in reading order (dates and step labels included)."""
    return list(_scan(normalize(text)))


# ---------------------------------------------------------------------------------------------
# One string, one number.

_APPROX = re.compile(r"^(?:≈|~|∼|≃|(?i:(?:about|approximately|approx|around|roughly|circa|nearly)\b\.?|ca\.))\s*")
_WRAPPERS = (("**", "**"), ("__", "__"), ("`", "`"), ("\\boxed{", "}"), ("{", "}"), ('"', '"'))
_TRAILING_WORDS = re.compile(r"\s*[^\W\d_][^\W\d]*(?:[ \-][^\W\d_][^\W\d]*){0,3}\s*")


def _unwrap(s: str) -> str:
    """Peel markup, approximation words and sentence punctuation off a would-be number."""
    for _ in range(4):
        before = s
        s = s.strip().rstrip(".;,!?。").strip()
        s = _APPROX.sub("", s)
        if s.startswith(("=", ":")):
            s = s[1:]
        for head, tail in _WRAPPERS:
            if len(s) > len(head) + len(tail) and s.startswith(head) and s.endswith(tail):
                s = s[len(head):-len(tail)]
        if s == before:
            break
    return s.strip()


def parse_number(text: str) -> Number | None:
    """The number a string stands for (``"$1,234.50"``, ``"(3.2%)"``, ``"≈ 12 bps"``), else None.

    The whole string must be one number, possibly wrapped in markup or followed by plain unit
    words (``"7 years"``); ``"1, 2, 3"`` and ``"Project A"`` are not numbers.
    """
    s = _unwrap(normalize(text))
    if not s or len(s) > 500:
        return None
    m = _NUMBER.fullmatch(s)
    if m is None:
        m = _NUMBER.match(s)
        if m is None or m.group("close") or not _TRAILING_WORDS.fullmatch(s, m.end()):
            return None
    return _build(m, s[:m.end()], True)


# ---------------------------------------------------------------------------------------------
# The value a step concludes with.

_STEP_LABEL = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?:#{1,6}[ \t]*)?(?:(?P<b>\*\*|__)[ \t]*)?(?i:step)(?:[ \t]*#)?[ \t]*[0-9]{1,3}(?![0-9])"
    r"(?:[ \t]*(?:[:.)]|[\-–—](?=\s)))?(?P<close>[ \t]*(?P=b))?(?:[ \t]*[:.])?[ \t]*", re.M)
_LIST_ITEM = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?P<b>\*\*|__)?(?:[0-9]{1,3}[.)]|\([0-9]{1,3}\))(?P<close>(?P=b))?[ \t]+(?=\S)", re.M)
_BULLET = re.compile(r"^[ \t]*[-*•+‣◦▪][ \t]+(?=\S)", re.M)


def strip_step_marker(text: str) -> str:
    """``text`` without a leading ``Step 3:``, ``**Step 2.**``, ``### Step 1``, ``2.``, ``(1)`` or bullet.

    When the marker opened a bold span that closes later (``**Step 2: Compute FV** = …``) the
    matching ``**`` is removed too, so later highlight detection sees balanced markup.
    """
    s = text.lstrip()
    for _ in range(3):
        m = _STEP_LABEL.match(s) or _LIST_ITEM.match(s) or _BULLET.match(s)
        if m is None or m.end() == 0:
            break
        s = s[m.end():]
        bold = m.groupdict().get("b")
        if bold and not m.group("close"):
            line_end = s.find("\n") if "\n" in s else len(s)
            at = s.find(bold, 0, line_end)
            if at >= 0:
                s = s[:at] + s[at + len(bold):]
    return s.strip()


_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_BOLD = re.compile(r"\*\*([^*\n]{1,300}?)\*\*")
_EQUALS = re.compile(r"=|≈|≅|≃")
_ARROWS = re.compile(r"→|⇒|⟹|->")


def _last(items):
    """The last item of an iterator (or None) without keeping the others."""
    tail = deque(items, maxlen=1)
    return tail[0] if tail else None


def _first(s: str, pos: int = 0) -> Number | None:
    return next(_scan(s, pos), None)


def _after_last(pattern: re.Pattern, s: str) -> Number | None:
    """The first number after the last match of ``pattern``; None if no match or no number."""
    last = _last(pattern.finditer(s))
    return None if last is None else _first(s, last.end())


def _highlighted(s: str) -> Number | None:
    """The result a step highlights: the last ``\\boxed{}``, else the last ``**bold**`` holding a number.

    Bold labels (``**Year 1 (2024):**``, ``**Year 1**: …``) are headings, not results.
    """
    for m in reversed(list(_BOXED.finditer(s))):
        if (number := _inner(m.group(1))) is not None:
            return number
    for m in reversed(list(_BOLD.finditer(s))):
        content = m.group(1)
        if content.rstrip().endswith((":", "：")) or s[m.end():m.end() + 3].lstrip().startswith((":", "：")):
            continue
        if (number := _inner(content)) is not None:
            return number
    return None


def _inner(s: str) -> Number | None:
    """The value inside a highlight: after its last ``=``, else its first number."""
    return _after_last(_EQUALS, s) or _first(s)


def concluding_value(text: str) -> Number | None:
    """The value a step concludes with, or None when the step holds no number.

    In order: a highlighted result (``\\boxed{…}``, ``**…**``, ``\\textbf{…}``); the first number after
    the last ``=`` or ``≈`` (both state a result: ``= 1.075^5 ≈ 1.4356``); the first number after the
    last arrow (``→ ⇒ ->``); the last number in the step. A leading step label or list marker is
    removed first, so ``Step 3:`` never counts. Colons do not introduce a result: in
    ``Growth: 1.075^5 is about 1.4356`` the last number is the conclusion, not the first.
    """
    s = strip_step_marker(normalize(text))
    found = _highlighted(s) or _after_last(_EQUALS, s) or _after_last(_ARROWS, s)
    if found is not None:
        return found
    return _last(_scan(s))


# ---------------------------------------------------------------------------------------------
# Comparing a predicted number with a gold value.

_UNIT_ALIASES = {"%": "%", "percent": "%", "pct": "%", "percentage": "%", "bp": "bp", "bps": "bp",
                 "basis point": "bp", "basis points": "bp", "pp": "%", "ppt": "%", "pps": "%",
                 "percentage point": "%", "percentage points": "%"}
"""A percentage-point gold (``pp``) is a percent for comparison: 25 bp is 0.25 pp, as against text gold."""
_GOLD_SCALE = re.compile(r"^(?i:(thousand|million|billion|trillion|mn|bn))\b")
_SCALE_WORD = {"thousand": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9, "trillion": 12}
_FAMILY = {("%", ""): (0.01, 1.0), ("", "%"): (1.0, 100.0), ("bp", "%"): (0.01,), ("%", "bp"): (100.0,),
           ("bp", ""): (1e-4, 1.0), ("", "bp"): (1.0, 1e4)}


def _canonical_unit(unit: str) -> str:
    """``"%"``, ``"bp"``, a currency symbol, or ``""`` for every dimensionless unit (years, times)."""
    unit = (unit or "").strip()
    if unit.lower() in _UNIT_ALIASES:
        return _UNIT_ALIASES[unit.lower()]
    return _currency(unit)


def compare_values(pred: Number, gold: float, gold_unit: str) -> list[float]:
    """Candidate readings of ``pred`` in the gold value's unit; the numeric gate accepts any.

    Scaling happens only inside the dimensionless family {plain, %, bp}, and the literal reading
    is kept wherever a writer could plausibly have dropped the unit:

    * pred ``5%`` vs a plain gold: ``[0.05, 5.0]`` (a fraction, or a percentage written bare);
    * pred ``0.05`` vs a ``%`` gold: ``[0.05, 5.0]`` (the literal, or a fraction meant as percent);
    * pred ``25 bp`` vs ``%``: ``[0.25]``; pred ``0.25%`` vs ``bp``: ``[25.0]`` (100 bp = 1%);
    * pred ``25 bp`` vs plain: ``[0.0025, 25.0]``; pred ``0.0025`` vs ``bp``: ``[0.0025, 25.0]``;
    * same unit, or a currency on either side: ``[value]`` (currency symbols never scale);
    * a gold unit that opens with a scale word (``"million shares"``, ``"billion dollars"``) adds the
      reading in that scale: pred ``$17 billion`` vs gold 17 ``billion dollars``: ``[1.7e10, 17.0]``;
    * a percentage-point gold unit (``pp``) counts as ``%``: pred ``25 bp`` vs 0.25 ``pp``: ``[0.25]``.

    ``gold`` is accepted so callers pass the pair they compare; the candidates do not depend on it.
    """
    del gold
    key = (_canonical_unit(pred.unit), _canonical_unit(gold_unit))
    factors = _FAMILY.get(key, (1.0,))
    scale = _GOLD_SCALE.match((gold_unit or "").strip())
    if scale:  # gold 17 "billion dollars": "$17 billion" (1.7e10) reads as 17, "17" stays 17
        factors = (*factors, 10.0 ** -_SCALE_WORD[scale.group(1).lower()])
    out: list[float] = []
    for factor in factors:
        candidate = pred.value * factor
        if math.isfinite(candidate) and candidate not in out:
            out.append(candidate)
    return out
