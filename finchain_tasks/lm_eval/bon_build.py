"""The Best-of-N part of the lm-eval task YAML, ``finchain_bon`` and ``cflue_bon``
(``python -m finchain_tasks.lm_eval.build`` writes it)."""

from __future__ import annotations

from collections.abc import Callable

from finchain_tasks.finchain import prompts
from scorers.prm.pool import value_keys

TASK = "finchain_bon"
FOLDER = "bon"
MODULE = "finchain_tasks.lm_eval.bon"
FILTER_NAME = "bon"
REPEATS = 16
TEMPERATURE = 0.7
CFLUE_TASK = "cflue_bon"
CFLUE_MODULE = "finchain_tasks.lm_eval.bon_cflue"
CFLUE_REPEATS = 16
"""The default N of ``cflue_bon`` (``cflue_n`` in the metadata changes it; the task class applies it)."""


def configs(function: Callable[[str], str], version: str) -> dict[str, dict]:
    """Relative path -> config; ``function`` marks ``!function`` values."""
    config = {
        "task": TASK,
        "custom_dataset": function(f"{MODULE}.load_bon"),
        "test_split": "test",
        "output_type": "generate_until",
        "description": "system",
        "doc_to_text": "prompt",
        "doc_to_target": "solution",
        "num_fewshot": 0,
        "repeats": REPEATS,
        "generation_kwargs": {"until": list(prompts.STOP_SEQUENCES), "max_gen_toks": prompts.MAX_NEW_TOKENS,
                              "do_sample": True, "temperature": TEMPERATURE},
        "filter_list": [{"name": FILTER_NAME, "filter": [{"function": function(f"{MODULE}.BoNFilter")}]}],
        "process_results": function(f"{MODULE}.process_results"),
        "metric_list": [{"metric": m, "aggregation": "mean", "higher_is_better": True} for m in value_keys(True)],
        "metadata": {"version": version},
    }
    return {f"{FOLDER}/{TASK}.yaml": config, f"{FOLDER}/{CFLUE_TASK}.yaml": cflue_config(function)}


def cflue_config(function: Callable[[str], str]) -> dict:
    """``cflue_bon``: every CFLUE question, N candidates each, graded by letters, PRM-scored and selected.
    N, the temperature and the token budget shown here are defaults the task class sets from the metadata."""
    from finchain_tasks.cflue import prompts as cflue_prompts
    from finchain_tasks.cflue.hosts import DEFAULT_BON_TEMPERATURE, TASK_VERSION

    return {
        "task": CFLUE_TASK,
        "class": function(f"{CFLUE_MODULE}.CflueBoNTask"),
        "custom_dataset": function(f"{CFLUE_MODULE}.load_cflue_bon"),
        "test_split": "test",
        "output_type": "generate_until",
        "description": "system",
        "doc_to_text": "prompt",
        "doc_to_target": "answer",
        "num_fewshot": 0,
        "repeats": CFLUE_REPEATS,
        "generation_kwargs": {"until": list(cflue_prompts.STOP_SEQUENCES), "max_gen_toks": cflue_prompts.MAX_NEW_TOKENS,
                              "do_sample": True, "temperature": DEFAULT_BON_TEMPERATURE},
        "filter_list": [{"name": FILTER_NAME, "filter": [{"function": function(f"{CFLUE_MODULE}.CflueBoNFilter")}]}],
        "process_results": function(f"{CFLUE_MODULE}.process_results"),
        "metric_list": [{"metric": m, "aggregation": "mean", "higher_is_better": True} for m in value_keys(False)],
        "metadata": {"version": TASK_VERSION, "cflue_run": {}},
    }
