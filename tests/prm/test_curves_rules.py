"""Best-of-N curve rules that test_curves.py's enumerations leave open (issue 39, found by the literal pass): a
candidate without a ChainEval blanks a pick's ChainEval only when it can be the pick, and the Monte-Carlo
error of a vote read from one drawn subset per problem (no spread to measure: the widest variance, 1) against
two or more (their spread), with majority minus itself always exactly 0.

Hand-built pools whose values are known without enumeration: milliseconds, no model.

Below them, the rules mutmut's survivors showed open (issue 39): every figure of an exact row (accuracy, the
pick's ChainEval, both paired differences, each with its t or cluster-bootstrap interval) against enumeration
with scorers.prm.selectors; the Monte-Carlo variance rule; the nested protocol; seeded draws, the defaults and
the confidence; a missing reward in the weighted vote; seeded figures pinned so a published curve reproduces."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import norm

from scorers.prm import intervals
from scorers.prm.curves import Pool, _mc_variance, curves
from scorers.prm.selectors import SELECTORS, Candidate
from tests.support.prm_pools import random_pools


def _rows(pools, n, subsamples):
    return {r.selector: r for r in curves(pools, [n], subsamples=subsamples, bootstrap=0, seed=0)}


# one problem, three candidates: ChainEval 0.9, 0.5 and none; the PRM ranks them the same way
BLANK_LAST = [Pool("t0", [Candidate("a", True, 0.9, 0.9), Candidate("b", False, 0.5, 0.5),
                          Candidate("c", False, None, 0.1)])]


@pytest.mark.parametrize("selector, n, chaineval", [
    # the candidate without a ChainEval ranks last: at N = 1 it is a possible pick (1 in 3), so the pick's
    # ChainEval is unknown; from N = 2 on it never is (the other one of its subset always ranks above it)
    ("oracle_chaineval", 1, None),
    ("oracle_chaineval", 2, 2 / 3 * 0.9 + 1 / 3 * 0.5),
    ("oracle_chaineval", 3, 0.9),
    ("prm_best", 1, None),
    ("prm_best", 2, 2 / 3 * 0.9 + 1 / 3 * 0.5),
    ("prm_best", 3, 0.9),
])
def test_a_candidate_without_a_chaineval_blanks_the_picks_chaineval_only_where_it_can_be_picked(
        selector, n, chaineval):
    assert _rows(BLANK_LAST, n, 10)[selector].chaineval == (None if chaineval is None else pytest.approx(chaineval))


PROBLEMS = 6
# every candidate right with the same answer: each drawn subset's majority is right, so a vote's per-problem
# value is 1 whatever the subsets, and only the Monte-Carlo error term can move its interval. N = 3 of 4
# candidates: 4 subsets, all enumerated (exact) from 4 draws, drawn below that.
UNANIMOUS = [Pool(f"t{i}", [Candidate("a", True, 1.0, r) for r in (0.1, 0.2, 0.3, 0.4)]) for i in range(PROBLEMS)]


@pytest.fixture(scope="module")
def exact_majority():
    row = _rows(UNANIMOUS, 3, 4)["majority"]
    assert row.subsets == "all"
    return row


@pytest.mark.parametrize("subsamples", [2, 3])
def test_a_vote_from_two_or_more_drawn_subsets_widens_by_their_spread_here_none(exact_majority, subsamples):
    row = _rows(UNANIMOUS, 3, subsamples)["majority"]
    assert (row.subsets, row.accuracy_lo, row.accuracy_hi) == (
        str(subsamples), pytest.approx(exact_majority.accuracy_lo), pytest.approx(exact_majority.accuracy_hi))


def test_a_vote_from_one_drawn_subset_per_problem_widens_by_the_largest_variance(exact_majority):
    row = _rows(UNANIMOUS, 3, 1)["majority"]
    extra = (norm.ppf(0.975) * math.sqrt(PROBLEMS) / PROBLEMS) ** 2  # variance 1 for each problem
    assert (row.accuracy_lo, row.accuracy_hi) == (
        pytest.approx(1 - math.sqrt((1 - exact_majority.accuracy_lo) ** 2 + extra)),
        pytest.approx(1 + math.sqrt((exact_majority.accuracy_hi - 1) ** 2 + extra)))


@pytest.mark.parametrize("subsamples", [1, 2, 4])
def test_majority_minus_itself_is_exactly_zero_with_no_width(subsamples):
    row = _rows(UNANIMOUS, 3, subsamples)["majority"]
    assert (row.vs_majority, row.vs_majority_lo, row.vs_majority_hi) == (0.0, 0.0, 0.0)


# ------------------------------------------------------------------------------------------ against enumeration

def _per_problem_truth(pools: list[Pool], n: int) -> tuple[dict, dict]:
    """Per selector, each problem's expected accuracy and pick's ChainEval over every subset of N (pool order),
    by scorers.prm.selectors; random: the pool's means."""
    acc = {name: [] for name in SELECTORS}
    ce = {name: [] for name in SELECTORS}
    for pool in pools:
        subsets = list(itertools.combinations(pool.candidates, n))
        for name, fn in SELECTORS.items():
            if name == "random":
                acc[name].append(float(np.mean([c.correct for c in pool.candidates])))
                ce[name].append(float(np.mean([c.chaineval for c in pool.candidates])))
                continue
            picks = [sub[fn(sub)] for sub in subsets]
            acc[name].append(float(np.mean([c.correct for c in picks])))
            ce[name].append(float(np.mean([c.chaineval for c in picks])))
    return {k: np.array(v) for k, v in acc.items()}, {k: np.array(v) for k, v in ce.items()}


