"""Problems per second for the full template set on one core (target >= 20,000/s).

Prints three figures: building Problem objects (the generator's core), building plus the
rendered gold solution text, and full JSON-ready rows. Each is the best of several rounds
so that a noisy neighbour does not decide the figure.
"""

from __future__ import annotations

import os
import time

from finchain_tasks.engine import all_templates


def rate(fn, n_problems: int, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return n_problems / best


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    templates = list(all_templates().values())
    seeds = range(200)
    n = len(templates) * len(seeds)
    for t in templates:  # warm the formula cache
        t.generate(0)

    def problems():
        for t in templates:
            for s in seeds:
                t.generate(s)

    def with_solution():
        for t in templates:
            for s in seeds:
                _ = t.generate(s).solution

    def rows():
        for t in templates:
            for s in seeds:
                t.generate(s).to_dict()

    print(f"templates: {len(templates)}, problems per round: {n}, one core")
    print(f"problems/s (Problem objects):        {rate(problems, n):>10,.0f}   target >= 20,000")
    print(f"problems/s (+ rendered solution):    {rate(with_solution, n):>10,.0f}")
    print(f"problems/s (full JSON-ready rows):   {rate(rows, n):>10,.0f}")


if __name__ == "__main__":
    main()
