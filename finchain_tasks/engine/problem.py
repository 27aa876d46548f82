"""The generated problem: one record type for every consumer (JSONL, datasets, both hosts)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from finchain_tasks.engine.formatting import PERCENTAGE_POINTS, result_text
from finchain_tasks.engine.precision import display_decimals
from finchain_tasks.engine.render import Rendered, render_step
from scorers.records import GoldSolution, GoldStep, Value

LEVELS = ("easy", "intermediate", "advanced")
STEP_BOUNDS = {"easy": (1, 3), "intermediate": (3, 5), "advanced": (5, 99)}
"""How many steps each level allows (inclusive); the verifier enforces it."""


@dataclass(frozen=True, slots=True)
class Step:
    """A gold step: a named value computed by ``formula`` from earlier named values."""

    name: str
    description: str
    formula: str
    value: Value
    unit: str = ""

    def render(self, values: dict[str, Any], displays: dict[str, str] | None = None,
               units: dict[str, str] | None = None, decimals: dict[str, int] | None = None) -> str:
        """``Future value of the deposit: 14,600 × 1.3404449 = $19,570.50`` (see :mod:`.render`).

        ``values`` holds the parameters and steps the formula reads, ``displays`` the parameters'
        question displays and ``units`` the steps' units: they decide how each number is printed.
        """
        return self.rendered(values, displays or {}, units or {}, decimals or {}).text

    def rendered(self, values: dict[str, Any], displays: dict[str, str], units: dict[str, str],
                 decimals: dict[str, int] | None = None) -> Rendered:
        """The step's text together with the numbers it printed (the verifier redoes the arithmetic)."""
        decimals = decimals or {}
        return render_step(self.description, self.formula, self.value, self.unit, values, displays, units,
                           decimals, decimals.get(self.name))

    def gold(self, values: dict[str, Any], displays: dict[str, str] | None = None,
             units: dict[str, str] | None = None, decimals: dict[str, int] | None = None) -> GoldStep:
        """The scorer's view of this step (the rendered line is what gets embedded)."""
        return GoldStep(self.description, self.value, scorer_unit(self.unit),
                        self.render(values, displays, units, decimals))


@dataclass(frozen=True, slots=True)
class Bound:
    """A plausibility bound a template declares on one of its values (``b.bounds``); the verifier checks it.

    ``lo``/``hi`` are numbers or formulas over the other parameters and steps (a cost below ``"revenue"``);
    ``whole`` asks for a whole number (people, graduates); ``why`` says what the bound means in the world.
    """

    name: str
    lo: float | str | None = None
    hi: float | str | None = None
    whole: bool = False
    why: str = ""


