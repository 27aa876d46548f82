"""What a label recipe reads: one candidate trace (:class:`LabelItem`) and the signal interfaces.

Every signal sits behind a small protocol so the recipe never knows whether a number came from a
model through litellm (``finchain_tasks.prm.labeling``) or from a deterministic fake (the tests'
``tests/support/prm_label_fakes.py``).
A signal that cannot give a value raises :class:`Unknown` with the reason: the step (or trajectory)
is then labelled unknown and the reason counted, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from scorers.records import GoldSolution, Value

__all__ = ["Accuracy", "Concepts", "Importance", "LabelItem", "Qualitative", "Unknown"]


class Unknown(Exception):
    """A signal has no value for this step or trace; ``str(exc)`` is the reason recorded."""


@dataclass(frozen=True)
class LabelItem:
    """One candidate trace and what is known about its question.

    ``gold`` (a FinChain gold trace) enables the exact signals; ``gold_answer`` alone enables the
    outcome and rollout signals; ``knowledge`` is K_x, the question's knowledge points (for FinChain,
    the gold steps' descriptions when none are given); ``reference`` is the expert analysis or gold
    solution text judges may read; ``output`` is the raw text ChainEval segments."""

    id: str
    question: str
    steps: tuple[str, ...]
    final_answer: str
    output: str = ""
    gold_answer: Value = None
    gold_unit: str = ""
    gold: GoldSolution | None = None
    knowledge: tuple[str, ...] = ()
    reference: str = ""
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def knowledge_points(self) -> tuple[str, ...]:
        """K_x: the given knowledge points, else the gold steps' descriptions (FinChain)."""
        if self.knowledge:
            return self.knowledge
        if self.gold is not None:
            return tuple(dict.fromkeys(s.description for s in self.gold.steps if s.description))
        return ()


@runtime_checkable
class Importance(Protocol):
    """r_imp: the share of N rollouts from the prefix s_1..s_k that reach the gold answer."""

    def importance(self, item: LabelItem, k: int) -> float: ...


@runtime_checkable
class Qualitative(Protocol):
    """r_qual: a judge's score of step k in [0, 1] (coherence, soundness, relevance)."""

    def qualitative(self, item: LabelItem, k: int) -> float: ...


@runtime_checkable
class Accuracy(Protocol):
    """(r_corr, r_know): procedural correctness and factual accuracy of step k, each 0 or 1."""

    def accuracy(self, item: LabelItem, k: int) -> tuple[float, float]: ...


@runtime_checkable
class Concepts(Protocol):
    """φ_ext: which of the item's knowledge points the trace and its answer use."""

    def used(self, item: LabelItem) -> tuple[str, ...]: ...
