"""The ``chaineval`` Inspect scorer: a thin adapter over ``scorers.chaineval.score_batch``.

Each sample's (gold, output) pair goes to a :class:`MicroBatcher` shared by every sample the
scorer instance scores, so concurrent samples are embedded and aligned in one batch. The Score's
value is a dict of numbers under :data:`scorers.params.METRIC_KEYS`, the same short keys lm-eval
reports (one Inspect score per key, each with mean and stderr); where the reasoning first broke is
the distribution ``no_error``, ``err_1`` .. ``err_4plus`` (the step itself is in the metadata).
Per-domain and per-level means are not in the default metrics (see :data:`GROUPED_KEYS`). The
explanation is the alignment as Markdown, with model text escaped; the answer is the model's
extracted final answer. The ChainEval settings the scores were computed with are recorded in each
Score's metadata and in the scorer's metadata of the log (``EvalScore.metadata["chaineval"]``),
so a log re-scored with ``inspect score -S profile=...`` says what it was re-scored with.

Heavy imports (numba, torch, sentence-transformers) happen in the worker thread on first use,
never when Inspect imports this module.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import partial
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, grouped, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from finchain_tasks.inspect.batcher import MicroBatcher
from scorers.params import METRIC_KEYS

SCORE_KEYS = METRIC_KEYS
"""The keys of every Score value, in the order the log lists them (shared with lm-eval)."""
GROUPED_KEYS: tuple[str, ...] = ()
"""Keys that also get per-domain and per-level means in the log. None by default: Inspect names
them ``finchain_tasks/domain_<domain id>``, too long for its results panel at 80 columns (four
scores side by side). Per-domain and per-level means come from the samples (``finchain bench``
reports them; ``samples_df`` has ``metadata_domain``), or pass ``metrics=grouped_metrics()`` to a
``Task``."""
_CELL = 90
_RESULT_CHARS = 36
"""When a step's text is shortened, up to this much of its end (the computed result) is kept."""
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


def _key_metrics(key: str) -> list[Metric]:
    # Two plain grouped() metrics would share the registry name "grouped", and Inspect keeps only
    # the first metric of a name per score key: hence one registered metric per grouping.
    return [mean(), stderr(), by_domain(), by_level()] if key in GROUPED_KEYS else [mean(), stderr()]


METRICS = {key: _key_metrics(key) for key in SCORE_KEYS}


def grouped_metrics(keys: Sequence[str] = ("chaineval", "fac")) -> dict[str, list[Metric]]:
    """Every key's mean and stderr, plus per-domain and per-level means for ``keys``: the metrics
    whose ``group`` is ``domain`` / ``level`` and whose ``name`` is the domain id or level. For
    ``Task(metrics=...)`` when a log should carry them (they are wide in the results panel)."""
    return {key: [mean(), stderr(), by_domain(), by_level()] if key in keys else [mean(), stderr()]
            for key in SCORE_KEYS}


@scorer(metrics=METRICS)
def chaineval(profile: str = "paper", **params: Any) -> Scorer:
    """ChainEval under ``profile`` ('paper' or 'reference'), any parameter overridable (``-S step_tol=0.1``)."""
    from scorers.params import resolve

    resolved = resolve(profile, **params)  # unknown profiles or parameters fail here, before any sample runs
    batcher: MicroBatcher = MicroBatcher(partial(_score_pairs, resolved))
    settings = resolved.to_dict()

    async def score(state: TaskState, target: Target) -> Score:
        record_settings(score, settings)
        gold = gold_for(state, target)
        output = state.output.completion if state.output else ""
        result, pred_texts = await batcher.submit((gold, output))
        return to_score(result, gold, pred_texts, resolved.profile, settings)

    score.batcher = batcher  # type: ignore[attr-defined] - for reports and tests: batch sizes seen
    return score


def record_settings(scorer_fn: Scorer, settings: dict) -> None:
    """Put the resolved ChainEval settings into the scorer's registry metadata, which Inspect copies
    into ``EvalScore.metadata`` of the log when it computes the metrics. Done on first use because
    Inspect tags the scorer only after this factory returns. The task's own metadata still holds the
    settings the task was created with; this is what the scores were computed with."""
    try:
        from inspect_ai._util.registry import is_registry_object, registry_info
    except ImportError:  # a later Inspect without this helper: the per-sample metadata still records them
        return
    if is_registry_object(scorer_fn):
        registry_info(scorer_fn).metadata["chaineval"] = settings


