"""Which quantity a conclusion states: the number a careful reader takes as the answer.

A concluding sentence often carries more numbers than its answer: a duration ("over a 9-day
horizon"), a threshold ("the Basel minimum of 3%"), a yardstick ("for every $1 of liabilities"),
a share of something ("which is 69% of the original"). Taking the last number, or the first, reads
those as the answer. :func:`conclusion_value` ranks a sentence's numbers instead:

1. a highlighted number (``**$318,304**``, ``\\boxed{}``) in the concluding sentence;
2. the first number after a stating verb (``is``, ``are``, ``=``, ``equals``, ``will receive``,
   ``comes to``...) that is not incidental;
3. the other numbers that are not incidental, last first;
4. then bounds ("more than $X", "at least"), last first;
5. only then the incidental ones.

A number is incidental when the words around it say so: a time span after it (``9-day``, ``7
months``, ``over 5 years``), a yardstick before it (``for every``, ``per``, ``threshold of``,
``minimum of``, ``limit of``), a share after it (``% of the original``, ``% chance``), or a
comparison sign next to it (``12% <= 25%``). A number that is part of a name ("Schedule 13D", "Form
S-1", "Tier 1") is no quantity at all: a conclusion naming one has a text answer. With ``unit``
given (the gold's unit, or the unit the question asks for), the first ranked number whose unit
family matches wins over the ranking.

:func:`verdict` reads a yes/no conclusion ("Yes, disclosure is required", "→ Yes", "No, the
investment exceeds the limit", "KYC is not required"), so a qualitative gold is compared as a
verdict, never reduced to the threshold its sentence names.
"""

from __future__ import annotations

import re

from scorers.numbers import Number, normalize, number_spans

