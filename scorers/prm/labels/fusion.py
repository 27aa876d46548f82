"""Fin-PRM's label arithmetic (paper, sections 4.1-4.2), with nothing else in it.

Step level: three scores per step, importance r_imp (share of Monte Carlo rollouts from the step's
prefix that reach the gold answer), qualitative r_qual (a judge's score in [0, 1]) and accuracy
r_acc = r_corr + ω · r_know (two binary judgements, ω = 1, so r_acc ∈ [0, 1 + ω]), fused by the
paper's softmax weighting

    w_k = exp(r_k) / Σ_j exp(r_j),        r_step = Σ_k w_k · r_k,

("emphasises the most informative signal among the three") and binarised at 0.5: L_step = [r_step ≥ 0.5].
The paper prints the formulas as images the text does not keep; this is the reading the prose gives.

Trajectory level: r_traj = r_out + η · r_cover (η = 1.5), L_traj = [r_traj ≥ 1.25], with r_out the final
answer's correctness and r_cover the share of the question's knowledge points the trace uses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["ETA", "OMEGA", "STEP_THRESHOLD", "TRAJ_THRESHOLD", "accuracy_score", "binarise", "coverage",
           "softmax_fuse", "trajectory_score"]

OMEGA = 1.0
ETA = 1.5
STEP_THRESHOLD = 0.5
TRAJ_THRESHOLD = 1.25


def accuracy_score(procedural: float, factual: float, omega: float = OMEGA) -> float:
    """r_acc = r_corr + ω · r_know (the paper adds them; it does not rescale the sum)."""
    return float(procedural) + omega * float(factual)


def softmax_fuse(scores: Sequence[float]) -> float:
    """Σ_k softmax(r)_k · r_k: a weighted mean that leans towards the largest score."""
    if not scores:
        raise ValueError("softmax fusion needs at least one score")
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]  # shifted: the same weights, no overflow
    return sum(w * s for w, s in zip(weights, scores)) / sum(weights)


def binarise(score: float, threshold: float) -> int:
    """1 when the score reaches the threshold (the paper's 'thresholding at'), else 0."""
    return int(score >= threshold)


def coverage(relevant: Sequence[str], used: Sequence[str]) -> float:
    """r_cover = |K_x ∩ φ(s ⊕ a)| / |K_x|; raises on an empty K_x (coverage of nothing is undefined)."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("the question has no knowledge points: coverage is undefined")
    return len(wanted & set(used)) / len(wanted)


def trajectory_score(r_out: float, r_cover: float, eta: float = ETA) -> float:
    """r_traj = r_out + η · r_cover."""
    return float(r_out) + eta * float(r_cover)
