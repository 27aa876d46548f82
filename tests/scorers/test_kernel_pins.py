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


@pytest.mark.parametrize("objective", [MAX_SUM, MIN_COST])
def test_a_batch_split_across_threads_equals_the_plain_recurrence(monkeypatch, objective):
    """8193 pairs on (at least) two threads: the chunks must cover every pair once, in place."""
    monkeypatch.setattr("scorers.kernel.os.cpu_count", lambda: 4)
    A, n, m = _random_batch(2 * 4096 + 1, 3, seed=objective)
    got = align_batch(A, n, m, objective, 0.25, pair_ties=False, engine="numba")
    for b in range(len(A)):
        total, moves, pairs = align_python(A[b].tolist(), int(n[b]), int(m[b]), objective, 0.25)
        assert got[0][b] == total and got[1][b] == moves and got[4][b] == len(pairs), b
        assert list(zip(got[2][b, :len(pairs)].tolist(), got[3][b, :len(pairs)].tolist())) == pairs, b
        assert (got[2][b, len(pairs):] == -1).all() and (got[3][b, len(pairs):] == -1).all(), b
