"""CFLUE's file-level list splitter on hostile files: time per escaped quote as the run grows (printed, not a test).

A JSON list that holds a depth bomb is past ``json``'s stack, so the loader splits it element by element by
scanning for brackets outside strings. The scan used to retry every quote of an unclosed string as the start
of a new string, each retry reading to the end of the file: quadratic in a run of escaped quotes (2,000 /
8,000 / 20,000 of them took 0.3 s / 3.4 s / over a minute). The whole read is printed at the issue's sizes;
then, to see the shape, the time per quote at 20,000, 200,000 and 2,000,000 quotes with the bomb alone
subtracted (its own read, the baseline of the same run). Linear time shows as a flat time per quote; quadratic
as a ratio near the size ratio. Best of ``--repeats``, in one process.

Run: ``python benchmarks/cflue_split_bench.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from finchain_tasks.cflue.loader import CflueDataError, read_rows

BOMB = "[" * 100_000 + "]" * 100_000
SHAPES = {
    "unclosed string": lambda n: f'[{BOMB}, "' + '\\"' * n + "]",
    "closed string": lambda n: f'[{BOMB}, "' + '\\"' * n + '"]',
    "quotes outside": lambda n: f"[{BOMB}, " + '\\"' * n + "]",
}
ISSUE_SIZES = (2_000, 8_000, 20_000)
SIZES = (20_000, 200_000, 2_000_000)


def best_time(path: Path, text: str, repeats: int) -> float:
    path.write_text(text, encoding="utf-8")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            read_rows(path)
        except CflueDataError:
            pass
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hostile.json"
        baseline = best_time(path, f"[{BOMB}]", args.repeats)
        print(f"bomb alone: {baseline * 1e3:.1f} ms")
        print(f"{'shape':<16} " + " ".join(f"{f's @{n:,}':>10}" for n in ISSUE_SIZES))
        for name, make in SHAPES.items():
            print(f"{name:<16} " + " ".join(f"{best_time(path, make(n), args.repeats):>10.3f}" for n in ISSUE_SIZES))
        print(f"{'shape':<16} " + " ".join(f"{f'ns/quote @{n:,}':>17}" for n in SIZES) + f" {'last/first':>11}")
        for name, make in SHAPES.items():
            per_quote = [max(best_time(path, make(n), args.repeats) - baseline, 0.0) / n * 1e9 for n in SIZES]
            ratio = per_quote[-1] / per_quote[0] if per_quote[0] else float("nan")
            print(f"{name:<16} " + " ".join(f"{v:>17.1f}" for v in per_quote) + f" {ratio:>10.2f}x")
    print(f"linear: last/first near 1x; quadratic: near {SIZES[-1] / SIZES[0]:.0f}x (the size ratio)")


if __name__ == "__main__":
    main()
