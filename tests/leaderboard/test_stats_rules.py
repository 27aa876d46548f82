"""The rules of the leaderboard statistics that the hand-computed cases of test_stats.py do not reach (issue
31.18, found by mutation testing): what an interval or a comparison says when there is too little data, that
a seed reproduces a figure, that the library's defaults are the board's, the exact sign-flip and t-test edges,
Holm's cap, and how rank intervals treat clusters, rows with few or no samples, and their tails."""

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from finchain_tasks.leaderboard import stats
from finchain_tasks.leaderboard.board import Statistics

NAN = float("nan")


def _nan(*xs) -> bool:
    return all(isinstance(x, float) and math.isnan(x) for x in xs)


# --- too little data: what each result says, field by field -------------------------------------------------

def test_an_interval_without_samples_or_with_one_cluster_has_no_bounds_but_keeps_its_counts():
    empty = stats.cluster_interval([], [])
    assert _nan(empty.mean, empty.low, empty.high) and (empty.n, empty.clusters) == (0, 0)
    assert empty.method == "cluster bootstrap"
    one = stats.cluster_interval([0.25], ["t"])  # one sample: its mean is known, its spread is not
    assert one.mean == 0.25 and _nan(one.low, one.high) and (one.n, one.clusters, one.method) == (
        1, 1, "cluster bootstrap")
    single = stats.cluster_interval([0.5, 1.0, 0.0], ["t", "t", "t"])
    assert single.mean == 0.5 and _nan(single.low, single.high)
    assert (single.n, single.clusters, single.method) == (3, 1, "cluster bootstrap")


def test_two_clusters_are_enough_for_an_interval():
    two = stats.cluster_interval([1.0, 1.0, 0.0], ["a", "a", "b"], resamples=200)
    assert (two.n, two.clusters, two.method) == (3, 2, "cluster bootstrap")
    assert two.low == 0.0 and two.high == 1.0  # draws {b,b} -> 0 and {a,a} -> 1 are both likely at 200 draws


def test_the_per_sample_interval_treats_each_sample_as_its_own_cluster():
    empty = stats.naive_interval([])
    assert _nan(empty.mean, empty.low, empty.high) and (empty.n, empty.clusters) == (0, 0)
    assert empty.method == "per-sample bootstrap"
    one = stats.naive_interval([0.75])
    assert one.mean == 0.75 and _nan(one.low, one.high)
    assert (one.n, one.clusters, one.method) == (1, 1, "per-sample bootstrap")
    two = stats.naive_interval([0.0, 1.0], resamples=200)
    assert (two.low, two.high) == (0.0, 1.0) and (two.n, two.clusters, two.method) == (2, 2, "per-sample bootstrap")


def test_missing_scores_may_be_none_or_nan_and_are_left_out():
    assert stats.cluster_interval([1.0, None, 0.0], ["a", "b", "c"], resamples=100).n == 2
    assert stats.naive_interval([None, 0.5, None]).mean == 0.5
    both = stats.paired_test([1.0, None, 1.0, 0.0], [0.0, 0.0, None, 0.0], ["a", "b", "c", "d"])
    assert (both.n, both.clusters, both.diff) == (2, 2, 0.5)  # only a and d hold both scores


def test_a_paired_test_uses_only_the_samples_both_models_have():
    # b lacks sample 2, a lacks sample 3: neither enters the difference
    c = stats.paired_test([1.0, 1.0, 5.0, NAN], [0.0, 0.0, NAN, 9.0], ["x", "y", "z", "w"], names=("m", "n"))
    assert (c.a, c.b, c.diff, c.n, c.clusters) == ("m", "n", 1.0, 2, 2)


def test_a_comparison_without_shared_samples_or_with_one_cluster_has_no_p_value():
    empty = stats.paired_test([NAN], [1.0], ["x"], names=("m", "n"))
    assert (empty.a, empty.b, empty.n, empty.clusters) == ("m", "n", 0, 0)
    assert _nan(empty.diff, empty.low, empty.high, empty.p_value)
    one = stats.paired_test([1.0], [0.25], ["x"], names=("m", "n"))
    assert (one.a, one.b, one.diff, one.n, one.clusters) == ("m", "n", 0.75, 1, 1)
    assert _nan(one.low, one.high, one.p_value)
    same = stats.paired_test([1.0, 0.5, 0.0], [0.5, 0.25, 0.0], ["t", "t", "t"], names=("m", "n"))
    assert (same.diff, same.n, same.clusters) == (0.25, 3, 1) and _nan(same.p_value)
    assert same.method == stats.Comparison("m", "n", 0, 0, 0, 0, 0, 0).method


