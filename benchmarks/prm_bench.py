"""PRM and Best-of-N figures (printed, not timed tests).

1. ``calc``: candidates/s on one core, over synthetic FinChain pools (gold traces with known defects);
   with ChainEval's segmentation included and on pre-segmented inputs. Target >= 2,000 candidates/s.
2. ``hf``: candidates/s of the tiny randomly initialised Fin-PRM (Qwen3, 2 layers, hidden 32), batched
   by length, one torch thread: what batching costs and saves, not what a real 8B model does.
3. ``finchain bon`` on 2,900 problems x 16 candidates with cached scores (an lm-eval samples file of
   finchain_bon records; first call builds the pool cache, the timed call reuses it): wall time and peak
   resident memory of a fresh process. Target < 1 minute and < 2 GB.

Run: ``python benchmarks/prm_bench.py`` (``--quick`` for a smaller smoke run).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def synthetic_texts(problems: int) -> list[tuple[str, str]]:
    """(question, candidate text) pairs: 16 defective or correct candidates per FinChain problem."""
    from finchain_tasks.engine import all_templates
    from finchain_tasks.finchain.generate import iter_problems
    from scorers.prm.synthetic_pools import synthetic_pool

    rng = random.Random(0)
    templates = list(all_templates().values())
    out = []
    for p in iter_problems(templates, list(range(max(1, problems // len(templates) + 1)))):
        out.extend((p.question, c.text) for c in synthetic_pool(p.solution, rng))
        if len(out) >= problems * 16:
            break
    return out


def calc_figures(problems: int) -> None:
    from scorers.prm.base import prm_input
    from scorers.prm.calc import CalcPRM, check_step

    pairs = synthetic_texts(problems)
    prm = CalcPRM()
    check_step.cache_clear()
    start = time.perf_counter()
    items = [prm_input(q, t) for q, t in pairs]
    prm.score_batch(items)
    with_seg = time.perf_counter() - start
    check_step.cache_clear()
    start = time.perf_counter()
    prm.score_batch(items)
    bare = time.perf_counter() - start
    unique = len({s for i in items for s in i.steps}) / max(1, sum(len(i.steps) for i in items))
    check_step.cache_clear()
    start = time.perf_counter()
    for item in items:
        [check_step.__wrapped__(step) for step in item.steps]
    uncached = time.perf_counter() - start
    print(f"calc: {len(items):,} candidates; {len(items) / with_seg:,.0f} candidates/s with segmentation, "
          f"{len(items) / bare:,.0f} on segmented inputs, {len(items) / uncached:,.0f} with no step cache "
          f"({unique:.0%} of steps are unique in these synthetic pools); one core, target >= 2,000")


def hf_figures(candidates: int) -> None:
    import torch

    from scorers.prm.base import prm_input
    from scorers.prm.tiny import tiny_prm

    torch.set_num_threads(1)
    items = [prm_input(q, t) for q, t in synthetic_texts(max(1, candidates // 16))][:candidates]
    prm = tiny_prm("dual", seed=0, batch_tokens=16384)
    prm.score_batch(items[:4])  # warm-up outside the timing
    start = time.perf_counter()
    prm.score_batch(items)
    batched = time.perf_counter() - start
    start = time.perf_counter()
    for item in items[:64]:
        prm.score_batch([item])
    single = (time.perf_counter() - start) / min(64, len(items))
    lengths = [len(x) for x in prm.encode(items)]
    print(f"hf (tiny Qwen3, 1 thread): {len(items) / batched:,.0f} candidates/s batched by length "
          f"({len(prm.batches(lengths))} batches, mean {sum(lengths) / len(lengths):.0f} tokens), "
          f"{1 / single:,.0f} candidates/s one at a time")


def write_run(run_dir: Path, problems: int, k: int = 16) -> None:
    """An lm-eval samples file of finchain_bon records with PRM scores already in it."""
    rng = random.Random(1)
    path = run_dir / "model" / "samples_finchain_bon_bench.jsonl"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(problems):
            right = rng.random()
            cands = []
            for _ in range(k):
                ok = rng.random() < right
                key = "gold" if ok else rng.choice(["w1", "w2", "w3", "w4"])
                cands.append({"text": "Step 1: 1,200 × 1.05 = 1,260\nFinal answer: 1,260" * 8, "answer": key,
                              "key": key, "correct": ok, "chaineval": rng.random(), "reward": rng.random() + ok * 0.3,
                              "step_probs": [rng.random() for _ in range(5)], "p_traj": None, "n_unverified": 0})
            record = {"n": k, "prm": "calc", "agg": "min", "zeta": 1.0, "cluster": f"tpl{i // 10}",
                      "candidates": cands, "selected": {}, "values": {}}
            fh.write(json.dumps({"doc_id": i, "filter": "bon", "filtered_resps": [json.dumps(record)]}) + "\n")


def bon_figures(problems: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        write_run(run, problems)
        cmd = [sys.executable, "-m", "finchain_tasks.cli.main", "bon", str(run), "--no-plot"]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        first = time.perf_counter() - start
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        cached = time.perf_counter() - start
        peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        size = sum(p.stat().st_size for p in run.rglob("samples_*.jsonl")) / 2**20
        print(f"finchain bon: {problems:,} problems x 16 (samples file {size:,.0f} MB): first call {first:.1f} s "
              f"(reads the logs, writes the pool cache), cached {cached:.1f} s; peak RSS {peak:,.0f} MB "
              "(5 N x 6 selectors, 200 subsets, 1,000 bootstrap resamples; targets < 60 s, < 2,048 MB)")


def main() -> None:
    quick = "--quick" in sys.argv
    calc_figures(100 if quick else 2900)
    hf_figures(64 if quick else 512)
    bon_figures(290 if quick else 2900)


if __name__ == "__main__":
    main()
