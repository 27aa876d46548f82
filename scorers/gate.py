"""The numeric (and categorical) gate N_ij, and final-answer correctness.

A gold step's value decides what counts as agreement: numbers within a relative tolerance (with
an absolute floor near zero), strings by normalised equality or a bag-of-words cosine (reference
profile, steps only), booleans by the yes/no word a step ends on. Final answers that are text are
compared by normalised equality in every profile.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter

from scorers.answers import clause_answers, stated_results, verdict
from scorers.numbers import Number, compare_values
from scorers.params import ChainEvalParams
from scorers.records import MAGNITUDE, Value

_WORD = re.compile(r"\w+")
_YES = {"yes", "true", "compliant", "accept", "approve", "approved", "passes", "pass"}
_NO = {"no", "false", "non", "reject", "rejected", "fails", "fail", "not"}
_NEGATIONS = {"not", "non"}


def normalise(text: str) -> str:
    """Case-folded, NFKC, punctuation dropped, spaces collapsed."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def final_clause(text: str) -> str:
    """What a step concludes: the text after its last '=' or ':' (the whole text if neither)."""
    cut = max(text.rfind("="), text.rfind(":"))
    return text[cut + 1:] if cut >= 0 else text


def numbers_agree(pred: Number, gold: float, gold_unit: str, tol: float, floor: float) -> bool:
    """True when any reading of ``pred`` in gold's unit lies within ``tol`` of ``gold``."""
    bound = tol * (abs(gold) + floor)
    return any(abs(c - gold) <= bound for c in compare_values(pred, gold, gold_unit))


def _bow_cosine(a: str, b: str) -> float:
    ca, cb = Counter(normalise(a).split()), Counter(normalise(b).split())
    dot = sum(ca[w] * cb[w] for w in ca)
    norm = math.sqrt(sum(v * v for v in ca.values())) * math.sqrt(sum(v * v for v in cb.values()))
    return dot / norm if norm else 0.0


def _verdicts(words: list[str]) -> list[bool]:
    """The yes/no words in order; a yes-word right after "not"/"non" is a no ("non-compliant" is not
    "compliant", and "not approved" is not "approved")."""
    return [w in _YES and not (k and words[k - 1] in _NEGATIONS)
            for k, w in enumerate(words) if w in _YES or w in _NO]


def text_agrees(gold: str | bool, pred_text: str, params: ChainEvalParams) -> bool:
    """Categorical agreement between a gold string/bool and a step's (or answer's) text."""
    if isinstance(gold, bool):
        verdicts = _verdicts(normalise(final_clause(pred_text)).split())
        return bool(verdicts) and verdicts[-1] == gold
    if params.string_match == "bow":
        # the authors compare the step's value string; a step states its value after its last ':' or
        # '=', so a long description ("Escalation decision (total above $10,000 ...): escalate") must
        # not dilute the overlap of the value itself
        overlap = max(_bow_cosine(gold, pred_text), _bow_cosine(gold, final_clause(pred_text)))
        return overlap >= params.string_bow_min
    target = normalise(gold)
    clause = normalise(final_clause(pred_text))
    return bool(target) and f" {target} " in f" {clause} "


def step_gate(gold: Value, gold_unit: str, pred: Number | None, pred_text: str, params: ChainEvalParams) -> float:
    """N_ij in {0, 1} (or the missing-value policy) for one gold step and one predicted step."""
    if gold is None:
        return 1.0
    if isinstance(gold, (str, bool)):
        return 1.0 if text_agrees(gold, pred_text, params) else 0.0
    if pred is None:
        return params.missing_value_gate
    return 1.0 if numbers_agree(pred, float(gold), gold_unit, params.step_tol, params.abs_floor) else 0.0


def answer_equals(gold: str, answer_text: str) -> bool:
    """A categorical final answer is right when it *is* the gold answer once normalised (the whole
    answer, or what follows its last '=' or ':'), in every profile: a bag-of-words overlap would let
    "Project B" pass for "Project A"."""
    target = normalise(gold)
    return bool(target) and target in (normalise(answer_text), normalise(final_clause(answer_text)))


_REASON = re.compile(r"(?i:\b(?:because|since|as|due\s+to|given\s+that|whereas|while|but|however)\b)|[;(]")


def answer_names(gold: str, sentence: str) -> bool:
    """A categorical answer written in a sentence ("The company should choose Project B because its NPV
    is higher") names the gold option before any reason is given, and names no rival of the same
    shape ("Project A", "Schedule 13G" for "Schedule 13D") there. Gold of one short word ("High")
    needs the exact answer: a sentence mentions such words too easily."""
    target = normalise(gold).split()
    if len(target) < 2 and not any(ch.isdigit() for ch in gold):
        return False
    cut = _REASON.search(sentence)
    words = normalise(sentence[:cut.start()] if cut else sentence).split()
    n = len(target)
    hits = [i for i in range(len(words) - n + 1) if words[i:i + n] == target]
    if not hits or any(words[i + n:i + n + 1] in (["or"], ["and"], ["nor"], ["vs"]) for i in hits):
        return False  # "Project A or B" names no single option
    return not any(words[i:i + n - 1] == target[:-1] and words[i + n - 1] != target[-1]
                   for i in range(len(words) - n + 1))


def stated_verdict(answer_text: str, conclusion: str, stated: str = "") -> bool | None:
    """The yes/no an output answers with: the verdict its answer states ("Yes, disclosure is required",
    "No, KYC is not needed"), else its concluding sentence's, else (after a bare numeric answer line the
    question never asked for: "... so this is structuring. The answer is: 9817") the last verdict
    ``stated`` before it; None when it states none."""
    said = verdict(answer_text)
    if said is None and conclusion:
        said = verdict(conclusion)
    for line in reversed(stated.split("\n") if said is None else []):
        said = verdict(line)  # the last verdict the output stated
        if said is not None:
            break
    return said


