"""Accuracy-versus-N curves for Best-of-N selection, with cluster-bootstrap 95% intervals.

For each N, every problem whose pool holds at least N candidates contributes the mean, over
``subsamples`` random subsets of N of its candidates, of each selector's accuracy and of the ChainEval
of its pick (an unbiased estimate of the expected accuracy at N). A problem with fewer than N
candidates is left out of that N and counted in ``n_short``: a pool is never padded. The 95% interval
resamples clusters (FinChain: templates; CFLUE: questions) with replacement, ``bootstrap`` times, and
takes the 2.5 / 97.5 percentiles of the resampled means: problems of one template are not independent.

The selectors are vectorised over problems × subsamples with numpy and follow
:mod:`scorers.prm.selectors` exactly (a subset keeps its candidates in pool order, so ties go to the
earliest candidate, as there); the random selector picks a uniformly random member of the subset.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorers.prm.selectors import SELECTORS, Candidate

__all__ = ["DEFAULT_NS", "CurveRow", "Pool", "curves", "pool_arrays"]

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
    """One selector at one N."""

    n: int
    selector: str
    accuracy: float
    accuracy_lo: float
    accuracy_hi: float
    chaineval: float | None
    chaineval_lo: float | None
    chaineval_hi: float | None
    n_problems: int
    n_short: int
    subsamples: int


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


def _per_problem(arr: dict[str, np.ndarray], n: int, subsamples: int, rng: np.random.Generator):
    """(selector -> per-problem mean accuracy, selector -> per-problem mean ChainEval) for one chunk."""
    p, k = arr["keys"].shape
    idx = np.sort(np.argsort(rng.random((p, subsamples, k)), axis=-1)[..., :n], axis=-1)
    chosen, take = _choices(arr, idx, rng)
    acc, ce = {}, {}
    for name, pos in chosen.items():
        acc[name] = np.take_along_axis(take["correct"], pos[..., None], axis=-1)[..., 0].mean(-1)
        ce[name] = np.take_along_axis(take["ce"], pos[..., None], axis=-1)[..., 0].mean(-1)
    return acc, ce


def _cluster_ci(values: np.ndarray, clusters: np.ndarray, bootstrap: int, rng: np.random.Generator):
    """Mean and 95% percentile interval, resampling clusters with replacement."""
    ok = ~np.isnan(values)
    values, clusters = values[ok], clusters[ok]
    if values.size == 0:
        return None, None, None
    ids, inverse = np.unique(clusters, return_inverse=True)
    sums = np.bincount(inverse, weights=values, minlength=len(ids))
    counts = np.bincount(inverse, minlength=len(ids)).astype(float)
    mean = float(values.mean())
    if bootstrap <= 0 or len(ids) < 2:
        return mean, mean, mean
    draws = rng.integers(0, len(ids), size=(bootstrap, len(ids)))
    weights = np.zeros((bootstrap, len(ids)))
    np.add.at(weights, (np.repeat(np.arange(bootstrap), len(ids)), draws.ravel()), 1.0)
    est = (weights @ sums) / (weights @ counts)
    lo, hi = np.percentile(est, [2.5, 97.5])
    return mean, float(lo), float(hi)


def curves(pools: Sequence[Pool], ns: Sequence[int] = DEFAULT_NS, subsamples: int = 200, bootstrap: int = 1000,
           seed: int = 0) -> list[CurveRow]:
    """Every selector at every N (see the module docstring); rows ordered by N, then selector."""
    rng = np.random.default_rng(seed)
    by_size: dict[int, list[int]] = defaultdict(list)
    for i, pool in enumerate(pools):
        by_size[len(pool.candidates)].append(i)
    clusters_all = np.array([p.cluster for p in pools], dtype=object)
    rows = []
    for n in ns:
        acc = {s: np.full(len(pools), np.nan) for s in SELECTORS}
        ce = {s: np.full(len(pools), np.nan) for s in SELECTORS}
        for k, members in by_size.items():
            if k < n:
                continue
            step = max(1, CHUNK_CELLS // max(1, subsamples * n * max(n, k)))
            for start in range(0, len(members), step):
                part = members[start:start + step]
                a, c = _per_problem(pool_arrays([pools[i] for i in part], k), n, subsamples, rng)
                for s in SELECTORS:
                    acc[s][part], ce[s][part] = a[s], c[s]
        eligible = ~np.isnan(acc["random"])
        n_short = int((~eligible).sum())
        for s in SELECTORS:
            m, lo, hi = _cluster_ci(acc[s][eligible], clusters_all[eligible], bootstrap, rng)
            cm, clo, chi = _cluster_ci(ce[s][eligible], clusters_all[eligible], bootstrap, rng)
            rows.append(CurveRow(n, s, m if m is not None else float("nan"), lo or 0.0, hi or 0.0, cm, clo, chi,
                                 int(eligible.sum()), n_short, subsamples))
    return rows
