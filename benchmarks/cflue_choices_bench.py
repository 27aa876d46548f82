"""CFLUE's ``choices`` scanner on hostile strings: time per character as the input grows (printed, not a test).

A ``choices`` string comes from a file we did not write. Python's ``tokenize`` took time quadratic in a run of
comment lines inside the braces (20,000 characters: over half a second per record), so the loader reads the
string with a flat scan of anchored regexes instead. Linear time shows as a flat time per character across
sizes; quadratic time as a ratio near the size ratio. Each shape is timed at 600, 6,000 and 20,000 characters
(the loader's limit), best of ``--repeats``, in one process, so the ratios compare like with like.

Run: ``python benchmarks/cflue_choices_bench.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import time

from finchain_tasks.cflue.loader import MAX_CHOICES_CHARS, parse_choices

SHAPES = {
    "comment lines": lambda n: "{" + " \n#" * (n // 3),
    "unclosed string": lambda n: "{'A': '" + "x" * (n - 8),
    "depth bomb": lambda n: "{'A': " + "-" * (n - 8) + "1}",
}
SIZES = (600, 6_000, MAX_CHOICES_CHARS)


def best_time(text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            parse_choices(text)
        except ValueError:
            pass
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'shape':<16} " + " ".join(f"{f'ns/char @{n:,}':>16}" for n in SIZES) + f" {'last/first':>11}")
    for name, make in SHAPES.items():
        per_char = []
        for n in SIZES:
            text = make(n)[:MAX_CHOICES_CHARS]
            per_char.append(best_time(text, args.repeats) / len(text) * 1e9)
        print(f"{name:<16} " + " ".join(f"{v:>16.1f}" for v in per_char) + f" {per_char[-1] / per_char[0]:>10.2f}x")
    print("linear: last/first near 1x; quadratic: near "
          f"{SIZES[-1] / SIZES[0]:.0f}x (the size ratio)")


if __name__ == "__main__":
    main()
