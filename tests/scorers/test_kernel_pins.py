"""The kernel's defaults and its threaded path, pinned (issue 20: mutation testing of scorers/kernel.py).

Expected values come from :func:`align_python` (the plain recurrence, written separately from the
kernel) or by hand; the threaded split must give exactly what one pass gives.
"""

import numpy as np
import pytest

from scorers.kernel import MAX_SUM, MIN_COST, align_batch, align_python


def test_defaults_by_hand():
    """One cell, A = 0.4, MIN_COST with the default gap 0.25: pairing costs 0.6, two gaps 0.5, so the
    path skips both (2 moves, no pair). MAX_SUM is the default objective: the pair, total 0.4."""
    assert align_python([[0.4]], 1, 1, MIN_COST) == (0.5, 2, [])
    assert align_python([[0.4]], 1, 1) == (0.4, 1, [(0, 0)])
    A = np.full((1, 1, 1), 0.4)
    total, moves, _, _, npairs = align_batch(A, np.array([1]), np.array([1]), MIN_COST)
    assert (total[0], moves[0], npairs[0]) == (0.5, 2, 0)
    total, moves, pi, pj, npairs = align_batch(A, np.array([1]), np.array([1]))
    assert (total[0], moves[0], npairs[0], pi[0, 0], pj[0, 0]) == (0.4, 1, 1, 0, 0)


def _random_batch(count: int, size: int, seed: int):
    rng = np.random.default_rng(seed)
    A = np.round(rng.random((count, size, size)) * 4) / 4  # quarters: many ties
    return A, rng.integers(0, size + 1, count), rng.integers(0, size + 1, count)


@pytest.mark.parametrize(("objective", "pair_ties"), [(MAX_SUM, False), (MIN_COST, True)])
def test_a_batch_split_across_threads_equals_the_plain_recurrence(monkeypatch, objective, pair_ties):
    """8193 pairs on (at least) two threads: the chunks must cover every pair once, in place."""
    monkeypatch.setattr("scorers.kernel.os.cpu_count", lambda: 4)
    A, n, m = _random_batch(2 * 4096 + 1, 3, seed=objective)
    got = align_batch(A, n, m, objective, 0.25, pair_ties=pair_ties, engine="numba")
    for b in range(len(A)):
        total, moves, pairs = align_python(A[b].tolist(), int(n[b]), int(m[b]), objective, 0.25, pair_ties)
        assert got[0][b] == total and got[1][b] == moves and got[4][b] == len(pairs), b
        assert list(zip(got[2][b, :len(pairs)].tolist(), got[3][b, :len(pairs)].tolist())) == pairs, b
        assert (got[2][b, len(pairs):] == -1).all() and (got[3][b, len(pairs):] == -1).all(), b


@pytest.mark.parametrize(("shape", "n", "m"), [
    ((1, 2, 2), [1, 1], [1]),  # one length too many for n only
    ((1, 2, 2), [1], [1, 1]),  # ... for m only
    ((1, 2, 2), [3], [1]),  # n longer than the padding
    ((1, 2, 2), [1], [3]),  # m longer than the padding
    ((1, 2, 2), [-1], [1]),  # a negative n alone
    ((1, 2, 2), [1], [-1]),  # a negative m alone
])
def test_each_bad_length_is_rejected_with_its_reason(shape, n, m):
    for engine in ("python", "numba"):
        with pytest.raises(ValueError, match="^lengths must be one per matrix and fit the padded shape$"):
            align_batch(np.zeros(shape), np.array(n), np.array(m), engine=engine)


def test_a_bad_shape_names_the_shape():
    with pytest.raises(ValueError, match=r"^A must be \(batch, n_max, m_max\), got shape \(2, 2\)$"):
        align_batch(np.zeros((2, 2)), np.array([1]), np.array([1]))


def test_lengths_given_as_floats_or_lists_are_read_as_integers():
    """By hand: a 2 x 2 identity under MAX_SUM pairs the diagonal, total 2, 2 moves."""
    A = np.eye(2)[None]
    for engine in ("python", "numba"):
        for n, m in ((np.array([2.0]), np.array([2.0])), ([2], [2])):
            total, moves, pi, pj, npairs = align_batch(A, n, m, MAX_SUM, engine=engine)
            assert (total[0], moves[0], npairs[0]) == (2.0, 2, 2)
            assert pi[0].tolist() == [0, 1] and pj[0].tolist() == [0, 1]


def test_output_types_and_padding():
    """Pairs come padded with -1 up to min(n_max, m_max) columns (at least one), as int32; counts are int64."""
    A = np.array([[[0.1, 0.9, 0.2]]])  # n_max 1, m_max 3: at most one pair
    for engine in ("python", "numba"):
        total, moves, pi, pj, npairs = align_batch(A, np.array([1]), np.array([3]), MAX_SUM, engine=engine)
        assert pi.shape == pj.shape == (1, 1) and pi.dtype == pj.dtype == np.int32
        assert moves.dtype == npairs.dtype == np.int64 and total.dtype == np.float64
        assert (pi[0, 0], pj[0, 0], moves[0]) == (0, 1, 3)
        *_, pi, pj, npairs = align_batch(np.zeros((2, 3, 2)), np.array([3, 0]), np.array([2, 2]), MAX_SUM,
                                         engine=engine)
        assert pi.shape == (2, 2) and pi[1].tolist() == [-1, -1] and pj[1].tolist() == [-1, -1]
        assert npairs.tolist() == [0, 0]  # all zeros: pairing never strictly improves the sum


def test_an_unknown_engine_is_named():
    with pytest.raises(ValueError, match="^engine must be 'auto', 'numba' or 'python', got 'gpu'$"):
        align_batch(np.zeros((1, 1, 1)), np.array([1]), np.array([1]), engine="gpu")


def test_the_python_engine_never_imports_numba_even_for_a_large_batch():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from scorers.kernel import align_batch, SMALL_BATCH_CELLS; "
            "k = SMALL_BATCH_CELLS // 9 + 1; "
            "align_batch(np.ones((k, 2, 2)), np.full(k, 2), np.full(k, 2), engine='python'); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_auto_switches_to_numba_just_above_the_small_batch_bound():
    """By hand: 5000 one-by-one pairs hold (1 + 1) x (1 + 1) = 4 cells each, 20,000 in all, the bound:
    plain Python. One more empty pair adds (0 + 1) x (0 + 1) = 1 cell: over the bound, numba."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from scorers.kernel import align_batch, SMALL_BATCH_CELLS; "
            "assert SMALL_BATCH_CELLS == 20000; "
            "align_batch(np.ones((5000, 1, 1)), np.ones(5000), np.ones(5000)); "
            "print('numba' in sys.modules); "
            "n = np.ones(5001); n[-1] = 0; "
            "align_batch(np.ones((5001, 1, 1)), n, n); "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
