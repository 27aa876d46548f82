"""Statistics of a leaderboard, with the uncertainty a careful reader needs (scipy/numpy only).

FinChain problems are clustered: the seeds of one template share its wording, its steps and its difficulty,
so two samples of one template are not two independent observations (CFLUE questions cluster by exam the
same way). Intervals therefore resample whole clusters (:func:`cluster_interval`), and the plain per-sample
interval is shown beside it (:func:`naive_interval`) so the difference is visible. Models are compared on
the samples they share (:func:`paired_test`): the per-sample difference removes each problem's difficulty,
which an unpaired comparison leaves in as noise. Its p-value is the exact sign-flip test over clusters when
there are at most :data:`EXACT_MAX_CLUSTERS` of them (every one of the 2^G patterns enumerated), else the
cluster-robust t test on the template-level differences (CR1 variance, G - 1 degrees of freedom). Neither is
floored by a resample count: a Monte-Carlo permutation p-value cannot go below 1/(resamples + 1), and Holm's
correction over 53 comparisons then rejects nothing, so a 54-row board collapsed into one tie group.

Tie groups say which rows a paired test could not tell from a leader; they are not an ordering, and the
leader is picked after looking (so with many equal models one is separated more often than ``alpha``).
:func:`rank_intervals` is the calibrated complement: each row's range of ranks over the template bootstrap,
resampling the same templates for every row at once (the arena-style rank spread), simultaneous over the
rows by default (Bonferroni), so that equal models rarely look apart.

The resampling itself is scipy's (``scipy.stats.bootstrap``, ``scipy.stats.permutation_test``); a
cluster's contribution is its (sum, count) pair, resampled together, so the statistic is the ratio of sums
(the mean over the samples of the drawn clusters) and clusters of different sizes weigh by their size."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Optional

import numpy as np

NAN = float("nan")
EXACT_MAX_CLUSTERS = 15
"""Up to this many clusters the sign-flip p-value is exact (2^15 = 32,768 patterns); above, the t test."""


@dataclass(frozen=True)
class Interval:
    """A mean and its interval; ``n`` samples in ``clusters`` clusters."""

    mean: float
    low: float
    high: float
    n: int
    clusters: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}


def _clean(values: Sequence[float], clusters: Optional[Sequence[Any]] = None) -> tuple[np.ndarray, np.ndarray]:
    """Drop missing values (NaN: a sample without that metric), keeping clusters aligned."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(list(clusters) if clusters is not None else range(len(v)), dtype=object)
    keep = ~np.isnan(v)
    return v[keep], c[keep]


