"""The alignment kernel: monotone DP over a batch of padded gated-score matrices.

One call aligns a whole batch (no Python loop per pair), so scoring time goes to the embedding
forward pass. A move is diagonal (pair gold i with predicted j), up (skip gold i) or left (skip
predicted j). Two objectives:

* ``MAX_SUM`` (paper): maximise the sum of A over paired cells; skips cost nothing.
* ``MIN_COST`` (reference script): minimise (1 - A) per pair plus ``gap`` per skip.

Ties between skipping gold and skipping predicted prefer skipping gold. Ties between pairing and
skipping follow ``pair_ties``: False (the paper profile) takes a pair only when it strictly improves
the path (under MIN_COST with gap 0.25 a pair with A <= 0.5 is never taken); True (the reference
profile) pairs on an exact tie, as the authors' ``np.argmin([pair, skip gold, skip predicted])``
does (a pair with A = 0.5 is taken). Both give the same optimum; only the path, and so the number of
moves that MIN_COST divides by, can differ. :func:`align_python` is the same recurrence in plain
Python: the baseline for the benchmark and the oracle for the tests.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import numpy as np

MAX_SUM = 0
MIN_COST = 1
_DIAG, _UP, _LEFT = 0, 1, 2
_PAIRS_PER_THREAD = 4096
"""Below this many pairs per thread, threading costs more than it saves."""
SMALL_BATCH_CELLS = 20_000
"""Batches with at most this many DP cells are aligned in plain Python: a few milliseconds, where
importing numba and loading the compiled kernel from its cache costs a fresh process 1-2 s. So a
first small batch (an Inspect micro-batch, ``finchain score`` on a short file) never waits for
numba; large batches still use the compiled kernel. Both give identical results (tested)."""


@cache
def _compiled():
    """The numba kernel, compiled (or loaded from numba's on-disk cache) on first use only."""
    from numba import njit

    return njit(cache=True, nogil=True)(_align_range)


def _align_range(A, n, m, cut, skip, pair_ties, lo, hi, score, moves, pair_i, pair_j, n_pairs):  # noqa: C901
    """Align pairs lo..hi-1, maximising sum(A - cut) over pairs minus ``skip`` per gap.

    Both objectives are this one form: MAX_SUM is (cut 0, skip 0); MIN_COST is (cut 1, skip gap),
    whose optimum is the exact negation of the cost recurrence. The path is recovered by
    re-deciding each cell from D (same arithmetic, so the same choice) instead of storing it.
    """
    n_max, m_max = A.shape[1], A.shape[2]
    D = np.zeros((n_max + 1, m_max + 1))
    trail = np.zeros((max(n_max, m_max) + 1, 2), np.int32)
    for b in range(lo, hi):
        nb, mb = n[b], m[b]
        for i in range(nb + 1):
            D[i, 0] = -i * skip
        for j in range(1, mb + 1):
            D[0, j] = -j * skip
        for i in range(1, nb + 1):
            for j in range(1, mb + 1):
                best = D[i - 1, j] - skip
                left = D[i, j - 1] - skip
                if left > best:
                    best = left
                diag = D[i - 1, j - 1] + (A[b, i - 1, j - 1] - cut)
                if diag > best or (pair_ties and diag == best):
                    best = diag
                D[i, j] = best
        score[b] = D[nb, mb]
        i, j, count, k = nb, mb, 0, 0
        while i > 0 or j > 0:
            count += 1
            if i > 0 and j > 0:
                up = D[i - 1, j] - skip
                left = D[i, j - 1] - skip
                diag = D[i - 1, j - 1] + (A[b, i - 1, j - 1] - cut)
                if diag > max(up, left) or (pair_ties and diag == max(up, left)):
                    trail[k, 0] = i - 1
                    trail[k, 1] = j - 1
                    k += 1
                    i -= 1
                    j -= 1
                elif left > up:
                    j -= 1
                else:
                    i -= 1
            elif i > 0:
                i -= 1
            else:
                j -= 1
        moves[b] = count
        n_pairs[b] = k
        for a in range(k):
            pair_i[b, a] = trail[k - 1 - a, 0]
            pair_j[b, a] = trail[k - 1 - a, 1]


def align_batch(A: np.ndarray, n: np.ndarray, m: np.ndarray, objective: int = MAX_SUM, gap: float = 0.25,
                pair_ties: bool = False, engine: str = "auto"):
    """Align every pair of a batch.

    ``A`` is float64 (batch, n_max, m_max), padded; ``n`` and ``m`` are the true sizes.
    Returns ``(score, moves, pair_i, pair_j, n_pairs)``: the path's total (sum of A under
    MAX_SUM, total cost under MIN_COST), its number of moves, and its paired cells (0-based, in
    order, padded with -1). ``pair_ties``: see the module docstring. ``engine``: "numba", "python",
    or "auto" (python up to :data:`SMALL_BATCH_CELLS` cells). Large batches are split across
    threads (the kernel is ``nogil``).
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    if A.ndim != 3:
        raise ValueError(f"A must be (batch, n_max, m_max), got shape {A.shape}")
    n = np.ascontiguousarray(n, dtype=np.int64)
    m = np.ascontiguousarray(m, dtype=np.int64)
    if len(n) != len(A) or len(m) != len(A) or (n > A.shape[1]).any() or (m > A.shape[2]).any() \
            or (n < 0).any() or (m < 0).any():
        raise ValueError("lengths must be one per matrix and fit the padded shape")
    cut, skip = (0.0, 0.0) if objective == MAX_SUM else (1.0, float(gap))
    batch, k_max = len(A), max(min(A.shape[1], A.shape[2]), 1)
    score, moves, n_pairs = np.zeros(batch), np.zeros(batch, np.int64), np.zeros(batch, np.int64)
    pair_i, pair_j = np.full((batch, k_max), -1, np.int32), np.full((batch, k_max), -1, np.int32)
    outputs = (score, moves, pair_i, pair_j, n_pairs)
    if engine not in ("auto", "numba", "python"):
        raise ValueError(f"engine must be 'auto', 'numba' or 'python', got {engine!r}")
    if engine == "python" or engine == "auto" and int(((n + 1) * (m + 1)).sum()) <= SMALL_BATCH_CELLS:
        _align_in_python(A, n, m, objective, gap, pair_ties, *outputs)
        return outputs
    kernel = _compiled()
    workers = max(1, min(os.cpu_count() or 1, batch // _PAIRS_PER_THREAD))
    bounds = np.linspace(0, batch, workers + 1).astype(np.int64)
    ranges = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    if workers == 1:
        kernel(A, n, m, cut, skip, bool(pair_ties), 0, batch, *outputs)
    else:  # the kernel releases the GIL, so plain threads run chunks in parallel
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(lambda r: kernel(A, n, m, cut, skip, bool(pair_ties), r[0], r[1], *outputs), ranges))
    return (-score if objective == MIN_COST else score), moves, pair_i, pair_j, n_pairs


def _align_in_python(A, n, m, objective, gap, pair_ties, score, moves, pair_i, pair_j, n_pairs) -> None:
    """Fill the outputs of :func:`align_batch` with :func:`align_python`, pair by pair."""
    for b in range(len(A)):
        total, count, pairs = align_python(A[b].tolist(), int(n[b]), int(m[b]), objective, gap, pair_ties)
        score[b], moves[b], n_pairs[b] = total, count, len(pairs)
        for a, (i, j) in enumerate(pairs):
            pair_i[b, a], pair_j[b, a] = i, j


def align_python(A, n: int, m: int, objective: int = MAX_SUM, gap: float = 0.25, pair_ties: bool = False):
    """The same recurrence for one matrix in plain Python: ``(score, moves, pairs)``."""
    step = 0.0 if objective == MAX_SUM else gap
    D = [[0.0] * (m + 1) for _ in range(n + 1)]
    back = [[_UP] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        D[i][0] = i * step
    for j in range(m + 1):
        D[0][j], back[0][j] = j * step, _LEFT
    better = (lambda x, y: x > y) if objective == MAX_SUM else (lambda x, y: x < y)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            a = A[i - 1][j - 1]
            best, move = D[i - 1][j] + step, _UP
            if better(D[i][j - 1] + step, best):
                best, move = D[i][j - 1] + step, _LEFT
            diag = D[i - 1][j - 1] + (a if objective == MAX_SUM else 1.0 - a)
            if better(diag, best) or (pair_ties and diag == best):
                best, move = diag, _DIAG
            D[i][j], back[i][j] = best, move
    pairs, i, j, moves = [], n, m, 0
    while i > 0 or j > 0:
        move = back[i][j]
        moves += 1
        if move == _DIAG:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move == _UP:
            i -= 1
        else:
            j -= 1
    return D[n][m], moves, pairs[::-1]
