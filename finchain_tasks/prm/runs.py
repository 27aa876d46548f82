"""Best-of-N pools read back from run logs, and the curve files ``finchain bon`` writes.

Sources under a run directory (searched recursively): Inspect logs (``*.eval``, ``*.json``) whose
samples carry a ``bon_scorer`` Score (its metadata is the pool record of :mod:`scorers.prm.pool`), and
lm-eval ``samples_*.jsonl`` files of ``finchain_bon`` (the ``bon`` filter's ``filtered_resps`` is the
record as JSON). Only what a curve needs is kept (answer key, correctness, ChainEval, reward, cluster),
and it is cached in ``<run dir>/bon_pools.json``, keyed by the sources' paths, sizes and modification
times, so drawing the curves again reads neither the logs nor calls any model.

Re-scoring (``finchain bon RUN_DIR --prm SPEC``): the saved candidates (their text and the question the
run's PRM read) are scored again by another PRM; the generating model is never called. Every score is
kept in ``<run dir>/bon_prm_scores.jsonl``, one line per (spec, agg, ζ, question, candidate text), and
the re-scored pools in ``bon_pools.json`` under the same source stamp, so a second invocation with the
same PRM loads no PRM and sends no request. Answers, correctness and ChainEval are the run's: a PRM
changes only the rewards, so ``majority``, ``random`` and the oracles do not move.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finchain_tasks.plumbing.jsonl import jsonl_lines, jsonl_records
from finchain_tasks.plumbing.safe_files import (
    UnreadableFile,
    check_own_file,
    expect,
    load_json,
    parse_json,
    read_text,
    walk,
)
from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRMScore, prm_input
from scorers.prm.curves import CurveRow, Pool
from scorers.prm.selectors import Candidate

__all__ = ["CACHE_FILE", "SCORES_FILE", "Rescore", "find_sources", "load_pools", "write_csv", "write_markdown",
           "write_plot"]

CACHE_FILE = "bon_pools.json"
SCORES_FILE = "bon_prm_scores.jsonl"
SCORER = "bon_scorer"


@dataclass
class Rescore:
    """A request to score the saved candidates with another PRM, and what happened (filled by :func:`load_pools`)."""

    spec: str
    agg: str = DEFAULT_AGG
    zeta: float = DEFAULT_ZETA
    options: dict[str, Any] = field(default_factory=dict)
    """Passed to :func:`finchain_tasks.prm.load_prm` (``registry`` for a judge, ``max_length`` for hf)."""
    scored: int = 0
    """Candidates scored in this call (``distinct``: the PRM calls, one per distinct question and text)."""
    distinct: int = 0
    from_cache: int = 0
    original: set[str] = field(default_factory=set)
    ray: Any = None
    """:class:`finchain_tasks.scale.ray_map.RaySettings` to score on Ray (``--ray``), else None: in this process."""

    @property
    def key(self) -> str:
        return f"{self.spec}|{self.agg}|{self.zeta!r}"


def find_sources(run_dir: Path, skipped: list[tuple[Path, str]] | None = None) -> list[Path]:
    """Inspect logs and lm-eval sample files under ``run_dir``, sorted: regular files only, never through a link
    out of the folder; what was passed over (such a link, a FIFO, a device) is added to ``skipped``."""
    found = walk(run_dir, ("*.eval", "samples_*.jsonl", "*.json"))
    wanted = [p for p in found.files if p.suffix != ".json" or p.parent.name == "logs"]
    if skipped is not None:
        skipped.extend((p, why) for p, why in found.skipped if p.suffix != ".json" or p.parent.name == "logs")
    return wanted


def _stamp(paths: Sequence[Path]) -> list[list]:
    return [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in paths]


def _input_text(sample: Any) -> str:
    """The sample's question as Inspect's ``state.input_text`` gave it (a run older than the record's
    ``question`` field): the input string, or the last user message's text."""
    if isinstance(sample.input, str):
        return sample.input
    users = [m for m in sample.input if getattr(m, "role", "") == "user"]
    return users[-1].text if users else ""


def _inspect_records(path: Path) -> Iterator[dict]:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SCORER)
        if score is not None and isinstance(score.metadata, dict) and "bon" in score.metadata:
            record = _checked(score.metadata["bon"], f"{path}: sample {sample.id}")
            yield record if "question" in record else {**record, "question": _input_text(sample)}


