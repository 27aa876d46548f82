"""Leaderboard site data at paper size: 26 models × 2,900 FinChain problems (290 templates × 10 seeds).

Builds the per-sample table a paper-size board would hold (real template questions and gold steps; model-like
outputs of 6-8 steps with an alignment per gold step, as Inspect logs them), then writes the site's data
files and prints their sizes: ``data.js`` (loaded by every page), the old single ``samples.js`` (every output
of every model, which the sample page used to load whole) and the split layout (``samples/index.js`` plus
one chunk per template, of which the sample page loads one).

Run: ``python benchmarks/leaderboard_bench.py`` (``--quick``: 3 models × 290 problems; ``--models N --seeds S``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
WORDS = ("carefully", "now", "next", "then", "here", "so", "thus", "therefore", "we find", "compute")


def _output(problem, rng: random.Random) -> tuple[str, list[dict]]:
    """A model-like answer (reworded steps, a wrong number now and then) and an alignment row per gold step."""
    lines, alignment = [], []
    for j, step in enumerate(problem.gold_steps(), 1):
        wrong = isinstance(step.value, float) and rng.random() < 0.2
        value = step.value * 1.3 if wrong else step.value
        lines.append(f"Step {j}: {' '.join(rng.sample(WORDS, 3))}, {step.description.lower()} = {value}")
        alignment.append({"gold": j, "pred": j, "similarity": round(rng.uniform(0.4, 1.0), 4),
                          "gate": 0.0 if wrong else 1.0, "matched": not wrong})
    lines.append(f"Final answer: {problem.answer}")
    return "\n".join(lines), alignment


def rows(models: int, seeds: int) -> list[dict]:
    from finchain_tasks.engine import all_templates

    rng = random.Random(0)
    out = []
    for template in sorted(all_templates().values(), key=lambda t: t.id):
        for seed in range(seeds):
            problem = template.generate(seed)
            gold = [s.text for s in problem.gold_steps()]
            sid = f"finchain/{template.domain}/{template.topic}/{template.name}/{seed}"
            for m in range(models):
                text, alignment = _output(problem, rng)
                score = sum(a["matched"] for a in alignment) / len(alignment)
                out.append({"model": f"model-{m:02d}", "harness": "inspect", "task": "finchain", "sample_id": sid,
                            "epoch": 1, "domain": template.domain, "topic": template.topic,
                            "template": template.name, "level": template.level, "seed": seed, "fresh": False,
                            "chaineval": score, "fac": float(score == 1.0), "step_f1": score,
                            "question": problem.question, "gold_steps": gold, "gold_answer": str(problem.answer),
                            "output": text, "answer": str(problem.answer), "alignment": alignment,
                            "first_error_step": next((a["gold"] for a in alignment if not a["matched"]), None),
                            "input_tokens": 300, "output_tokens": 250, "cost": 0.001, "latency_s": 2.0})
    return out


def _mib(n: int) -> str:
    return f"{n / 1024 ** 2:,.2f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=26)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    models, seeds = (3, 1) if args.quick else (args.models, args.seeds)

    from finchain_tasks.leaderboard import table
    from finchain_tasks.leaderboard.board import Board, Statistics
    from finchain_tasks.leaderboard.build import sample_payload
    from finchain_tasks.leaderboard.ingest import to_frame
    from finchain_tasks.leaderboard.site import js_literal, size_summary, write_site

    start = time.perf_counter()
    frame = to_frame(rows(models, seeds))
    print(f"{models} models × {frame['sample_id'].nunique():,} problems = {len(frame):,} rows "
          f"({time.perf_counter() - start:.1f}s)")
    board = Board(name="bench", title="bench", metrics=("chaineval", "fac", "step_f1"),
                  statistics=Statistics(resamples=100))  # sizes do not depend on the resample count
    start = time.perf_counter()
    samples = sample_payload(frame)
    rows_ = table.model_rows(frame, board)
    payload = {"board": {"name": "bench", "title": "bench", "metrics": list(board.metrics), "primary": "chaineval",
                         "statistics": {}}, "rows": rows_, "comparisons": [], "cells": table.cells(frame, board),
               "gaps": [], "frontier": [], "reported": {"sources": {}, "rows": []}, "chaineval": {},
               "generated": "", "finchain_tasks_version": "", "skipped_models": []}
    print(f"payload: {time.perf_counter() - start:.1f}s")
    single = len(f"window.LB_SAMPLES = {js_literal(samples)};\n".encode())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        start = time.perf_counter()
        write_site(out, board, payload, samples)
        print(f"write: {time.perf_counter() - start:.1f}s")
        chunks = sorted(p.stat().st_size for p in (out / "samples").glob("*.js") if p.name != "index.js")
        index = (out / "samples" / "index.js").stat().st_size
        print(f"before: samples.js {_mib(single)}, loaded whole by the sample page")
        median = chunks[len(chunks) // 2]
        print(f"after:  samples/index.js {_mib(index)} + {len(chunks)} chunks (median {_mib(median)}, largest "
              f"{_mib(chunks[-1])}); the sample page loads the index and one chunk: {_mib(index + chunks[-1])} at most")
        print(size_summary(out))


if __name__ == "__main__":
    main()
