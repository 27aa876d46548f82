"""Accuracy-versus-N curves for Best-of-N selection, with intervals that hold with few clusters, and the
paired differences the Fin-PRM claim rests on.

For each N, every problem whose pool holds at least N candidates contributes the mean, over
``subsamples`` random subsets of N of its candidates, of each selector's accuracy and of the ChainEval
of its pick (an unbiased estimate of the expected accuracy at N). A problem with fewer than N
candidates is left out of that N and counted in ``n_short``: a pool is never padded.

Subsets (``protocol``): ``independent`` (the default) draws each N's subsets afresh; ``nested`` draws one
permutation per problem and subsample and takes its first N for every N, so the curve is paired across N
(the N = 8 subset contains the N = 4 one) and its steps are less noisy. Both estimate the same expectation.

Intervals (``interval``, see :mod:`scorers.prm.intervals`) resample nothing by default (``t``): Korn and
Graubard's clustered-proportion interval for each mean, the cluster-robust t interval for each paired
difference. ``percentile`` is the cluster bootstrap, its draws shared by every selector and difference at
one N. Either way the unit is the cluster (FinChain: templates; CFLUE: exams): problems of one template are
not independent, and ``clusters`` (their number) stands beside every interval.

Paired differences: each selector minus ``majority`` and minus ``random``, per problem on the same subsets,
then averaged: Fin-PRM's claim (PRM selection beats majority vote on the same problems) is this difference,
and its interval is far narrower than the two marginal intervals suggest.

``oracle_chaineval`` is left out when no candidate has a ChainEval (CFLUE: no gold steps), instead of
reporting "the first candidate" under an oracle's name.

The selectors are vectorised over problems × subsamples with numpy and follow
:mod:`scorers.prm.selectors` exactly (a subset keeps its candidates in pool order, so ties go to the
earliest candidate, as there); the random selector's value is its expectation over the subset (the mean
correctness and ChainEval of the subset's members), which is what a uniformly random pick averages to.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from scorers.prm import intervals
from scorers.prm.selectors import SELECTORS, Candidate

__all__ = ["DEFAULT_NS", "INTERVALS", "PROTOCOLS", "CurveRow", "Pool", "curves", "pool_arrays", "selectors_of"]

PROTOCOLS = ("independent", "nested")
INTERVALS = ("t", "percentile")

DEFAULT_NS = (1, 2, 4, 8, 16)
CHUNK_CELLS = 4_000_000
"""Problems are processed in chunks of about this many (problem × subsample × N × N) cells: bounded memory."""


@dataclass(frozen=True)
class Pool:
    """One problem's candidates and the cluster it belongs to (its template, or its question)."""

    cluster: str
    candidates: Sequence[Candidate]


@dataclass(frozen=True)
class CurveRow:
    """One selector at one N; ``vs_majority`` / ``vs_random``: its accuracy minus theirs on the same subsets."""

    n: int
    selector: str
    accuracy: float
    accuracy_lo: float | None
    accuracy_hi: float | None
    chaineval: float | None
    chaineval_lo: float | None
    chaineval_hi: float | None
    n_problems: int
    n_short: int
    subsamples: int
    clusters: int = 0
    vs_majority: float | None = None
    vs_majority_lo: float | None = None
    vs_majority_hi: float | None = None
    vs_random: float | None = None
    vs_random_lo: float | None = None
    vs_random_hi: float | None = None
    protocol: str = "independent"
    interval: str = "t"


def pool_arrays(pools: Sequence[Pool], k: int) -> dict[str, np.ndarray]:
    """(problems, k) arrays of answer ids (-1: no answer), correctness, ChainEval (nan) and reward (nan)."""
    p = len(pools)
    keys = np.full((p, k), -1, dtype=np.int32)
    correct = np.zeros((p, k), dtype=bool)
    ce = np.full((p, k), np.nan)
    reward = np.full((p, k), np.nan)
    for i, pool in enumerate(pools):
        ids: dict[str, int] = {}
        for j, c in enumerate(pool.candidates[:k]):
            if c.answer is not None:
                keys[i, j] = ids.setdefault(c.answer, len(ids))
            correct[i, j] = c.correct
            if c.chaineval is not None:
                ce[i, j] = c.chaineval
            if c.reward is not None:
                reward[i, j] = c.reward
    return {"keys": keys, "correct": correct, "ce": ce, "reward": reward}


def _first_max(values: np.ndarray) -> np.ndarray:
    """Index of the first maximum along the last axis (nan never wins unless all are nan: then 0)."""
    filled = np.where(np.isnan(values), -np.inf, values)
    return np.argmax(filled, axis=-1)


