"""The CFLUE application part of the lm-eval task YAML (``python -m finchain_tasks.lm_eval.build`` writes it).

``cflue_application`` groups one leaf per task type, so each record counts once. Every value comes from
the core: the task slugs from ``scorers.cflue.application``, the metric keys and aggregations from
:mod:`finchain_tasks.lm_eval.cflue_application`, the token budget and version from the loader module. The
group has no aggregate of its own: the leaves' metrics differ (accuracy, BLEU, F1, ROUGE-L), and the CFLUE
table's average is the mean of its columns, not a size-weighted mean of leaves.
"""

from __future__ import annotations

from collections.abc import Callable

from finchain_tasks.cflue.application import MAX_NEW_TOKENS, TASK_VERSION
from finchain_tasks.lm_eval.cflue_application import BENCHMARK, LEAF_METRICS
from scorers.cflue.application import TASKS

GROUP = BENCHMARK
FOLDER = "cflue_application"
MODULE = "finchain_tasks.lm_eval.cflue_application"


def leaves() -> dict[str, str]:
    """Leaf task name -> task slug, in the official order of the tasks."""
    return {f"{GROUP}_{slug}": slug for slug in TASKS.values()}


def leaf_config(name: str, slug: str, function: Callable[[str], str]) -> dict:
    return {
        "task": name,
        "custom_dataset": function(f"{MODULE}.load_application_docs"),
        "dataset_kwargs": {"cflue_app_task": slug},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": "prompt",
        "doc_to_target": "reference",
        "num_fewshot": 0,
        "repeats": 1,
        "generation_kwargs": {"until": [], "max_gen_toks": MAX_NEW_TOKENS, "do_sample": False},
        "process_results": function(f"{MODULE}.process_results"),
        "metric_list": [{"metric": m, "aggregation": function(f"{MODULE}.{m}"), "higher_is_better": True}
                        for m in LEAF_METRICS[slug]],
        "metadata": {"version": TASK_VERSION, "cflue_app_run": {}},
    }


def group_config() -> dict:
    return {"group": GROUP, "task": list(leaves()), "metadata": {"version": TASK_VERSION}}


def configs(function: Callable[[str], str]) -> dict[str, dict]:
    """Relative path -> config of every CFLUE application YAML file (``function`` marks ``!function`` values)."""
    out = {f"{FOLDER}/{GROUP}.yaml": group_config()}
    out.update({f"{FOLDER}/{name}.yaml": leaf_config(name, slug, function) for name, slug in leaves().items()})
    return out
