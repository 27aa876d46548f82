"""CFLUE knowledge questions as lm-eval tasks: dataset, Best-of-N filter, per-document results, aggregations.

One leaf task per question type (``cflue_single_choice``, ``cflue_multiple_choice``,
``cflue_true_false``) under the group ``cflue``. Options come from ``--metadata`` (namespaced, since
lm-eval hands every metadata and model_args key to the dataset function):

- ``cflue_path``: the CFLUE JSON/JSONL file (else ``$CFLUE_PATH``, else the shipped 40-question sample);
- ``cflue_exams``: keep only these exams (a list, or comma-separated text);
- ``cflue_prompt``: ``zero_shot`` (official format) or ``cot`` (analysis first, answer last);
- ``cflue_profile``: ``default`` (answers read as a reader would) or ``reference`` (the CFLUE authors' extraction
  and metrics, bugs included: the figures to set beside the paper's);
- ``cflue_extract``: the profile's reading unless named (``robust`` for default; ``strict`` may be named);
- ``cflue_n``: Best-of-N size; N samples per question, reduced by majority vote (with
  ``cflue_temperature``, default 0.7, when ``--gen_kwargs`` sets none);
- ``cflue_analysis``: also score BLEU-1/4 and ROUGE-1/2/L of the analysis (needs jieba).

``repeats`` and the generation settings are task configuration, not metadata, so the leaves use
:class:`CflueTask` (lm-eval's ``class:`` route) to set them from the metadata before requests exist.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from lm_eval.api.filter import Filter
from lm_eval.api.task import ConfigurableTask

from finchain_tasks.cflue import hosts
from scorers.cflue import metrics

SPLIT = "test"
BENCHMARK = "cflue"
ORACLE_MODES = ("gold", "wrong", "empty")


def _truthy(value: Any) -> bool:
    """``--metadata`` gives JSON booleans; ``key=value`` text gives 'true'."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "y", "on")
    return bool(value)


def _names(value: str | Iterable[str] | None) -> list[str] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value]


def load_cflue_docs(cflue_type: str, cflue_path: str | None = None, cflue_exams: Any = None,
                    cflue_prompt: str = "zero_shot", cflue_extract: str = hosts.DEFAULT_EXTRACT, cflue_n: Any = 1,
                    cflue_analysis: Any = False, cflue_run: dict | None = None,
                    cflue_profile: str = hosts.DEFAULT_PROFILE, **_: Any) -> dict:
    """``{"test": datasets.Dataset}`` of one question type; fills ``cflue_run`` in place.

    ``cflue_run`` is the empty mapping each leaf's YAML metadata carries: filling it puts the run's
    record (source, invalid records, prompt, extraction mode, N) under
    ``configs.<task>.metadata.cflue_run`` of the results, with plain ``lm_eval`` too.
    """
    import datasets

    cflue_profile = hosts.check_profile(cflue_profile)
    n = hosts.check_options(cflue_prompt, cflue_extract, cflue_n, cflue_profile)
    extract = hosts.resolve_extract(cflue_extract, cflue_profile)
    analysis = _truthy(cflue_analysis)
    source = hosts.load_source(cflue_path, types=[cflue_type], exams=_names(cflue_exams))
    rows = [{**doc_of(r, cflue_prompt, extract, analysis), "profile": cflue_profile} for r in source.records]
    if cflue_run is not None:
        cflue_run.update(hosts.run_info(source, cflue_prompt, extract, n, analysis, cflue_profile))
    return {SPLIT: datasets.Dataset.from_list(rows)}


def doc_of(record, prompt: str, extract: str, analysis: bool) -> dict[str, Any]:
    """One record as an lm-eval document (choices as JSON text: arrow needs one type per column)."""
    system, user = hosts.messages(record, prompt)
    return {"benchmark": BENCHMARK, "id": record.id, "index": record.index, "exam": record.exam,
            "type": record.task, "type_slug": record.type_slug, "question": record.question,
            "choices": json.dumps(record.choices, ensure_ascii=False), "valid_letters": record.valid_letters,
            "answer": record.answer, "analysis": record.analysis, "system": system, "prompt": user,
            "prompt_variant": prompt, "extract_mode": extract, "analysis_metrics": analysis}


class CflueTask(ConfigurableTask):
    """A leaf whose ``repeats`` (Best-of-N) and generation settings follow the ``cflue_*`` metadata."""

    def __init__(self, data_dir=None, cache_dir=None, download_mode=None, config: dict | None = None) -> None:
        super().__init__(data_dir, cache_dir, download_mode, config=configure(dict(config or {})))


