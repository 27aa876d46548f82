"""Rewards for TRL's ``GRPOTrainer``: each one is ``fn(prompts, completions, **kwargs) -> list[float]``,
one float per completion (TRL passes the dataset's other columns as keyword lists).

* :class:`OutcomeReward`: r_out ∈ {0, 1}, the completion's final answer against the ``answer`` column
  (FinChain's final-answer gate: numbers within tolerance, text by normalised equality).
* :class:`PRMReward`: R = agg(step probabilities) + ζ · p_traj from any PRM.
* :class:`FinPRMReward`: r = r_out + δ · R in one callable, or R alone with ``prm_only=True`` (the authors'
  release rewards with the PRM alone).

With TRL's own weighting the paper's reward is ``reward_funcs=[OutcomeReward(), PRMReward(prm)]`` and
``reward_weights=[1, δ]``: the trainer logs each function's mean, so both terms stay visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorers.gate import answer_correct
from scorers.params import resolve
from scorers.prm.base import PRM, prm_input
from scorers.steps import extract_final_answer

__all__ = ["FinPRMReward", "OutcomeReward", "PRMReward", "completion_text"]


def completion_text(value: Any) -> str:
    """The text of a standard (str) or conversational (list of messages) prompt or completion: for a
    conversation, the last message's content."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and value and isinstance(value[-1], dict):
        return str(value[-1].get("content") or "")
    return "" if value is None else str(value)


def _column(kwargs: dict, name: str, n: int) -> list:
    values = kwargs.get(name)
    if values is None:
        raise ValueError(f"the outcome reward needs a dataset column {name!r} (the gold answer of each prompt)")
    return list(values) if len(values) == n else [values[0]] * n


class OutcomeReward:
    """r_out: 1.0 when the completion's final answer passes the gate against its gold answer, else 0.0."""

    def __init__(self, answer_column: str = "answer", unit_column: str = "answer_unit", profile: str = "paper"):
        self.answer_column, self.unit_column = answer_column, unit_column
        self.params = resolve(profile)
        self.__name__ = "outcome"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
        golds = _column(kwargs, self.answer_column, len(completions))
        units = kwargs.get(self.unit_column) or [""] * len(completions)
        out = []
        for completion, gold, unit in zip(completions, golds, units):
            text, number = extract_final_answer(completion_text(completion))
            out.append(float(answer_correct(gold, unit or "", number, text, self.params)))
        return out


class PRMReward:
    """R = agg(step probabilities) + ζ · p_traj from ``prm`` (any backend), batched over the completions."""

    def __init__(self, prm: PRM):
        self.prm = prm
        self.__name__ = "prm"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
        items = [prm_input(completion_text(p), completion_text(c)) for p, c in zip(prompts, completions)]
        return [s.reward for s in self.prm.score_batch(items)]


class FinPRMReward:
    """r = r_out + δ · R (the paper), or R alone with ``prm_only`` (the release)."""

    def __init__(self, prm: PRM, delta: float = 1.0, prm_only: bool = False, answer_column: str = "answer"):
        self.prm_reward, self.delta, self.prm_only = PRMReward(prm), float(delta), prm_only
        self.outcome = OutcomeReward(answer_column)
        self.__name__ = "finprm" if not prm_only else "prm_only"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
        r = self.prm_reward(prompts, completions, **kwargs)
        if self.prm_only:
            return r
        outcome = self.outcome(prompts, completions, **kwargs)
        return [o + self.delta * x for o, x in zip(outcome, r)]
