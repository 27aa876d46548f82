"""Leaderboard ranks at the size people publish (printed figures, not timed tests).

1. A 54-row board (``paper26`` in both hosts) on 290 templates of 10 seeds, a leader 0.20 above 53 equal
   rows: tie groups with the paired test of :mod:`finchain_tasks.leaderboard.stats` (exact sign-flip up to
   15 templates, cluster-robust t above) against the Monte-Carlo permutation test with 2,000 resamples it
   replaced (smallest p 1/2001: after Holm over 53 comparisons nothing can be rejected).
2. Boards of equal models (5, 10 and 50 rows, 40 templates): how often tie groups separate a row, with Holm
   over every pair (the board's rule since issue 42) and over the comparisons with the leader only (the rule
   before: the leader is chosen after looking), and how often two rank intervals are disjoint, simultaneous
   (the default) and marginal; on boards with a true order (means 0.01 apart), how often every row's
   interval holds its true rank.
3. A 52-row board with one clear leader (+0.20) and 51 equal rows: how often the leader is alone in group 1
   and how often the 51 equal rows are split into more than one group, under either rule.

Run: ``python benchmarks/leaderboard_ranks_bench.py [--boards 200]``.
"""

from __future__ import annotations

import argparse

import numpy as np


def board(rng: np.random.Generator, shifts: list[float], templates: int, seeds: int) -> np.ndarray:
    """(rows, templates * seeds) per-sample scores: template difficulty + the row's shift + noise."""
    difficulty = np.repeat(rng.uniform(0.2, 0.7, templates), seeds)
    return np.stack([np.clip(difficulty + s + rng.normal(0, 0.15, templates * seeds), 0, 1) for s in shifts])


def groups(scores: np.ndarray, clusters: np.ndarray, test) -> int:
    """Tie groups by the rule before issue 42 (leader by mean, paired tests against it, Holm at 0.05 over
    those comparisons only)."""
    from finchain_tasks.leaderboard.stats import holm

    pool = list(np.argsort(-scores.mean(1)))
    n = 0
    while pool:
        n += 1
        leader, rest = pool[0], pool[1:]
        adjusted = holm([test(scores[r], scores[leader], clusters) for r in rest])
        pool = [r for r, p in zip(rest, adjusted) if p < 0.05]
    return n


def all_pairs_groups(scores: np.ndarray, clusters: np.ndarray) -> list:
    """Tie groups by the board's rule (:func:`finchain_tasks.leaderboard.stats.tie_groups`): the paired test of
    every pair (:func:`~finchain_tasks.leaderboard.stats.cluster_p_value`, as the board's), Holm over all."""
    from finchain_tasks.leaderboard import stats

    rows = len(scores)
    sums = np.stack([stats.cluster_sums(s, clusters)[0] for s in scores])
    counts = stats.cluster_sums(scores[0], clusters)[1]
    means = scores.mean(1)
    upper = [(i, j) for i in range(rows) for j in range(i + 1, rows)]
    adjusted = np.full((rows, rows), np.nan)
    for (i, j), p in zip(upper, stats.holm([stats.cluster_p_value(sums[i] - sums[j], counts)[0] for i, j in upper])):
        adjusted[i, j] = adjusted[j, i] = p
    diff = means[:, None] - means[None, :]
    found, _ = stats.tie_groups(list(means), [False] * rows, diff, adjusted, ~np.eye(rows, dtype=bool))
    return found


def new_test(a, b, clusters) -> float:
    from finchain_tasks.leaderboard.stats import paired_test

    return paired_test(a, b, clusters, resamples=100).p_value