def gold_for(state: TaskState, target: Target):
    """The sample's gold: structured steps from its metadata, else parsed from the target text."""
    from scorers.chaineval import gold_from_text
    from scorers.rows import gold_of

    gold = (state.metadata or {}).get("gold")
    if isinstance(gold, dict):  # the target is the rendered solution: its step lines are what is embedded
        return gold_of({"id": str(state.sample_id), "solution": target.text, **gold})
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


def to_score(result, gold, pred_texts: Sequence[str], profile: str, settings: dict | None = None) -> Score:
    """An Inspect Score from a ChainEvalResult (value dict, answer, explanation, detail in metadata)."""
    metadata = {
        "profile": profile,
        "first_error_step": result.first_error_step,
        "n_gold_steps": result.n_gold_steps,
        "n_pred_steps": result.n_pred_steps,
        "alignment": result.alignment,
    }
    if settings is not None:
        metadata["chaineval"] = settings
    return Score(value=result.metrics(), answer=result.final_answer,
                 explanation=explain(result, gold, pred_texts, profile), metadata=metadata)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#])")


def md_text(text: str) -> str:
    """Model (or gold) text as literal Markdown on one line: whitespace collapsed and every
    character Markdown could read as syntax backslash-escaped, so a backtick, ``|`` or ``<`` in an
    answer cannot end a code span, split a table cell or open a tag."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_code(text: str) -> str:
    """Text as a Markdown code span whose fence is longer than any backtick run inside it."""
    text = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def shorten(text: str, limit: int = _CELL) -> str:
    """At most ``limit`` characters, keeping the step's end (after its last '=' when there is one,
    which is the result it computed) and cutting from the middle of the explanation instead."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text.rfind("=")
    result = text[cut:] if cut >= 0 and len(text) - cut <= _RESULT_CHARS else text[-_RESULT_CHARS:]
    tail = f" … {result.lstrip()}" if result.startswith("=") else f" …{result}"
    head = text[:max(limit - len(tail), 1)]
    head = (head.rsplit(" ", 1)[0] if " " in head.strip() else head).rstrip()  # end on a whole word
    return f"{head}{tail}"


def _cell(text: str) -> str:
    return md_text(shorten(text))


def explain(result, gold, pred_texts: Sequence[str], profile: str) -> str:
    """The alignment as Markdown: a headline, a table of paired steps, the unpaired steps with
    their text, the answers. Numbers have two decimals; every piece of text is escaped."""
    first = f"gold step {result.first_error_step}" if result.first_error_step else "none"
    lines = [
        f"**ChainEval {result.chaineval:.2f}** (profile `{profile}`) · final answer correct: "
        f"{'yes' if result.fac else 'no'} (within rounding: {'yes' if result.fac_strict else 'no'}) · "
        f"step F1 {result.step_f1:.2f} · first error: {first}",
        "",
    ]
    if result.alignment:
        lines += ["| gold step | model step | similarity | gate | score | match |", "|---|---|---|---|---|---|"]
        for pair in result.alignment:
            g, p = pair["gold"], pair["pred"]
            mark = "✓" if pair["matched"] else "✗"
            lines.append(
                f"| {g}. {_cell(gold.steps[g - 1].compare_text)} | {p}. {_cell(pred_texts[p - 1])} "
                f"| {pair['similarity']:.2f} | {pair['gate']:g} | {pair['score']:.2f} | {mark} |"
            )
    else:
        lines.append("No step of the output could be paired with a gold step.")
    paired_gold = {p["gold"] for p in result.alignment}
    paired_pred = {p["pred"] for p in result.alignment}
    lines += _unpaired("gold", [(k, s.compare_text) for k, s in enumerate(gold.steps, 1) if k not in paired_gold])
    lines += _unpaired("model", [(k, t) for k, t in enumerate(pred_texts, 1) if k not in paired_pred])
    lines += ["", f"Final answer: model {md_code(shorten(result.final_answer) or '(none)')}, "
                  f"gold {md_code(shorten(_gold_answer(gold)))}."]
    return "\n".join(lines)


def _unpaired(side: str, steps: list[tuple[int, str]]) -> list[str]:
    """``Unpaired gold steps: none.`` or a heading and one bullet per step with its (escaped) text."""
    if not steps:
        return ["", f"Unpaired {side} steps: none."]
    return ["", f"Unpaired {side} steps:", *(f"- step {k}: {_cell(text)}" for k, text in steps)]


def _gold_answer(gold) -> str:
    from finchain_tasks.engine.formatting import with_unit

    return with_unit(gold.answer, gold.answer_unit or "") if gold.answer is not None else "(none)"