__all__ = ["answer_kind", "asked_unit", "asks_two", "clause_answers", "conclusion_value", "direction_sign",
           "rank_numbers", "reconcile_scale", "reconcile_sign", "stated_results", "unit_family", "verdict"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*(\[\"'])|\n+")
_VERB = re.compile(
    r"(?i:\b(?:is|are|was|were|equals?|be|becomes?|(?<!the\s)(?<!\ba\s)(?<!its\s)totals?|amounts?\s+to|comes?\s+to|stands?\s+at|"
    r"yields?|gives?|receives?|will\s+(?:have|receive|get|pay|earn|be)|results?\s+in|of\s+approximately)\b)"
    r"|=|≈|是|为|(?<![0-9]):(?=\s*[-−$€£¥(]?\s*[0-9])")
_TIME_AFTER = re.compile(r"^\s*(?:-|\s)?(?i:(?:day|week|month|year|quarter|period|hour|minute)s?\b|yrs?\b|"
                         r"-?(?:day|week|month|year)\b)")
_BEFORE_INCIDENTAL = re.compile(
    r"(?i:(?:for\s+every|every|per|each|threshold\s+of|minimum\s+of|maximum\s+of|limit\s+of|cap\s+of|"
    r"floor\s+of|over\s+(?:a|the\s+next|the)|step|requirement\s+of|target(?:\s+[\w-]+){0,4}\s+of)\s*[$€£¥]?\s*)$")
_BEFORE_WEAK = re.compile(r"(?i:\b(?:at\s+least|at\s+most|more\s+than|less\s+than|above|below|exceeds?|under)\s*)$")
"""A bound ("lose more than $252,794") is often a threshold but sometimes the answer itself: it ranks
after the plain numbers and before durations and yardsticks."""
_AFTER_INCIDENTAL = re.compile(r"^\s*(?i:of\s+(?:the|its|their|his|her|our)\b|chance|probability|confidence|"
                               r"threshold|minimum|limit)")
_COMPARISON = re.compile(r"[<>≤≥]=?")
_YARDSTICK_CLAUSE = re.compile(r"(?i:\bfor\s+(?:every|each)\b)")
_OPERATOR = r"(?:[-+*/×÷^]|\bx\b)"
_OPERATOR_AFTER = re.compile(r"^\s*" + _OPERATOR + r"\s*[$€£¥(]?\s*[0-9]")
_OPERATOR_BEFORE = re.compile(r"[0-9][%)]?(?:\s*(?i:thousand|million|billion|bn|mn))?\s*" + _OPERATOR
                              + r"\s*[$€£¥(]?\s*$")
_FORMULA = re.compile(r"(?<![A-Za-z])[A-Za-z]\s*[-+*/^]\s*$|[A-Za-z]{1,4}\(\s*$")
"""A number written into a formula ("(1 + r)^n", "Ln(1904 / ...)") is a constant of the formula, no quantity."""
_FORMULA_AFTER = re.compile(r"^\s*[-+*/^]\s*[A-Za-z](?![A-Za-z])")
_MONTH = r"(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+)"
_DATE_BEFORE = re.compile(_MONTH + r"(?:[0-9]{1,2},?\s+)?$|(?i:\b(?:in|of|year|fy|since|until|by)\s+)$")
_DAY_BEFORE = re.compile(_MONTH + "$")
_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
_NAME_BEFORE = re.compile(r"(?i:\b(?:tier|form|schedule|rule|section|article|level|phase|class|series|stage|scenario|"
                          r"option|project|alternative|strategy|plan|wallet|case)\s*)$")
_CONDITIONAL = re.compile(r"(?i:^\s*(?:if|when|unless|once)\b|\bif\s+the\b|\bwhether\b)")
_HIGHLIGHT = re.compile(r"\*\*([^*\n]{1,300}?)\*\*|\\boxed\s*\{([^{}]{1,300})\}")
_VERDICT_WORDS = {"yes": True, "no": False}
_LABELLED_VERDICT = re.compile(r"(?i:\b(?:valid|compliant|eligible|within\s+limits?)\s*[:=]\s*(true|false|yes|no)\b)")
"""A check labelled with its outcome ("101301.32 ≤ 130596.00 (Valid: True)")."""
_VERDICT_PHRASES = (
    (re.compile(r"(?i:\bno\s+(?:[a-z]+\s+){0,3}(?:is\s+|are\s+)?(?:required|needed)\b|"
                r"\b(?:is|are)\s+not\s+required\b|\bnot\s+required\b|\bdoes\s+not\s+(?:meet|require|need|exceed|"
                r"qualify)\b|\bno\s+(?:action|filing|disclosure|report(?:ing)?)\s+(?:is\s+)?(?:required|needed)\b|"
                r"\b(?:will|would)\s+not\s+need\s+to\b|\b(?:must|should|need)\s+not\s+(?:be\s+)?(?:file|disclose|report|perform|conduct)|"
                r"\b(?:shouldn't|mustn't)\s+(?:be\s+)?(?:file|disclose|report)|\b(?:is|are)\s+not\s+(?:considered\s+)?(?:an?\s+)?"
                r"(?:example|case|instance)\s+of\b|\b(?:is|are)\s+not\s+within\s+(?:the\s+)?(?:[\w-]+\s+){0,2}"
                r"limits?\b|\bcannot\s+(?:legally\s+)?(?:make|proceed\s+with)\s+the\s+(?:investment|transaction)\b)"),
     False),
    (re.compile(r"(?i:\b(?:is|are)\s+required\b|\b(?:must|should)\s+(?:be\s+)?(?:file|disclose|report|perform|conduct)(?:e?d)?\b|"
                r"\bmeets\b|"
                r"\bneeds?\s+to\s+(?:file|disclose|report)\b|\b(?:is|are)\s+(?:therefore\s+|likely\s+|clearly\s+)?"
                r"(?:considered\s+)?(?:an?\s+)?(?:example|case|instance)\s+of\b|"
                r"\b(?:is|are)\s+within\s+(?:the\s+)?(?:[\w-]+\s+){0,2}limits?\b)"), True),
)
_INSTRUCTION = re.compile(r"(?i:^\W*(?:step\s*\d+\s*[:.)]?\s*)?(?:verify|check|ensure|confirm)\b)")
_CLAUSE_START = re.compile(r"(?:^|[.;:!?→⇒]|->|\n|\bconclusion\b\s*:?|\banswer\b\s*(?:is)?\s*:?)\s*[*_]*\s*"
                           r"(?i:(yes|no))(?=\s*(?:[,.;:!)]|\s-|$))", re.I)
"""Yes/No opening a clause and standing alone ("No, ...", "→ Yes"): "no review" is an option, not a verdict."""
_ASK_PERCENT = re.compile(r"(?i:\bwhat\s+percent(?:age)?\b|\bas\s+a\s+percent(?:age)?\b|\bin\s+percent(?:age)?\b|"
                          r"\bpercentage\s+of\b|\bwhat\s+(?:is|was|will\s+be)\s+the\s+[\w\s-]{0,40}(?:rate|yield|"
                          r"margin|return|ratio\s+in\s+%))")
_ASK_MONEY = re.compile(r"(?i:\bhow\s+much\b|\bwhat\s+(?:is|was|will\s+be)\s+the\s+[\w\s-]{0,40}(?:value|price|cost|"
                        r"amount|profit|income|payment|balance|fine|penalty|savings|dividend)\b)")
_SCALE_TEXT = re.compile(r"(?i:thousand|million|billion|trillion|bn|mn)\b|[kKMB]$")


def unit_family(unit: str) -> str:
    """``"%"`` (percent, percentage points, basis points), ``"$"`` (any currency) or ``""``."""
    u = (unit or "").strip().lower()
    if u in {"%", "percent", "pct", "percentage", "pp", "ppt", "bp", "bps", "basis points", "percentage points"}:
        return "%"
    if u and (u[0] in "$€£¥₹" or u.startswith(("usd", "eur", "gbp", "dollar", "euro"))):
        return "$"
    return ""


def _incidental(s: str, start: int, end: int) -> int:
    """0 for a number that may be the answer, 1 for a bound (weakly incidental), 2 for a duration,
    date, yardstick, share or a side of a comparison."""
    before, after = s[max(0, start - 40):start], s[end:end + 40]
    if _YEAR.fullmatch(s[start:end].strip()) and _DATE_BEFORE.search(before):
        return 2  # "December 31, 2022", "in 2024"
    if _DAY_BEFORE.search(before) and re.match(r",?\s*(?:19|20)[0-9]{2}", after):
        return 2  # the day of "December 31, 2022"
    if _TIME_AFTER.match(after) or _AFTER_INCIDENTAL.match(after) or _BEFORE_INCIDENTAL.search(before):
        return 2
    if _COMPARISON.search(before[-4:]) or _COMPARISON.match(after.lstrip()[:2]):
        return 2
    if _YARDSTICK_CLAUSE.search(s[:start]):
        return 2  # "..., for every dollar of liabilities the company has 80 cents": the ratio restated
    return 1 if _BEFORE_WEAK.search(before) or _operand(before, after) else 0


def _operand(before: str, after: str) -> bool:
    """An operand of an arithmetic the sentence writes out ("$1995.42 / $1904", "(2832.95 x 1.389)"),
    not its result: an operator and another number on one side, no ``=`` in between."""
    return bool(_OPERATOR_AFTER.match(after) or _OPERATOR_BEFORE.search(before))


def _identifier(s: str, start: int, end: int) -> bool:
    """A number that is part of a name: "Schedule 13D", "Form S-1", "10-K", "Tier 1" is no quantity."""
    if re.fullmatch(r"\(\s?[0-9]{1,2}\s?\)", s[start:end]) and re.match(r"\s+[A-Za-z]", s[end:end + 2]):
        return True  # a list enumerator: "(1) maintain records; (2) ..."
    glued_after = s[end:end + 1].isalpha() and not s[end - 1:end].isalpha()
    glued_before = start >= 2 and s[start] in "-−" and s[start - 1].isalpha()
    formula = bool(_FORMULA.search(s[max(0, start - 8):start]) or _FORMULA_AFTER.match(s[end:end + 6]))
    return glued_after or glued_before or formula or bool(_NAME_BEFORE.search(s[max(0, start - 12):start]))


_FILLER = r"(?:\s+(?:approximately|about|roughly|around|nearly|almost|some|just|over|a\s+total\s+of))?\s*[~≈]?\s*"
_DOWN_WORD = (r"decreas(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|drop(?:s|ped|ping)?|fall(?:s|ing|en)?|fell|"
              r"shr(?:ink|inks|inking|ank|unk)|reduc(?:e|es|ed|ing|tion)|(?:falls?|fell|falling)\s+short|"
              r"underperform(?:s|ed|ing)?|go(?:es)?\s+down|went\s+down|down|lower(?:s|ed)?|contract(?:s|ed|ion)")
_DOWN_BEFORE = re.compile(
    r"(?i:\b(?:(?:" + _DOWN_WORD + r")(?:\s+[a-z'-]+){0,3}?\s+by|(?:\ban?|\bnet)\s+(?:[a-z-]+\s+)?loss(?:es)?\s+of|"
    r"deficit\s+of|"
    r"shortfall\s+of|(?:" + _DOWN_WORD + r")\s+of|(?:lose|loses|losing|lost)(?:\s+(?:a\s+total\s+of|value\s+of|by))?)"
    + _FILLER + r")$")
_DOWN_AFTER = re.compile(r"^\s*(?i:(?:decrease|decline|drop|loss|reduction|deficit|shortfall|lower|less|down)\b)")
"""A direction word attached to an unsigned figure: "decrease by approximately $7.88", "a net loss of
$500", "lost $1,200", "falls short by 2.5 points", "$7.88 lower". Never "falls to $90": that is a level,
not a change; nor "the impairment loss of $X": that names the loss, whose amount is X."""
_SIGNED_TEXT = re.compile(r"^\s*\(?\s*[-+−–‒]|^\s*\(")


def direction_sign(s: str, start: int, end: int) -> int:
    """-1 when a word of decrease or loss is attached to the figure ``s[start:end]``, else +1: the sign a
    reader gives an unsigned change ("the value decreases by $7.88" states -7.88). A figure that carries
    its own sign keeps it (the caller checks), and a word of increase changes nothing."""
    before, after = s[max(0, start - 60):start], s[end:end + 20]
    return -1 if _DOWN_BEFORE.search(before) or _DOWN_AFTER.match(after) else 1


_ACCOUNTING_BEFORE = re.compile(r"(?i:\b(?:is|was|are|were|of|at)|[=:])\s*\(\s*$")
_ACCOUNTING_FIGURE = re.compile(r"[$€£¥]?\s*[0-9]{1,3}(?:,[0-9]{3})*(?:\.[0-9]+)?|[$€£¥]?\s*[0-9]+\.[0-9]+")


def _accounting_negative(s: str, a: int, b: int) -> bool:
    """"The net income is (7.88)": a figure in parentheses right after a stating verb is the accounting
    way to write a negative (an integer alone, "(2)", is an enumerator, so it needs a decimal point, a
    thousands comma or a currency sign)."""
    text = s[a:b].strip()
    if not (text.startswith("(") and text.endswith(")")):
        return False
    inner = text[1:-1].strip()
    return (bool(_ACCOUNTING_BEFORE.search(s[max(0, a - 12):a] + "(")) and bool(_ACCOUNTING_FIGURE.fullmatch(inner))
            and any(c in inner for c in ".,$€£¥"))


def _signed(s: str, a: int, b: int, n: Number) -> Number:
    """``n`` with the sign a direction word (or accounting parentheses) gives it, when ``n`` is written
    unsigned."""
    if n.value > 0 and (_accounting_negative(s, a, b)
                        or not _SIGNED_TEXT.match(s[a:b]) and direction_sign(s, a, b) < 0):
        return Number(-n.value, n.unit, n.text)
    return n


def _stated(s: str) -> list[tuple[int, int, Number]]:
    """A sentence's numbers that are no names, each signed by the direction word attached to it."""
    return [(a, b, _signed(s, a, b, n)) for a, b, n in number_spans(s) if not _identifier(s, a, b)]


def _direct(s: str, spans: list[tuple[int, int, Number]]) -> Number | None:
    """The number right after the sentence's first verb ("The new loan term is 210 months"): stated as
    the answer even when it is a duration."""
    verb = _VERB.search(s)
    if verb is None:
        return None
    for a, _, n in spans:
        if a >= verb.end():
            return n if re.fullmatch(r"[\s*_]*(?i:(?:about|approximately|roughly|around|~|≈)\s*)?", s[verb.end():a]) \
                else None
    return None


def _concluding_sentence(s: str) -> str:
    """The last sentence that states a quantity (a number that is not incidental, or one right after
    its verb); else the last sentence that holds a number; else the whole text. "The new loan term is
    210 months. This is a reduction of 8 years from the original 25-year term." concludes in its first
    sentence."""
    sentences = [p for p in _SENTENCE.split(s) if p and p.strip() and any(ch.isdigit() for ch in p)]
    stated = [p for p in sentences if not _CONDITIONAL.search(p)] or sentences  # "If revenue exceeds ..., it would"
    for sentence in reversed(stated):
        spans = _stated(sentence)
        if any(_incidental(sentence, a, b) == 0 for a, b, _ in spans) or _direct(sentence, spans) is not None:
            return sentence
    return sentences[-1] if sentences else s


def _in_parentheses(s: str, at: int) -> bool:
    """Inside an aside such as "(300/600 x 100 = 50%)": its ``=`` shows a side calculation, it does not
    state the sentence's answer."""
    return s.rfind("(", 0, at) > s.rfind(")", 0, at)


def rank_numbers(text: str) -> list[Number]:
    """The concluding sentence's numbers, most likely answer first (see the module docstring)."""
    s = _concluding_sentence(normalize(text))
    spans = _stated(s)
    if not spans:
        return []
    ranked: list[Number] = []
    for m in _HIGHLIGHT.finditer(s):
        inner = [n for a, b, n in spans if m.start() <= a < m.end()]
        if inner:
            ranked.append(inner[-1])
    tier = {a: _incidental(s, a, b) for a, b, _ in spans}
    plain = [(a, b, n) for a, b, n in spans if tier[a] == 0]
    verbs = list(_VERB.finditer(s))
    verbs = [v for v in verbs if not _in_parentheses(s, v.start())] or verbs
    equals = [v for v in verbs if v.group(0) in ("=", "≈")]
    if verbs:  # after the last "=" (x = a × b = c), else after the first verb ("is X, which is Y% of ...")
        start = equals[-1].end() if equals else verbs[0].end()
        ranked.extend([n for a, _, n in plain if a >= start][:1])
    ranked.extend(n for _, _, n in reversed(plain))
    direct = _direct(s, spans) if verbs and not equals else None
    if direct is not None:  # a duration stated as the answer: "The new loan term is 210 months"
        ranked.append(direct)
    ranked.extend(n for a, _, n in reversed(spans) if tier[a] == 1)
    ranked.extend(n for _, _, n in reversed(spans))
    seen: set[int] = set()
    return [n for n in ranked if not (id(n) in seen or seen.add(id(n)))]


_COORDINATE = re.compile(r"(?i:,?\s+and\s+(?=(?:the|its|their|his|her|each)\b)|;\s+)")


def clause_answers(text: str) -> list[Number]:
    """The quantities a conclusion states in coordinate clauses, one per clause ("the fee is $148.18,
    and the net value is $5,753.82"): a question that asks for two quantities is answered by both, and
    a reader grades the one the gold asks for wherever the sentence states it."""
    s = _concluding_sentence(normalize(text))
    clauses = _COORDINATE.split(s)
    if len(clauses) < 2:
        return []
    found = (_direct(c, _stated(c)) for c in clauses)
    return [n for n in found if n is not None]


_TWO_ASKS = re.compile(r"(?i:\b(?:how\s+much|what)\b[^?]{0,300}?\band\s+(?:how|what)\b|"
                       r"\b(?:calculate|compute|determine|find|estimate)\b[^.?]{0,300}?\band\s+its\b|"
                       r"\b(?:how\s+much|what)\s+(?:are|were|will|would)\s+the\s+[^?.,]{0,60}?\band\s+[\w&-]+\s+"
                       r"(?:\w+\s+)?\w+s\b|"
                       r"\bfor\s+each\s+(?:scenario|option|case|alternative)\b)")
"""A question that asks for two quantities ("How much BTC is in each wallet, and what percentage ...?",
"Calculate the net saving and its percentage of ...", "How much will the new operations and R&D budgets
be?", "For each scenario, how will the ratio change?")."""
_CONCLUDES = re.compile(r"(?i:^[\s*_#>-]*(?:therefore|thus|hence|so|in\s+conclusion|in\s+summary|overall)\b)")
_PART = re.compile(r"(?i:,?\s+and\s+|;\s*|,\s+(?=[$€£]?\d))")


def asks_two(question: str | None) -> bool:
    """True when ``question`` asks for two quantities; the gold answers one of them."""
    return bool(question) and _TWO_ASKS.search(question) is not None


def stated_results(text: str) -> list[Number]:
    """The results an output states in its concluding sentences ("Therefore, $1441409 will be allocated
    to marketing and $3363372 to operations."; "So, the net reduction is $163M - $74M = $89M"), one per
    coordinate part, plus its last sentence's: what a reader takes as its answers when a question asks
    for two quantities and a bare answer line gives only one of them."""
    sentences = [p for p in _SENTENCE.split(normalize(text)) if p and any(ch.isdigit() for ch in p)]
    chosen = [p for p in sentences if _CONCLUDES.match(p) and not _CONDITIONAL.search(p)] + sentences[-1:]
    found: list[Number] = []
    for sentence in chosen:
        for part in _PART.split(sentence):
            number = conclusion_value(part) if any(ch.isdigit() for ch in part) else None
            if number is not None:
                found.append(number)
    return found


def conclusion_value(text: str, unit: str | None = None) -> Number | None:
    """The number a conclusion states; with ``unit``, the best-ranked one of that unit family."""
    ranked = rank_numbers(text)
    if not ranked:
        return None
    if unit is not None:
        family = unit_family(unit)
        for number in ranked:
            if unit_family(number.unit) == family:
                return number
    return ranked[0]


def verdict(text: str) -> bool | None:
    """The yes/no a conclusion states: a clause opening with Yes/No (``"Yes, disclosure is required"``,
    ``"→ Yes"``, ``"The answer is no, ..."``), else a verdict phrase (``"is not required"``), else None."""
    s = normalize(text).replace("**", "")
    m = _CLAUSE_START.search(s)
    if m:
        return _VERDICT_WORDS[m.group(1).lower()]
    labelled = list(_LABELLED_VERDICT.finditer(s))
    if labelled:
        return labelled[-1].group(1).lower() in ("true", "yes")
    for sentence in reversed(_SENTENCE.split(s)):
        if not sentence or _CONDITIONAL.search(sentence) or _INSTRUCTION.match(sentence):
            continue  # "If the total exceeds 5%, she must file" states a rule, "Verify that ..." a task: no verdict
        for pattern, value in _VERDICT_PHRASES:
            if pattern.search(sentence):
                return value
    return None


def asked_unit(question: str | None) -> str | None:
    """``"%"`` or ``"$"`` when the question's wording asks for a percentage or an amount, else None."""
    if not question:
        return None
    if _ASK_PERCENT.search(question):
        return "%"
    if _ASK_MONEY.search(question):
        return "$"
    return None


def reconcile_scale(answer: Number, text: str) -> Number:
    """A bare answer (``"The answer is: 17"``) takes the scale word the output wrote the same figure
    with (``"$17 million"``): the reader reads both as seventeen million."""
    if not answer.value or _SCALE_TEXT.search(answer.text.strip()):
        return answer
    for _, _, number in number_spans(normalize(text)):
        ratio = number.value / answer.value
        if _SCALE_TEXT.search(number.text.strip()) and any(abs(ratio - 10.0 ** k) <= 1e-9 * 10.0 ** k
                                                           for k in (3, 6, 9, 12)):
            return Number(number.value, answer.unit or number.unit, number.text)
    return answer


_ASK = re.compile(r"(?i:\b(?:calculate|compute|determine|find|estimate|give|what|how)\b)(?:[^.?!:;,(]|[.,](?=[0-9]))*")
"""An ask and the noun phrase it asks for, up to the first stop, colon, comma or aside: "compute the Sortino
ratio: ... shortfall below the MAR" asks for a ratio, not a shortfall."""
_SIGNED_ASK = re.compile(r"(?i:\bnegative\b|\bpositive\b|\b(?:profit|gain|income)\s+or\s+loss\b|\bchanges?\b|"
                         r"\bdiffer|\bhow\s+does\b|\bnet\b)")
_MAGNITUDE_ASK = re.compile(r"(?i:\bVaR\b|\bvalue[\s-]+at[\s-]+risk\b|\bexpected\s+shortfall\b|\bC?VaR\b|"
                            r"\bdrawdown\b|\blos(?:s|ses|e)\b|\bshortfall\b|\bdeficit\b|\bimpairment\b|"
                            r"\bdecreas(?:e|es|ed)\b|\bdeclin(?:e|es|ed)\b|\breduc(?:e|es|ed|tions?)\b|\bdrops?\b|"
                            r"\bfall(?:s)?\b|\bfell\b|\blowered\b)")


def answer_kind(question: str | None) -> str:
    """``"magnitude"`` when the question asks for a quantity that is a size by definition (a VaR, an
    expected shortfall, a drawdown, a loss, a shortfall, a decrease) and says nothing of a sign; else
    ``""``. A question that names a sign convention ("negative for a loss"), asks for a profit *or*
    loss, a change, a difference or a net figure asks for a signed answer."""
    if not question:
        return ""
    asks = [m.group(0) for m in _ASK.finditer(question)]
    if not asks or _SIGNED_ASK.search(asks[-1]) or _SIGNED_ASK.search(question[-200:]):
        return ""
    return "magnitude" if _MAGNITUDE_ASK.search(asks[-1]) else ""


_ANSWER_LINE = re.compile(r"(?i:\banswer\b)|^\s*#{2,}")


def reconcile_sign(answer: Number, text: str) -> Number:
    """A bare unsigned answer (``"The answer is: 157.46"``) restating a figure the output stated with a
    sign or a direction word ("decrease its debt by USD157.46 billion") is that figure: a reader reads
    one answer, -157.46. The last statement of the same figure decides."""
    if answer.value <= 0 or _SIGNED_TEXT.match(answer.text):
        return answer
    s = normalize(text)
    for sentence in reversed(_SENTENCE.split(s)):
        if _ANSWER_LINE.search(sentence):
            continue  # the answer line itself, or another bare restatement
        found = [n for _, _, n in _stated(sentence) if abs(abs(n.value) - answer.value) <= 1e-9 * answer.value]
        if found:
            return Number(-answer.value, answer.unit, answer.text) if found[-1].value < 0 else answer
    return answer
