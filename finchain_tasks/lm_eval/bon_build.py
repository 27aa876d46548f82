"""The ``finchain_bon`` part of the lm-eval task YAML (``python -m finchain_tasks.lm_eval.build`` writes it)."""

from __future__ import annotations

from collections.abc import Callable

from finchain_tasks import prompts
from scorers.prm.pool import value_keys

TASK = "finchain_bon"
FOLDER = "bon"
MODULE = "finchain_tasks.lm_eval.bon"
FILTER_NAME = "bon"
REPEATS = 16
TEMPERATURE = 0.7


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
    return {f"{FOLDER}/{TASK}.yaml": config}
