"""CFLUE application records as lm-eval tasks: one ``generate_until`` leaf per task type, the shared metrics.

Leaves ``cflue_application_<task>`` (classification, translation, extraction, reading_comprehension,
generation) under the group ``cflue_application``. Options come from ``--metadata`` (namespaced, since
lm-eval hands every metadata and model_args key to the dataset function):

- ``cflue_app_path``: the CFLUE application JSON/JSONL file (else ``$CFLUE_APPLICATION_PATH``; not shipped);
- ``cflue_app_sub_tasks``: keep only these sub-tasks (a list, or comma-separated text);
- ``cflue_app_profile``: ``default`` (answers read as a reader would) or ``reference`` (the CFLUE authors' rules);
- ``cflue_app_comet``: a COMET checkpoint; ``cflue_app_bertscore``: a BERTScore model (bert-base-chinese or
  a path). Without them COMET and BERTScore are not computed: lm-eval then shows NaN, never 0.

Each document's result is one row (task, sub-task, gold output, response, source, metric models); every
metric's aggregation hands all rows of the leaf to ``scorers.cflue.application.summarize`` (corpus BLEU
needs them all at once), so both hosts compute the same numbers, on the CFLUE table's 0–100 scale.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from finchain_tasks.cflue import application as app
from scorers.cflue.application import NOT_COMPUTED, AppOutcome, summarize
from scorers.cflue.reference import check_profile

SPLIT = "test"
BENCHMARK = "cflue_application"
LEAF_METRICS: dict[str, tuple[str, ...]] = {
    "classification": ("accuracy", "label_only"),
    "translation": ("bleu_en2zh", "bleu_zh2en", "comet_en2zh", "comet_zh2en"),
    "extraction": ("f1",),
    "reading_comprehension": ("rouge_l",),
    "generation": ("rouge_l", "bertscore"),
}
"""The metric keys of each leaf, as ``summarize`` names them per task (translation: per direction)."""


def _names(value: Any) -> list[str] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value]


def load_application_docs(cflue_app_task: str, cflue_app_path: str | None = None, cflue_app_sub_tasks: Any = None,
                          cflue_app_comet: str | None = None, cflue_app_bertscore: str | None = None,
                          cflue_app_run: dict | None = None, cflue_app_profile: str = "default", **_: Any) -> dict:
    """``{"test": datasets.Dataset}`` of one task type; fills ``cflue_app_run`` (the leaf's YAML metadata) in
    place, so the run's record (source, invalid records, metric models) lands in the results file."""
    import datasets

    cflue_app_profile = check_profile(cflue_app_profile)
    app.check_metric_models(cflue_app_comet, cflue_app_bertscore)
    source = app.load_source(cflue_app_path, tasks=[cflue_app_task], sub_tasks=_names(cflue_app_sub_tasks))
    rows = [{**doc_of(r, cflue_app_comet, cflue_app_bertscore), "profile": cflue_app_profile} for r in source.records]
    if cflue_app_run is not None:
        cflue_app_run.update(app.run_info(source, cflue_app_comet, cflue_app_bertscore, cflue_app_profile))
    return {SPLIT: datasets.Dataset.from_list(rows)}


def doc_of(record: app.ApplicationRecord, comet: str | None = None, bertscore: str | None = None) -> dict[str, Any]:
    """One record as a document (the gold output as JSON text: arrow needs one type per column)."""
    return {"benchmark": BENCHMARK, "id": record.id, "index": record.index, "task": record.task,
            "task_slug": record.task_slug, "sub_task": record.sub_task,
            "prompt": app.history_text(record) + record.prompt, "output": json.dumps(record.output, ensure_ascii=False),
            "reference": app.reference_text(record.output), "source": record.source,
            "comet": comet or "", "bertscore": bertscore or ""}


def process_results(doc: dict, results: list[str]) -> dict[str, Any]:
    """The same row under every metric key of the leaf; the aggregations compute the corpus metrics."""
    row = (doc["task_slug"], doc["sub_task"], doc["output"], results[0] or "", doc["source"], doc["comet"],
           doc["bertscore"], doc.get("profile") or "default")
    return dict.fromkeys(LEAF_METRICS[doc["task_slug"]], row)


def _summary(items: Sequence[Sequence[str]]) -> dict[str, Any]:
    comet, bertscore = (items[0][5] or None, items[0][6] or None) if items else (None, None)
    comet_model, bert_model = app.metric_models(comet, bertscore)
    rows = [AppOutcome(t, s, json.loads(out), pred, src) for t, s, out, pred, src, *_ in items]
    profile = items[0][7] if items and len(items[0]) > 7 else "default"
    return summarize(rows, comet=comet_model, bertscore=bert_model, profile=profile)


def _value(items: Sequence[Sequence[str]], key: str) -> float:
    """One metric of the leaf's task from the shared summary; NaN when not computed or when the leaf has no
    record it applies to (a translation direction not run): lm-eval needs numbers, and 0 would be a score."""
    if not items:
        return math.nan
    value = _summary(items)["by_task"][items[0][0]].get(key, NOT_COMPUTED)
    return math.nan if value == NOT_COMPUTED else float(value)


def accuracy(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "accuracy")


def label_only(items: Sequence[Sequence[str]]) -> float:
    """Adherence to "output only the label" (classification), beside accuracy, never folded into it."""
    return _value(items, "label_only")


def bleu_en2zh(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "bleu_en2zh")


def bleu_zh2en(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "bleu_zh2en")


def comet_en2zh(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "comet_en2zh")


def comet_zh2en(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "comet_zh2en")


def f1(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "f1")


def rouge_l(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "rouge_l")


def bertscore(items: Sequence[Sequence[str]]) -> float:
    return _value(items, "bertscore")


WRONG_REPLY = "我不知道"
"""What ``finchain-oracle mode=wrong`` answers: no label, no item, no overlap with a Chinese reference."""


def oracle_reply(doc: dict, mode: str) -> str:
    """What ``finchain-oracle`` answers to a CFLUE application document: the gold output as text (``gold``:
    every computed metric is 100), a non-answer (``wrong``), or nothing (``empty``)."""
    if mode not in ("gold", "wrong", "empty"):
        raise ValueError(f"finchain-oracle: mode must be one of ('gold', 'wrong', 'empty'), got {mode!r}")
    return {"gold": doc["reference"], "wrong": WRONG_REPLY, "empty": ""}[mode]
