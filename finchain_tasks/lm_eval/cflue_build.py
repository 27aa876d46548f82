"""The CFLUE part of the lm-eval task YAML (``python -m finchain_tasks.lm_eval.build`` writes it).

``cflue`` groups one leaf per question type, so each question counts once and the group row is the
size-weighted mean of its leaves. Every value comes from the CFLUE core: the question types from the
loader, the generation settings from the prompts, the metric names from ``scorers.cflue.metrics``.
The group's ``weighted_f1`` is the size-weighted mean of the leaves' F1 (lm-eval aggregates groups
from leaf results only); each leaf's own ``weighted_f1`` is one F1 over all its questions.
"""

from __future__ import annotations

from collections.abc import Callable

from finchain_tasks.cflue import prompts
from finchain_tasks.cflue.hosts import TASK_VERSION
from finchain_tasks.cflue.loader import QUESTION_TYPES
from scorers.cflue.metrics import ANALYSIS_KEYS

GROUP = "cflue"
FOLDER = "cflue"
MODULE = "finchain_tasks.lm_eval.cflue"
FILTER_NAME = "none"
ANSWER_METRICS = (("accuracy", "mean", True), ("weighted_f1", "weighted_f1", True), ("invalid_rate", "mean", False))
"""(metric, aggregation: lm-eval's name or a function of MODULE, higher is better)."""


def leaves() -> dict[str, str]:
    """Leaf task name -> question-type slug, in the loader's order."""
    return {f"{GROUP}_{slug}": slug for slug in QUESTION_TYPES.values()}


def _metric_list(function: Callable[[str], str]) -> list[dict]:
    rows = [(m, agg, hib) for m, agg, hib in ANSWER_METRICS]
    rows += [(key, "mean_scored", True) for key in ANALYSIS_KEYS]  # reported only with cflue_analysis
    return [{"metric": m, "aggregation": agg if agg == "mean" else function(f"{MODULE}.{agg}"), "higher_is_better": hib}
            for m, agg, hib in rows]


def leaf_config(name: str, slug: str, function: Callable[[str], str]) -> dict:
    return {
        "task": name,
        "class": function(f"{MODULE}.CflueTask"),
        "custom_dataset": function(f"{MODULE}.load_cflue_docs"),
        "dataset_kwargs": {"cflue_type": slug},
        "test_split": "test",
        "output_type": "generate_until",
        "description": "system",
        "doc_to_text": "prompt",
        "doc_to_target": "answer",
        "num_fewshot": 0,
        "repeats": 1,
        "generation_kwargs": {"until": list(prompts.STOP_SEQUENCES), "max_gen_toks": prompts.MAX_NEW_TOKENS,
                              "do_sample": False},
        "filter_list": [{"name": FILTER_NAME, "filter": [{"function": function(f"{MODULE}.CflueVoteFilter")}]}],
        "process_results": function(f"{MODULE}.process_results"),
        "metric_list": _metric_list(function),
        "metadata": {"version": TASK_VERSION, "cflue_run": {}},
    }


def group_config() -> dict:
    return {
        "group": GROUP,
        "task": list(leaves()),
        "aggregate_metric_list": [{"metric": m, "aggregation": "mean", "weight_by_size": True,
                                   "filter_list": [FILTER_NAME]} for m, _, _ in ANSWER_METRICS],
        "metadata": {"version": TASK_VERSION},
    }


def configs(function: Callable[[str], str]) -> dict[str, dict]:
    """Relative path -> config of every CFLUE YAML file; ``function`` marks a value the build's
    dumper writes as ``!function module.attr``."""
    out = {f"{FOLDER}/{GROUP}.yaml": group_config()}
    out.update({f"{FOLDER}/{name}.yaml": leaf_config(name, slug, function) for name, slug in leaves().items()})
    return out
