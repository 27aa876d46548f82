"""Best-of-N curve rules that test_curves.py's enumerations leave open (issue 39, found by the literal pass): a
candidate without a ChainEval blanks a pick's ChainEval only when it can be the pick, and the Monte-Carlo
error of a vote read from one drawn subset per problem (no spread to measure: the widest variance, 1) against
two or more (their spread), with majority minus itself always exactly 0.

Hand-built pools whose values are known without enumeration: milliseconds, no model."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from scorers.prm.curves import Pool, curves
from scorers.prm.selectors import Candidate


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
