"""The process-reward-model interface every backend implements.

A PRM reads a candidate as (question, steps, final answer) and returns a probability per step that
the step is good, plus a trajectory probability where the model has one (Fin-PRM's trajectory head;
Qwen2.5-Math-PRM and ``calc`` have none). The reward used for selection is

    R = agg(step probabilities) + ζ · p_traj        (agg ∈ mean/min/prod/last, ζ = 1.0)

The paper does not say which aggregation it used, so both ``agg`` and ``zeta`` are recorded in every
:class:`PRMScore`. A step probability of ``None`` means "no verdict" (``calc`` on a step with no
written arithmetic): it is left out of the aggregation and counted; a candidate with no verdict at
all gets the neutral 0.5. Steps come from :mod:`scorers.steps`, the segmentation ChainEval uses, so
the PRM and ChainEval always see the same steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol, runtime_checkable

from scorers.steps import parse_output

__all__ = ["AGGS", "DEFAULT_AGG", "DEFAULT_ZETA", "NEUTRAL", "PRM", "PRMInput", "PRMScore", "aggregate",
           "make_score", "prm_input", "reward"]

AGGS = ("mean", "min", "prod", "last")
DEFAULT_AGG = "min"
"""A chain is as good as its weakest step: the usual choice for PRM Best-of-N (and robust to long chains)."""
DEFAULT_ZETA = 1.0
NEUTRAL = 0.5
"""The aggregate of a candidate on which the PRM gave no verdict at all."""


@dataclass(frozen=True, slots=True)
class PRMInput:
    """One candidate as a PRM reads it."""

    question: str
    steps: tuple[str, ...]
    final_answer: str
    choices: str = ""
    """The options of a multiple-choice question as text, when the question text does not carry them
    (the Fin-PRM release's input has a line for them; empty leaves that line blank)."""


@dataclass(frozen=True)
class PRMScore:
    """A PRM's reading of one candidate; ``reward`` is R, with the ``agg`` and ``zeta`` that made it."""

    step_probs: tuple[float | None, ...]
    p_traj: float | None
    reward: float
    agg: str
    zeta: float
    prm: str = ""
    n_unverified: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        """Plain JSON-able form for logs and caches."""
        out = asdict(self)
        out["step_probs"] = list(self.step_probs)
        return out

    @classmethod
    def from_dict(cls, row: dict) -> PRMScore:
        """The inverse of :meth:`to_dict` (unknown keys are ignored so old caches still load)."""
        return cls(step_probs=tuple(row.get("step_probs") or ()), p_traj=row.get("p_traj"),
                   reward=float(row["reward"]), agg=row.get("agg", DEFAULT_AGG),
                   zeta=float(row.get("zeta", DEFAULT_ZETA)), prm=row.get("prm", ""),
                   n_unverified=int(row.get("n_unverified", 0)), extra=dict(row.get("extra") or {}))


@runtime_checkable
class PRM(Protocol):
    """What a backend provides: a name and a batched scorer."""

    name: str

    def score_batch(self, items: Sequence[PRMInput]) -> list[PRMScore]:
        """One :class:`PRMScore` per input, in order."""
        ...


def aggregate(probs: Sequence[float | None], agg: str = DEFAULT_AGG) -> float:
    """agg over the steps that have a verdict; :data:`NEUTRAL` when none has one."""
    if agg not in AGGS:
        raise ValueError(f"unknown aggregation {agg!r}: use one of {', '.join(AGGS)}")
    vals = [float(p) for p in probs if p is not None]
    if not vals:
        return NEUTRAL
    if agg == "mean":
        return sum(vals) / len(vals)
    if agg == "min":
        return min(vals)
    if agg == "prod":
        return math.prod(vals)
    return vals[-1]


def reward(probs: Sequence[float | None], p_traj: float | None, agg: str = DEFAULT_AGG,
           zeta: float = DEFAULT_ZETA) -> float:
    """R = agg(step probabilities) + ζ · p_traj; a PRM with no trajectory head adds nothing."""
    return aggregate(probs, agg) + (zeta * p_traj if p_traj is not None else 0.0)


def make_score(probs: Sequence[float | None], p_traj: float | None, *, agg: str = DEFAULT_AGG,
               zeta: float = DEFAULT_ZETA, prm: str = "", extra: dict | None = None) -> PRMScore:
    """A :class:`PRMScore` with its reward computed and its unverified steps counted."""
    probs = tuple(None if p is None else float(p) for p in probs)
    return PRMScore(step_probs=probs, p_traj=None if p_traj is None else float(p_traj),
                    reward=reward(probs, p_traj, agg, zeta), agg=agg, zeta=float(zeta), prm=prm,
                    n_unverified=sum(p is None for p in probs), extra=extra or {})


def prm_input(question: str, output: str | None) -> PRMInput:
    """A model output read with ChainEval's segmentation (:func:`scorers.steps.parse_output`)."""
    parsed = parse_output(output or "")
    return PRMInput(question=question, steps=tuple(s.text for s in parsed.steps),
                    final_answer=parsed.final_answer_text)
