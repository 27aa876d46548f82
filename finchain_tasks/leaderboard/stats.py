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

Tie groups (:func:`tie_groups`) say which rows a paired test could not tell from a leader. The leader is
picked after looking, so the p-values are adjusted over every pair of rows, not only the pairs with the
leader: equal models are then split on at most ``alpha`` of boards (Holm over the leader's comparisons alone
split them on 6% to 75% of boards as the rows grew). :func:`rank_intervals` is the complement about order:
each row's range of ranks over the template bootstrap, resampling the same templates for every row at once
(the arena-style rank spread), two rows compared on the templates both have, simultaneous over the rows by
default (Bonferroni), so that equal models rarely look apart and a rank never contradicts a paired test.

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


def cluster_p_value(d: np.ndarray, counts: np.ndarray) -> tuple[float, str]:
    """The paired test's two-sided p-value from per-cluster difference sums ``d`` and sample ``counts``, and
    the test's name: exact sign-flip up to :data:`EXACT_MAX_CLUSTERS` clusters, the cluster-robust t above.
    Fewer than two clusters: NaN (one cluster says nothing about the next)."""
    if len(d) < 2:
        return NAN, "no test (fewer than two clusters)"
    if len(d) <= EXACT_MAX_CLUSTERS:
        return sign_flip_p(d), "exact sign-flip test over clusters"
    return cluster_t_p(d, counts), "cluster-robust t test (CR1, G-1 df)"


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
    p, method = cluster_p_value(d, counts)
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
class Step:
    """One comparison :func:`tie_groups` read: ``row`` against ``leader`` (the leader of group ``group``)."""

    row: int
    leader: int
    group: int
    verdict: str


def tie_groups(means: Sequence[float], partial: Sequence[bool], diff: np.ndarray, p_adjusted: np.ndarray,
               comparable: np.ndarray, alpha: float = 0.05) -> tuple[list[Optional[int]], list[Step]]:
    """Tie groups (None: not comparable with its leader) and the comparisons read to form them, from paired
    tests whose p-values were adjusted over **every** pair of rows (not only the pairs with a leader). Group
    1 is the best full-coverage row (the best row when none has full coverage) and the rows not shown
    different from it; the rest repeat with their own leader. ``diff[i, j]`` is row i minus row j on their
    shared samples, ``p_adjusted[i, j]`` its adjusted p-value (NaN: no test), ``comparable[i, j]`` whether
    the two share enough clusters to be compared.

    Why every pair: a leader is picked after looking, so Holm over the comparisons with it alone separated
    some equal model on one board in ten (5 rows) to three in four (52 rows). In the family of all pairs, a
    "different" verdict between two equal rows is a false rejection in a family whose error is held at
    ``alpha`` in the strong sense (whatever the other rows' true order), so equal models are split on at
    most ``alpha`` of boards (benchmarks/leaderboard_ranks_bench.py measures it). A partial row shown better
    than its leader on their shared clusters joins the leader's group (its mean is over other templates)."""
    order = sorted(range(len(means)), key=lambda r: -means[r])
    groups: list[Optional[int]] = [None] * len(means)
    steps: list[Step] = []
    group = 0
    while order:
        group += 1
        leader = next((r for r in order if not partial[r]), order[0])
        groups[leader] = group
        remaining = []
        for r in order:
            if r == leader:
                continue
            if not comparable[r, leader]:
                steps.append(Step(r, leader, group, "not comparable"))
                continue
            p = p_adjusted[r, leader]
            tied = bool(np.isnan(p) or p >= alpha)
            better = not tied and diff[r, leader] > 0  # only a partial row can beat a full-coverage leader
            steps.append(Step(r, leader, group,
                              "tied" if tied else "better (partial coverage)" if better else "different"))
            if tied or better:  # never below a leader it beat; listed after the full rows (other templates)
                groups[r] = group
            else:
                remaining.append(r)
        order = remaining
    return groups, steps


@dataclass(frozen=True)
class RankInterval:
    """A row's rank by its mean (1 = best; ties share the better rank) and its bootstrap range of ranks."""

    rank: int
    low: int
    high: int


def rank_intervals(values: Sequence[Sequence[float]], clusters: Sequence[Sequence[Any]], confidence: float = 0.95,
                   resamples: int = 2000, seed: int = 0, simultaneous: bool = True,
                   compared: Optional[np.ndarray] = None) -> list[Optional[RankInterval]]:
    """Each row's rank and its ``confidence`` range of ranks under the template bootstrap.

    ``values[r]`` and ``clusters[r]`` are row r's samples and their clusters. One bootstrap draw resamples
    the union of the clusters with replacement, the same draw for every row. Two rows are compared on the
    clusters **both** have (their means over their samples in the drawn shared clusters), so a row that
    answered only the easy templates is not ranked above one that beat it on every template they share; a
    row's rank is 1 + the number of rows that beat it so (for rows of full coverage: the rows with a strictly
    higher mean). ``compared[i, j]`` (default: every pair) says which pairs are compared at all; a pair not
    compared, or with no shared cluster in a draw, does not count. The interval is the percentile range of a
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
    pairs = _shared_pairs(counts, compared)
    point = _pair_ranks(np.ones((1, g)), sums, counts, pairs)[0]
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, g, g), minlength=g) for _ in range(resamples)]).astype(float)
    ok = weights @ counts.T > 0
    ranks = _pair_ranks(weights, sums, counts, pairs)
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


def _shared_pairs(counts: np.ndarray, compared: Optional[np.ndarray]) -> list[tuple[np.ndarray, ...]]:
    """The compared pairs grouped by the clusters they share: (shared mask, first rows, second rows). Rows of
    full coverage all share one mask, so a board of them is one group (one matrix product per draw)."""
    have = counts > 0
    grouped: dict[bytes, tuple[np.ndarray, list[int], list[int]]] = {}
    for i in range(len(counts)):
        for j in range(i + 1, len(counts)):
            if compared is not None and not compared[i, j]:
                continue
            mask = have[i] & have[j]
            if mask.any():
                entry = grouped.setdefault(mask.tobytes(), (mask, [], []))
                entry[1].append(i)
                entry[2].append(j)
    return [(m, np.array(a), np.array(b)) for m, a, b in grouped.values()]


def _pair_ranks(weights: np.ndarray, sums: np.ndarray, counts: np.ndarray, pairs) -> np.ndarray:
    """Per draw (row of ``weights``, a count per cluster): each row's rank, 1 + the rows that beat it on the
    clusters the two share."""
    above = np.zeros((len(weights), len(sums)), dtype=int)
    for mask, first, second in pairs:
        w = weights[:, mask]
        rows = np.union1d(first, second)
        den = w @ counts[rows][:, mask].T
        drawn = den > 0  # a row of the pair has samples in every shared cluster: drawn for one, for both
        mean = (w @ sums[rows][:, mask].T) / np.where(drawn, den, 1.0)
        a, b = np.searchsorted(rows, first), np.searchsorted(rows, second)
        both = drawn[:, a]
        np.add.at(above.T, first, ((mean[:, b] > mean[:, a]) & both).T.astype(int))
        np.add.at(above.T, second, ((mean[:, a] > mean[:, b]) & both).T.astype(int))
    return 1 + above
