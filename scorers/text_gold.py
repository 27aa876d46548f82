"""The final answer of a gold solution that exists only as text (the FinChain authors' ``solution``).

Such a solution ends in one of a few shapes, and each has its own answer:

* an explicit answer line (``Answer: Total fine = $150000``, ``Final Answer: 8.48 - 2.04 = 6.44``):
  its number, or its verdict / text when it has no number (``Answer: Yes``);
* a verdict (``Yes, disclosure is required.``, ``Conclusion: No, ...``, ``… → Yes``, ``KYC is not
  required because $2501 is below the threshold``): true/false, never the threshold it names;
* a concluding sentence (``Thus, the annual energy cost savings are $2516.96.`` after the ``=`` lines
  that computed it; ``You will have approximately 1503.19 DAI after 1 months.``): the quantity it
  states (:func:`scorers.answers.conclusion_value`, skipping durations and thresholds), in the unit
  the question asks for when it says;
* a comparison with no computation (``12.00% <= 25%``) or a qualitative sentence with no number
  (``Bitcoin prices could potentially rise.``, ``Conclusion: File a Suspicious Activity Report.``):
  the text, compared as text, so no stray number in it can be matched;
* a plan step with no number after the computation (``Verify the result ...``, ``Round the value``):
  the previous step's result, as a reader would take it.
"""

from __future__ import annotations

import re

from scorers.answers import asked_unit, conclusion_value, verdict
from scorers.records import MAGNITUDE, Value
from scorers.steps import ParsedOutput

__all__ = ["text_gold", "text_gold_answer"]

_CONCLUDING = re.compile(r"(?:^|(?<=[.\n]))\s*(?:\*\*)?(?i:thus|therefore|hence|so|conclusion|in\s+conclusion|result|"
                         r"overall)\b[,:]?", re.M)
_COMPARISON = re.compile(r"[<>≤≥]|(?i:\b(?:below|above|exceeds?|less\s+than|greater\s+than)\b)")
_ARROW = re.compile(r"→|⇒|->")
_PLAN_VERBS = frozenset(
    "compare verify round calculate compute determine check apply sum subtract add multiply divide convert "
    "identify use find present evaluate validate solve substitute discount estimate interpret".split())
_MAX_TEXT = 300
_QUANTITY_THEN_VERDICT = re.compile(r"(?i:\bwhat\s+(?:is|are|was|were|will\s+be)\b[^?]{0,300}?,?\s+and\s+"
                                    r"(?:does|do|did|is|are|will|would|can|should|has|have)\b)")


def _clause(text: str) -> str:
    text = " ".join(text.replace("**", "").split()).strip(" .;:")
    for head in ("Conclusion:", "Result:", "Answer:"):
        if text.startswith(head):
            text = text[len(head):].strip()
    return text[:_MAX_TEXT]


def _qualitative(text: str) -> tuple[Value, str]:
    said = verdict(text)
    return (said, "") if said is not None else (_clause(text), "")


def _explicit(parsed: ParsedOutput, question: str | None) -> tuple[Value, str] | None:
    text = parsed.final_answer_text
    if not text or parsed.conclusion != text:
        return None
    if parsed.final_answer is None:  # "Answer: Yes" is a verdict; "Answer: meets", "no review" are options
        said = verdict(text)
        return (said, "") if said is not None and text.split()[0].strip(",.").lower() in {"yes", "no"} \
            else (_clause(text), "")
    if verdict(text) is not None and text.split()[0].strip(",.").lower() in {"yes", "no"}:
        return verdict(text), ""
    return parsed.final_answer.value, parsed.final_answer.unit


def _asked_number(parsed: ParsedOutput, question: str | None) -> tuple[Value, str] | None:
    """The quantity a question asks for before its yes/no ("What is the leverage ratio and does it meet
    the minimum of 3%?"): the last value computed before the verdict step. A verdict alone would let an
    output with a wrong ratio pass on "it meets the requirement"."""
    if not question or not _QUANTITY_THEN_VERDICT.search(question):
        return None
    for step in reversed(parsed.steps[:-1]):
        if step.value is not None:
            return step.value.value, step.value.unit
    return None


def text_gold_answer(parsed: ParsedOutput, question: str | None = None) -> tuple[Value, str]:
    """(answer, unit) of a parsed gold solution; the answer is a number, true/false, text or None."""
    answer, unit, _ = text_gold(parsed, question)
    return answer, unit


def text_gold(parsed: ParsedOutput, question: str | None = None) -> tuple[Value, str, str]:
    """(answer, unit, kind): :func:`text_gold_answer` and the answer's kind. A gold that states its figure
    with a direction word ("the company needs to decrease its debt by USD153.55 billion") answers with
    the size, 153.55 billion, of kind ``"magnitude"``: the direction is in its words, and an answer that
    gives the size ("the required change is USD157 billion") or the signed change (-157 billion) both
    state it."""
    explicit = _explicit(parsed, question)
    if explicit is not None:
        return (*explicit, "")
    if not parsed.steps:
        return None, "", ""
    answer = _text_gold_answer(parsed, question)
    if isinstance(answer[0], bool):
        return (*(_asked_number(parsed, question) or answer[:2]), "")
    return answer


def _sized(number) -> tuple[Value, str, str]:
    """A figure a direction word signed (its text has no minus) is the gold's size: kind magnitude."""
    if number.value < 0 and not re.match(r"\s*\(?\s*[-−–]", number.text):
        return -number.value, number.unit, MAGNITUDE
    return number.value, number.unit, ""


def _text_gold_answer(parsed: ParsedOutput, question: str | None) -> tuple[Value, str, str]:
    last = parsed.steps[-1].text
    arrow = list(_ARROW.finditer(last))
    tail = last[arrow[-1].end():] if arrow else ""
    if tail.strip() and not any(ch.isdigit() for ch in tail):
        return (*_qualitative(tail), "")
    concluding = list(_CONCLUDING.finditer(last))
    sentence = last[concluding[-1].start():] if concluding else last
    if any(ch.isdigit() for ch in sentence):
        if "=" not in sentence and verdict(sentence) is not None:
            return verdict(sentence), "", ""
        if concluding or "=" not in last:
            if "=" not in sentence and _COMPARISON.search(sentence) and not concluding:
                return (*_qualitative(sentence), "")
            number = conclusion_value(sentence, asked_unit(question))
            if number is None:  # its only numbers name things: "file Schedule 13D"
                return (*_qualitative(sentence), "")
            return _sized(number)
        if parsed.final_answer is not None:
            return parsed.final_answer.value, parsed.final_answer.unit, ""
    said = verdict(sentence)
    if said is not None:
        return said, "", ""
    first = (re.findall(r"[A-Za-z]+", _clause(last)) or [""])[0].lower()
    if first in _PLAN_VERBS and parsed.final_answer is not None:
        return parsed.final_answer.value, parsed.final_answer.unit, ""
    return _clause(sentence), "", ""
