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

import itertools
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
    subsets: str = "all"
    """Subsets of N each problem's value averages over: ``all`` (exact: every subset, by order statistics or by
    enumeration) or the number of random subsets (a Monte-Carlo mean; its variance is in the intervals)."""


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


def _vote(keys: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Position of the first candidate of the answer with the largest total weight (no answer never votes)."""
    valid = keys >= 0
    same = (keys[..., :, None] == keys[..., None, :]) & valid[..., None, :]
    totals = (same * (weights * valid)[..., None, :]).sum(-1)
    totals = np.where(valid, totals, -np.inf)
    return np.argmax(totals, axis=-1)


def _choices(arr: dict[str, np.ndarray], idx: np.ndarray, rng: np.random.Generator) -> tuple[dict, dict]:
    """The chosen position (within the subset) for every (problem, subsample) of the selectors whose per-subset
    picks are read: the votes. The selectors of :data:`EXACT_BY_ORDER` are computed exactly from the whole pool.
    ``random``'s pick is replaced by its exact expectation too, but its draw stays: a seed's later subsets follow
    it, so a seeded run gives the figures earlier versions gave."""
    take = {name: np.take_along_axis(a[:, None, :], idx, axis=-1) for name, a in arr.items()}
    reward = take["reward"]
    return {
        "random": rng.integers(0, idx.shape[-1], size=idx.shape[:-1]),
        "majority": _vote(take["keys"], np.ones_like(reward)),
        "weighted_vote": _vote(take["keys"], np.nan_to_num(reward, nan=0.0)),
    }, take


EXACT_BY_ORDER = ("prm_best", "oracle_chaineval", "pass_at_n")
"""Selectors that keep the subset's best candidate by a fixed order of the pool: their expectation over all
subsets of N is exact by order statistics (:func:`_exact_by_order`), whatever ``subsamples`` is."""
VOTES = ("majority", "weighted_vote")
"""Selectors whose exact expectation needs every subset: exact when there are at most ``subsamples`` subsets
(all are enumerated), else a Monte-Carlo mean whose variance is added to the interval."""


def _order_keys(arr: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per selector of :data:`EXACT_BY_ORDER`, the value it maximises (NaN never wins; ties to the earliest); the
    constant decides which selectors are computed exactly, so it cannot drift from what is."""
    values = {"prm_best": arr["reward"], "oracle_chaineval": arr["ce"], "pass_at_n": arr["correct"].astype(float)}
    return {name: values[name] for name in EXACT_BY_ORDER}


def _exact_by_order(values: np.ndarray, n: int) -> np.ndarray:
    """(problems, k) weights: the chance that each candidate is the pick of a uniform subset of N when the pick
    is the subset's first candidate in the order (value descending, NaN last, earlier position first). The
    candidate ranked r (0-based) is picked iff the other N - 1 come from the k - 1 - r ranked below it:
    C(k - 1 - r, N - 1) / C(k, N)."""
    p, k = values.shape
    filled = np.where(np.isnan(values), -np.inf, values)
    order = np.argsort(-filled, axis=-1, kind="stable")
    by_rank = np.array([math.comb(k - 1 - r, n - 1) for r in range(k)], dtype=float) / math.comb(k, n)
    weights = np.zeros((p, k))
    np.put_along_axis(weights, order, np.broadcast_to(by_rank, (p, k)), axis=-1)
    return weights


def _per_problem(arr: dict[str, np.ndarray], n: int, subsamples: int, rng: np.random.Generator,
                 perm: np.ndarray | None = None):
    """(selector -> per-problem accuracy, selector -> per-problem ChainEval, quantity -> per-problem Monte-Carlo
    variance, whether every selector is exact) for one chunk. ``perm`` (problems, subsamples, k): the nested
    protocol's fixed permutations (first N of each).

    Exact where it is cheap: ``random`` (the pool's mean) and :data:`EXACT_BY_ORDER` always; every selector when
    the pool has at most ``subsamples`` subsets of N (all are enumerated, each once). Otherwise the votes are
    means over ``subsamples`` random subsets, and the variance of that mean (over the subsets, divided by their
    number) is returned per quantity: ``("accuracy", s)``, ``("chaineval", s)``, ``("vs_majority", s)``,
    ``("vs_random", s)``."""
    p, k = arr["keys"].shape
    exact = math.comb(k, n) <= subsamples
    if exact:
        idx = np.broadcast_to(np.array(list(itertools.combinations(range(k), n)), dtype=int)[None],
                              (p, math.comb(k, n), n))
    else:
        if perm is None:
            perm = np.argsort(rng.random((p, subsamples, k)), axis=-1)
        idx = np.sort(perm[..., :n], axis=-1)
    chosen, take = _choices(arr, idx, rng)
    per_subset_acc, per_subset_ce, acc, ce = {}, {}, {}, {}
    for name, pos in chosen.items():
        per_subset_acc[name] = np.take_along_axis(take["correct"], pos[..., None], axis=-1)[..., 0].astype(float)
        per_subset_ce[name] = np.take_along_axis(take["ce"], pos[..., None], axis=-1)[..., 0]
        acc[name], ce[name] = per_subset_acc[name].mean(-1), per_subset_ce[name].mean(-1)
    # the random pick's expectation: the pool's mean (what a uniformly random pick of any subset averages to)
    acc["random"] = arr["correct"].mean(-1)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pool with no ChainEval at all: NaN, as a pick's
        ce["random"] = np.nanmean(arr["ce"], axis=-1)
    for name, values in _order_keys(arr).items():
        weights = _exact_by_order(values, n)
        acc[name] = (weights * arr["correct"]).sum(-1)
        ce[name] = (weights * np.where(weights > 0, arr["ce"], 0.0)).sum(-1)  # NaN if a possible pick has none
    mc = _mc_variance(per_subset_acc, per_subset_ce, exact)
    return acc, ce, mc, exact


def _mc_variance(acc: dict[str, np.ndarray], ce: dict[str, np.ndarray], exact: bool) -> dict:
    """Per quantity, the variance of a per-problem Monte-Carlo mean over the drawn subsets (0 where exact)."""
    def var(x: np.ndarray) -> np.ndarray:
        s = x.shape[-1]
        if exact:
            return np.zeros(x.shape[0])
        if s < 2:  # one subset: no spread to measure; the largest a [-1, 1] difference can have
            return np.ones(x.shape[0])
        with np.errstate(invalid="ignore"):
            return x.var(-1, ddof=1) / s

    out = {}
    zero = np.zeros(next(iter(acc.values())).shape[0])
    for name in SELECTORS:
        mc = name in VOTES
        out[("accuracy", name)] = var(acc[name]) if mc else zero
        out[("chaineval", name)] = var(ce[name]) if mc else zero
        out[("vs_random", name)] = out[("accuracy", name)]
        out[("vs_majority", name)] = (var(acc[name] - acc["majority"]) if mc else var(acc["majority"]))
    out[("vs_majority", "majority")] = zero
    return out


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
    mc: dict[int, dict] = {n: defaultdict(lambda: np.zeros(len(pools))) for n in ns}
    exact = dict.fromkeys(ns, True)
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
                    a, c, v, whole = _per_problem(arr, n, subsamples, rng, perm)
                    exact[n] = exact[n] and whole
                    for s in SELECTORS:
                        acc[n][s][part], ce[n][s][part] = a[s], c[s]
                    for key, values in v.items():
                        mc[n][key][part] = values
    return acc, ce, mc, exact


def curves(pools: Sequence[Pool], ns: Sequence[int] = DEFAULT_NS, subsamples: int = 200, bootstrap: int = 1000,
           seed: int = 0, protocol: str = "independent", interval: str = "t", confidence: float = 0.95
           ) -> list[CurveRow]:
    """Every selector at every N (see the module docstring); rows ordered by N, then selector. ``bootstrap``
    is the number of resamples of the ``percentile`` interval (0: no interval); ``t`` resamples nothing."""
    if protocol not in PROTOCOLS or interval not in INTERVALS:
        raise ValueError(f"protocol: {' or '.join(PROTOCOLS)}; interval: {' or '.join(INTERVALS)}")
    acc, ce, mc, exact = _fill(pools, ns, subsamples, seed, protocol)
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

        with_mc = partial(_widen_by, mc[n], eligible, confidence)
        for s in names:
            m, lo, hi = with_mc(ci(at[s]), ("accuracy", s))
            cm, clo, chi = with_mc(ci(ce[n][s][eligible]), ("chaineval", s))
            vm = with_mc(ci(at[s] - at["majority"], proportion=False), ("vs_majority", s))
            vr = with_mc(ci(at[s] - at["random"], proportion=False), ("vs_random", s))
            subsets = "all" if exact[n] or s not in VOTES else str(subsamples)
            rows.append(CurveRow(n, s, m, _none(lo), _none(hi), _none(cm), _none(clo), _none(chi), int(eligible.sum()),
                                 int((~eligible).sum()), subsamples, g, *map(_none, vm), *map(_none, vr),
                                 protocol, interval, subsets))
    return rows


def _interval(values: np.ndarray, clusters: np.ndarray, interval: str, weights: np.ndarray | None,
              confidence: float, proportion: bool = True) -> tuple[float, float, float]:
    """(mean, low, high) by the chosen method: a proportion or a paired difference (see the module docstring)."""
    if interval == "percentile":
        return intervals.percentile_interval(values, clusters, weights, confidence)
    fn = intervals.proportion_interval if proportion else intervals.mean_interval
    return fn(values, clusters, confidence)


def _widen_by(mc: dict, eligible: np.ndarray, confidence: float, found: tuple[float, float, float],
              key: tuple[str, str]) -> tuple[float, float, float]:
    return _widen(found, mc[key][eligible], confidence)


def _widen(found: tuple[float, float, float], variances: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """The interval with the Monte-Carlo error of the mean added: each half-width h becomes sqrt(h² + (z·se)²),
    se² = sum of the problems' Monte-Carlo variances / problems² (the subsets of different problems are drawn
    independently). Exact values (variance 0) keep their interval."""
    mean, lo, hi = found
    total = float(np.nansum(variances))
    if total <= 0 or math.isnan(lo) or math.isnan(hi):
        return found
    from scipy.stats import norm

    extra = (float(norm.ppf(0.5 + confidence / 2)) * math.sqrt(total) / len(variances)) ** 2
    return mean, mean - math.sqrt((mean - lo) ** 2 + extra), mean + math.sqrt((hi - mean) ** 2 + extra)


def _none(value) -> float | None:
    """NaN (no data, no interval) as None, so files show an empty cell."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
