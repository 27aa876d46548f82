"""Where the first ChainEval batch of a fresh process spends its time.

Each run starts two new Python processes (so nothing is imported or loaded yet). The first times
what a user waits for: from importing the scorer to the first batch of 8 outputs scored. The second
breaks that down: importing ``scorers.chaineval``, importing torch and sentence-transformers (which
imports scikit-learn and transformers), loading the encoder, the first ``encode``, the first and a
second ``score_batch`` of 8 different outputs, and what numba would add (its import and loading the
compiled kernel from numba's cache), which small batches no longer pay. ``--runs N`` repeats it
and reports the median of each figure, as wall-clock and as CPU seconds (the latter moves less
when other processes share the cores); ``--root`` measures another checkout (a before figure).

Run: ``python benchmarks/cold_start_bench.py [--runs 3] [--root OTHER_CHECKOUT]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

HEADLINE = r"""
import json, sys, time
from finchain_tasks.engine import all_templates
problems = [tpl.generate(0) for tpl in list(all_templates().values())[:8]]
s1, c1 = time.perf_counter(), time.process_time()
from scorers.chaineval import score_batch
score_batch([p.gold() for p in problems], [p.solution for p in problems])
s2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"fresh process to first batch scored (8 outputs)": [round(s2 - s1, 3), round(c2 - c1, 3)],
                  "numba imported": "numba" in sys.modules}))
"""

CHILD = r"""
import json, os, sys, time
t = {}
cpu = [time.process_time()]
def mark(name, start):
    now = time.process_time()
    t[name] = [round(time.perf_counter() - start, 3), round(now - cpu[0], 3)]
    cpu[0] = now
    return time.perf_counter()
s0 = s = time.perf_counter()
import numpy  # noqa
s = mark("import numpy", s)
import scorers.chaineval as ce
s = mark("import scorers.chaineval", s)
t["numba imported by then"] = "numba" in sys.modules
import torch  # noqa
s = mark("import torch", s)
import sentence_transformers  # noqa
s = mark("import sentence_transformers (sklearn, transformers)", s)
from scorers.embeddings import shared_embedder
emb = shared_embedder()
emb._load()
s = mark("load encoder", s)
emb.encode(["warm up the encoder"])
s = mark("first encode (one short text)", s)
from finchain_tasks.engine import all_templates
templates = list(all_templates().values())
first = [tpl.generate(0) for tpl in templates[:8]]
second = [tpl.generate(1) for tpl in templates[8:16]]
s = mark("generate 16 problems", s)
ce.score_batch([p.gold() for p in first], [p.solution for p in first])
s = mark("first score_batch (8 outputs)", s)
ce.score_batch([p.gold() for p in second], [p.solution for p in second])
s = mark("second score_batch (8 other outputs)", s)
import numpy as np
import numba  # noqa
s = mark("import numba (large batches only)", s)
from scorers.kernel import MAX_SUM, align_batch
try:
    align_batch(np.zeros((1, 2, 2)), np.array([2]), np.array([2]), MAX_SUM, engine="numba")
except TypeError:  # a checkout before the engine switch: every batch used numba
    align_batch(np.zeros((1, 2, 2)), np.array([2]), np.array([2]), MAX_SUM)
s = mark("first numba kernel call (cache load)", s)
t["total"] = [round(time.perf_counter() - s0, 3), round(time.process_time(), 3)]
print(json.dumps(t))
"""


def one_run(root: str, code: str = CHILD) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 1
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    root = argv[argv.index("--root") + 1] if "--root" in argv else here  # another checkout: a before figure
    results = [{**one_run(root, HEADLINE), **one_run(root)} for _ in range(runs)]
    print(f"cold start in {root}, fresh processes, median of {runs} run(s): wall s, CPU s (all threads)")
    for key, value in results[0].items():
        if isinstance(value, bool):
            print(f"  {key:<55} {value}")
        else:
            wall, cpu = (statistics.median(r[key][k] for r in results) for k in (0, 1))
            print(f"  {key:<55} {wall:7.3f} {cpu:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