def old_test(a, b, clusters) -> float:
    """The permutation test this replaced: scipy's Monte-Carlo sign flips within clusters, 2,000 resamples."""
    from scipy.stats import permutation_test

    from finchain_tasks.leaderboard.stats import cluster_sums

    sa, counts = cluster_sums(np.asarray(a), np.asarray(clusters, dtype=object))
    sb, _ = cluster_sums(np.asarray(b), np.asarray(clusters, dtype=object))
    res = permutation_test((sa, sb), lambda p, q, axis=-1: np.sum(p - q, axis=axis), permutation_type="samples",
                           vectorized=True, n_resamples=2000, random_state=np.random.default_rng(0))
    return float(res.pvalue)


def main(argv: list[str] | None = None) -> int:
    from finchain_tasks.leaderboard.stats import rank_intervals

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)

    scores = board(rng, [0.2] + [0.0] * 53, 290, 10)
    clusters = np.repeat(np.arange(290), 10)
    print("1. 54 rows, 290 templates x 10 seeds, leader +0.20:")
    print("   tie groups, the board's rule (Holm over all 1,431 pairs): "
          f"{len(set(all_pairs_groups(scores, clusters)))}")
    print(f"   tie groups, exact sign-flip / cluster t, leader's comparisons: {groups(scores, clusters, new_test)}")
    print(f"   tie groups, permutation test (2,000 resamples): {groups(scores, clusters, old_test)}")

    print(f"2. {args.boards} boards of 40 templates x 5 seeds")
    clusters = np.repeat(np.arange(40), 5)
    for rows in (5, 10, 50):
        separated, before, disjoint = 0, 0, {True: 0, False: 0}
        for _ in range(args.boards):
            s = board(rng, [0.0] * rows, 40, 5)
            separated += len(set(all_pairs_groups(s, clusters))) > 1
            before += groups(s, clusters, new_test) > 1
            seed = int(rng.integers(1 << 30))
            for simultaneous in (True, False):
                found = rank_intervals(list(s), [clusters] * rows, resamples=1000, seed=seed,
                                       simultaneous=simultaneous)
                lows, highs = np.array([a.low for a in found]), np.array([a.high for a in found])
                disjoint[simultaneous] += bool(highs.min() < lows.max())
        print(f"   {rows} equal rows: tie groups separate a row on {separated / args.boards:.3f} of boards (Holm over "
              f"every pair, the board's rule), {before / args.boards:.3f} (Holm over the leader's comparisons, "
              f"before); two rank intervals are disjoint on {disjoint[True] / args.boards:.3f} (simultaneous, the "
              f"default), {disjoint[False] / args.boards:.3f} (marginal)")
    held = {True: 0, False: 0}
    total = 0
    for _ in range(args.boards // 2):
        s = board(rng, [0.01 * k for k in range(6)][::-1], 40, 5)
        seed = int(rng.integers(1 << 30))
        found = {sim: rank_intervals(list(s), [clusters] * 6, resamples=1000, seed=seed, simultaneous=sim)
                 for sim in (True, False)}
        total += 1
        for sim in (True, False):
            held[sim] += all(ri.low <= r <= ri.high for r, ri in enumerate(found[sim], 1))
    print(f"   6 rows 0.01 apart: every row's interval holds its true rank on {held[True] / total:.3f} of boards "
          f"(simultaneous), {held[False] / total:.3f} (marginal)")

    leaders = max(args.boards // 4, 10)
    print(f"3. {leaders} boards of 52 rows (40 templates x 5 seeds), a leader +0.20 above 51 equal rows")
    alone, split, split_before = 0, 0, 0
    for _ in range(leaders):
        s = board(rng, [0.2] + [0.0] * 51, 40, 5)
        found = all_pairs_groups(s, clusters)
        alone += found[0] == 1 and all(g != 1 for g in found[1:])
        split += len(set(found[1:])) > 1
        split_before += groups(s, clusters, new_test) > 2
    print(f"   the leader alone in group 1 on {alone / leaders:.3f} of boards; the 51 equal rows split on "
          f"{split / leaders:.3f} (Holm over every pair), {split_before / leaders:.3f} (the leader's comparisons, "
          "before)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