def test_two_clusters_give_the_exact_sign_flip_p_value():
    # two templates, a ahead in both: 2 of the 4 sign patterns are as extreme -> p = 1/2
    two = stats.paired_test([1.0, 1.0], [0.0, 0.0], ["x", "y"])
    assert two.p_value == 0.5 and two.clusters == 2


def test_to_dict_writes_nan_as_null_and_keeps_every_other_field():
    interval = stats.Interval(0.5, NAN, 0.75, 4, 2, "cluster bootstrap")
    assert interval.to_dict() == {"mean": 0.5, "low": None, "high": 0.75, "n": 4, "clusters": 2,
                                  "method": "cluster bootstrap"}
    comparison = stats.Comparison("a", "b", 0.1, NAN, 0.2, NAN, 3, 2, "m")
    assert comparison.to_dict() == {"a": "a", "b": "b", "diff": 0.1, "low": None, "high": 0.2, "p_value": None,
                                    "n": 3, "clusters": 2, "method": "m"}


# --- reproducibility and defaults --------------------------------------------------------------------------

_VALUES = [0.9, 0.1, 0.8, 0.4, 0.3, 0.95, 0.2, 0.6, 0.5, 0.05, 0.7, 0.35]
_OTHER = [0.5, 0.2, 0.9, 0.1, 0.3, 0.6, 0.25, 0.55, 0.6, 0.1, 0.65, 0.4]
_CLUSTERS = ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e", "f", "f"]