@dataclass(frozen=True, slots=True)
class Problem:
    """A question with its verified gold program of steps and the metadata hosts report on."""

    domain: str
    topic: str
    template: str
    level: str
    seed: int
    question: str
    params: dict[str, Any]
    displays: dict[str, str]
    steps: tuple[Step, ...]
    bounds: tuple[Bound, ...] = field(default=(), compare=False)
    """What the template declared plausible: not stored in records (``finchain verify`` checks fresh draws), so
    a record read back equals the problem it was written from."""
    companies: dict[str, str] | None = field(default=None, compare=False)
    """Parameter -> kind for each name drawn with ``b.company``; None for a record (it cannot say)."""
    signed: dict[str, str] = field(default_factory=dict, compare=False)
    """Amounts the template declared may be negative (``b.signed``), with why."""

    @property
    def id(self) -> str:
        return f"finchain/{self.domain}/{self.topic}/{self.template}/{self.seed}"

    @property
    def template_id(self) -> str:
        return f"{self.domain}/{self.topic}/{self.template}"

    @property
    def answer(self) -> Value:
        return self.steps[-1].value

    @property
    def answer_unit(self) -> str:
        return self.steps[-1].unit

    @property
    def answer_type(self) -> str:
        value = self.answer
        if isinstance(value, bool):
            return "bool"
        return "text" if isinstance(value, str) else "number"

    @property
    def answer_text(self) -> str:
        return result_text(self.answer, self.answer_unit)

    def _namespace(self) -> dict[str, Any]:
        values = dict(self.params)
        values.update((s.name, s.value) for s in self.steps)
        return values

    def gold_steps(self) -> tuple[GoldStep, ...]:
        values, units, decimals = self._namespace(), self.step_units(), self.step_decimals()
        return tuple(step.gold(values, self.displays, units, decimals) for step in self.steps)

    def step_units(self) -> dict[str, str]:
        return {s.name: s.unit for s in self.steps}

    def step_decimals(self) -> dict[str, int]:
        """Decimals each computed step is shown with: its unit's rule, or more where a later line needs them."""
        return display_decimals(self.steps, self.params)

    def rendered_steps(self) -> tuple[Rendered, ...]:
        """Each step's text with the numbers it printed, for the verifier's arithmetic check."""
        values, units, decimals = self._namespace(), self.step_units(), self.step_decimals()
        return tuple(step.rendered(values, self.displays, units, decimals) for step in self.steps)

    def gold(self) -> GoldSolution:
        """The plain record ChainEval scores against: the one the hosts build from this problem's row
        (:func:`scorers.rows.gold_of`). Each step's text is the line the solution shows, closing period
        included (:func:`scorers.rows.as_rendered`): the reference profile embeds text as it is, so a
        bare step text scored the gold solution 0.987-0.999 there while the hosts gave 1.0 (issue 33.9)."""
        from scorers.answers import answer_kind, asks_two
        from scorers.rows import as_rendered

        steps = self.gold_steps()
        return GoldSolution(as_rendered(steps, self._solution_text(steps)), self.answer, scorer_unit(self.answer_unit),
                            self.id, answer_kind=answer_kind(self.question), asks_two=asks_two(self.question))

    @property
    def solution(self) -> str:
        """The gold solution as text: numbered steps, then a final-answer line."""
        return self._solution_text(self.gold_steps())

    def _solution_text(self, gold: tuple[GoldStep, ...]) -> str:
        lines = [f"Step {k}: {g.text}." for k, g in enumerate(gold, 1)]
        lines.append(f"Final answer: {self.answer_text}")
        return "\n".join(lines)

    def metadata(self) -> dict[str, Any]:
        return {
            "domain": self.domain, "topic": self.topic, "level": self.level,
            "template": self.template, "seed": self.seed, "n_steps": len(self.steps),
            "answer_type": self.answer_type,
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready row: id, question, solution text, structured steps, answer, metadata."""
        gold = self.gold_steps()
        return {
            "id": self.id,
            "question": self.question,
            "solution": self._solution_text(gold),
            "answer": self.answer,
            "answer_text": self.answer_text,
            "answer_unit": self.answer_unit,
            "steps": [
                {"name": s.name, "description": s.description, "formula": s.formula,
                 "value": s.value, "unit": s.unit, "text": g.text}
                for s, g in zip(self.steps, gold)
            ],
            "params": [
                {"name": k, "value": v, "display": self.displays[k]} for k, v in self.params.items()
            ],
            **self.metadata(),
        }

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Problem:
        """Rebuild a problem from :meth:`to_dict` output; raises ``ValueError`` on a bad row."""
        try:
            steps = tuple(
                Step(s["name"], s["description"], s["formula"], s["value"], s.get("unit", ""))
                for s in row["steps"]
            )
            params = {p["name"]: p["value"] for p in row["params"]}
            displays = {p["name"]: p["display"] for p in row["params"]}
            return cls(row["domain"], row["topic"], row["template"], row["level"], int(row["seed"]),
                       row["question"], params, displays, steps)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"row {row.get('id', '?') if isinstance(row, dict) else '?'} is not a "
                             f"FinChain problem record: missing or malformed {exc}") from None


def scorer_unit(unit: str) -> str:
    """The unit ChainEval compares in: a percentage-point difference reads like a percentage."""
    return "%" if unit == PERCENTAGE_POINTS else unit


def is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