@pytest.mark.parametrize("interval", ["t", "percentile"])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_every_figure_of_an_exact_row_is_the_enumerations_per_problem_mean_with_its_cluster_interval(n, interval):
    # 5 candidates: at most 10 subsets of N, all enumerated with 10 draws: nothing random is left. The cluster
    # bootstrap's interval reads every per-problem value (Korn-Graubard's can depend on the mean alone)
    pools = random_pools(11)
    clusters = [p.cluster for p in pools]
    acc, ce = _per_problem_truth(pools, n)
    rows = {r.selector: r for r in curves(pools, [n], subsamples=10, bootstrap=300, seed=0, interval=interval)}
    weights = intervals.cluster_weights(3, 300, np.random.default_rng([0, 1]))
    grouped = np.array(clusters, dtype=object)

    def ci(values, proportion=True):
        if interval == "percentile":
            return intervals.percentile_interval(values, grouped, weights, 0.95)
        return (intervals.proportion_interval if proportion else intervals.mean_interval)(values, clusters, 0.95)

    for name in SELECTORS:
        row = rows[name]
        assert row.subsets == "all" and (row.n_problems, row.n_short, row.clusters) == (12, 0, 3)
        expected = {
            "accuracy": ci(acc[name]),
            "chaineval": ci(ce[name]),
            "vs_majority": ci(acc[name] - acc["majority"], proportion=False),
            "vs_random": ci(acc[name] - acc["random"], proportion=False),
        }
        for what, (mean, lo, hi) in expected.items():
            found = (getattr(row, what), getattr(row, f"{what}_lo"), getattr(row, f"{what}_hi"))
            if what == "vs_majority" and name == "majority":
                assert found == (0.0, 0.0, 0.0)
                continue
            assert found == (pytest.approx(mean), pytest.approx(lo), pytest.approx(hi)), (name, what)


# ------------------------------------------------------------------------------------------ Monte-Carlo error

# three problems, three drawn subsets each: per-subset accuracies of every selector (majority's differ per problem)
PER_SUBSET = {
    "majority": np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]]),
    "weighted_vote": np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
}


def _spread(x: np.ndarray) -> np.ndarray:
    """The variance of a per-problem mean of S draws: the draws' sample variance (ddof 1) / S, per problem."""
    s = x.shape[-1]
    return np.array([np.var(row, ddof=1) / s for row in x])


