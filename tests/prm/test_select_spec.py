"""Selectors over hand-built pools, and the PRM spec parser."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.prm.selectors import (
    SELECTORS,
    Candidate,
    accuracy,
    answer_key,
    majority,
    oracle_chaineval,
    pass_at_n,
    prm_best,
    random_choice,
    select_all,
    weighted_vote,
)
from scorers.prm.spec import PRMSpec, parse_spec

# Answers A (wrong) ×3 with low reward, B (right) ×2 with high reward, one unanswered.
POOL = [Candidate("a", False, 0.2, 0.3), Candidate("b", True, 0.9, 0.9), Candidate("a", False, 0.3, 0.2),
        Candidate(None, False, 0.0, 0.1), Candidate("b", True, 0.8, 0.95), Candidate("a", False, 0.25, 0.25)]


def test_majority_picks_the_most_frequent_answer():
    assert majority(POOL) == 0 and accuracy(POOL, 0) == 0.0


def test_weighted_vote_sums_rewards_per_answer():
    # a: 0.3 + 0.2 + 0.25 = 0.75, b: 0.9 + 0.95 = 1.85
    assert weighted_vote(POOL) == 1


def test_prm_best_and_oracles():
    assert prm_best(POOL) == 4
    assert oracle_chaineval(POOL) == 1
    assert pass_at_n(POOL) == 1
    assert pass_at_n([Candidate("a"), Candidate("c")]) == 0


def test_ties_go_to_the_earliest():
    pool = [Candidate("x", reward=0.5), Candidate("y", reward=0.5), Candidate("y"), Candidate("x")]
    assert majority(pool) == 0 and prm_best(pool) == 0 and weighted_vote(pool) == 0


def test_unanswered_candidates_never_form_a_bloc():
    pool = [Candidate(None), Candidate(None), Candidate("z", True)]
    assert majority(pool) == 2
    assert majority([Candidate(None), Candidate(None)]) == 0


def test_empty_pool():
    assert all(fn([], random.Random(0)) is None for fn in SELECTORS.values())
    assert accuracy([], None) == 0.0


def test_random_choice_is_uniform():
    rng = random.Random(1)
    counts = [0] * 4
    for _ in range(4000):
        counts[random_choice([Candidate("a")] * 4, rng)] += 1
    assert all(900 < c < 1100 for c in counts)


@pytest.mark.parametrize(("text", "key"), [("$5.40", "5.4"), ("5.4", "5.4"), ("12%", "12%"),
                                           ("1,234,567.891", "1.23457e+06"),
                                           ("Project A.", "project a"), ("", None), ("  ", None)])
def test_answer_key(text, key):
    assert answer_key(text) == key


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", None]), st.booleans(),
                          st.floats(0, 1), st.floats(0, 2)), min_size=1, max_size=16))
def test_selector_invariants(rows):
    pool = [Candidate(*r) for r in rows]
    chosen = select_all(pool, random.Random(0))
    assert all(0 <= i < len(pool) for i in chosen.values())
    best = max(accuracy(pool, i) for i in chosen.values())
    assert accuracy(pool, chosen["pass_at_n"]) == best == float(any(c.correct for c in pool))
    assert pool[chosen["prm_best"]].reward == max(c.reward for c in pool)
    answered = [c.answer for c in pool if c.answer is not None]
    if answered:
        assert answered.count(pool[chosen["majority"]].answer) == max(answered.count(a) for a in answered)


@pytest.mark.parametrize(("text", "expected"), [
    ("calc", PRMSpec("calc")), (" calc ", PRMSpec("calc")), ("judge:gpt-4.1-mini", PRMSpec("judge", "gpt-4.1-mini")),
    ("hf:Qwen/Qwen2.5-Math-PRM-7B", PRMSpec("hf", "Qwen/Qwen2.5-Math-PRM-7B", "")),
    ("hf:Qwen/Qwen2.5-Math-PRM-7B:qwen", PRMSpec("hf", "Qwen/Qwen2.5-Math-PRM-7B", "qwen")),
    ("hf:org/fin-prm:release", PRMSpec("hf", "org/fin-prm", "release")),
])
def test_parse_spec(text, expected):
    assert parse_spec(text) == expected


def test_parse_spec_local_path(tmp_path):
    assert parse_spec(f"hf:{tmp_path}:release") == PRMSpec("hf", str(tmp_path), "release")
    assert str(parse_spec(f"hf:{tmp_path}")) == f"hf:{tmp_path}"


@pytest.mark.parametrize(("text", "message"), [
    ("bogus", "unknown PRM backend 'bogus'"), ("", "unknown PRM backend ''"), ("calc:x", "calc takes no argument"),
    ("judge:", "names no judge model"), ("hf:", "names no model"), ("hf:/no/such/dir", "no such path '/no/such/dir'"),
    ("hf:./missing:release", "no such path"), ("hf:a b", "neither an existing path nor a hub id"),
])
def test_parse_spec_errors_are_one_line(text, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_spec(text)
    assert "\n" not in str(info.value)
