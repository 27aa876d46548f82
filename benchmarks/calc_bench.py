"""The ``calc`` PRM on real model generations: false alarms, detection and recall (printed, not timed tests).

Reads the FinChain authors' released generations (``results/*.jsonl`` of their repository: one line per
problem with ``question``, ``solution`` (the gold) and ``generation``) from ``--results DIR`` or the
``FINCHAIN_AUTHORS_RESULTS`` environment variable; nothing is copied. For every generation:

* **right-answer outputs** (the generation's final answer within 1% of the gold, read as ``fac`` reads it): the
  share that ``calc`` flags (a step judged wrong): the *false-alarm rate* (a right final answer can follow a
  slip, so this is an upper bound on true false alarms; the flagged steps of a sample are printed for reading);
* **wrong-answer outputs**: the share flagged (*detection*: wrong arithmetic is one cause of a wrong answer
  among many, so this is not a recall);
* **recall on injected slips**: in each right-answer output whose steps hold a check that passes, the first
  such result is made 10% larger (same decimals), and the share of those steps ``calc`` then flags;
* **coverage**: the share of outputs with at least one verdict, and the **gold** solutions' flag count.

Run: ``python benchmarks/calc_bench.py --results /path/to/FinChain-Reasoning/results``. To compare with an
older checkout, run the same file with ``PYTHONPATH`` pointing at it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from pathlib import Path


def _rows(folder: Path) -> list[dict]:
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else [folder]
    out = []
    for path in files:
        with path.open(encoding="utf-8") as fh:
            out.extend(json.loads(line) for line in fh if line.strip())
    return out


RIGHT_TOL = 0.01
"""A generation is a right-answer output when its final answer is within 1% of the gold, read as ``fac`` reads it."""


def _right(row: dict) -> bool:
    """The generation's final answer against the row's gold, read as ChainEval's ``fac`` reads both
    (:func:`scorers.rows.gold_of`, :func:`scorers.final_answer.judge_answer`: a direction word signs a figure, a
    verdict before a bare answer code counts), within 1% instead of 5%. A row without a gold is wrong."""
    from scorers.final_answer import judge_answer
    from scorers.params import resolve
    from scorers.rows import RowError, gold_of

    try:
        gold = gold_of(row)
    except RowError:
        return False
    return judge_answer(gold, row.get("generation") or "", resolve("paper", final_tol=RIGHT_TOL)).fac


def _bump(step: str, result: str) -> str | None:
    """The step with its first occurrence of ``= result`` made 10% larger, written with the same decimals."""
    m = re.search(r"([=≈]\s*)" + re.escape(result), step)
    num = re.search(r"-?\d[\d,]*(?:\.\d+)?|\.\d+", result)
    if not m or not num:
        return None
    value = float(num.group().replace(",", ""))
    decimals = len(num.group().split(".")[1]) if "." in num.group() else 0
    bumped = f"{value * 1.1 + (10 ** -decimals if value == 0 else 0):,.{decimals}f}"
    if "," not in num.group():
        bumped = bumped.replace(",", "")
    new_result = result[:num.start()] + bumped + result[num.end():]
    return step[:m.start()] + m.group(1) + new_result + step[m.end():]


def measure(rows: list[dict], show: int = 8) -> dict:
    from scorers.prm.base import prm_input
    from scorers.prm.calc import check_step, checks

    stats = dict.fromkeys(("right", "right_flagged", "wrong", "wrong_flagged", "verdict", "slips", "caught",
                           "gold_flagged", "gold_verdict"), 0)
    examples: list[str] = []
    for row in rows:
        gen = row.get("generation") or ""
        right = _right(row)
        steps = prm_input(row.get("question", ""), gen).steps
        verdicts = [check_step(s) for s in steps]
        flagged = any(v is False for v in verdicts)
        stats["verdict"] += any(v is not None for v in verdicts)
        stats["right" if right else "wrong"] += 1
        stats["right_flagged" if right else "wrong_flagged"] += flagged
        if right and flagged and len(examples) < show:
            examples.append(next(s for s, v in zip(steps, verdicts) if v is False))
        if right:
            held = next(((s, c) for s in steps for c in checks(s) if c.holds), None)
            bumped = _bump(*[held[0], held[1].result]) if held else None
            if bumped is not None:
                stats["slips"] += 1
                stats["caught"] += check_step(bumped) is False
        gold_steps = prm_input(row.get("question", ""), row.get("solution", "")).steps
        gold_verdicts = [check_step(s) for s in gold_steps]
        stats["gold_flagged"] += any(v is False for v in gold_verdicts)
        stats["gold_verdict"] += any(v is not None for v in gold_verdicts)
    stats["examples"] = examples
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.environ.get("FINCHAIN_AUTHORS_RESULTS"),
                        help="the authors' results/ folder or one .jsonl (env FINCHAIN_AUTHORS_RESULTS)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many rows per file (0: all)")
    parser.add_argument("--show", type=int, default=8, help="flagged steps of right-answer outputs to print")
    args = parser.parse_args(argv)
    if not args.results or not Path(args.results).exists():
        print("give --results DIR (the FinChain authors' results/ folder) or set FINCHAIN_AUTHORS_RESULTS",
              file=sys.stderr)
        return 2
    folder = Path(args.results)
    for path in (sorted(folder.glob("*.jsonl")) if folder.is_dir() else [folder]):
        rows = _rows(path)
        if args.limit:
            rows = random.Random(0).sample(rows, min(args.limit, len(rows)))
        s = measure(rows, args.show)
        pct = lambda a, b: f"{a}/{b} = {100 * a / b:.1f}%" if b else f"{a}/0"  # noqa: E731
        print(f"\n{path.name}: {len(rows)} generations")
        print(f"  at least one verdict:              {pct(s['verdict'], len(rows))}")
        print(f"  right-answer outputs flagged:      {pct(s['right_flagged'], s['right'])}  (false-alarm rate)")
        print(f"  wrong-answer outputs flagged:      {pct(s['wrong_flagged'], s['wrong'])}  (detection)")
        print(f"  injected 10% slips caught:         {pct(s['caught'], s['slips'])}  (recall)")
        print(f"  gold solutions flagged:            {pct(s['gold_flagged'], len(rows))} "
              f"(with a verdict: {s['gold_verdict']})")
        for ex in s["examples"]:
            print("    flagged, right answer:", ex.replace("\n", " ")[:160])
    return 0


if __name__ == "__main__":
    sys.exit(main())
