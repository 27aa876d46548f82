"""Best-of-N pools read back from run logs, and the curve files ``finchain bon`` writes.

Sources under a run directory (searched recursively): Inspect logs (``*.eval``, ``*.json``) whose
samples carry a ``bon_scorer`` Score (its metadata is the pool record of :mod:`scorers.prm.pool`), and
lm-eval ``samples_*.jsonl`` files of ``finchain_bon`` (the ``bon`` filter's ``filtered_resps`` is the
record as JSON). Only what a curve needs is kept (answer key, correctness, ChainEval, reward, cluster),
and it is cached in ``<run dir>/bon_pools.json``, keyed by the sources' paths, sizes and modification
times, so drawing the curves again reads neither the logs nor calls any model.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

from scorers.prm.curves import CurveRow, Pool
from scorers.prm.select import SELECTORS, Candidate

__all__ = ["CACHE_FILE", "find_sources", "load_pools", "write_csv", "write_markdown", "write_plot"]

CACHE_FILE = "bon_pools.json"
SCORER = "bon_scorer"


def find_sources(run_dir: Path) -> list[Path]:
    """Inspect logs and lm-eval sample files under ``run_dir``, sorted."""
    found = [p for p in run_dir.rglob("*") if p.is_file() and (
        p.suffix == ".eval" or (p.suffix == ".jsonl" and p.name.startswith("samples_"))
        or (p.suffix == ".json" and p.parent.name == "logs"))]
    return sorted(found)


def _stamp(paths: Sequence[Path]) -> list[list]:
    return [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in paths]


def _inspect_records(path: Path) -> Iterator[dict]:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SCORER)
        if score is not None and isinstance(score.metadata, dict) and "bon" in score.metadata:
            yield score.metadata["bon"]


def _lm_eval_records(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            for resp in row.get("filtered_resps") or []:
                text = resp[0] if isinstance(resp, list) and resp else resp
                if isinstance(text, str) and text.startswith("{") and '"candidates"' in text:
                    yield json.loads(text)


def _compact(record: dict) -> dict:
    return {"cluster": record.get("cluster", ""), "prm": record.get("prm", ""),
            "c": [[c.get("key"), bool(c.get("correct")), c.get("chaineval"), c.get("reward")]
                  for c in record.get("candidates", [])]}


def _read(sources: Sequence[Path]) -> list[dict]:
    out = []
    for path in sources:
        records = _lm_eval_records(path) if path.suffix == ".jsonl" else _inspect_records(path)
        out.extend(_compact(r) for r in records)
    return out


def load_pools(run_dir: Path, use_cache: bool = True) -> tuple[list[Pool], set[str]]:
    """Every pool in the run directory and the PRMs that scored them; the cache is used when up to date."""
    if not run_dir.is_dir():
        raise ValueError(f"{run_dir}: no such run directory")
    sources = find_sources(run_dir)
    cache = run_dir / CACHE_FILE
    stamp = _stamp(sources)
    rows = None
    if use_cache and cache.is_file():
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if cached.get("sources") == stamp:
            rows = cached["pools"]
    if rows is None:
        rows = _read(sources)
        cache.write_text(json.dumps({"sources": stamp, "pools": rows}), encoding="utf-8")
    if not rows:
        raise ValueError(f"{run_dir}: no Best-of-N pools found (run `inspect eval finchain -T samples=16 "
                         "-T prm=...` or lm-eval's finchain_bon into it)")
    pools = [Pool(r["cluster"], [Candidate(k, ok, ce, rw) for k, ok, ce, rw in r["c"]]) for r in rows]
    return pools, {r["prm"] for r in rows}


FIELDS = ("n", "selector", "accuracy", "accuracy_lo", "accuracy_hi", "chaineval", "chaineval_lo", "chaineval_hi",
          "n_problems", "n_short", "subsamples")


def write_csv(rows: Sequence[CurveRow], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(FIELDS)
        for r in rows:
            writer.writerow([_fmt(getattr(r, f)) for f in FIELDS])


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.6f}" if isinstance(value, float) else str(value)


def write_markdown(rows: Sequence[CurveRow], path: Path, prms: set[str]) -> None:
    """Accuracy per N (rows) and selector (columns) with 95% intervals; mean ChainEval below."""
    ns = sorted({r.n for r in rows})
    cell = {(r.n, r.selector): r for r in rows}
    head = "| N | problems | short | " + " | ".join(SELECTORS) + " |"
    rule = "|---" * (3 + len(SELECTORS)) + "|"
    lines = [f"# Best-of-N (PRM: {', '.join(sorted(prms)) or 'unknown'})", "",
             "Final-answer accuracy, mean over random subsets of N, 95% interval resampling templates "
             "(FinChain) or questions (CFLUE). `oracle_chaineval` and `pass_at_n` read the gold.", "", head, rule]
    for n in ns:
        first = cell[(n, next(iter(SELECTORS)))]
        lines.append(f"| {n} | {first.n_problems} | {first.n_short} | " + " | ".join(
            _ci(cell[(n, s)].accuracy, cell[(n, s)].accuracy_lo, cell[(n, s)].accuracy_hi) for s in SELECTORS) + " |")
    lines += ["", "Mean ChainEval of the chosen candidate:", "", head, rule]
    for n in ns:
        first = cell[(n, next(iter(SELECTORS)))]
        lines.append(f"| {n} | {first.n_problems} | {first.n_short} | " + " | ".join(
            _ci(cell[(n, s)].chaineval, cell[(n, s)].chaineval_lo, cell[(n, s)].chaineval_hi) for s in SELECTORS)
            + " |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ci(mean, lo, hi) -> str:
    if mean is None or math.isnan(mean):
        return "–"
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"


def write_plot(rows: Sequence[CurveRow], path: Path, title: str = "Best-of-N") -> None:
    """Accuracy against N (log2 axis) for every selector, with its 95% band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for s in SELECTORS:
        pts = sorted((r.n, r.accuracy, r.accuracy_lo, r.accuracy_hi) for r in rows
                     if r.selector == s and not math.isnan(r.accuracy))
        if not pts:
            continue
        ns, acc, lo, hi = zip(*pts)
        style = "--" if s in ("oracle_chaineval", "pass_at_n") else "-"
        ax.plot(ns, acc, style, marker="o", label=s)
        ax.fill_between(ns, lo, hi, alpha=0.15)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (candidates)")
    ax.set_ylabel("final-answer accuracy")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
