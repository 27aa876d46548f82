"""The ``chaineval`` Inspect scorer: a thin adapter over ``scorers.chaineval.score_batch``.

Each sample's (gold, output) pair goes to a :class:`MicroBatcher` shared by every sample the
scorer instance scores, so concurrent samples are embedded and aligned in one batch. The Score's
value is a dict of numbers (one Inspect score per key, each with mean, stderr and per-domain and
per-level means); ``first_error_step`` is the 1-based gold step where the reasoning first broke,
and **0 when no step broke** (a dict Score value must be numeric for the metrics). The explanation
is the alignment as a markdown table; the answer is the model's extracted final answer.
Per-domain and per-level means are the metrics whose ``group`` is ``domain`` / ``level`` (their
``name`` is the domain id or level; the dict key in ``EvalScore.metrics`` carries Inspect's prefix).

Heavy imports (numba, torch, sentence-transformers) happen in the worker thread on first use,
never when Inspect imports this module.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, grouped, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from finchain_tasks.inspect.batcher import MicroBatcher

SCORE_KEYS = ("chaineval", "fac", "step_f1", "step_precision", "step_recall", "first_error_step", "parse_ok")
"""The keys of every Score value, in the order the log lists them."""
_CELL = 90
_SCORING = threading.Lock()
"""One batch at a time per process: batches share one embedder, whose text cache is not thread-safe."""


@metric(name="domain")
def by_domain() -> Metric:
    """The mean per domain: in the log, metrics of group ``domain`` named by the domain id."""
    return grouped(mean(), "domain", all=False)


@metric(name="level")
def by_level() -> Metric:
    """The mean per difficulty level: metrics of group ``level`` named easy, intermediate, advanced."""
    return grouped(mean(), "level", all=False)


def _key_metrics() -> list[Metric]:
    # Two plain grouped() metrics would share the registry name "grouped", and Inspect keeps only
    # the first metric of a name per score key: hence one registered metric per grouping.
    return [mean(), stderr(), by_domain(), by_level()]


METRICS = {key: _key_metrics() for key in SCORE_KEYS}


@scorer(metrics=METRICS)
def chaineval(profile: str = "paper", **params: Any) -> Scorer:
    """ChainEval under ``profile`` ('paper' or 'reference'), any parameter overridable (``-S step_tol=0.1``)."""
    from scorers.params import resolve

    resolved = resolve(profile, **params)  # unknown profiles or parameters fail here, before any sample runs
    batcher: MicroBatcher = MicroBatcher(partial(_score_pairs, resolved))

    async def score(state: TaskState, target: Target) -> Score:
        gold = gold_for(state, target)
        output = state.output.completion if state.output else ""
        result, pred_texts = await batcher.submit((gold, output))
        return to_score(result, gold, pred_texts, resolved.profile)

    score.batcher = batcher  # type: ignore[attr-defined] - for reports and tests: batch sizes seen
    return score


def gold_for(state: TaskState, target: Target):
    """The sample's gold: structured steps from its metadata, else parsed from the target text."""
    from scorers.chaineval import gold_from_text
    from scorers.rows import gold_of

    gold = (state.metadata or {}).get("gold")
    if isinstance(gold, dict):
        return gold_of({"id": str(state.sample_id), **gold})
    return gold_from_text(target.text, str(state.sample_id))


def _score_pairs(params, items: list[tuple[Any, str]]) -> list[tuple[Any, list[str]]]:
    """Worker-thread body: one ``score_batch`` call, plus each output's step texts for the explanation."""
    from scorers.chaineval import score_batch
    from scorers.embeddings import shared_embedder

    golds = [g for g, _ in items]
    outputs = [o for _, o in items]
    with _SCORING:
        results = score_batch(golds, outputs, profile=params, embedder=shared_embedder(params.embedding_model))
    return [(r, r.pred_steps) for r in results]


def to_score(result, gold, pred_texts: Sequence[str], profile: str) -> Score:
    """An Inspect Score from a ChainEvalResult (value dict, answer, explanation, detail in metadata)."""
    raw = result.scores()
    value = {key: float(raw[key] or 0) for key in SCORE_KEYS}
    metadata = {
        "profile": profile,
        "first_error_step": result.first_error_step,
        "n_gold_steps": result.n_gold_steps,
        "n_pred_steps": result.n_pred_steps,
        "alignment": result.alignment,
    }
    return Score(value=value, answer=result.final_answer, explanation=explain(result, gold, pred_texts, profile),
                 metadata=metadata)


def _cell(text: str) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= _CELL else text[:_CELL - 1] + "…"


def explain(result, gold, pred_texts: Sequence[str], profile: str) -> str:
    """The alignment as markdown: a headline, a table of paired steps, the unpaired ones, the answers."""
    first = f"gold step {result.first_error_step}" if result.first_error_step else "none"
    lines = [
        f"**ChainEval {result.chaineval:.3f}** (profile `{profile}`) · final answer correct: "
        f"{'yes' if result.fac else 'no'} · step F1 {result.step_f1:.3f} · first error: {first}",
        "",
    ]
    if result.alignment:
        lines += ["| gold step | model step | similarity | gate | score | match |", "|---|---|---|---|---|---|"]
        for pair in result.alignment:
            g, p = pair["gold"], pair["pred"]
            mark = "✓" if pair["matched"] else "✗"
            lines.append(
                f"| {g}. {_cell(gold.steps[g - 1].compare_text)} | {p}. {_cell(pred_texts[p - 1])} "
                f"| {pair['similarity']:.3f} | {pair['gate']:g} | {pair['score']:.3f} | {mark} |"
            )
    else:
        lines.append("No step of the output could be paired with a gold step.")
    unpaired_gold = sorted(set(range(1, len(gold.steps) + 1)) - {p["gold"] for p in result.alignment})
    unpaired_pred = sorted(set(range(1, len(pred_texts) + 1)) - {p["pred"] for p in result.alignment})
    lines.append("")
    lines.append(f"Unpaired gold steps: {_numbers(unpaired_gold)}. Unpaired model steps: {_numbers(unpaired_pred)}.")
    lines.append(f"Final answer: model `{_cell(result.final_answer) or '(none)'}`, gold `{_cell(_gold_answer(gold))}`.")
    return "\n".join(lines)


def _numbers(values: list[int]) -> str:
    return ", ".join(map(str, values)) if values else "none"


def _gold_answer(gold) -> str:
    from finchain_tasks.engine.formatting import with_unit

    return with_unit(gold.answer, gold.answer_unit or "") if gold.answer is not None else "(none)"
