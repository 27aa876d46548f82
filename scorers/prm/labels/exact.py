"""Exact step signals for FinChain problems: no model, deterministic, free.

A predicted step is correct when ChainEval pairs it with a gold step whose numeric (or categorical)
gate passes, and the ``calc`` checker does not find its written arithmetic wrong (a step with no
checkable arithmetic is judged by the gate alone). The trajectory's exact signals are ChainEval's
final-answer correctness (r_out = fac) and r_cover, the share of gold steps (FinChain's knowledge
points) paired with a step found correct above.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorers.chaineval import score_batch
from scorers.embeddings import Embedder
from scorers.prm.calc import check_step
from scorers.prm.labels.signals import LabelItem
from scorers.steps import parse_output

__all__ = ["ExactSignals", "exact_signals", "trace_text"]


@dataclass(frozen=True)
class ExactSignals:
    """Per step: correct (bool) or None with ``reason`` set when the trace cannot be checked."""

    steps: tuple[bool, ...]
    r_out: float
    r_cover: float
    reason: str = ""


def trace_text(item: LabelItem) -> str:
    """The text ChainEval segments: the raw output, else the steps written as ``Step k:`` lines."""
    if item.output:
        return item.output
    lines = [f"Step {k}: {s}" for k, s in enumerate(item.steps, 1)]
    return "\n".join([*lines, f"Final answer: {item.final_answer}"])


def _unknown(reason: str) -> ExactSignals:
    return ExactSignals((), 0.0, 0.0, reason)


def exact_signals(items: Sequence[LabelItem], embedder: Embedder | None = None,
                  profile: str = "paper") -> list[ExactSignals]:
    """Exact signals for every item with a gold trace, in one batched ChainEval call."""
    todo = [k for k, it in enumerate(items) if it.gold is not None and it.gold.steps and it.steps]
    out = [_unknown("no gold trace (exact signals need a FinChain gold solution)") if it.gold is None
           or not it.gold.steps else _unknown("trace has no steps") for it in items]
    texts = [trace_text(items[k]) for k in todo]
    results = score_batch([items[k].gold for k in todo], texts, profile, embedder) if todo else []
    for k, text, res in zip(todo, texts, results):
        parsed = parse_output(text)
        if len(parsed.steps) != len(items[k].steps):
            out[k] = _unknown(f"ChainEval reads {len(parsed.steps)} steps where the trace has {len(items[k].steps)}")
            continue
        # a gate is 0 or 1 under every profile this recipe resolves (no overrides), so "passed" is "== 1"
        gated = {a["pred"] - 1 for a in res.alignment if a["gate"] == 1.0}
        verdicts = tuple(j in gated and check_step(s.text) is not False for j, s in enumerate(parsed.steps))
        covered = {a["gold"] for a in res.alignment if a["gate"] == 1.0 and verdicts[a["pred"] - 1]}
        out[k] = ExactSignals(verdicts, float(res.fac), len(covered) / len(items[k].gold.steps))
    return out
