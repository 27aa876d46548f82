"""A Best-of-N pool as plain data: grade candidates, score them with a PRM, run every selector.

Both hosts call :func:`pool_records` (Inspect per sample, lm-eval for a whole task in one filter
call), and ``finchain bon`` reads the records back (:func:`candidates_of`), so the fields a curve needs
are written once, here. A record (JSON-able)::

    {"n": 16, "prm": "calc", "agg": "min", "zeta": 1.0, "cluster": "<template or question id>",
     "question": "<the question text the PRM read>",
     "candidates": [{"text", "answer", "key", "correct", "chaineval", "reward", "step_probs", "p_traj",
                     "n_unverified"}, ...],
     "selected": {"random": 3, "majority": 0, ...}, "values": {"prm_best": 1.0, "ce_prm_best": 0.8, ...}}

``values`` holds each selector's accuracy (1/0) and, where candidates have a ChainEval score, the
chosen candidate's ChainEval under ``ce_<selector>``.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from scorers.prm.base import PRM, PRMScore, prm_input
from scorers.prm.selectors import SELECTORS, Candidate, select_all

__all__ = ["Graded", "candidates_of", "grade_finchain", "pool_records", "value_keys"]


@dataclass(frozen=True, slots=True)
class Graded:
    """One candidate graded against the gold: its final answer, correctness and ChainEval (None without gold steps)."""

    text: str
    answer: str
    correct: bool
    chaineval: float | None = None
    key: str | None = None


def value_keys(with_chaineval: bool = True) -> list[str]:
    """The keys of ``values``: every selector's accuracy, then (FinChain) each one's ChainEval."""
    keys = list(SELECTORS)
    return keys + [f"ce_{k}" for k in SELECTORS] if with_chaineval else keys


def grade_finchain(golds: Sequence, texts: Sequence[str], params=None) -> list[Graded]:
    """ChainEval for every (gold, candidate) pair in one batched call; each candidate votes with the key of
    the reading that graded it (:func:`scorers.final_answer.judge_answer`: "decreases by $7.88" votes with
    -7.88, a bare ``1`` after "so it should be reported" with yes)."""
    from scorers.chaineval import score_batch

    results = score_batch(list(golds), list(texts), params or "paper")
    return [Graded(t, r.final_answer, bool(r.fac), float(r.chaineval), r.answer_key) for t, r in zip(texts, results)]


def _rng(cluster: str, ident: str) -> random.Random:
    """The random selector's generator, fixed by the problem so a rerun picks the same candidate."""
    return random.Random(zlib.crc32(f"{cluster}|{ident}".encode()))


def pool_records(questions: Sequence[str], graded: Sequence[Sequence[Graded]], prm: PRM,
                 clusters: Sequence[str] | None = None, ids: Sequence[str] | None = None) -> list[dict]:
    """Score every candidate of every pool with ``prm`` in one batch, then select; one record per pool."""
    flat = [(q, g) for q, pool in zip(questions, graded) for g in pool]
    scores = prm.score_batch([prm_input(q, g.text) for q, g in flat]) if flat else []
    records, k = [], 0
    for p, pool in enumerate(graded):
        pool_scores = scores[k:k + len(pool)]
        k += len(pool)
        cluster = clusters[p] if clusters else str(p)
        record = _record(pool, pool_scores, prm, cluster, ids[p] if ids else str(p))
        record["question"] = questions[p]  # so ``finchain bon --prm`` can re-score without the dataset
        records.append(record)
    return records


def _record(pool: Sequence[Graded], scores: Sequence[PRMScore], prm: PRM, cluster: str, ident: str) -> dict:
    candidates = [Candidate(g.key, g.correct, g.chaineval, s.reward) for g, s in zip(pool, scores)]
    selected = select_all(candidates, _rng(cluster, ident))
    with_ce = all(g.chaineval is not None for g in pool) and bool(pool)
    values = {name: float(i is not None and candidates[i].correct) for name, i in selected.items()}
    if with_ce:
        values.update({f"ce_{name}": float(candidates[i].chaineval) if i is not None else 0.0
                       for name, i in selected.items()})
    first = scores[0] if scores else None
    return {
        "n": len(pool), "prm": getattr(prm, "name", ""), "agg": first.agg if first else None,
        "zeta": first.zeta if first else None, "cluster": cluster,
        "candidates": [{"text": g.text, "answer": g.answer, "key": g.key, "correct": g.correct,
                        "chaineval": g.chaineval, "reward": s.reward, "step_probs": list(s.step_probs),
                        "p_traj": s.p_traj, "n_unverified": s.n_unverified} for g, s in zip(pool, scores)],
        "selected": selected, "values": values,
    }


def candidates_of(record: dict) -> list[Candidate]:
    """A record's candidates as the selectors see them (what ``finchain bon`` recomputes curves from)."""
    return [Candidate(c.get("key"), bool(c.get("correct")), c.get("chaineval"), c.get("reward"))
            for c in record.get("candidates", [])]