def _lm_eval_records(path: Path) -> Iterator[dict]:
    for lineno, row in jsonl_records(path):
        where = f"{path}:{lineno}"
        expect(row, dict, where, "sample")
        expect(row.get("doc") or {}, dict, where, "doc")
        for resp in expect(row.get("filtered_resps") or [], list, where, "filtered_resps"):
            text = resp[0] if isinstance(resp, list) and resp else resp
            if isinstance(text, str) and text.startswith("{") and '"candidates"' in text:
                record = _checked(parse_json(text, f"{where}: filtered_resps"), f"{where}: filtered_resps")
                yield record if "question" in record else {**record, "question": _doc_question(row)}


def _checked(record: Any, where: str) -> dict:
    """A pool record whose fields a curve reads have the types it reads them as (else one line naming them)."""
    expect(record, dict, where, "record")
    for c in expect(record.get("candidates", []), list, where, "candidates"):
        expect(c, dict, where, "candidate")
        expect(c.get("text") or "", str, where, "candidate text")
        for key in ("chaineval", "reward"):
            expect(c.get(key), (int, float, type(None)), where, f"candidate {key}")
    expect(record.get("question", ""), str, where, "question")
    expect(record.get("cluster", ""), (str, int), where, "cluster")
    expect(record.get("prm", ""), str, where, "prm")
    return record


def _rows_ok(rows: Any) -> bool:
    """Whether cached rows have the shape :func:`_compact` writes (a damaged or foreign cache is read again)."""
    return isinstance(rows, list) and all(
        isinstance(r, dict) and isinstance(r.get("cluster"), (str, int)) and isinstance(r.get("prm"), str)
        and isinstance(r.get("c"), list) and all(
            isinstance(c, list) and len(c) == 4 and isinstance(c[1], bool)
            and all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in c[2:])
            for c in r["c"])
        for r in rows)


def _doc_question(row: dict) -> str:
    """What the run's PRM read as the question: the user prompt (CFLUE: with its options), else the question."""
    doc = row.get("doc") or {}
    return str(doc.get("prompt") if doc.get("benchmark") == "cflue" else doc.get("question", ""))


def _compact(record: dict, full: bool = False) -> dict:
    """What a curve needs of a record; ``full`` also keeps the question and texts a re-scoring PRM reads."""
    row = {"cluster": record.get("cluster", ""), "prm": record.get("prm", ""),
           "c": [[c.get("key"), bool(c.get("correct")), c.get("chaineval"), c.get("reward")]
                 for c in record.get("candidates", [])]}
    if full:
        row.update(q=record.get("question", ""), t=[c.get("text") or "" for c in record.get("candidates", [])])
    return row


def _read(sources: Sequence[Path], full: bool = False) -> list[dict]:
    out = []
    for path in sources:
        records = _lm_eval_records(path) if path.suffix == ".jsonl" else _inspect_records(path)
        out.extend(_compact(r, full) for r in records)
    return out


def load_pools(run_dir: Path, use_cache: bool = True, rescore: Rescore | None = None,
               skipped: list[tuple[Path, str]] | None = None) -> tuple[list[Pool], set[str]]:
    """Every pool in the run directory and the PRMs that scored them; the cache is used when up to date.

    With ``rescore``, the rewards are those of that PRM (see the module docstring) and the returned PRM
    set names it alone; ``rescore`` records how many candidates were scored and how many came from cache.
    Sources passed over (a link out of the folder, a FIFO, a device) are added to ``skipped``."""
    if not run_dir.is_dir():
        raise ValueError(f"{run_dir}: no such run directory")
    if rescore is not None:
        from finchain_tasks.prm import check_spec

        rescore.spec = str(check_spec(rescore.spec, rescore.options.get("registry")))  # fails before any reading
    sources = find_sources(run_dir, skipped)
    cache_file = run_dir / CACHE_FILE
    stamp = _stamp(sources)
    check_own_file(cache_file)  # read and written below: never a link or a FIFO
    cached = _read_cache(cache_file) if use_cache else {}
    if cached.get("sources") != stamp:
        cached = {"sources": stamp}
    if rescore is None:
        rows = cached.get("pools")
        if not _rows_ok(rows):
            rows = cached["pools"] = _read(sources)
            cache_file.write_text(json.dumps(cached), encoding="utf-8")
    else:
        if not isinstance(cached.get("rescored"), dict):
            cached["rescored"] = {}
        rows = cached["rescored"].get(rescore.key)
        if not _rows_ok(rows):
            rows = cached["rescored"][rescore.key] = _rescore(run_dir, _read(sources, full=True), rescore)
            cache_file.write_text(json.dumps(cached), encoding="utf-8")
        else:
            rescore.from_cache = sum(len(r["c"]) for r in rows)
        rescore.original = {r.get("was", "") for r in rows}
    if not rows:
        raise ValueError(f"{run_dir}: no Best-of-N pools found (run `inspect eval finchain -T samples=16 "
                         "-T prm=...` or lm-eval's finchain_bon into it)")
    pools = [Pool(r["cluster"], [Candidate(k, ok, ce, rw) for k, ok, ce, rw in r["c"]]) for r in rows]
    return pools, {r["prm"] for r in rows}


