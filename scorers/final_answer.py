"""One reading of a final answer against its gold: what every part of the product that grades a final
answer calls, so that a reader's rules hold everywhere or nowhere.

A careful reader reads more than the answer line: a direction word gives an unsigned figure its sign
("decreases by $7.88" states -7.88), a magnitude gold (a VaR, a loss amount, a drawdown) ignores the sign
convention, a yes/no gold is read from the verdict stated before a bare ``1``, and a question for two
quantities is answered when the concluding sentences give the gold's. Those rules live in
:mod:`scorers.answers`, :mod:`scorers.steps` and :func:`scorers.gate.answer_correct`; they need the whole
output (parsed once) and the gold's kind, which comes from its question. Callers that passed only the
answer line (the GRPO outcome reward, the PRM label gate, the Best-of-N vote key) read it the old way and
disagreed with ChainEval's ``fac``; they now call :func:`judge_answer`, as ChainEval does.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorers.answers import answer_kind, asks_two
from scorers.gate import answer_correct, stated_verdict
from scorers.numbers import Number, parse_number
from scorers.params import ChainEvalParams, resolve
from scorers.records import MAGNITUDE, GoldSolution, Value
from scorers.steps import ParsedOutput, parse_output, valid_text

__all__ = ["AnswerGold", "AnswerVerdict", "judge_answer", "vote_key"]


@dataclass(frozen=True, slots=True)
class AnswerGold:
    """What grading a final answer needs of the gold: its value and unit, its kind (``"magnitude"`` or
    ``""``) and whether its question asks for two quantities."""

    value: Value
    unit: str = ""
    kind: str = ""
    asks_two: bool = False

    @classmethod
    def of(cls, gold: GoldSolution) -> AnswerGold:
        """The answer side of a gold solution (:func:`scorers.rows.gold_of`, ``Problem.gold()``)."""
        return cls(gold.answer, gold.answer_unit or "", gold.answer_kind or "", bool(gold.asks_two))

    @classmethod
    def for_question(cls, value: Value, unit: str | None = "", question: str | None = None,
                     kind: str | None = None) -> AnswerGold:
        """A gold value with the kind and two-quantity reading its question gives, as
        :func:`scorers.rows.gold_of` derives them: ``kind`` when given (a row's ``answer_kind``), else
        :func:`scorers.answers.answer_kind` of the question."""
        return cls(value, unit or "", kind if kind is not None else answer_kind(question), asks_two(question))


@dataclass(frozen=True, slots=True)
class AnswerVerdict:
    """A final answer as a reader grades it: ``fac`` (within the profile's tolerance, 5%), ``fac_strict``
    (within rounding), the answer text and figure read, and :attr:`key`, the form Best-of-N votes on."""

    fac: bool
    fac_strict: bool
    answer_text: str
    answer: Number | None
    key: str | None


def _parsed(output: str | ParsedOutput | None) -> ParsedOutput:
    if isinstance(output, ParsedOutput):
        return output
    return parse_output(valid_text(output))


def judge_answer(gold: AnswerGold | GoldSolution, output: str | ParsedOutput | None,
                 params: ChainEvalParams | str = "paper") -> AnswerVerdict:
    """Grade ``output`` (the model's whole text, or it already parsed by :func:`scorers.steps.parse_output`)
    against ``gold`` as a reader does (module docstring); ``params`` gives the tolerance (a profile name
    or resolved parameters)."""
    answer_gold = gold if isinstance(gold, AnswerGold) else AnswerGold.of(gold)
    params = resolve(params) if isinstance(params, str) else params
    out = _parsed(output)
    read = (answer_gold.value, answer_gold.unit, out.final_answer, out.final_answer_text, params, out.conclusion,
            answer_gold.kind)
    fac = answer_correct(*read, stated=out.stated, asks_two=answer_gold.asks_two)
    strict = fac and answer_correct(*read, strict=True, stated=out.stated, asks_two=answer_gold.asks_two)
    return AnswerVerdict(fac, strict, out.final_answer_text, out.final_answer, _key(answer_gold, out))


def _key(gold: AnswerGold, out: ParsedOutput) -> str | None:
    """The vote key of the reading: a yes/no question votes on the verdict read (a bare ``1`` after "so it
    should be reported" votes yes), an option question on the answer's text, a magnitude on the size,
    every other answer on its figure as signed by its direction word."""
    if isinstance(gold.value, bool):
        said = stated_verdict(out.final_answer_text, out.conclusion, out.stated)
        if said is not None:
            return "yes" if said else "no"
    if isinstance(gold.value, (bool, str)):
        return vote_key(out.final_answer_text)
    number = out.final_answer
    if number is not None and gold.kind == MAGNITUDE:
        number = Number(abs(number.value), number.unit, number.text)
    return vote_key(out.final_answer_text, number)


def vote_key(answer_text: str | None, number: Number | None = None) -> str | None:
    """The form of a final answer that votes compare: its figure to 6 significant digits (``$5.40`` and
    ``5.4`` agree; ``%`` kept apart) — ``number`` when the caller read one (signed by its direction
    word), else the number ``answer_text`` is — else the text lower-cased with spaces collapsed; None
    when there is no answer."""
    text = (answer_text or "").strip()
    if number is None and not text:
        return None
    number = number if number is not None else parse_number(text)
    if number is not None:
        unit = "%" if number.unit == "%" else ""
        return f"{number.value:.6g}{unit}"
    return " ".join(text.lower().rstrip(".").split()) or None
