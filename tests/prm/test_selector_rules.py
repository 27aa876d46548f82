"""Rules of the best-of-N selectors that the pools of test_select_spec.py leave open (issue 31.18, found by
mutation testing): a missing reward weighs nothing in a vote, a pool with no score at all falls back to its
first candidate, and ``select_all``'s random choice is reproducible and uses the generator it is given."""

from __future__ import annotations

import random

from scorers.prm.selectors import Candidate, oracle_chaineval, prm_best, random_choice, select_all, weighted_vote


def test_a_missing_reward_weighs_nothing_in_the_weighted_vote():
    # a: two candidates without a reward; b: one with 0.5 -> b, however many unscored votes a has
    pool = [Candidate("a"), Candidate("a"), Candidate("b", reward=0.5)]
    assert weighted_vote(pool) == 2


def test_with_no_score_at_all_the_first_candidate_is_kept():
    pool = [Candidate("a", chaineval=None, reward=None), Candidate("b", chaineval=None, reward=None)]
    assert prm_best(pool) == 0 and oracle_chaineval(pool) == 0


def test_select_all_draws_its_random_choice_from_the_generator_it_is_given():
    pool = [Candidate(str(i)) for i in range(1000)]
    # no generator: seed 0, the same draw as random_choice's default, every time
    assert select_all(pool)["random"] == select_all(pool)["random"] == random_choice(pool)
    given = select_all(pool, random.Random(7))["random"]
    assert given == random_choice(pool, random.Random(7)) != random_choice(pool)