def configure(config: dict[str, Any]) -> dict[str, Any]:
    """The leaf's config with N, sampling and the token budget of the prompt variant applied."""
    config.pop("class", None)  # lm-eval's factory key, not a TaskConfig field
    meta = config.get("metadata") or {}
    prompt = meta.get("cflue_prompt", "zero_shot")
    n = hosts.check_options(prompt, meta.get("cflue_extract", hosts.DEFAULT_EXTRACT), meta.get("cflue_n", 1),
                            meta.get("cflue_profile", hosts.DEFAULT_PROFILE))
    gen = dict(config.get("generation_kwargs") or {})
    gen["max_gen_toks"] = hosts.max_new_tokens(prompt)
    if n > 1:  # N greedy answers would be N copies of one; --gen_kwargs still overrides these
        gen["do_sample"] = True
        gen["temperature"] = float(meta.get("cflue_temperature", hosts.DEFAULT_BON_TEMPERATURE))
    config["repeats"], config["generation_kwargs"] = n, gen
    return config


class CflueVoteFilter(Filter):
    """Keep one of each document's N responses by majority vote (N = 1: the only one).

    The result is JSON text, which the samples log shows as ``filtered_resps``: the kept answer,
    which response carried it, and every response's extracted answer.
    """

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[str]:
        return [json.dumps(pick(r, doc), ensure_ascii=False) for r, doc in zip(resps, docs)]


def pick(resps: Sequence[str] | str | None, doc: dict) -> dict[str, Any]:
    responses = [resps] if isinstance(resps, str) else [r if isinstance(r, str) else "" for r in (resps or [])]
    if not responses:
        return {"pred": hosts.INVALID, "chosen": None, "answers": [], "response": ""}
    index, answers = hosts.vote(doc["id"], responses, json.loads(doc["choices"]), doc["extract_mode"])
    return {"pred": answers[index], "chosen": index, "answers": answers, "response": responses[index]}


def process_results(doc: dict, results: list[str]) -> dict[str, Any]:
    """Per-document values: numbers for the means, ``(gold, pred)`` for the corpus-level weighted F1."""
    picked = json.loads(results[0])
    gold, pred = doc["answer"], picked["pred"]
    out: dict[str, Any] = {"accuracy": float(pred == gold), "weighted_f1": (gold, pred),
                           "invalid_rate": float(pred == hosts.INVALID)}
    if doc.get("analysis_metrics") and doc.get("profile") == "reference":  # corpus metrics: the pair, for later
        pair = None if doc.get("analysis") is None else (doc["analysis"], picked["response"])
        out.update({key: (None if pair is None else (key, *pair)) for key in metrics.ANALYSIS_KEYS})
    elif doc.get("analysis_metrics"):
        scores = hosts.analysis_scores(doc.get("analysis"), picked["response"])
        out.update({key: (scores[key] if scores else None) for key in metrics.ANALYSIS_KEYS})
    return out


def weighted_f1(items: Sequence[Sequence[str]]) -> float:
    """The aggregation of ``weighted_f1``: one F1 over every ``(gold, pred)`` of the task at once
    (a mean of per-document values would not be an F1)."""
    golds, preds = [g for g, _ in items], [p for _, p in items]
    return metrics.weighted_f1(golds, preds)


def mean_scored(items: Sequence[Any]) -> float:
    """Mean over the documents that have a reference analysis (None: no reference, skipped). Under the
    ``reference`` profile each item is ``(metric, reference, response)``: the authors' corpus metric of all pairs."""
    scored = [v for v in items if v is not None]
    if scored and isinstance(scored[0], (tuple, list)):
        return hosts.analysis_reference([(ref, resp) for _, ref, resp in scored])[scored[0][0]]
    return sum(scored) / len(scored) if scored else math.nan


def oracle_reply(doc: dict, mode: str) -> str:
    """What ``finchain-oracle`` answers to a CFLUE document: the gold letters, a wrong option, or nothing."""
    if mode not in ORACLE_MODES:
        raise ValueError(f"finchain-oracle: mode must be one of {ORACLE_MODES}, got {mode!r}")
    if mode == "empty":
        return ""
    letters = doc["answer"] if mode == "gold" else next(x for x in doc["valid_letters"] if x != doc["answer"])
    analysis = doc.get("analysis") or ""
    if doc.get("prompt_variant") == "cot":
        return f"解析：{analysis}\n答案：{letters}"
    return f"答案：{letters}\n解析：{analysis}"