def cluster_sums(values: np.ndarray, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster: the sum of its values and its sample count (cluster order: first appearance)."""
    _, index = np.unique(clusters.astype(str), return_inverse=True)
    sums = np.bincount(index, weights=values)
    counts = np.bincount(index).astype(float)
    return sums, counts


def _ratio(sums: np.ndarray, counts: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(sums, axis=axis) / np.sum(counts, axis=axis)


def _bootstrap(data: tuple, statistic, confidence: float, resamples: int, seed: int) -> tuple[float, float]:
    from scipy.stats import bootstrap

    with warnings.catch_warnings():  # a degenerate (constant) resample distribution is a valid, zero-width interval
        warnings.simplefilter("ignore")
        res = bootstrap(data, statistic, paired=True, vectorized=True, confidence_level=confidence,
                        n_resamples=resamples, method="percentile", random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def cluster_interval(values: Sequence[float], clusters: Sequence[Any], confidence: float = 0.95,
                     resamples: int = 2000, seed: int = 0) -> Interval:
    """Mean with a percentile bootstrap interval that resamples whole clusters (templates, exams).
    Fewer than two clusters give no interval (NaN bounds): one cluster says nothing about the next."""
    v, c = _clean(values, clusters)
    if len(v) == 0:
        return Interval(NAN, NAN, NAN, 0, 0, "cluster bootstrap")
    sums, counts = cluster_sums(v, c)
    mean = float(v.mean())
    if len(sums) < 2:
        return Interval(mean, NAN, NAN, len(v), len(sums), "cluster bootstrap")
    low, high = _bootstrap((sums, counts), _ratio, confidence, resamples, seed)
    return Interval(mean, low, high, len(v), len(sums), "cluster bootstrap")


def naive_interval(values: Sequence[float], confidence: float = 0.95, resamples: int = 2000,
                   seed: int = 0) -> Interval:
    """Mean with a percentile bootstrap interval that resamples single samples, as if independent."""
    v, _ = _clean(values)
    if len(v) < 2:
        return Interval(float(v.mean()) if len(v) else NAN, NAN, NAN, len(v), len(v), "per-sample bootstrap")
    low, high = _bootstrap((v,), lambda x, axis=-1: np.mean(x, axis=axis), confidence, resamples, seed)
    return Interval(float(v.mean()), low, high, len(v), len(v), "per-sample bootstrap")


@dataclass(frozen=True)
class Comparison:
    """Model a minus model b on their shared samples: mean difference, its cluster interval, the p-value."""

    a: str
    b: str
    diff: float
    low: float
    high: float
    p_value: float
    n: int
    clusters: int
    method: str = "paired test on cluster differences; cluster bootstrap interval"

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}


def sign_flip_p(d: np.ndarray) -> float:
    """Exact two-sided sign-flip p-value of ``sum(d)`` over all 2^G sign patterns of the cluster sums ``d``:
    under the null the two models are exchangeable within a cluster, so each cluster's difference may flip."""
    g = len(d)
    patterns = ((np.arange(2 ** g)[:, None] >> np.arange(g)) & 1) * 2 - 1
    totals = np.abs(patterns @ d)
    observed = abs(float(d.sum()))
    return float(np.mean(totals >= observed - 1e-12 * max(1.0, observed)))


def cluster_t_p(d: np.ndarray, counts: np.ndarray) -> float:
    """Two-sided p-value of the cluster-robust t test of the mean difference ``sum(d) / sum(counts)``: the
    CR1 (small-sample corrected) variance of a ratio estimator, G - 1 degrees of freedom."""
    from scipy.stats import t as student_t

    g, total = len(d), counts.sum()
    mean = d.sum() / total
    resid = d - mean * counts
    var = g / (g - 1) * float(np.sum(resid ** 2)) / total ** 2
    if var <= 0:
        return 1.0 if mean == 0 else 0.0
    return float(2 * student_t.sf(abs(mean) / math.sqrt(var), g - 1))


def paired_test(a: Sequence[float], b: Sequence[float], clusters: Sequence[Any], names: tuple[str, str] = ("a", "b"),
                confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> Comparison:
    """Paired comparison on shared samples (``a[i]`` and ``b[i]`` are one sample). Two-sided p-value: the
    exact sign-flip test over clusters up to :data:`EXACT_MAX_CLUSTERS` clusters, the cluster-robust t test
    above (see the module docstring); the interval of the mean difference is a cluster bootstrap."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    c = np.asarray(list(clusters), dtype=object)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y, c = x[keep], y[keep], c[keep]
    if len(x) == 0:
        return Comparison(*names, NAN, NAN, NAN, NAN, 0, 0)
    sa, counts = cluster_sums(x, c)
    sb, _ = cluster_sums(y, c)
    diff = float((x - y).mean())
    if len(sa) < 2:
        return Comparison(*names, diff, NAN, NAN, NAN, len(x), len(sa))
    d = sa - sb
    if len(d) <= EXACT_MAX_CLUSTERS:
        p, method = sign_flip_p(d), "exact sign-flip test over clusters"
    else:
        p, method = cluster_t_p(d, counts), "cluster-robust t test (CR1, G-1 df)"
    low, high = _bootstrap((d, counts), _ratio, confidence, resamples, seed)
    return Comparison(*names, diff, low, high, p, len(x), len(sa), f"{method}; cluster bootstrap interval")


def unpaired_test(a: Sequence[float], b: Sequence[float], resamples: int = 2000, seed: int = 0) -> float:
    """Two-sided p-value of an unpaired permutation test of the difference in means (for contrast only: it
    ignores that both models answered the same problems)."""
    from scipy.stats import permutation_test

    x, _ = _clean(a)
    y, _ = _clean(b)
    res = permutation_test((x, y), lambda p, q, axis=-1: np.mean(p, axis=axis) - np.mean(q, axis=axis),
                           permutation_type="independent", vectorized=True, n_resamples=resamples,
                           alternative="two-sided", random_state=np.random.default_rng(seed))
    return float(res.pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1); NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(len(p), NAN)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        out[idx] = running
    return out.tolist()


@dataclass(frozen=True)
class RankInterval:
    """A row's rank by its mean (1 = best; ties share the better rank) and its bootstrap range of ranks."""

    rank: int
    low: int
    high: int


def rank_intervals(values: Sequence[Sequence[float]], clusters: Sequence[Sequence[Any]], confidence: float = 0.95,
                   resamples: int = 2000, seed: int = 0, simultaneous: bool = True) -> list[Optional[RankInterval]]:
    """Each row's rank and its ``confidence`` range of ranks under the template bootstrap.

    ``values[r]`` and ``clusters[r]`` are row r's samples and their clusters. One bootstrap draw resamples
    the union of the clusters with replacement, the same draw for every row (rows are compared on the same
    resampled problems); each row's mean is over its samples in the drawn clusters, and the rows are ranked
    (rank = 1 + the number of rows with a strictly higher mean). The interval is the percentile range of a
    row's ranks over the draws. ``simultaneous`` (the default) takes each row's range at level
    1 - (1 - confidence) / rows (Bonferroni over the rows), so all the intervals hold together at
    ``confidence``: marginal ones (``simultaneous=False``, an arena board's rank spread) make two of ten
    equal models look apart on one board in eight. A row with no value gets None; a draw in which a row has
    no sample leaves that row out of the draw's ranking."""
    cleaned = [_clean(v, c) for v, c in zip(values, clusters)]
    labels = sorted({str(x) for _, c in cleaned for x in c})
    if not labels:
        return [None] * len(cleaned)
    index = {k: i for i, k in enumerate(labels)}
    g = len(labels)
    sums, counts = np.zeros((len(cleaned), g)), np.zeros((len(cleaned), g))
    for r, (v, c) in enumerate(cleaned):
        idx = np.array([index[str(x)] for x in c], dtype=int)
        np.add.at(sums[r], idx, v)
        np.add.at(counts[r], idx, 1.0)
    present = counts.sum(1) > 0
    point = _ranks((sums.sum(1) / np.where(present, counts.sum(1), 1.0))[None, :], present[None, :])[0]
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, g, g), minlength=g) for _ in range(resamples)]).astype(float)
    denom = weights @ counts.T
    ok = denom > 0
    means = (weights @ sums.T) / np.where(ok, denom, 1.0)
    ranks = _ranks(means, ok)
    tail = (1 - confidence) / 2 / (int(present.sum()) if simultaneous else 1)
    out: list[Optional[RankInterval]] = []
    for r in range(len(cleaned)):
        if not present[r]:
            out.append(None)
            continue
        drawn = ranks[ok[:, r], r]
        low, high = np.quantile(drawn, [tail, 1 - tail], method="inverted_cdf")
        out.append(RankInterval(int(point[r]), int(low), int(high)))
    return out


def _ranks(means: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Per draw (row of ``means``): 1 + the number of present rows with a strictly higher mean."""
    filled = np.where(ok, means, -np.inf)
    return 1 + (filled[:, None, :] > filled[:, :, None]).sum(-1)