@pytest.mark.parametrize("key, expected", [
    (("accuracy", "majority"), _spread(PER_SUBSET["majority"])),
    (("accuracy", "weighted_vote"), _spread(PER_SUBSET["weighted_vote"])),
    (("chaineval", "majority"), _spread(PER_SUBSET["majority"] / 2)),
    (("chaineval", "weighted_vote"), _spread(PER_SUBSET["weighted_vote"] / 2)),
    (("vs_random", "majority"), _spread(PER_SUBSET["majority"])),  # random's value is exact: no spread of its own
    (("vs_majority", "weighted_vote"), _spread(PER_SUBSET["weighted_vote"] - PER_SUBSET["majority"])),  # paired
    (("vs_majority", "majority"), np.zeros(3)),
    # a selector exact by order statistics has no spread; its difference to majority has majority's
    (("accuracy", "prm_best"), np.zeros(3)),
    (("chaineval", "prm_best"), np.zeros(3)),
    (("vs_random", "prm_best"), np.zeros(3)),
    (("vs_majority", "prm_best"), _spread(PER_SUBSET["majority"])),
    (("accuracy", "random"), np.zeros(3)),
])
def test_the_monte_carlo_variance_of_a_drawn_mean_is_the_draws_sample_variance_over_their_number(key, expected):
    # the other selectors' per-subset picks vary too: their values are exact, so that spread must not count
    acc = {name: PER_SUBSET.get(name, np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))
           for name in SELECTORS}
    ce = {name: values / 2 for name, values in acc.items()}  # ChainEval: half the accuracy, a spread of its own
    found = _mc_variance(acc, ce, exact=False)
    assert found[key] == pytest.approx(expected)


def test_an_exact_row_has_no_monte_carlo_variance():
    acc = {name: PER_SUBSET.get(name, np.zeros((3, 3))) for name in SELECTORS}
    found = _mc_variance(acc, acc, exact=True)
    assert all(np.array_equal(values, np.zeros(3)) for values in found.values())


# ------------------------------------------------------------------------------------------ drawn subsets

def _drawn(rows):
    return [(r.n, r.selector, r.accuracy, r.chaineval, r.accuracy_lo, r.accuracy_hi) for r in rows
            if r.selector in ("majority", "weighted_vote")]


def test_a_nested_runs_value_at_n_does_not_depend_on_the_other_ns_asked():
    # N = 3 of 6: 20 subsets, 5 drawn; nested draws one permutation per problem and subsample, whatever the Ns
    pools = random_pools(12, n_pools=10, k=6)
    alone = curves(pools, [3], subsamples=5, bootstrap=0, seed=4, protocol="nested")
    among = curves(pools, [1, 2, 3], subsamples=5, bootstrap=0, seed=4, protocol="nested")
    assert _drawn(alone) == _drawn([r for r in among if r.n == 3]) and alone[0].subsets == "all"
    assert {r.subsets for r in alone if r.selector in ("majority", "weighted_vote")} == {"5"}


@pytest.mark.parametrize("protocol", ["independent", "nested"])
def test_more_drawn_subsets_than_candidates_estimate_the_votes_expectation(protocol):
    # 6 candidates, N = 3: 15 of the 20 subsets drawn per problem; the drawn means lie near the exact ones
    pools = random_pools(13, n_pools=30, k=6)
    acc, _ = _per_problem_truth(pools, 3)
    rows = {r.selector: r for r in curves(pools, [3], subsamples=15, bootstrap=0, seed=0, protocol=protocol)}
    for name in ("majority", "weighted_vote"):
        assert rows[name].subsets == "15"
        assert rows[name].accuracy == pytest.approx(acc[name].mean(), abs=0.05), name


@pytest.mark.parametrize("protocol", ["independent", "nested"])
def test_the_same_seed_draws_the_same_subsets(protocol):
    pools = random_pools(14, n_pools=10, k=6)
    runs = [curves(pools, [2, 3], subsamples=5, bootstrap=0, seed=7, protocol=protocol) for _ in range(2)]
    assert _drawn(runs[0]) == _drawn(runs[1])


def test_the_defaults_are_200_subsets_seed_0_and_1000_bootstrap_draws():
    # 12 candidates, N = 6: 924 subsets, more than 200: the votes are drawn, so the seed and count show
    pools = [Pool(f"c{i}", pool.candidates) for i, pool in enumerate(random_pools(15, n_pools=12, k=12))]
    default = curves(pools, [6])  # 12 clusters: the bootstrap's percentiles move with one draw more
    assert {r.subsamples for r in default} == {200}
    assert _drawn(default) == _drawn(curves(pools, [6], subsamples=200, seed=0))
    percentile = curves(pools, [6], interval="percentile")
    assert _drawn(percentile) == _drawn(curves(pools, [6], interval="percentile", bootstrap=1000, seed=0))


