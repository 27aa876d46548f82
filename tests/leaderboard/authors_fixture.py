"""A made-up FinChain authors' repository in the shape of theirs (``evals/<model>.jsonl``,
``evals/reasoning_parsed/<model>.jsonl``, ``evals/overall_results.txt``, ``data/testset/<domain>/<topic>.jsonl``),
generated here: every line is written by this project's tests, none comes from their files (no licence)."""

from __future__ import annotations

import json
import random
from pathlib import Path

TOPICS = {"personal_finance": ("budgeting", "retirement"), "risk_management": ("var", "hedging")}
TEMPLATES = ("1", "2", "3")
SEEDS = (11, 22, 33)
LEVELS = {"1": "Basic", "2": "Intermediate", "3": "Advanced"}
MODELS = {"gpt-4.1": 0.9, "tiny_model_x": 0.85, "weak_model": 0.1}
"""Top-level models and how often their final answer matches (gpt-4.1 is a registry name; the others are not)."""
REASONING = {"fin_r1": 0.5}
"""Models under ``reasoning_parsed/``."""
UNSCORED = ("risk_management", "hedging", "3", 33)
"""The one instance without gold: no score in any file (as in theirs)."""


def instances() -> list[tuple[str, str, str, int]]:
    return [(d, t, i, s) for d, topics in TOPICS.items() for t in topics for i in TEMPLATES for s in SEEDS]


def line(model: str, p: float, inst: tuple[str, str, str, int]) -> dict:
    """One per-sample line: scores drawn from the model's strength, fixed by the model and instance."""
    domain, topic, tid, seed = inst
    rng = random.Random(f"{model}/{domain}/{topic}/{tid}/{seed}")
    row = {"seed": seed, "id": tid, "level": LEVELS[tid], "topic": domain, "subtopic": topic, "model": model}
    if inst == UNSCORED:
        return {**row, "recall": None, "precision": None, "final_answer_match": None}
    hit = rng.random() < p
    recall, precision = round(rng.uniform(0.5, 1) if hit else rng.uniform(0, 0.5), 3), round(rng.uniform(0, 1), 3)
    if rng.random() < 0.1:
        recall = precision = 0.0  # no step matched: F1 is 0, not 0/0
    return {**row, "recall": recall, "precision": precision, "final_answer_match": int(hit), "rouge2": 0}


def model_lines(model: str) -> list[dict]:
    p = {**MODELS, **REASONING}[model]
    return [line(model, p, inst) for inst in instances()]


def means(model: str) -> dict[str, float]:
    """Mean final-answer match, recall, precision and step F1 over the scored lines, computed here by hand."""
    rows = [r for r in model_lines(model) if r["recall"] is not None]
    f1 = [2 * r["recall"] * r["precision"] / (r["recall"] + r["precision"]) if r["recall"] + r["precision"] else 0.0
          for r in rows]
    return {"fac": sum(r["final_answer_match"] for r in rows) / len(rows),
            "recall": sum(r["recall"] for r in rows) / len(rows),
            "precision": sum(r["precision"] for r in rows) / len(rows), "step_f1": sum(f1) / len(rows)}


def write_repo(root: Path) -> Path:
    """The repository under ``root``; ``overall_results.txt`` lists every model but ``weak_model`` (a model the
    source published no mean for)."""
    (root / "evals" / "reasoning_parsed").mkdir(parents=True)
    for model in MODELS:
        _jsonl(root / "evals" / f"{model}.jsonl", model_lines(model))
    for model in REASONING:
        _jsonl(root / "evals" / "reasoning_parsed" / f"{model}.jsonl", model_lines(model))
    table = []
    for model in (*MODELS, *REASONING):
        if model != "weak_model":
            m = means(model)
            table.append(" & ".join([model, *(repr(m[k]) for k in ("fac", "recall", "precision", "step_f1")),
                                     "0.0", "0.0", "0.0", "0.0"]))
    (root / "evals" / "overall_results.txt").write_text("\n".join(table) + "\n", encoding="utf-8")
    for domain, topics in TOPICS.items():
        for topic in topics:
            _jsonl(root / "data" / "testset" / domain / f"{topic}.jsonl",
                   [{"seed": s, "id": i, "level": LEVELS[i], "question": f"Made-up question {i}/{s}?",
                     "solution": f"Step 1: {s} + {i} = {s + int(i)}"}
                    for d, t, i, s in instances() if (d, t) == (domain, topic)])
    return root


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
