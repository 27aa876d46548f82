"""The numba kernel equals the plain-Python recurrence, and both equal brute force on small cases."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scorers.kernel import MAX_SUM, MIN_COST, align_batch, align_python

sizes = st.integers(min_value=0, max_value=15)
cell = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def batches(draw):
    count = draw(st.integers(min_value=1, max_value=12))
    ns = [draw(sizes) for _ in range(count)]
    ms = [draw(sizes) for _ in range(count)]
    shape = (count, max(max(ns), 1), max(max(ms), 1))
    A = draw(arrays(np.float64, shape, elements=cell))
    if draw(st.booleans()):  # coarse values make ties common, which is where paths can differ
        A = np.round(A * 4) / 4
    return A, np.array(ns), np.array(ms)


@settings(max_examples=400, deadline=None)
@given(batch=batches(), objective=st.sampled_from([MAX_SUM, MIN_COST]),
       gap=st.sampled_from([0.25, 0.1, 0.6]))
def test_kernel_equals_python_recurrence(batch, objective, gap):
    A, n, m = batch
    total, moves, pi, pj, npairs = align_batch(A, n, m, objective, gap, engine="numba")
    for b in range(len(A)):
        ref_total, ref_moves, ref_pairs = align_python(A[b].tolist(), int(n[b]), int(m[b]), objective, gap)
        assert total[b] == ref_total  # exactly: the kernel's maximisation is the exact negation of the costs
        assert moves[b] == ref_moves
        assert list(zip(pi[b, :npairs[b]], pj[b, :npairs[b]])) == ref_pairs


def _all_alignments(n, m):
    """Every monotone set of pairs (strictly increasing in both indices)."""
    cells = [(i, j) for i in range(n) for j in range(m)]
    for k in range(min(n, m) + 1):
        for combo in itertools.combinations(cells, k):
            if all(a[0] < b[0] and a[1] < b[1] for a, b in zip(combo, combo[1:])):
                yield combo


@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 4), m=st.integers(0, 4), data=st.data())
def test_optimum_equals_brute_force(n, m, data):
    A = data.draw(arrays(np.float64, (max(n, 1), max(m, 1)), elements=cell))
    best_sum = max(sum(A[i, j] for i, j in combo) for combo in _all_alignments(n, m))
    best_cost = min(sum(1 - A[i, j] for i, j in c) + 0.25 * (n + m - 2 * len(c)) for c in _all_alignments(n, m))
    for engine in ("numba", "python"):
        total, *_ = align_batch(A[None], np.array([n]), np.array([m]), MAX_SUM, engine=engine)
        assert total[0] == pytest.approx(best_sum, abs=1e-12)
        total, *_ = align_batch(A[None], np.array([n]), np.array([m]), MIN_COST, 0.25, engine=engine)
        assert total[0] == pytest.approx(best_cost, abs=1e-12)


def test_edge_shapes():
    one = np.ones((1, 1, 1))
    total, moves, pi, pj, npairs = align_batch(one, np.array([1]), np.array([1]), MAX_SUM)
    assert (total[0], moves[0], npairs[0], pi[0, 0], pj[0, 0]) == (1.0, 1, 1, 0, 0)
    row = np.array([[[0.1, 0.9, 0.2]]])
    total, moves, pi, pj, npairs = align_batch(row, np.array([1]), np.array([3]), MAX_SUM)
    assert total[0] == pytest.approx(0.9) and (pi[0, 0], pj[0, 0]) == (0, 1) and moves[0] == 3
    total, moves, _, _, npairs = align_batch(np.zeros((1, 1, 1)), np.array([0]), np.array([0]), MIN_COST)
    assert (total[0], moves[0], npairs[0]) == (0.0, 0, 0)
    total, moves, _, _, npairs = align_batch(np.zeros((1, 3, 1)), np.array([3]), np.array([0]), MIN_COST)
    assert (total[0], moves[0], npairs[0]) == (0.75, 3, 0)


def test_a_pair_at_or_below_half_is_never_taken_under_min_cost():
    A = np.full((1, 3, 3), 0.5)
    *_, npairs = align_batch(A, np.array([3]), np.array([3]), MIN_COST, 0.25)
    assert npairs[0] == 0
    A = np.full((1, 3, 3), 0.51)
    *_, npairs = align_batch(A, np.array([3]), np.array([3]), MIN_COST, 0.25)
    assert npairs[0] == 3


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError):
        align_batch(np.zeros((2, 2)), np.array([1]), np.array([1]))
    with pytest.raises(ValueError):
        align_batch(np.zeros((1, 2, 2)), np.array([3]), np.array([1]))


# --- the tie rule ------------------------------------------------------------------------------

def test_a_pair_of_exactly_one_half_is_taken_when_ties_pair():
    """By hand: one cell, A = 0.5. Pairing costs 1 - 0.5 = 0.5, skipping both steps 2 x 0.25 = 0.5.
    The authors' argmin over [pair, skip gold, skip predicted] takes the first minimum: the pair
    (1 move, cost 0.5, ChainEval 1 - 0.5/1 = 0.5). The skip rule takes the gaps (2 moves, 0.75)."""
    A = np.full((1, 1, 1), 0.5)
    total, moves, pi, pj, npairs = align_batch(A, np.array([1]), np.array([1]), MIN_COST, 0.25, pair_ties=True)
    assert (total[0], moves[0], npairs[0], pi[0, 0], pj[0, 0]) == (0.5, 1, 1, 0, 0)
    assert 1 - total[0] / moves[0] == 0.5
    total, moves, _, _, npairs = align_batch(A, np.array([1]), np.array([1]), MIN_COST, 0.25, pair_ties=False)
    assert (total[0], moves[0], npairs[0]) == (0.5, 2, 0)
    assert 1 - total[0] / moves[0] == 0.75
    # 3 x 3 of 0.5: every cell of D costs 0.25 (i + j) whichever way it is reached, so each cell ties
    # and the pair rule walks the diagonal
    A = np.full((1, 3, 3), 0.5)
    total, moves, pi, pj, npairs = align_batch(A, np.array([3]), np.array([3]), MIN_COST, 0.25, pair_ties=True)
    assert (total[0], moves[0], npairs[0]) == (1.5, 3, 3)
    assert list(zip(pi[0, :3], pj[0, :3])) == [(0, 0), (1, 1), (2, 2)]


def _argmin_recurrence(cost: np.ndarray, gap: float):
    """A second implementation of the authors' alignment, written from its description: cost
    matrix 1 - A, a table of moves chosen by np.argmin over [pair, skip gold, skip predicted] (the
    first minimum wins), then a walk back. Returns (total cost, moves, pairs)."""
    n, m = cost.shape
    dp = np.full((n + 1, m + 1), np.inf)
    move = np.zeros((n + 1, m + 1), dtype=int)
    dp[0, 0] = 0.0
    for i in range(1, n + 1):
        dp[i, 0], move[i, 0] = dp[i - 1, 0] + gap, 1
    for j in range(1, m + 1):
        dp[0, j], move[0, j] = dp[0, j - 1] + gap, 2
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            options = [dp[i - 1, j - 1] + cost[i - 1, j - 1], dp[i - 1, j] + gap, dp[i, j - 1] + gap]
            move[i, j] = int(np.argmin(options))
            dp[i, j] = options[move[i, j]]
    pairs, i, j, steps = [], n, m, 0
    while i > 0 or j > 0:
        steps += 1
        if move[i, j] == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move[i, j] == 1:
            i -= 1
        else:
            j -= 1
    return float(dp[n, m]), steps, pairs[::-1]


@settings(max_examples=300, deadline=None)
@given(batch=batches())
def test_pair_on_ties_equals_the_argmin_recurrence(batch):
    A, n, m = batch
    A = np.round(A * 4) / 4  # quarters: ties between a pair and two gaps of 0.25 are everywhere
    total, moves, pi, pj, npairs = align_batch(A, n, m, MIN_COST, 0.25, pair_ties=True, engine="numba")
    for b in range(len(A)):
        want_total, want_moves, want_pairs = _argmin_recurrence(1.0 - A[b, :n[b], :m[b]], 0.25)
        assert total[b] == want_total
        assert moves[b] == want_moves
        assert list(zip(pi[b, :npairs[b]].tolist(), pj[b, :npairs[b]].tolist())) == want_pairs


@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 4), m=st.integers(0, 4), pair_ties=st.booleans(), data=st.data())
def test_both_tie_rules_return_an_optimal_path(n, m, pair_ties, data):
    """Brute force over every monotone alignment: the path either rule returns costs the optimum."""
    A = data.draw(arrays(np.float64, (max(n, 1), max(m, 1)), elements=cell))
    A = np.round(A * 4) / 4
    best_cost = min(sum(1 - A[i, j] for i, j in c) + 0.25 * (n + m - 2 * len(c)) for c in _all_alignments(n, m))
    total, moves, pi, pj, npairs = align_batch(A[None], np.array([n]), np.array([m]), MIN_COST, 0.25, pair_ties,
                                               engine="numba")
    pairs = list(zip(pi[0, :npairs[0]].tolist(), pj[0, :npairs[0]].tolist()))
    path_cost = sum(1 - A[i, j] for i, j in pairs) + 0.25 * (n + m - 2 * len(pairs))
    assert total[0] == pytest.approx(best_cost, abs=1e-12) and path_cost == pytest.approx(best_cost, abs=1e-12)
    assert moves[0] == n + m - len(pairs)
    ref_total, ref_moves, ref_pairs = align_python(A.tolist(), n, m, MIN_COST, 0.25, pair_ties)
    assert (ref_moves, ref_pairs) == (moves[0], pairs)


@settings(max_examples=200, deadline=None)
@given(batch=batches(), objective=st.sampled_from([MAX_SUM, MIN_COST]), pair_ties=st.booleans())
def test_python_and_numba_engines_give_identical_outputs(batch, objective, pair_ties):
    A, n, m = batch
    fast = align_batch(A, n, m, objective, 0.25, pair_ties, engine="numba")
    plain = align_batch(A, n, m, objective, 0.25, pair_ties, engine="python")
    auto = align_batch(A, n, m, objective, 0.25, pair_ties)  # small: the python path
    for a, b, c in zip(fast, plain, auto):
        assert a.dtype == b.dtype and np.array_equal(a, b) and np.array_equal(b, c)


def test_a_small_batch_does_not_import_numba():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from scorers.kernel import align_batch; "
            "align_batch(np.ones((3, 4, 4)), np.array([4, 2, 0]), np.array([4, 3, 1])); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
