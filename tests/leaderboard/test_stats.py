"""The statistics against hand-computed cases: clustered data give a wider interval than the per-sample one,
a paired test finds a difference that an unpaired one misses, exact sign-flip p-values, Holm's adjustment,
and tie groups on a small table built by hand."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchain_tasks.leaderboard import stats, table
from finchain_tasks.leaderboard.board import Board, Statistics
from finchain_tasks.leaderboard.ingest import to_frame


def test_a_clustered_interval_is_wider_than_the_naive_one_on_clustered_data():
    # 10 templates of 10 seeds each; a template is solved on every seed or on none: 5 solved, 5 not.
    values = np.repeat([1.0, 0.0] * 5, 10)
    clusters = np.repeat(np.arange(10), 10)
    clustered = stats.cluster_interval(values, clusters, resamples=4000, seed=1)
    naive = stats.naive_interval(values, resamples=4000, seed=1)
    assert clustered.mean == naive.mean == 0.5
    assert (clustered.n, clustered.clusters, naive.n) == (100, 10, 100)
    # by hand: 10 independent cluster means of sd 0.5 -> se 0.5/sqrt(10) = 0.158 -> about [0.19, 0.81];
    # 100 "independent" samples -> se 0.05 -> about [0.40, 0.60]
    assert clustered.low == pytest.approx(0.2, abs=0.11) and clustered.high == pytest.approx(0.8, abs=0.11)
    assert naive.low == pytest.approx(0.4, abs=0.03) and naive.high == pytest.approx(0.6, abs=0.03)
    assert (clustered.high - clustered.low) > 2.5 * (naive.high - naive.low)


def test_unequal_clusters_weigh_by_their_size_and_one_cluster_gives_no_interval():
    # the mean is over samples (ratio of sums): [1] and [0, 0, 0] -> 1/4, not the mean of cluster means 1/2
    ci = stats.cluster_interval([1.0, 0.0, 0.0, 0.0], ["a", "b", "b", "b"], resamples=500)
    assert ci.mean == 0.25 and ci.clusters == 2
    single = stats.cluster_interval([0.2, 0.4], ["t", "t"])
    assert single.mean == pytest.approx(0.3) and math.isnan(single.low) and math.isnan(single.high)
    missing = stats.cluster_interval([1.0, float("nan"), 0.0], ["a", "b", "c"], resamples=500)
    assert (missing.n, missing.clusters, missing.mean) == (2, 2, 0.5)


def test_a_paired_test_finds_the_difference_an_unpaired_one_misses():
    rng = np.random.default_rng(7)
    difficulty = np.repeat(rng.uniform(0.0, 1.0, 20), 5)  # 20 templates of very different difficulty
    clusters = np.repeat(np.arange(20), 5)
    b = difficulty + rng.normal(0, 0.01, 100)
    a = b + 0.05  # model a is better by 0.05 on every single problem
    paired = stats.paired_test(a, b, clusters, resamples=4000)
    unpaired = stats.unpaired_test(a, b, resamples=4000)
    assert paired.diff == pytest.approx(0.05)
    assert paired.p_value < 0.01 and unpaired > 0.2
    assert paired.low == pytest.approx(0.05, abs=1e-9) and paired.high == pytest.approx(0.05, abs=1e-9)


def test_the_sign_flip_p_value_is_exact_for_few_clusters():
    # three templates, a beats b in each: of the 2^3 sign patterns, 2 are as extreme (all + or all -) -> 2/8
    result = stats.paired_test([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], ["x", "y", "z"])
    assert result.p_value == pytest.approx(0.25) and result.diff == 1.0 and result.clusters == 3
    # no shared samples: nothing to say
    assert stats.paired_test([], [], []).n == 0


def test_holm_matches_the_hand_computed_adjustment():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01 = 0.03, 2*0.03 = 0.06, max(0.06, 1*0.04) = 0.06
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    out = stats.holm([float("nan"), 0.02])
    assert math.isnan(out[0]) and out[1] == pytest.approx(0.02)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 5)), min_size=2, max_size=40))
def test_a_cluster_interval_stays_within_the_range_of_the_data(pairs):
    values = [v for v, _ in pairs]
    clusters = [c for _, c in pairs]
    ci = stats.cluster_interval(values, clusters, resamples=200)
    assert ci.mean == pytest.approx(float(np.mean(values)))
    if not math.isnan(ci.low):
        assert min(values) - 1e-9 <= ci.low <= ci.high <= max(values) + 1e-9


def _frame(models: dict[str, list[float]], per_template: int = 1):
    rows = []
    for model, scores in models.items():
        for i, score in enumerate(scores):
            t = i // per_template
            rows.append({"model": model, "harness": "inspect", "task": "finchain", "sample_id": f"s{i}", "epoch": 1,
                         "domain": "d", "topic": "p", "template": f"t{t}", "level": "easy", "chaineval": score,
                         "fresh": False})
    return to_frame(rows)


def test_tie_groups_keep_indistinguishable_models_with_the_leader():
    n = 30
    best = [1.0] * n
    same = [1.0] * (n - 1) + [0.0]  # one problem worse: not distinguishable from the leader
    worse = [0.0] * n  # worse on every template: a group of its own
    frame = _frame({"best": best, "same": same, "worse": worse})
    board = Board(name="t", title="t", metrics=("chaineval",), statistics=Statistics(resamples=2000))
    rows = table.model_rows(frame, board)
    comparisons = table.tie_groups(frame, rows, board)
    groups = {r["model"]: r["tie_group"] for r in rows}
    assert groups == {"best": 1, "same": 1, "worse": 2}
    assert {c["a"] for c in comparisons} == {"same (inspect)", "worse (inspect)"}
    assert all(c["p_adjusted"] >= c["p_value"] for c in comparisons)


def test_fresh_seed_gap_pairs_templates():
    rows = []
    for t in range(6):
        for fresh, score in ((False, 1.0), (True, 0.5)):
            rows.append({"model": "m", "harness": "inspect", "task": "finchain", "sample_id": f"t{t}/{int(fresh)}",
                         "domain": "d", "topic": "p", "template": f"t{t}", "level": "easy", "chaineval": score,
                         "fresh": fresh})
    (gap,) = table.fresh_gaps(to_frame(rows), Board(name="t", title="t", metrics=("chaineval",)))
    assert (gap["templates"], gap["gap"]) == (6, 0.5)
    assert gap["p_value"] == pytest.approx(2 / 64)  # all 6 templates agree: 2 of the 2^6 sign patterns