@pytest.mark.parametrize("subsamples", [1, 10])  # all of the one subset of 3: exact either way
def test_a_candidate_without_a_reward_weighs_nothing_in_the_weighted_vote(subsamples):
    pools = [Pool("t0", [Candidate("b", False, 0.5, None), Candidate("b", False, 0.5, None),
                         Candidate("a", True, 0.9, 0.5)])]
    rows = _rows(pools, 3, subsamples)
    assert (rows["weighted_vote"].accuracy, rows["majority"].accuracy) == (1.0, 0.0)


def test_a_vote_from_one_drawn_subset_widens_its_chaineval_and_differences_by_the_largest_variance():
    # unanimous pools: every vote right, ChainEval 1; exact rows have (1, 1, ...) and zero differences
    exact = _rows(UNANIMOUS, 3, 4)
    one = _rows(UNANIMOUS, 3, 1)
    extra = (norm.ppf(0.975) * math.sqrt(PROBLEMS) / PROBLEMS) ** 2  # variance 1 for each problem
    assert (one["majority"].chaineval_lo, one["majority"].chaineval_hi) == (
        pytest.approx(1 - math.sqrt((1 - exact["majority"].chaineval_lo) ** 2 + extra)),
        pytest.approx(1 + math.sqrt((exact["majority"].chaineval_hi - 1) ** 2 + extra)))
    # a difference of two votes (weighted minus majority) and a vote minus random: 0 ± the widening alone
    for name, what in (("weighted_vote", "vs_majority"), ("majority", "vs_random"), ("weighted_vote", "vs_random")):
        assert (getattr(exact[name], what), getattr(exact[name], f"{what}_lo")) == (0.0, 0.0), (name, what)
        assert (getattr(one[name], f"{what}_lo"), getattr(one[name], f"{what}_hi")) == (
            pytest.approx(-math.sqrt(extra)), pytest.approx(math.sqrt(extra))), (name, what)


@pytest.mark.parametrize("interval", ["t", "percentile"])
def test_the_intervals_are_at_the_confidence_asked(interval):
    pools = random_pools(16)
    clusters = [p.cluster for p in pools]
    acc, _ = _per_problem_truth(pools, 2)
    row = {r.selector: r for r in curves(pools, [2], subsamples=10, bootstrap=500, seed=3, interval=interval,
                                         confidence=0.8)}["prm_best"]
    if interval == "t":
        expected = intervals.proportion_interval(acc["prm_best"], clusters, 0.8)
    else:  # the bootstrap's cluster draws come from the run's own stream, [seed, 1]
        weights = intervals.cluster_weights(3, 500, np.random.default_rng([3, 1]))
        expected = intervals.percentile_interval(acc["prm_best"], np.array(clusters, dtype=object), weights, 0.8)
    assert (row.accuracy, row.accuracy_lo, row.accuracy_hi) == tuple(pytest.approx(v) for v in expected)


@pytest.mark.parametrize("protocol, interval", [("maybe", "t"), ("nested", "wald")])
def test_an_unknown_protocol_or_interval_is_refused_naming_the_choices(protocol, interval):
    with pytest.raises(ValueError) as err:
        curves(UNANIMOUS, [2], protocol=protocol, interval=interval)
    assert str(err.value) == "protocol: independent or nested; interval: t or percentile"


# A seeded run must print the figures earlier versions printed (a published curve can be reproduced): the drawn
# votes of both protocols and the percentile interval at seed 0, as this version computes them.
SEEDED = {  # majority's and weighted_vote's accuracy (drawn), prm_best's low bound, majority's high bound
    ("independent", "t"): [0.311111111111, 0.311111111111, 3.98011441697e-06, 0.969606812628],
    ("nested", "t"): [0.244444444444, 0.244444444444, 3.98011441697e-06, 0.953104705348],
    ("independent", "percentile"): [0.311111111111, 0.311111111111, 0.0666666666667, 0.615974807919],
}


