"""``finchain prm train`` in one process against ``accelerate launch`` with N CPU processes (printed, not timed tests).

Both train the tiny PRM for ``--steps`` steps on generated labels with the same effective batch: one process with
per-step batch B and gradient accumulation N, and N processes with batch B each (accelerate deals the same draws
out, process k taking draws k, k + N, ...). Prints each run's wall time and CPU seconds (its own and its
children's), the largest per-step loss difference, and the evaluation figures of both. On a shared 2-core machine
the times say what the launcher and the process group cost, not what N GPUs gain: there each process has a GPU.

Run: ``python benchmarks/prm_train_accelerate_bench.py [--steps 20] [--processes 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def labels(path: Path, n: int = 96) -> Path:
    rng, rows = random.Random(7), []
    for i in range(n):
        steps = [rng.randint(0, 1) for _ in range(rng.randint(1, 4))]
        texts = ["cash flow good" if y else "tax ratio bad" for y in steps]
        rows.append({"id": f"r{i}", "question": "Q", "steps": texts, "final_answer": "1", "step_labels": steps,
                     "traj_label": int(all(steps)),
                     "meta": {"template": f"t{i % 12}"}})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the children) of one command, which must succeed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "CUDA_VISIBLE_DEVICES": ""}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data = labels(tmp / "labels.jsonl")
        train = ["-m", "finchain_tasks.cli.main", "prm", "train", str(data), "--steps", str(args.steps),
                 "--batch-size", str(args.batch_size), "--eval-every", str(args.steps), "--lr", "3e-3",
                 "--device", "cpu"]
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        one = timed([sys.executable, *train, "-o", str(tmp / "one"), "--grad-accum", str(args.processes)])
        many = timed([sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes",
                      str(args.processes), "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
                      "--main_process_port", str(port), *train, "-o", str(tmp / "many")])
        a, b = (json.loads((tmp / d / "train_summary.json").read_text()) for d in ("one", "many"))
    diff = max(abs(x["loss"] - y["loss"]) for x, y in zip(a["history"], b["history"]))
    effective = args.batch_size * args.processes
    print(f"tiny PRM, {args.steps} steps, effective batch {effective}, {os.cpu_count()} CPUs")
    print(f"one process, grad accumulation {args.processes}: wall {one[0]:.1f} s, CPU {one[1]:.1f} s")
    print(f"accelerate launch, {args.processes} processes:    wall {many[0]:.1f} s, CPU {many[1]:.1f} s")
    print(f"largest per-step loss difference: {diff:.2e}")
    for name, s in (("one", a), ("accelerate", b)):
        final = s["final"]
        print(f"{name:>10}: final loss {final['loss']:.6f}, step AUC {final['step_auc']}, traj AUC {final['traj_auc']}")


if __name__ == "__main__":
    main()
