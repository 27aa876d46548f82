"""``finchain score --ray`` against the single-process command: rows/s with 1 and 2 Ray workers, and Ray's fixed
cost per block, so docs/scaling-out.md can say at which size Ray starts to pay.

1. Single process: ``score_rows`` over the whole file, the encoder already loaded (rows/s of the scoring alone),
   and its load time; with the encoder's default threads (every core) and with one (what a Ray worker gets).
2. Ray, 1 and 2 workers: ``run_blocks`` with the score job on a local cluster started once (its start time is
   printed apart). Wall time includes each worker loading the encoder, as a real job pays it.
3. The overhead per block: a job that returns its lines untouched, over many blocks, on 1 worker: (wall - the
   same job on 1 block) / (blocks - 1).

Rows are distinct FinChain problems (every template, seeds 0..), outputs the gold solution with step 2 reworded
on every other row, so the encoder sees realistic, mostly new texts. The figures are for the machine it runs on;
run it niced on a shared machine and say so beside them.

Run: ``python benchmarks/ray_scale_bench.py [--rows 1000] [--block-rows 256]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@dataclass(frozen=True)
class EchoJob:
    """No work: what a block costs in Ray alone (scheduling, transfer, the driver's atomic record)."""

    def fingerprint(self) -> str:
        return "echo"

    def load(self):
        return None

    def run(self, state, lines):
        return [json.dumps(raw.decode("utf-8", "replace").strip()) for _, raw in lines], {}


def make_rows(n: int, path: Path) -> None:
    from finchain_tasks.engine import all_templates

    templates = list(all_templates().values())
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            p = templates[i % len(templates)].generate(i // len(templates))
            out = p.solution if i % 2 else p.solution.replace("Step 2:", "Step 2: next,")
            fh.write(json.dumps({"id": p.id, "output": out}) + "\n")


def single(path: Path, threads: str | None = None) -> float:
    from finchain_tasks.runs.score_file import _load_rows, score_rows
    from scorers.embeddings import Embedder
    from scorers.params import resolve

    if threads:  # the encoder's torch threads (a fresh Embedder sets them as it loads)
        os.environ["FINCHAIN_EMBED_THREADS"] = threads
    params = resolve("paper")
    t0 = time.perf_counter()
    embedder = Embedder(params.embedding_model, backend="torch")
    embedder.encode(["warm up"])
    load = time.perf_counter() - t0
    rows = _load_rows(path)
    t0 = time.perf_counter()
    score_rows(rows, params, embedder)
    wall = time.perf_counter() - t0
    label = f"single process, {threads or 'all'} encoder thread(s)"
    print(f"{label}: {len(rows) / wall:8.1f} rows/s  ({len(rows)} rows in {wall:.1f}s; encoder load "
          f"{load:.1f}s not included)")
    return wall


def on_ray(path: Path, workers: int, block_rows: int, tmp: Path) -> float:
    from finchain_tasks.scale.jobs import ScoreJob
    from finchain_tasks.scale.ray_map import RaySettings, run_blocks

    job = ScoreJob(str(path), "paper", {}, "torch")
    t0 = time.perf_counter()
    store = run_blocks(job, path, tmp / f"state-{workers}", RaySettings(workers=workers, block_rows=block_rows))
    wall = time.perf_counter() - t0
    rows = sum(e["rows"] for e in store.extras())
    print(f"Ray, {workers} worker(s): {rows / wall:8.1f} rows/s  ({rows} rows in {wall:.1f}s, {store.total} blocks of "
          f"{block_rows}; includes each worker's encoder load)")
    store.clear()
    return wall


def block_overhead(tmp: Path, blocks: int = 200) -> None:
    from finchain_tasks.scale.ray_map import RaySettings, run_blocks

    path = tmp / "echo.jsonl"
    path.write_text("".join(f'{{"n": {i}}}\n' for i in range(blocks)))
    walls = []
    for rows_per_block in (blocks, 1):
        t0 = time.perf_counter()
        run_blocks(EchoJob(), path, tmp / f"echo-{rows_per_block}", RaySettings(workers=1,
                                                                                block_rows=rows_per_block)).clear()
        walls.append(time.perf_counter() - t0)
    per_block = (walls[1] - walls[0]) / (blocks - 1)
    print(f"Ray overhead per block: {per_block * 1000:.1f} ms  (1 block: {walls[0]:.2f}s, {blocks} blocks: "
          f"{walls[1]:.2f}s, 1 worker, no work)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--block-rows", type=int, default=256)
    args = parser.parse_args()
    os.environ.setdefault("FINCHAIN_EMBEDDING_BACKEND", "torch")
    import ray

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        path = tmp / "pred.jsonl"
        make_rows(args.rows, path)
        print(f"{args.rows} rows, {os.cpu_count()} CPU(s), torch encoder", file=sys.stderr)
        single(path)
        single(path, "1")  # what one Ray worker runs with (one CPU each)
        t0 = time.perf_counter()
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, logging_level=logging.WARNING,
                 log_to_driver=False)
        print(f"Ray local cluster start: {time.perf_counter() - t0:.1f}s (once per job when the command starts it)")
        for workers in (1, 2):
            on_ray(path, workers, args.block_rows, tmp)
        block_overhead(tmp)
        ray.shutdown()


if __name__ == "__main__":
    main()
