"""Offline data selection (``finchain prm select``): score a pool of candidate traces with a PRM and keep
the top K by R per question (or overall) as an SFT dataset, the paper's first use of Fin-PRM.

Writes, into one output directory:

* ``sft.jsonl``: the kept rows, best first per question: ``prompt``, ``completion``, ``messages`` (chat
  form), the candidate's ``id`` and ``question_id``, its PRM scores (``reward``, ``step_probs``,
  ``p_traj``, ``agg``, ``zeta``), ``prm`` (the spec) and ``correct`` where the gold answer is known;
* ``sft_dataset/``: the same rows as a ``datasets`` dataset (``save_to_disk``) when ``datasets`` is installed;
* ``selection.json`` and ``selection.md``: the PRM spec, K, the mode, and a comparison of random,
  outcome-only and PRM selection on the pool's known answers (share of kept rows whose final answer is
  right; random is averaged over seeds).

Outcome-only selection keeps correct candidates first (random order among equals): it needs the gold
answer, which a PRM does not, so it is the ceiling a PRM selection is measured against on answers.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from scorers.prm.base import PRM, PRMScore, prm_input
from scorers.prm.labels import LabelItem, Unknown, answer_matches

__all__ = ["MODES", "candidate_rows", "compare", "question_key", "run_select", "top_k", "write_selection"]

MODES = ("per-question", "overall")
RANDOM_SEEDS = 20


def question_key(item: LabelItem) -> str:
    """Candidates of one question share this: the FinChain problem id, else the question text."""
    return str(item.meta.get("problem_id") or item.meta.get("question_id") or item.question)


def _correct(item: LabelItem) -> bool | None:
    try:
        return answer_matches(item)  # the whole trace, read as ChainEval's fac reads it
    except Unknown:
        return None


def top_k(keys: Sequence[str], values: Sequence[float], k: int, mode: str = "per-question") -> list[int]:
    """Indices of the ``k`` highest values per key (or overall), best first; ties keep pool order."""
    if mode not in MODES:
        raise ValueError(f"unknown selection mode {mode!r}: use one of {', '.join(MODES)}")
    if k < 1:
        raise ValueError(f"K must be at least 1, got {k}")
    order = sorted(range(len(values)), key=lambda i: -values[i])
    if mode == "overall":
        return order[:k]
    kept, count = [], defaultdict(int)
    for i in order:
        if count[keys[i]] < k:
            count[keys[i]] += 1
            kept.append(i)
    return kept


def _share(kept: Sequence[int], correct: Sequence[bool | None]) -> float | None:
    known = [correct[i] for i in kept if correct[i] is not None]
    return sum(known) / len(known) if known else None


def compare(keys: Sequence[str], rewards: Sequence[float], correct: Sequence[bool | None], k: int,
            mode: str = "per-question", seeds: int = RANDOM_SEEDS) -> dict[str, float | None]:
    """Share of kept candidates with a right answer under random, outcome-only and PRM selection."""
    randoms = []
    for seed in range(seeds):
        rng = random.Random(seed)
        randoms.append(_share(top_k(keys, [rng.random() for _ in keys], k, mode), correct))
    known = [r for r in randoms if r is not None]
    rng = random.Random(0)
    outcome = [float(c or 0) + 0.5 * rng.random() for c in correct]  # right first, random among equals
    return {"random": sum(known) / len(known) if known else None,
            "outcome_only": _share(top_k(keys, outcome, k, mode), correct),
            "prm": _share(top_k(keys, rewards, k, mode), correct),
            "pool": _share(range(len(keys)), correct)}


def _row(item: LabelItem, score: PRMScore, spec: str, correct: bool | None, key: str) -> dict:
    return {"id": item.id, "question_id": key, "prompt": item.question, "completion": item.output,
            "messages": [{"role": "user", "content": item.question}, {"role": "assistant", "content": item.output}],
            "reward": score.reward, "step_probs": list(score.step_probs), "p_traj": score.p_traj, "agg": score.agg,
            "zeta": score.zeta, "prm": spec, "correct": correct}


def _markdown(spec: str, k: int, mode: str, table: dict, n_pool: int, n_kept: int) -> str:
    lines = [f"# Offline selection with `{spec}`", "", f"Pool: {n_pool} candidates; kept {n_kept} (top {k}, {mode}).",
             "", "| selection | share of kept with a right answer |", "|---|---|"]
    for name in ("random", "outcome_only", "prm", "pool"):
        value = table[name]
        lines.append(f"| {name} | {'n/a' if value is None else f'{value:.3f}'} |")
    return "\n".join(lines) + "\n"


def run_select(items: Sequence[LabelItem], prm: PRM, spec: str, out_dir: str | Path, k: int = 1,
               mode: str = "per-question", save_dataset: bool = True,
               log: Callable[[str], None] | None = None) -> dict:
    """Score, select, write; returns what ``selection.json`` holds."""
    if not items:
        raise ValueError("the pool is empty")
    return write_selection(candidate_rows(items, prm, spec), spec, out_dir, k, mode, save_dataset, log)


def candidate_rows(items: Sequence[LabelItem], prm: PRM, spec: str) -> list[dict]:
    """Every candidate as the row ``sft.jsonl`` would hold, with its PRM scores: the per-row work (``--ray``
    runs it per block)."""
    scores = prm.score_batch([prm_input(it.question, it.output) for it in items])
    return [_row(it, sc, spec, _correct(it), question_key(it)) for it, sc in zip(items, scores)]


def write_selection(candidates: Sequence[dict], spec: str, out_dir: str | Path, k: int = 1,
                    mode: str = "per-question", save_dataset: bool = True,
                    log: Callable[[str], None] | None = None) -> dict:
    """Select the top K of the scored ``candidates`` (pool order) and write the output directory."""
    if not candidates:
        raise ValueError("the pool is empty")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    keys = [c["question_id"] for c in candidates]
    rewards = [c["reward"] for c in candidates]
    correct = [c["correct"] for c in candidates]
    kept = top_k(keys, rewards, k, mode)
    rows = [candidates[i] for i in kept]
    with open(out / "sft.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, default=str) + "\n")
    if save_dataset:
        try:
            from datasets import Dataset
        except ImportError:
            if log:
                log("datasets is not installed: wrote sft.jsonl only (pip install 'finchain-tasks[hf]')")
        else:
            flat = [{**r, "step_probs": [p if p is not None else float("nan") for p in r["step_probs"]],
                     "correct": r["correct"]} for r in rows]
            Dataset.from_list(flat).save_to_disk(str(out / "sft_dataset"))
    table = compare(keys, rewards, correct, k, mode)
    summary = {"prm": spec, "agg": candidates[0]["agg"], "zeta": candidates[0]["zeta"], "k": k, "mode": mode,
               "pool": len(candidates), "questions": len(set(keys)), "kept": len(rows), "comparison": table}
    (out / "selection.json").write_text(json.dumps(summary, indent=1))
    (out / "selection.md").write_text(_markdown(spec, k, mode, table, len(candidates), len(rows)))
    return summary
