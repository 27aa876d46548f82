"""Coverage of the Best-of-N intervals with few clusters (printed figures, not timed tests).

Simulated per-problem values of G templates of 10 problems (template difficulty ~ Beta(2, 2), problem
difficulty around it): ``accuracy`` (a selector's mean over subsets, eighths) and ``pass@16`` (near its
ceiling, skewed). For each G, the share of simulated runs whose 95% interval covers the true mean, and the
mean width, for: Korn-Graubard (``scorers.prm.intervals.proportion_interval``, the default of ``finchain
bon``), the percentile cluster bootstrap (the previous default, 1,000 draws) and the plain cluster-robust t.
Also the paired difference's t interval (``mean_interval``) on simulated prm_best − majority differences.

Run: ``python benchmarks/bon_interval_bench.py [--reps 2000]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np


def values(rng: np.random.Generator, g: int, per: int, kind: str) -> np.ndarray:
    pt = rng.beta(2, 2, g)[:, None]
    q = rng.beta(pt * 4 + 0.01, (1 - pt) * 4 + 0.01, (g, per))
    if kind == "accuracy":
        return rng.binomial(8, q) / 8
    if kind == "pass@16":
        return 1 - (1 - q) ** 16
    gain = rng.normal(0.05, 0.08, (g, 1))  # a per-template gain of the PRM over the vote, problem noise around it
    return np.clip(gain + rng.normal(0, 0.3, (g, per)), -1, 1)


def t_interval(v: np.ndarray, clusters: np.ndarray) -> tuple[float, float, float]:
    from scipy.stats import t

    from scorers.prm.intervals import _cr1, cluster_totals

    sums, counts = cluster_totals(v, clusters)
    mean, var = _cr1(sums, counts)
    half = float(t.ppf(0.975, len(sums) - 1)) * math.sqrt(var)
    return mean, mean - half, mean + half


def main(argv: list[str] | None = None) -> int:
    from scorers.prm import intervals

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--per", type=int, default=10, help="problems per template")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"{'quantity':<10} {'G':>3}  {'Korn-Graubard':>22}  {'percentile bootstrap':>22}  {'cluster t':>22}")
    for kind in ("accuracy", "pass@16", "difference"):
        truth = values(np.random.default_rng(1), 200_000, args.per, kind).mean()
        for g in (5, 10, 30, 100):
            clusters = np.repeat(np.arange(g), args.per)
            hits = {"kg": 0, "pct": 0, "t": 0}
            width = {"kg": 0.0, "pct": 0.0, "t": 0.0}
            reps = args.reps if g <= 30 else args.reps // 4
            for _ in range(reps):
                v = values(rng, g, args.per, kind).ravel()
                weights = intervals.cluster_weights(g, 1000, rng)
                found = {"kg": (intervals.proportion_interval if kind != "difference" else intervals.mean_interval)(
                    v, clusters), "pct": intervals.percentile_interval(v, clusters, weights), "t": t_interval(
                    v, clusters)}
                for k, (_, lo, hi) in found.items():
                    hits[k] += lo <= truth <= hi
                    width[k] += hi - lo
            cells = [f"{hits[k] / reps:.3f} (width {width[k] / reps:.3f})" for k in ("kg", "pct", "t")]
            print(f"{kind:<10} {g:>3}  " + "  ".join(f"{c:>22}" for c in cells))
    print("\n(difference: the first column is mean_interval, the cluster-robust t clipped to the data's range)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
