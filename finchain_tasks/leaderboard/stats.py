"""Statistics of a leaderboard, with the uncertainty a careful reader needs (scipy/numpy only).

FinChain problems are clustered: the seeds of one template share its wording, its steps and its difficulty,
so two samples of one template are not two independent observations (CFLUE questions cluster by exam the
same way). Intervals therefore resample whole clusters (:func:`cluster_interval`), and the plain per-sample
interval is shown beside it (:func:`naive_interval`) so the difference is visible. Models are compared on
the samples they share (:func:`paired_test`): the per-sample difference removes each problem's difficulty,
which an unpaired comparison leaves in as noise. Tie groups replace strict ranks (:func:`tie_groups`): a
model is in the leader's group unless a paired test, Holm-corrected over every comparison with that leader,
rejects equality at ``alpha``.

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
    method: str = "paired cluster sign-flip permutation test; cluster bootstrap interval"

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}


def paired_test(a: Sequence[float], b: Sequence[float], clusters: Sequence[Any], names: tuple[str, str] = ("a", "b"),
                confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> Comparison:
    """Paired comparison on shared samples (``a[i]`` and ``b[i]`` are one sample). Under the null the two
    models are exchangeable within a cluster, so each cluster's summed difference may flip its sign:
    ``scipy.stats.permutation_test`` with ``permutation_type='samples'`` swaps a and b within each cluster
    (exact when there are few clusters). Two-sided p-value; interval of the mean difference by cluster bootstrap."""
    from scipy.stats import permutation_test

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    c = np.asarray(list(clusters), dtype=object)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y, c = x[keep], y[keep], c[keep]
    if len(x) == 0:
        return Comparison(*names, NAN, NAN, NAN, NAN, 0, 0)
    sa, counts = cluster_sums(x, c)
    sb, _ = cluster_sums(y, c)
    total = counts.sum()
    diff = float((x - y).mean())
    if len(sa) < 2:
        return Comparison(*names, diff, NAN, NAN, NAN, len(x), len(sa))

    def stat(p, q, axis=-1):
        return np.sum(p - q, axis=axis) / total

    res = permutation_test((sa, sb), stat, permutation_type="samples", vectorized=True, n_resamples=resamples,
                           alternative="two-sided", random_state=np.random.default_rng(seed))
    low, high = _bootstrap((sa - sb, counts), _ratio, confidence, resamples, seed)
    return Comparison(*names, diff, low, high, float(res.pvalue), len(x), len(sa))


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