def _read_cache(path: Path) -> dict:
    """The pools cache (:func:`load_pools` has refused a link or a special file in its place); a damaged one
    counts as none (it is only a cache, written again)."""
    if not path.exists():
        return {}
    try:
        cached = load_json(path)
    except UnreadableFile:
        return {}
    return cached if isinstance(cached, dict) else {}


def _score_key(rescore: Rescore, question: str, text: str) -> str:
    raw = json.dumps([rescore.spec, rescore.agg, float(rescore.zeta), question, text], ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _read_scores(path: Path) -> dict[str, dict]:
    """The score cache; a torn last line (an interrupted run) is skipped, not fatal."""
    out: dict[str, dict] = {}
    check_own_file(path)
    if path.exists():
        for _, line in jsonl_lines(read_text(path)):
            try:
                row = parse_json(line, str(path))
            except UnreadableFile:
                continue
            if isinstance(row, dict) and isinstance(row.get("key"), str) and isinstance(row.get("score"), dict):
                out[row["key"]] = row["score"]
    return out


def _rescore(run_dir: Path, rows: list[dict], rescore: Rescore) -> list[dict]:
    """``rows`` (read in full) with every candidate's reward from the new PRM, cached per candidate."""
    scores_file = run_dir / SCORES_FILE
    known = _read_scores(scores_file)
    keys = [[_score_key(rescore, r["q"], t) for t in r["t"]] for r in rows]
    todo = {k: (r["q"], t) for r, ks in zip(rows, keys) for k, t in zip(ks, r["t"]) if k not in known}
    rescore.scored = sum(1 for ks in keys for k in ks if k in todo)
    rescore.from_cache = sum(len(ks) for ks in keys) - rescore.scored
    name = rescore.spec
    if todo and rescore.ray is not None:
        from finchain_tasks.scale.commands import rescore_on_ray

        fresh_scores, name = rescore_on_ray(todo, rescore, scores_file, rescore.ray)
        known.update(fresh_scores)
        rescore.distinct = len(todo)
    elif todo:
        from finchain_tasks.prm import load_prm

        prm = load_prm(rescore.spec, agg=rescore.agg, zeta=rescore.zeta, **rescore.options)
        order = list(todo)
        fresh = prm.score_batch([prm_input(*todo[k]) for k in order])
        rescore.distinct = len(order)
        with scores_file.open("a", encoding="utf-8") as fh:
            for k, score in zip(order, fresh):
                known[k] = score.to_dict()
                if "judge_error" not in score.extra:  # a judge that failed is asked again next time
                    fh.write(json.dumps({"key": k, "score": known[k]}) + "\n")
        name = getattr(prm, "name", name)
    out = []
    for r, ks in zip(rows, keys):
        c = [[key, ok, ce, PRMScore.from_dict(known[k]).reward] for (key, ok, ce, _), k in zip(r["c"], ks)]
        prm_name = (known[ks[0]].get("prm") or name) if ks else name
        out.append({"cluster": r["cluster"], "prm": prm_name, "was": r["prm"], "c": c})
    return out


FIELDS = ("n", "selector", "accuracy", "accuracy_lo", "accuracy_hi", "chaineval", "chaineval_lo", "chaineval_hi",
          "vs_majority", "vs_majority_lo", "vs_majority_hi", "vs_random", "vs_random_lo", "vs_random_hi",
          "n_problems", "clusters", "n_short", "subsamples", "subsets", "protocol", "interval")
INTERVAL_NAMES = {"t": "Korn-Graubard clustered-proportion interval for means, cluster-robust t (CR1, G-1 df) "
                       "for differences", "percentile": "percentile cluster bootstrap (draws shared by every selector)"}


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


def _table(rows: Sequence[CurveRow], value: str, selectors: list[str]) -> list[str]:
    """One markdown table: N per line, selector per column, ``value`` with its interval (and the clusters)."""
    ns = sorted({r.n for r in rows})
    cell = {(r.n, r.selector): r for r in rows}
    lines = ["| N | problems | clusters | short | subsets | " + " | ".join(selectors) + " |",
             "|---" * (5 + len(selectors)) + "|"]
    for n in ns:
        first = cell[(n, selectors[0])]
        lines.append(f"| {n} | {first.n_problems} | {first.clusters} | {first.n_short} | "
                     f"{_subsets([cell[(n, s)] for s in selectors])} | " + " | ".join(
            _ci(getattr(cell[(n, s)], value), getattr(cell[(n, s)], f"{value}_lo"),
                getattr(cell[(n, s)], f"{value}_hi")) for s in selectors) + " |")
    return lines


def _subsets(cells: Sequence[CurveRow]) -> str:
    """How many subsets of N the row's values average over: ``all`` (exact), or the random ones and whose."""
    drawn = sorted({c.subsets for c in cells if c.subsets != "all"})
    if not drawn:
        return "all"
    return "; ".join(f"{d} random for {', '.join(c.selector for c in cells if c.subsets == d)}" for d in drawn) + \
        ("; all for the rest" if any(c.subsets == "all" for c in cells) else "")


def write_markdown(rows: Sequence[CurveRow], path: Path, prms: set[str], note: str = "") -> None:
    """Accuracy per N (rows) and selector (columns) with 95% intervals, then each selector minus majority and
    minus random on the same subsets (the paired claim), then mean ChainEval. ``note`` (e.g. that the
    candidates were re-scored by another PRM than the run's) goes under the title."""
    selectors = list(dict.fromkeys(r.selector for r in rows))
    first = rows[0] if rows else None
    protocol = first.protocol if first else "independent"
    method = INTERVAL_NAMES.get(first.interval if first else "t", "")
    oracles = [s for s in ("oracle_chaineval", "pass_at_n") if s in selectors]
    lines = [f"# Best-of-N (PRM: {', '.join(sorted(prms)) or 'unknown'})", "", *([note, ""] if note else []),
             "Final-answer accuracy, the expectation over the subsets of N of each pool: exact (`subsets`: all) for "
             "random and the best-of selectors (order statistics) and for votes when a pool has few subsets, else "
             f"a mean over random subsets ({protocol}: "
             + ("each N draws its own" if protocol == "independent" else "the first N of one fixed permutation, "
                "paired across N") + ") whose Monte-Carlo error is added to the interval. 95% intervals: "
             f"{method}, over templates (FinChain) or exams (CFLUE); `clusters` is their number. "
             + (f"{' and '.join(f'`{o}`' for o in oracles)} read the gold." if oracles else ""), "",
             *_table(rows, "accuracy", selectors)]
    for base in ("majority", "random"):
        others = [s for s in selectors if s != base]
        lines += ["", f"Paired difference, selector minus `{base}` on the same problems and subsets "
                      "(positive: the selector is better):", "", *_table(rows, f"vs_{base}", others)]
    if any(r.chaineval is not None for r in rows):
        lines += ["", "Mean ChainEval of the chosen candidate:", "", *_table(rows, "chaineval", selectors)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ci(mean, lo, hi) -> str:
    if mean is None or math.isnan(mean):
        return "–"
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return f"{mean:.3f} (no interval: one cluster)"
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"


def write_plot(rows: Sequence[CurveRow], path: Path, title: str = "Best-of-N") -> None:
    """Accuracy against N (log2 axis) for every selector with its 95% band (left), and each selector minus
    majority on the same subsets with its band (right: the paired claim, above zero = better than majority)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, dx) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=120)
    for s in dict.fromkeys(r.selector for r in rows):
        style = "--" if s in ("oracle_chaineval", "pass_at_n") else "-"
        for axis, value in ((ax, "accuracy"), (dx, "vs_majority")):
            pts = sorted((r.n, getattr(r, value), _nan(getattr(r, f"{value}_lo")), _nan(getattr(r, f"{value}_hi")))
                         for r in rows if r.selector == s and getattr(r, value) is not None
                         and not math.isnan(getattr(r, value)))
            if not pts or (axis is dx and s == "majority"):
                continue
            ns, val, lo, hi = zip(*pts)
            axis.plot(ns, val, style, marker="o", label=s)
            axis.fill_between(ns, lo, hi, alpha=0.15)
    dx.axhline(0.0, color="grey", lw=0.8)
    for axis, label in ((ax, "final-answer accuracy"), (dx, "accuracy minus majority (paired)")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("N (candidates)")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    ax.set_title(title)
    dx.set_title("Paired difference vs majority vote, 95% band")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _nan(value) -> float:
    return float("nan") if value is None else value
