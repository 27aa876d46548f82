"""Plain records that every scorer consumes.

These live in ``scorers`` (not in ``finchain_tasks``) so that scoring never depends on how a
problem was produced: a template, a JSONL file written by another tool, or gold text parsed
back into steps all end up as the same two frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

Value = Union[float, int, str, bool, None]
"""A step's value: a number, a categorical answer (string or bool), or nothing."""


@dataclass(frozen=True, slots=True)
class GoldStep:
    """One verified step of a gold solution.

    ``description`` names what the step computes; ``text`` is the full rendered line that a
    model's step is compared with (falls back to ``description`` when empty).
    """

    description: str
    value: Value
    unit: str = ""
    text: str = ""

    @property
    def compare_text(self) -> str:
        """The text whose embedding stands for this step."""
        return self.text or self.description


@dataclass(frozen=True, slots=True)
class GoldSolution:
    """A problem's gold steps and its final answer, which equals the last step's value."""

    steps: tuple[GoldStep, ...]
    answer: Value
    answer_unit: str = ""
    problem_id: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    answer_kind: str = ""
    """``"magnitude"`` when the answer is by definition a size (a VaR, an expected shortfall, a loss
    amount, a drawdown): its sign is a convention, so ``-$89,345`` answers a VaR of 89,345. Empty for
    every other answer, whose sign counts (:data:`MAGNITUDE`)."""
    asks_two: bool = False
    """True when the question asks for two quantities and the gold is one of them
    (:func:`scorers.answers.asks_two`): an output that states both is graded on the gold's one."""


MAGNITUDE = "magnitude"
"""The :attr:`GoldSolution.answer_kind` of an answer whose sign is a convention."""