def answer_verdict(gold: bool, answer_text: str, conclusion: str, stated: str = "") -> bool:
    """A yes/no final answer is right when the verdict it states (:func:`stated_verdict`) is the gold's."""
    said = stated_verdict(answer_text, conclusion, stated)
    return said is not None and said == gold


_POLAR_GOLDS = (
    (re.compile(r"(?i:^\W*(?:conclusion\s*:\s*)?(?:do\s+not|don't|no\s+need\s+to)\s+(?:file|report|disclose)\b|"
                r"\b(?:requirements?|thresholds?)\s+(?:are\s+|is\s+)?not\s+met\b)"), False),
    (re.compile(r"(?i:^\W*(?:conclusion\s*:\s*)?(?:file|report|disclose)\b)"), True),
)
"""Option golds that are a verdict in other words: "File a Suspicious Activity Report" answers "should a
SAR be filed?" with yes, "Some requirements not met" answers "does the bank meet ...?" with no. "All
requirements met" is no such gold: an output's last "meets this threshold" speaks of one requirement."""


def gold_polarity(gold: str) -> bool | None:
    """The yes/no an option gold states (:data:`_POLAR_GOLDS`), else None."""
    for pattern, value in _POLAR_GOLDS:
        if pattern.search(gold):
            return value
    return None


STRICT_TOL = 0.005
"""``fac_strict``'s relative floor: an answer within rounding of the gold is within half a unit of the
last digit it states, or within 0.5% of the gold, whichever is larger."""
_DIGITS = re.compile(r"[0-9][0-9,]*(?:\.([0-9]+))?")


def half_unit(number: Number) -> float:
    """Half a unit of the last digit ``number`` states, in its value's scale ("$7.88" -> 0.005,
    "17 million" -> 500,000, "94.4%" -> 0.05); 0 when its text shows no digits to count (a fraction)."""
    m = _DIGITS.search(number.text or "")
    if m is None or "/" in (number.text or ""):
        return 0.0
    decimals = len(m.group(1) or "")
    mantissa = float(m.group(0).replace(",", ""))
    unit = 10.0 ** -decimals
    scale = abs(number.value) / mantissa if mantissa else 1.0
    return 0.5 * unit * scale


def numbers_within_rounding(pred: Number, gold: float, gold_unit: str) -> bool:
    """``fac_strict``'s number rule: some reading of ``pred`` in gold's unit lies within half a unit of
    the last digit ``pred`` states (scaled like that reading), or within 0.5% of gold."""
    half = half_unit(pred)
    for candidate in compare_values(pred, gold, gold_unit):
        factor = abs(candidate / pred.value) if pred.value else 1.0
        if abs(candidate - gold) <= max(half * factor, STRICT_TOL * abs(gold)) * (1 + 1e-9):
            return True
    return False


def _magnitudes(gold: Value, answer: Number | None, kind: str) -> tuple[Value, Number | None]:
    """A magnitude gold (a VaR, a loss amount) compares sizes: the sign an answer gives it is a convention."""
    if kind != MAGNITUDE or isinstance(gold, (bool, str)) or gold is None:
        return gold, answer
    return abs(float(gold)), (Number(abs(answer.value), answer.unit, answer.text) if answer is not None else None)


def answer_correct(gold: Value, gold_unit: str, answer: Number | None, answer_text: str,
                   params: ChainEvalParams, conclusion: str = "", kind: str = "", strict: bool = False,
                   stated: str = "", asks_two: bool = False) -> bool:
    """Final-answer correctness (fac): within ``final_tol`` for numbers; for a yes/no gold the verdict
    stated; for text the gold option, as the answer or named in its sentence (``conclusion``: the
    text the answer was read from). ``kind`` ``"magnitude"`` compares sizes (a VaR of -$89,345 answers
    89,345); ``strict`` (``fac_strict``) wants a number within rounding of the gold, not within
    ``final_tol`` (:func:`numbers_within_rounding`). ``stated`` is what the output stated before a bare
    numeric answer line (:attr:`scorers.steps.ParsedOutput.stated`): a categorical gold reads its verdict
    there, and with ``asks_two`` (the question asks for two quantities) a number gold is right when one
    of the results stated there is it (:func:`scorers.answers.stated_results`)."""
    gold, answer = _magnitudes(gold, answer, kind)
    if gold is None or not answer_text and answer is None and not conclusion:
        return False
    if isinstance(gold, bool):
        return answer_verdict(gold, answer_text, conclusion, stated)
    if isinstance(gold, str):
        if answer_equals(gold, answer_text) or any(answer_names(gold, t) for t in (answer_text, conclusion) if t):
            return True
        polarity = gold_polarity(gold)  # "a SAR should be filed" answers "File a Suspicious Activity Report"
        return polarity is not None and answer_verdict(polarity, answer_text, conclusion, stated)
    def agrees(n: Number) -> bool:
        if kind == MAGNITUDE:
            n = Number(abs(n.value), n.unit, n.text)
        if strict:
            return numbers_within_rounding(n, float(gold), gold_unit)
        return numbers_agree(n, float(gold), gold_unit, params.final_tol, params.abs_floor)

    if answer is not None and agrees(answer):
        return True
    # a two-part answer ("the fee is $15.94, and the net value is $5,886.06"): the part the gold asks for
    if any(agrees(n) for n in clause_answers(conclusion)):
        return True
    return asks_two and bool(stated) and any(agrees(n) for n in stated_results(stated))
