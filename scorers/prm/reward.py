"""Rewards for TRL's ``GRPOTrainer``: each one is ``fn(prompts, completions, **kwargs) -> list[float]``,
one float per completion (TRL passes the dataset's other columns as keyword lists).

* :class:`OutcomeReward`: r_out ∈ {0, 1}, the completion's final answer against the ``answer`` column, read
  as ChainEval's ``fac`` reads it (:func:`scorers.final_answer.judge_answer`; the question, from a ``question``
  column or the prompt, gives the gold's kind).
* :class:`PRMReward`: R = agg(step probabilities) + ζ · p_traj from any PRM.
* :class:`FinPRMReward`: r = r_out + δ · R in one callable, or R alone with ``prm_only=True`` (the authors'
  release rewards with the PRM alone).

With TRL's own weighting the paper's reward is ``reward_funcs=[OutcomeReward(), PRMReward(prm)]`` and
``reward_weights=[1, δ]``: the trainer logs each function's mean, so both terms stay visible.

The paper's objective is not TRL's default. Fin-PRM (Sec. 5.3) optimises GRPO as Shao et al. (2024) define
it: group-normalised advantages ``A = (r − mean) / std`` over the N completions of a prompt, the clipped
ratio, and a KL penalty to the reference policy, each completion's token losses averaged over its own length
before the completions are averaged. TRL 1.x defaults to ``beta = 0.0`` (no KL term, no reference model) and
``loss_type = "dapo"`` (token losses averaged over the whole batch's tokens). :data:`PAPER_GRPO` holds the
settings that match: ``loss_type = "grpo"``, ``beta = 0.04`` (the paper gives no value; 0.04 is Shao et al.'s),
``epsilon = 0.2``, ``scale_rewards = "group"``; :func:`paper_grpo_kwargs` adds ``reward_weights = [1, δ]``::

    from trl import GRPOConfig, GRPOTrainer
    config = GRPOConfig(output_dir="out", **paper_grpo_kwargs(delta=1.0))
    trainer = GRPOTrainer(model=policy, args=config, train_dataset=data,
                          reward_funcs=[OutcomeReward(), PRMReward(prm)])

The paper's offline selection (Sec. 5.1: "the top 1000 highest-scoring trajectories" over the whole pool,
ζ = 1) is ``finchain prm select POOL --prm hf:<ckpt> --overall -k 1000 --zeta 1``; the default
(``-k 1`` per question) is the per-question variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorers.final_answer import AnswerGold, judge_answer
from scorers.params import resolve
from scorers.prm.base import PRM, prm_input

__all__ = ["PAPER_GRPO", "FinPRMReward", "OutcomeReward", "PRMReward", "completion_text", "paper_grpo_kwargs"]

PAPER_GRPO: dict[str, Any] = {"loss_type": "grpo", "beta": 0.04, "epsilon": 0.2, "scale_rewards": "group"}
"""``GRPOConfig`` settings of the paper's objective (module docstring); TRL's defaults differ in the first two."""


def paper_grpo_kwargs(delta: float = 1.0) -> dict[str, Any]:
    """Keyword arguments for ``trl.GRPOConfig`` that give the paper's objective with reward
    ``r_out + δ · R`` (with ``reward_funcs=[OutcomeReward(), PRMReward(prm)]``)."""
    return {**PAPER_GRPO, "reward_weights": [1.0, float(delta)]}


def completion_text(value: Any) -> str:
    """The text of a standard (str) or conversational (list of messages) prompt or completion: for a
    conversation, the last message's content."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and not value:  # an empty conversation: no text (not "[]")
        return ""
    if isinstance(value, Sequence) and isinstance(value[-1], dict):
        return str(value[-1].get("content") or "")
    return "" if value is None else str(value)


def _column(kwargs: dict, name: str, n: int) -> list:
    values = kwargs.get(name)
    if values is None:
        raise ValueError(f"the outcome reward needs a dataset column {name!r} (the gold answer of each prompt)")
    return list(values) if len(values) == n else [values[0]] * n


def _optional(values: Sequence[Any] | None, n: int, default: Any) -> list:
    """An optional column, one value per completion: missing is ``default`` for all, one value is shared."""
    if not values:
        return [default] * n
    return list(values) if len(values) == n else [values[0]] * n


class OutcomeReward:
    """r_out: 1.0 when the completion's final answer is right as ChainEval's ``fac`` reads it
    (:func:`scorers.final_answer.judge_answer`: the whole completion, so a direction word signs a figure, a
    verdict before a bare ``1`` counts, a magnitude gold ignores the sign convention), else 0.0.

    The gold's kind comes from the ``answer_kind`` column when the dataset has one, else from the
    ``question`` column, else from the prompt's text (the question the policy was asked)."""

    def __init__(self, answer_column: str = "answer", unit_column: str = "answer_unit", profile: str = "paper",
                 question_column: str = "question", kind_column: str = "answer_kind"):
        self.answer_column, self.unit_column = answer_column, unit_column
        self.question_column, self.kind_column = question_column, kind_column
        self.params = resolve(profile)
        self.__name__ = "outcome"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
        n = len(completions)
        golds = _column(kwargs, self.answer_column, n)
        units = _optional(kwargs.get(self.unit_column), n, "")
        questions = _optional(kwargs.get(self.question_column) or [completion_text(p) for p in prompts], n, "")
        kinds = _optional(kwargs.get(self.kind_column), n, None)
        out = []
        for completion, gold, unit, question, kind in zip(completions, golds, units, questions, kinds):
            answer_gold = AnswerGold.for_question(gold, unit or "", str(question or ""), kind)
            out.append(float(judge_answer(answer_gold, completion_text(completion), self.params).fac))
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