def _vote(keys: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Position of the first candidate of the answer with the largest total weight (no answer never votes)."""
    valid = keys >= 0
    same = (keys[..., :, None] == keys[..., None, :]) & valid[..., None, :]
    totals = (same * (weights * valid)[..., None, :]).sum(-1)
    totals = np.where(valid, totals, -np.inf)
    return np.argmax(totals, axis=-1)


def _choices(arr: dict[str, np.ndarray], idx: np.ndarray, rng: np.random.Generator) -> tuple[dict, dict]:
    """Each selector's chosen position (within the subset) for every (problem, subsample)."""
    take = {name: np.take_along_axis(a[:, None, :], idx, axis=-1) for name, a in arr.items()}
    reward = take["reward"]
    return {
        "random": rng.integers(0, idx.shape[-1], size=idx.shape[:-1]),
        "majority": _vote(take["keys"], np.ones_like(reward)),
        "weighted_vote": _vote(take["keys"], np.nan_to_num(reward, nan=0.0)),
        "prm_best": _first_max(reward),
        "oracle_chaineval": _first_max(take["ce"]),
        "pass_at_n": np.argmax(take["correct"], axis=-1),
    }, take


def _per_problem(arr: dict[str, np.ndarray], n: int, subsamples: int, rng: np.random.Generator,
                 perm: np.ndarray | None = None):
    """(selector -> per-problem mean accuracy, selector -> per-problem mean ChainEval) for one chunk; ``perm``
    (problems, subsamples, k): the nested protocol's fixed permutations (first N of each)."""
    p, k = arr["keys"].shape
    if perm is None:
        perm = np.argsort(rng.random((p, subsamples, k)), axis=-1)
    idx = np.sort(perm[..., :n], axis=-1)
    chosen, take = _choices(arr, idx, rng)
    acc, ce = {}, {}
    for name, pos in chosen.items():
        acc[name] = np.take_along_axis(take["correct"], pos[..., None], axis=-1)[..., 0].mean(-1)
        ce[name] = np.take_along_axis(take["ce"], pos[..., None], axis=-1)[..., 0].mean(-1)
    # the random pick's expectation over its subset, not one draw: the same mean, without the draw's noise
    acc["random"] = take["correct"].mean(-1).mean(-1)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a subset with no ChainEval at all: NaN, as a pick's
        ce["random"] = np.nanmean(np.nanmean(take["ce"], axis=-1), axis=-1)
    return acc, ce


def selectors_of(pools: Sequence[Pool]) -> list[str]:
    """The selectors that mean something on these pools: ``oracle_chaineval`` only when a candidate has a
    ChainEval (CFLUE has none: the "oracle" would be the first candidate)."""
    has_ce = any(c.chaineval is not None for p in pools for c in p.candidates)
    return [s for s in SELECTORS if has_ce or s != "oracle_chaineval"]


def _fill(pools: Sequence[Pool], ns: Sequence[int], subsamples: int, seed: int, protocol: str):
    """Per N: selector -> per-problem accuracy and ChainEval (NaN where the pool is short)."""
    rng = np.random.default_rng(seed)
    by_size: dict[int, list[int]] = defaultdict(list)
    for i, pool in enumerate(pools):
        by_size[len(pool.candidates)].append(i)
    acc = {n: {s: np.full(len(pools), np.nan) for s in SELECTORS} for n in ns}
    ce = {n: {s: np.full(len(pools), np.nan) for s in SELECTORS} for n in ns}
    for k, members in sorted(by_size.items()):
        step = max(1, CHUNK_CELLS // max(1, subsamples * k * k))
        for start in range(0, len(members), step):
            part = members[start:start + step]
            arr = pool_arrays([pools[i] for i in part], k)
            perm = None
            if protocol == "nested":  # one permutation per problem and subsample, the same for every N
                perm = np.argsort(np.random.default_rng([seed, k, start]).random((len(part), subsamples, k)), -1)
            for n in ns:
                if n <= k:
                    a, c = _per_problem(arr, n, subsamples, rng, perm)
                    for s in SELECTORS:
                        acc[n][s][part], ce[n][s][part] = a[s], c[s]
    return acc, ce


def curves(pools: Sequence[Pool], ns: Sequence[int] = DEFAULT_NS, subsamples: int = 200, bootstrap: int = 1000,
           seed: int = 0, protocol: str = "independent", interval: str = "t", confidence: float = 0.95
           ) -> list[CurveRow]:
    """Every selector at every N (see the module docstring); rows ordered by N, then selector. ``bootstrap``
    is the number of resamples of the ``percentile`` interval (0: no interval); ``t`` resamples nothing."""
    if protocol not in PROTOCOLS or interval not in INTERVALS:
        raise ValueError(f"protocol: {' or '.join(PROTOCOLS)}; interval: {' or '.join(INTERVALS)}")
    acc, ce = _fill(pools, ns, subsamples, seed, protocol)
    clusters_all = np.array([p.cluster for p in pools], dtype=object)
    names = selectors_of(pools)
    rng = np.random.default_rng([seed, 1])
    rows = []
    for n in ns:
        eligible = ~np.isnan(acc[n]["random"])
        cl = clusters_all[eligible]
        g = len(set(cl.tolist()))
        weights = intervals.cluster_weights(g, bootstrap, rng) if interval == "percentile" else None

        at = {s: acc[n][s][eligible] for s in SELECTORS}
        ci = partial(_interval, clusters=cl, interval=interval, weights=weights, confidence=confidence)
        for s in names:
            m, lo, hi = ci(at[s])
            cm, clo, chi = ci(ce[n][s][eligible])
            vm = ci(at[s] - at["majority"], proportion=False)
            vr = ci(at[s] - at["random"], proportion=False)
            rows.append(CurveRow(n, s, m, _none(lo), _none(hi), _none(cm), _none(clo), _none(chi), int(eligible.sum()),
                                 int((~eligible).sum()), subsamples, g, *map(_none, vm), *map(_none, vr),
                                 protocol, interval))
    return rows


def _interval(values: np.ndarray, clusters: np.ndarray, interval: str, weights: np.ndarray | None,
              confidence: float, proportion: bool = True) -> tuple[float, float, float]:
    """(mean, low, high) by the chosen method: a proportion or a paired difference (see the module docstring)."""
    if interval == "percentile":
        return intervals.percentile_interval(values, clusters, weights, confidence)
    fn = intervals.proportion_interval if proportion else intervals.mean_interval
    return fn(values, clusters, confidence)


def _none(value) -> float | None:
    """NaN (no data, no interval) as None, so files show an empty cell."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
