"""Issue 25, Best-of-N: the paired difference the Fin-PRM claim rests on, intervals that hold with few clusters
(a small coverage simulation; the full-size one is benchmarks/bon_interval_bench.py), the nested protocol, and
CFLUE without a ChainEval "oracle", clustered by exam."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorers.prm import intervals
from scorers.prm.curves import Pool, curves
from scorers.prm.selectors import Candidate

RIGHT = [Candidate("y", True, 1.0, 0.9)] * 4  # every candidate right: every selector scores 1
WRONG = [Candidate("x", False, 0.0, 0.1)] * 4  # every candidate wrong: every selector scores 0
PRM_WINS = [Candidate("x", False, 0.2, 0.1)] * 3 + [Candidate("y", True, 0.9, 0.9)]  # majority wrong, PRM right


def _claim_pools() -> list[Pool]:
    """12 templates of 4 problems; template t has t % 4 easy problems and, when t is odd, one where the PRM
    beats the vote."""
    pools = []
    for t in range(12):
        easy, wins = t % 4, t % 2
        kinds = [RIGHT] * easy + [PRM_WINS] * wins + [WRONG] * (4 - easy - wins)
        pools += [Pool(f"t{t}", k) for k in kinds]
    return pools


def test_the_paired_difference_is_positive_where_the_marginal_intervals_overlap():
    rows = {r.selector: r for r in curves(_claim_pools(), [4], subsamples=2, seed=0)}
    prm, vote = rows["prm_best"], rows["majority"]
    # by hand: 6 of the 48 problems are PRM wins -> +6/48 = +0.125 over majority; per template the difference
    # sums are 0 or 1, CR1 se = sqrt(12/11 * 12 * 0.25) / 48 = 0.0377, t(11) = 2.201 -> [0.042, 0.208]
    assert prm.vs_majority == pytest.approx(0.125) and vote.vs_majority == 0.0
    assert (prm.vs_majority_lo, prm.vs_majority_hi) == pytest.approx((0.042, 0.208), abs=1e-3)
    assert prm.clusters == 12
    assert prm.accuracy_lo < vote.accuracy_hi  # the two marginal intervals overlap; the paired one excludes 0
    # random's expectation on a PRM_WINS pool is 1/4: prm_best - random = 6 * 3/4 / 48
    assert prm.vs_random == pytest.approx(6 * 0.75 / 48)


def test_the_paired_difference_uses_the_same_bootstrap_draws_as_the_means():
    rows = {r.selector: r for r in curves(_claim_pools(), [4], subsamples=2, bootstrap=500, seed=0,
                                          interval="percentile")}
    assert rows["prm_best"].vs_majority_lo > 0 and rows["prm_best"].interval == "percentile"


def _clustered(rng: np.random.Generator, g: int, per: int, kind: str) -> np.ndarray:
    """Per-problem values of g templates: template difficulty ~ Beta(2, 2), problem difficulty around it."""
    pt = rng.beta(2, 2, g)[:, None]
    q = rng.beta(pt * 4 + 0.01, (1 - pt) * 4 + 0.01, (g, per))
    return rng.binomial(8, q) / 8 if kind == "accuracy" else 1 - (1 - q) ** 16  # pass@16: near its ceiling


@pytest.mark.parametrize("kind", ["accuracy", "pass@16"])
def test_coverage_with_ten_templates_reaches_093(kind):
    rng = np.random.default_rng(25)
    truth = _clustered(rng, 20_000, 10, kind).mean()
    hits = 0
    reps = 400
    for _ in range(reps):
        values = _clustered(rng, 10, 10, kind)
        _, lo, hi = intervals.proportion_interval(values.ravel(), np.repeat(np.arange(10), 10))
        hits += lo <= truth <= hi
    assert hits / reps >= 0.93, hits / reps


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.integers(0, 4)), min_size=2, max_size=30))
def test_an_interval_is_never_zero_width_for_a_proportion(pairs):
    values = [v for v, _ in pairs]
    clusters = [c for _, c in pairs]
    mean, lo, hi = intervals.proportion_interval(values, clusters)
    if len(set(clusters)) < 2:
        assert np.isnan(lo) and np.isnan(hi)
    else:
        assert 0.0 <= lo <= mean <= hi <= 1.0 and hi > lo
        assert (lo < mean or mean == 0.0) and (mean < hi or mean == 1.0)


def test_every_cluster_right_is_not_a_certainty():
    # the CFLUE run that printed [1.000, 1.000]: 10 exams, every value 1 -> a one-sided interval below 1
    mean, lo, hi = intervals.proportion_interval([1.0] * 40, [i % 10 for i in range(40)])
    assert (mean, hi) == (1.0, 1.0) and 0.5 < lo < 0.99


def test_the_difference_interval_by_hand():
    # cluster differences 1, -1, 1, -1, 2 (one problem each): mean 0.4, CR1 se 0.6, t(4) 2.776 -> [-1.27, 2.07],
    # within the data's range [-1, 2]
    mean, lo, hi = intervals.mean_interval([1.0, -1, 1, -1, 2], range(5))
    assert mean == pytest.approx(0.4) and (lo, hi) == (-1.0, 2.0)
    mean, lo, hi = intervals.mean_interval([0.3, 0.1, 0.2, 0.2] * 5, np.repeat(np.arange(5), 4))
    assert (mean, lo, hi) == pytest.approx((0.2, 0.2, 0.2))  # every cluster differs by the same 0.2


def _random_pools(seed: int, n: int, k: int) -> list[Pool]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        cands = [Candidate(a, a == "a", round(rng.random(), 2), rng.random()) for a in
                 (rng.choice(["a", "b", None]) for _ in range(k))]
        out.append(Pool(f"t{i % 4}", cands))
    return out


def test_the_nested_protocol_is_paired_across_n():
    pools = _random_pools(5, 24, 6)
    rows = curves(pools, [1, 2, 3, 4, 6], subsamples=1, seed=2, protocol="nested")
    passes = [r.accuracy for r in rows if r.selector == "pass_at_n"]
    # one permutation, its first N for every N: a problem solved at N stays solved at N + 1
    assert passes == sorted(passes) and {r.protocol for r in rows} == {"nested"}
    full = {r.selector: r.accuracy for r in curves(pools, [6], subsamples=1, seed=2)}
    nested_full = {r.selector: r.accuracy for r in rows if r.n == 6}
    assert nested_full == pytest.approx(full)  # N = K: both protocols see the whole pool
    with pytest.raises(ValueError, match="protocol"):
        curves(pools, [2], protocol="stacked")


def test_cflue_pools_have_no_chaineval_oracle_and_cluster_by_exam():
    pools = [Pool(f"exam:e{i % 3}", [Candidate("A", True), Candidate("B")]) for i in range(9)]
    rows = curves(pools, [2], subsamples=3, seed=0)
    assert "oracle_chaineval" not in {r.selector for r in rows} and {r.clusters for r in rows} == {3}
    assert all(r.chaineval is None for r in rows)
    from finchain_tasks.inspect.bon import cflue_cluster

    state = SimpleNamespace(metadata={"exam": "基金从业资格"}, sample_id="cflue/7")
    assert cflue_cluster(state) == "exam:基金从业资格"
