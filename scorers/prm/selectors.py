"""Best-of-N selectors: plain functions from a pool of candidates (and their scores) to one index.

Every selector returns the index of the candidate it keeps (``None`` for an empty pool); accuracy is
then the chosen candidate's correctness. Ties go to the earliest candidate, so a selection is a
function of the pool's order alone (the random selector takes its generator).

* ``random``: one candidate uniformly.
* ``majority``: the most frequent final answer (:func:`answer_key`); candidates with no answer never
  form a bloc. Among tied answers, the one that appears first.
* ``weighted_vote``: the answer whose candidates' rewards sum highest (PRM-weighted vote).
* ``prm_best``: argmax of the reward R.
* ``oracle_chaineval``: argmax of ChainEval against the gold trace (an oracle: it reads the gold).
* ``pass_at_n``: the first correct candidate if there is one (an oracle: accuracy = pass@N).
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scorers.final_answer import vote_key

__all__ = ["ORACLES", "SELECTORS", "Candidate", "accuracy", "answer_key", "majority", "oracle_chaineval",
           "pass_at_n", "prm_best", "random_choice", "select_all", "weighted_vote"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """What selection needs of one sampled answer: its answer key, correctness and scores."""

    answer: str | None
    correct: bool = False
    chaineval: float | None = None
    reward: float | None = None


def answer_key(answer_text: str | None) -> str | None:
    """The form of a final answer that votes compare, from its text alone (:func:`scorers.final_answer.vote_key`:
    a number to 6 significant digits, ``$5.40`` and ``5.4`` agree, ``%`` kept apart; else the text lower-cased
    with spaces collapsed; None when empty). A FinChain pool votes on the key of the whole reading
    (:func:`scorers.prm.pool.grade_finchain`), which signs a figure by its direction word."""
    return vote_key(answer_text)


def _argmax(values: Sequence[float | None]) -> int | None:
    best, best_i = None, None
    for i, v in enumerate(values):
        if v is not None and (best is None or v > best):
            best, best_i = v, i
    return best_i


def _vote(pool: Sequence[Candidate], weight: Callable[[Candidate], float]) -> int | None:
    """The first candidate of the answer with the highest total weight; ties to the earliest answer."""
    if not pool:
        return None
    totals: dict[str, float] = {}
    first: dict[str, int] = {}
    for i, c in enumerate(pool):
        if c.answer is None:
            continue
        totals[c.answer] = totals.get(c.answer, 0.0) + weight(c)
        first.setdefault(c.answer, i)
    if not totals:
        return 0
    winner = max(totals, key=lambda a: (totals[a], -first[a]))
    return first[winner]


def random_choice(pool: Sequence[Candidate], rng: _random.Random | None = None) -> int | None:
    """A uniformly random candidate: the baseline every selector must beat."""
    return (rng or _random.Random(0)).randrange(len(pool)) if pool else None


def majority(pool: Sequence[Candidate], rng: _random.Random | None = None) -> int | None:
    """Self-consistency: the most common final answer."""
    return _vote(pool, lambda c: 1.0)


def weighted_vote(pool: Sequence[Candidate], rng: _random.Random | None = None) -> int | None:
    """Votes weighted by the PRM reward (a missing reward weighs 0)."""
    return _vote(pool, lambda c: c.reward or 0.0)


def prm_best(pool: Sequence[Candidate], rng: _random.Random | None = None) -> int | None:
    """The candidate with the highest reward R; with no reward at all, the first."""
    if not pool:
        return None
    best = _argmax([c.reward for c in pool])
    return 0 if best is None else best


def oracle_chaineval(pool: Sequence[Candidate], rng: _random.Random | None = None) -> int | None:
    """The candidate closest to the gold trace by ChainEval (reads the gold: a reference, not a method)."""
    if not pool:
        return None
    best = _argmax([c.chaineval for c in pool])
    return 0 if best is None else best


def pass_at_n(pool: Sequence[Candidate], rng: _random.Random | None = None) -> int | None:
    """The first correct candidate, else the first: its accuracy is pass@N."""
    if not pool:
        return None
    return next((i for i, c in enumerate(pool) if c.correct), 0)


SELECTORS: dict[str, Callable[..., int | None]] = {
    "random": random_choice, "majority": majority, "weighted_vote": weighted_vote, "prm_best": prm_best,
    "oracle_chaineval": oracle_chaineval, "pass_at_n": pass_at_n,
}
ORACLES = ("oracle_chaineval", "pass_at_n")


def select_all(pool: Sequence[Candidate], rng: _random.Random | None = None) -> dict[str, int | None]:
    """Every selector's choice on one pool."""
    rng = rng or _random.Random(0)
    return {name: fn(pool, rng) for name, fn in SELECTORS.items()}


def accuracy(pool: Sequence[Candidate], index: int | None) -> float:
    """1.0 when the chosen candidate is correct."""
    return float(index is not None and pool[index].correct)