def test_a_seed_reproduces_every_resampled_figure():
    runs = [(stats.cluster_interval(_VALUES, _CLUSTERS, resamples=300, seed=5),
             stats.naive_interval(_VALUES, resamples=300, seed=5),
             stats.paired_test(_VALUES, _OTHER, _CLUSTERS, resamples=300, seed=5),
             stats.unpaired_test(_VALUES, _OTHER, resamples=300, seed=5),
             stats.rank_intervals([_VALUES, _OTHER], [_CLUSTERS] * 2, resamples=300, seed=5, confidence=0.5))
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_the_functions_defaults_are_the_boards_defaults():
    # calling the library directly reproduces a board's figures (Statistics(): 2,000 resamples, seed 0, 95%);
    # continuous scores, so that a bound (an interpolated percentile) moves with any other count or seed
    s = Statistics()
    kw = {"resamples": s.resamples, "seed": s.seed}
    rng = np.random.default_rng(11)
    values, other, clusters = rng.uniform(0, 1, 40), rng.uniform(0, 1, 40), np.repeat(range(20), 2)
    assert stats.cluster_interval(values, clusters) == stats.cluster_interval(values, clusters, **kw)
    assert stats.cluster_interval(values, clusters) != stats.cluster_interval(values, clusters, resamples=2001)
    assert stats.naive_interval(values) == stats.naive_interval(values, **kw)
    assert stats.naive_interval(values) != stats.naive_interval(values, resamples=2001)
    assert stats.paired_test(values, other, clusters) == stats.paired_test(values, other, clusters, **kw)
    assert stats.paired_test(values, other, clusters) != stats.paired_test(values, other, clusters, resamples=2001)
    assert stats.cluster_interval(_VALUES, _CLUSTERS) == stats.cluster_interval(
        _VALUES, _CLUSTERS, confidence=s.confidence, **kw)
    assert stats.naive_interval(_VALUES) == stats.naive_interval(_VALUES, confidence=s.confidence, **kw)
    assert stats.paired_test(_VALUES, _OTHER, _CLUSTERS) == stats.paired_test(
        _VALUES, _OTHER, _CLUSTERS, confidence=s.confidence, **kw)
    assert stats.unpaired_test(_VALUES, _OTHER) == stats.unpaired_test(_VALUES, _OTHER, **kw)
    rows, clusters = [_VALUES, _OTHER, _VALUES[::-1]], [_CLUSTERS] * 3
    assert stats.rank_intervals(rows, clusters) == stats.rank_intervals(
        rows, clusters, confidence=s.confidence, simultaneous=True, **kw)


def test_resamples_and_confidence_shape_the_percentile_interval():
    # one draw: both bounds are that draw's mean; a 50% interval lies inside the 95% one and is narrower
    single = stats.cluster_interval(_VALUES, _CLUSTERS, resamples=1)
    assert single.low == single.high
    wide = stats.cluster_interval(_VALUES, _CLUSTERS, resamples=500)
    narrow = stats.cluster_interval(_VALUES, _CLUSTERS, resamples=500, confidence=0.5)
    assert wide.low < narrow.low <= narrow.high < wide.high
    # percentile bounds are resampled means: with clusters {1} and {0, 0, 0} they are 0, 1/4, 1/2 or 1
    skewed = stats.cluster_interval([1.0, 0.0, 0.0, 0.0], ["a", "b", "b", "b"], resamples=500, confidence=0.5)
    assert {skewed.low, skewed.high} <= {0.0, 0.25, 0.5, 1.0}


# --- the p-values at their edges ----------------------------------------------------------------------------

def test_the_sign_flip_p_value_counts_totals_equal_in_exact_arithmetic_as_extreme():
    # d[3] = -d[0] - d[1] + d[2]: some sign patterns reach |sum(d)| exactly, but in floating point only to
    # within rounding of numbers in the tens of thousands; they are still "as extreme"
    d = ["62654.0478", "82551.1155", "21327.1552", "-123878.0081"]
    exact = [Fraction(x) for x in d]
    observed = abs(sum(exact))
    patterns = list(product((1, -1), repeat=len(d)))
    expected = sum(abs(sum(s * x for s, x in zip(p, exact))) >= observed for p in patterns) / len(patterns)
    assert stats.sign_flip_p(np.array([float(x) for x in d])) == expected


def test_fifteen_clusters_get_the_exact_test_and_sixteen_the_t_test():
    ahead = [stats.paired_test([1.0] * g, [0.0] * g, range(g)) for g in (15, 16)]
    assert ahead[0].p_value == 2 / 2 ** 15
    assert ahead[0].method == "exact sign-flip test over clusters; cluster bootstrap interval"
    assert ahead[1].method == "cluster-robust t test (CR1, G-1 df); cluster bootstrap interval"


def test_identical_models_are_never_called_different():
    # every difference 0: no variance, no effect -> p = 1 (a constant nonzero difference -> p = 0)
    assert stats.cluster_t_p(np.zeros(20), np.full(20, 3.0)) == 1.0
    assert stats.cluster_t_p(np.full(20, 0.6), np.full(20, 3.0)) == 0.0
    same = stats.paired_test([0.5] * 40, [0.5] * 40, np.repeat(range(20), 2))
    assert same.p_value == 1.0 and same.diff == 0.0


def test_the_t_test_uses_the_cr1_variance_of_the_ratio_with_unequal_clusters():
    d = np.array([2.0, -1.0, 3.0, 0.5, 1.5])
    counts = np.array([4.0, 1.0, 2.0, 3.0, 5.0])
    g, total = len(d), counts.sum()
    mean = d.sum() / total
    var = g / (g - 1) * sum((di - mean * ni) ** 2 for di, ni in zip(d, counts)) / total ** 2
    from scipy.stats import t

    expected = 2 * t.sf(abs(mean) / math.sqrt(var), g - 1)
    assert stats.cluster_t_p(d, counts) == pytest.approx(expected, rel=1e-12)


def test_the_unpaired_test_finds_a_clear_difference():
    assert stats.unpaired_test([1.0] * 10, [0.0] * 10, resamples=500) < 0.01
    assert stats.unpaired_test([0.5] * 10, [0.5] * 10, resamples=500) == 1.0


def test_holm_never_exceeds_one_and_treats_none_as_missing():
    assert stats.holm([0.8, 0.9]) == [1.0, 1.0]
    out = stats.holm([None, 0.02, 0.5])
    assert math.isnan(out[0]) and out[1:] == pytest.approx([0.04, 0.5])


# --- rank intervals ------------------------------------------------------------------------------------------

def _ranks(out):
    return [None if r is None else (r.rank, r.low, r.high) for r in out]


def test_rank_intervals_resample_templates_not_samples():
    # row a: template x solved on all 20 seeds, y on none (mean 0.5); row b: 0.3 everywhere. A draw of y twice
    # (one in four) puts a second; 40 independent samples would almost never fall below 0.3
    a = [1.0] * 20 + [0.0] * 20
    clusters = ["x"] * 20 + ["y"] * 20
    out = stats.rank_intervals([a, [0.3] * 40], [clusters, clusters], resamples=400)
    assert _ranks(out) == [(1, 1, 2), (2, 1, 2)]


def test_a_row_is_ranked_by_its_mean_whatever_its_sample_count():
    # a: one sample of 1.0 per template; b: five samples of 0.5 per template (larger sums, lower mean)
    templates = [f"t{i}" for i in range(4)]
    b_clusters = [t for t in templates for _ in range(5)]
    out = stats.rank_intervals([[1.0] * 4, [0.5] * 20], [templates, b_clusters], resamples=200)
    assert _ranks(out) == [(1, 1, 1), (2, 2, 2)]


def test_a_draw_without_a_rows_templates_leaves_that_row_out_of_its_ranking():
    # a is measured on t0 only, at 1.0; b on t0..t4 at 0.5. In a draw without t0 (a third of the draws), a has
    # no mean: it neither drops to last itself nor pushes b down
    b_clusters = [f"t{i}" for i in range(5)]
    out = stats.rank_intervals([[1.0], [0.5] * 5], [["t0"], b_clusters], resamples=400)
    assert _ranks(out) == [(1, 1, 1), (2, 1, 2)]
    # the same with a measured at 0.0: last whenever it has a mean, and b first in every draw
    out = stats.rank_intervals([[0.0], [0.5] * 5], [["t0"], b_clusters], resamples=400)
    assert _ranks(out) == [(2, 2, 2), (1, 1, 1)]


def test_rows_without_values_get_none_and_the_rows_after_them_are_ranked():
    assert stats.rank_intervals([[NAN]], [["x"]]) == [None]
    out = stats.rank_intervals([[NAN], [1.0, 0.0], [0.4, 0.4]], [["x"], ["x", "y"], ["x", "y"]], resamples=200)
    assert len(out) == 3 and out[0] is None and out[1] is not None and out[2] is not None


def test_a_rank_is_inside_the_interval_iff_it_occurs_in_more_than_the_tail_of_the_draws():
    # a = [1, 0], b = [0.4, 0.4] on templates x, y: a is second only in the draw {y, y}, a quarter of the draws
    rows, clusters = [[1.0, 0.0], [0.4, 0.4]], [["x", "y"]] * 2
    marginal = stats.rank_intervals(rows, clusters, confidence=0.4, resamples=2000, simultaneous=False)
    assert _ranks(marginal)[0] == (1, 1, 1)  # tail 0.3 > 0.25
    joint = stats.rank_intervals(rows, clusters, confidence=0.4, resamples=2000)
    assert _ranks(joint)[0] == (1, 1, 2)  # tail 0.3 / 2 rows = 0.15 < 0.25
    assert _ranks(stats.rank_intervals(rows, clusters, confidence=0.6, resamples=2000, simultaneous=False))[0] == (
        1, 1, 2)  # tail 0.2 < 0.25


def test_a_rank_seen_in_a_few_draws_is_inside_the_interval_even_with_few_draws():
    # 10 draws of which a few put a second: the high end is a rank that occurred, never an interpolated one
    rows, clusters = [[1.0, 0.0], [0.4, 0.4]], [["x", "y"]] * 2
    seed = next(s for s in range(200) if _second(s) == 1)  # exactly one draw of the ten puts a second
    assert _ranks(stats.rank_intervals(rows, clusters, resamples=10, seed=seed))[0] == (1, 1, 2)


def _second(seed: int) -> int:
    """How many of 10 draws (rank_intervals' generator with this seed) draw template y twice."""
    rng = np.random.default_rng(seed)
    return sum(int(np.bincount(rng.integers(0, 2, 2), minlength=2)[1] == 2) for _ in range(10))


def test_a_rank_interval_from_one_draw_is_that_draws_ranking_and_its_seed_reproduces_it():
    # one bootstrap draw: every row's interval is its rank in that draw, so the seed decides the whole board
    rng = np.random.default_rng(3)
    rows = [list(rng.uniform(0, 1, 30)) for _ in range(6)]
    clusters = [[f"t{i}" for i in range(30)]] * 6

    def draw(**kw):
        return [(r.low, r.high) for r in stats.rank_intervals(rows, clusters, resamples=1, **kw)]

    assert all(low == high for low, high in draw(seed=5))
    assert sorted(low for low, _ in draw(seed=5)) == [1, 2, 3, 4, 5, 6]
    assert draw(seed=5) == draw(seed=5) != draw(seed=1)
    assert draw() == draw(seed=Statistics().seed)