@pytest.mark.parametrize("protocol, interval", sorted(SEEDED))
def test_a_seeded_run_reproduces_the_figures_of_earlier_versions(protocol, interval):
    pools = random_pools(17, n_pools=9, k=6)
    rows = {r.selector: r for r in curves(pools, [3], subsamples=5, bootstrap=200, protocol=protocol,
                                          interval=interval)}
    found = [rows["majority"].accuracy, rows["weighted_vote"].accuracy, rows["prm_best"].accuracy_lo,
             rows["majority"].accuracy_hi]
    assert found == pytest.approx(SEEDED[(protocol, interval)])


@pytest.mark.parametrize("interval", ["t", "percentile"])
def test_a_selector_exact_by_order_keeps_its_interval_when_the_votes_are_drawn(interval):
    # 6 candidates, N = 3: 20 subsets, 4 drawn: the votes are Monte-Carlo means, prm_best, oracle_chaineval and
    # pass_at_n exact (order statistics): their intervals are those of their exact values, with no widening
    pools = random_pools(18, n_pools=12, k=6)
    drawn = {r.selector: r for r in curves(pools, [3], subsamples=4, bootstrap=300, seed=2, interval=interval)}
    exact = {r.selector: r for r in curves(pools, [3], subsamples=20, bootstrap=300, seed=2, interval=interval)}
    assert drawn["majority"].subsets == "4" and exact["majority"].subsets == "all"
    for name in ("prm_best", "oracle_chaineval", "pass_at_n"):
        for what in ("accuracy", "chaineval", "vs_random"):
            for end in ("", "_lo", "_hi"):
                assert getattr(drawn[name], what + end) == pytest.approx(getattr(exact[name], what + end)), (
                    name, what + end)


# a run of several N over pools of two sizes: the draws of one N and one pool size come after those of the
# others, so every draw a version makes (the random pick's too, whose value is then replaced by its exact
# expectation) is part of what a seed gives. Figures as this version computes them.
SEEDED_CURVE = {  # per N: majority's and weighted_vote's accuracy (both drawn: 10 or 15 subsets of 2, 10 or 20 of 3)
    2: [0.4, 0.333333333333],
    3: [0.45, 0.35],
}


def test_a_seeded_run_of_several_n_and_pool_sizes_reproduces_the_figures_of_earlier_versions():
    pools = random_pools(19, n_pools=6, k=6) + random_pools(20, n_pools=6, k=5)
    rows = curves(pools, [2, 3], subsamples=5, bootstrap=0, seed=3)
    found = {n: [r.accuracy for s in ("majority", "weighted_vote") for r in rows if (r.n, r.selector) == (n, s)]
             for n in SEEDED_CURVE}
    assert found == {n: pytest.approx(v) for n, v in SEEDED_CURVE.items()}


@pytest.mark.parametrize("interval, bootstrap", [("t", 0), ("percentile", 3), ("percentile", 300)])
def test_an_exact_figure_keeps_its_interval_to_the_last_bit(interval, bootstrap):
    # the random pick's accuracy is the pool's mean, exact whatever is drawn: no Monte-Carlo error is added, so
    # its bounds are the interval's own, not rebuilt from half-widths (which rounding would move, and which a
    # percentile interval from few draws, one that need not contain its mean, would move by a lot)
    pools = random_pools(21, n_pools=12, k=6)
    clusters = np.array([p.cluster for p in pools], dtype=object)
    values = np.array([np.mean([c.correct for c in p.candidates]) for p in pools])
    if interval == "percentile":
        weights = intervals.cluster_weights(3, bootstrap, np.random.default_rng([5, 1]))
        expected = intervals.percentile_interval(values, clusters, weights, 0.95)
    else:
        expected = intervals.proportion_interval(values, clusters, 0.95)
    for subsamples in (3, 20):  # votes drawn, then all subsets enumerated
        row = next(r for r in curves(pools, [3], subsamples=subsamples, bootstrap=bootstrap, seed=5,
                                     interval=interval) if r.selector == "random")
        assert (row.accuracy, row.accuracy_lo, row.accuracy_hi) == expected
