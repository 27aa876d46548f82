"""The ``cflue_application`` Inspect task: CFLUE's five financial NLP tasks, scored the official way.

``inspect eval finchain_tasks/cflue_application --model ... -T path=/data/cflue/application.json
-T task=translation -T sub_task=金融英中翻译``. Each record's ``instruction`` (then its ``input``) is the user
message, after its ``history`` turns; no system prompt, as in the official evaluation. The scorer reads
each response the way its task type is scored (``scorers.cflue.application.record_scores``: label
accuracy, item F1, ROUGE-L, sentence BLEU for inspection); the ``cflue_application`` metric recomputes
everything over all samples at once with ``scorers.cflue.application.summarize``: corpus BLEU per
direction, the metrics per task (``<task>/<metric>``) and per sub-task (``<sub_task>/<metric>``), the
eight columns of the CFLUE table and their average. COMET (``-T comet=<checkpoint>``) and BERTScore
(``-T bertscore=bert-base-chinese`` or a local path) only when given: otherwise "not computed".
"""

from __future__ import annotations

import json
import math
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from finchain_tasks.cflue import CflueDataError
from finchain_tasks.cflue import application as app
from finchain_tasks.inspect.cflue import CflueTaskError
from finchain_tasks.inspect.errors import plain_task_errors
from finchain_tasks.inspect.tasks import Names, names
from scorers.cflue.application import NOT_COMPUTED, AppOutcome, record_scores, summarize
from scorers.cflue.reference import check_profile

SCORER = "cflue_application_scorer"


def flatten(summary: dict[str, Any]) -> dict[str, float]:
    """A summary as one flat mapping of numbers: ``<task>/<metric>``, ``<sub_task>/<metric>``, the table's
    columns, ``average`` and ``average_of_computed``. Inspect metrics must be numbers, so a metric that is
    not computed is left out (never 0); the task metadata's ``not_computed`` says which and why."""
    out: dict[str, Any] = {}
    for group in ("by_task", "by_sub_task"):
        for name, values in summary[group].items():
            out.update({f"{name}/{k}": v for k, v in values.items() if k != "task"})
    out.update(summary["table"])
    out["average"] = summary["average"]
    out["average_of_computed"] = summary["average_of_computed"]["value"]
    return {k: float(v) for k, v in out.items()
            if isinstance(v, (int, float)) and v != NOT_COMPUTED and not math.isnan(v)}


def not_computed(comet: str | None, bertscore: str | None) -> dict[str, str]:
    """The metrics a run leaves out, with the reason: what the user can add to get them."""
    out = {}
    if not comet:
        reason = "no COMET checkpoint given (-T comet=PATH)"
        out.update({"comet (translation/comet_*, <translation sub-task>/comet, Fin_MT * COMET)": reason,
                    "average (the CFLUE table's Avg. needs the COMET columns)": reason})
    if not bertscore:
        out["bertscore (generation/bertscore, <generation sub-task>/bertscore)"] = (
            "no BERTScore model given (-T bertscore=bert-base-chinese or a local path)")
    return out


def outcomes(scores: list[SampleScore]) -> list[AppOutcome]:
    """The scored samples as plain rows for the shared summary (from each Score's metadata)."""
    rows = []
    for s in scores:
        meta = s.score.metadata or {}
        if "task_slug" not in meta:
            raise ValueError("cflue_application metrics need the scorer's metadata (task, reference, prediction)")
        rows.append(AppOutcome(meta["task_slug"], meta["sub_task"], meta["reference"], meta["prediction"],
                               meta.get("source", "")))
    return rows


@metric(name="cflue_application")
def application_metrics(comet: str | None = None, bertscore: str | None = None, profile: str = "default") -> Metric:
    """Every CFLUE application metric over all samples at once, grouped by task and by sub-task."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        comet_model, bert_model = app.metric_models(comet, bertscore)
        return flatten(summarize(outcomes(scores), comet=comet_model, bertscore=bert_model, profile=profile))

    return compute


@scorer(metrics=[])
def cflue_application_scorer(profile: str = "default") -> Scorer:
    """Scores a response by its record's task type under a profile; the Score keeps what the corpus metrics need."""
    profile = check_profile(profile)

    async def score(state: TaskState, target: Target) -> Score:
        response = state.output.completion if state.output else ""
        meta = state.metadata
        values = record_scores(meta["task_slug"], meta["sub_task"], meta["output"], response, profile)
        return Score(value=values, answer=response,
                     metadata={"task_slug": meta["task_slug"], "sub_task": meta["sub_task"],
                               "reference": meta["output"], "prediction": response, "source": meta["source"]})

    return score


def sample_of(record: app.ApplicationRecord) -> Sample:
    """One record as a sample: earlier turns, then the instruction (and input) as the user message."""
    messages: list[Any] = []
    for question, answer in record.history:
        messages += [ChatMessageUser(content=question), ChatMessageAssistant(content=answer)]
    messages.append(ChatMessageUser(content=record.prompt))
    return Sample(id=record.id, input=messages if record.history else record.prompt,
                  target=app.reference_text(record.output),
                  metadata={**record.metadata(), "output": record.output, "source": record.source})


@task
@plain_task_errors
def cflue_application(
    path: str | None = None,
    task: Names = None,
    sub_task: Names = None,
    comet: str | None = None,
    bertscore: str | None = None,
    profile: str = "default",
) -> Task:
    """CFLUE application assessment: classification, translation, extraction, reading comprehension, generation.

    Args:
        path: CFLUE application JSON/JSONL file (default: $CFLUE_APPLICATION_PATH; the records are not shipped).
        task: Task(s): classification, translation, extraction, reading_comprehension, generation (or the
            Chinese names); default all.
        sub_task: Sub-task(s) to keep, by their Chinese names (e.g. 金融英中翻译); default all.
        comet: A COMET checkpoint (needs unbabel-comet); without it COMET is "not computed".
        bertscore: BERTScore model for generation (bert-base-chinese or a local path; needs bert-score).
        profile: 'default' (answers read as a reader would) or 'reference' (the CFLUE authors' rules, bugs included).
    """
    profile = check_profile(profile)
    try:
        app.check_metric_models(comet, bertscore)
        source = app.load_source(path, tasks=names(task) or None, sub_tasks=names(sub_task) or None)
    except CflueDataError as exc:
        raise CflueTaskError(str(exc)) from None
    return Task(
        dataset=MemoryDataset([sample_of(r) for r in source.records], name="cflue_application"),
        solver=[generate()],
        scorer=cflue_application_scorer(profile),
        metrics=[application_metrics(comet, bertscore, profile)],
        config=GenerateConfig(max_tokens=app.MAX_NEW_TOKENS),
        version=app.TASK_VERSION,
        metadata={**json.loads(json.dumps(app.run_info(source, comet, bertscore, profile), ensure_ascii=False)),
                  "not_computed": not_computed(comet, bertscore)},
    )
