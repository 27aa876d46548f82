"""The ``custom_dataset`` of every FinChain leaf task: problems generated in process, no download.

lm-eval 0.4.13 calls the function with the task's metadata, ``--metadata`` and every ``--model_args``
entry as keyword arguments, plus the leaf's ``dataset_kwargs`` (its domain and level). Our options
are therefore namespaced (``finchain_*``) and anything else is ignored through ``**_``:

- ``finchain_seeds`` (10), ``finchain_start_seed`` (0), ``finchain_fresh`` (false): which seeds;
  the default is the canonical split, fresh seeds are a contamination probe;
- ``finchain_profile`` (``paper``) and ``finchain_chaineval`` (a dict of parameter overrides): how
  ChainEval scores; they travel on each document so the scoring filter, which sees only documents
  and responses, applies them;
- ``finchain_sample_seed`` (0): the seed of the documents' stratified order
  (:mod:`finchain_tasks.finchain.sampling`), so lm-eval's ``--limit N`` (per leaf) takes N problems spread over
  the leaf's templates, not N seeds of its first template;
- ``finchain_prompt``: ``chat`` (system prompt + question, for ``--apply_chat_template``) or
  ``completion`` (one plain-text prompt primed with "Step 1:", for base models).
"""

from __future__ import annotations

import json
from typing import Any

import finchain_tasks
from finchain_tasks.engine import select
from finchain_tasks.finchain import prompts
from finchain_tasks.finchain.generate import CANONICAL_SEEDS, check_size, iter_problems, seed_list, to_hf_dataset
from finchain_tasks.finchain.sampling import record, stratified_order, template_id_of

DEFAULT_PROFILE = "paper"
PROMPT_VARIANTS = ("chat", "completion")
SPLIT = "test"


def load_finchain(finchain_domain: str, finchain_level: str, finchain_seeds: int = len(CANONICAL_SEEDS),
                  finchain_start_seed: int = 0, finchain_fresh: bool | str = False,
                  finchain_profile: str = DEFAULT_PROFILE, finchain_chaineval: dict | None = None,
                  finchain_prompt: str = "chat", finchain_run: dict | None = None, finchain_sample_seed: int = 0,
                  **_: Any) -> dict:
    """``{"test": datasets.Dataset}`` of one domain x level; fills ``finchain_run`` (see below)."""
    if finchain_prompt not in PROMPT_VARIANTS:
        raise ValueError(f"finchain_prompt must be one of {PROMPT_VARIANTS}, got {finchain_prompt!r}")
    params = _chaineval_params(finchain_profile, finchain_chaineval)
    templates = select(domains=[finchain_domain], levels=[finchain_level])
    if not templates:
        raise ValueError(f"no FinChain templates for domain {finchain_domain!r} at level {finchain_level!r}")
    seeds = seed_list(int(finchain_seeds), int(finchain_start_seed), _truthy(finchain_fresh), len(templates))
    check_size(len(templates), len(seeds))
    extra = {"chaineval_params": json.dumps(params.to_dict(), sort_keys=True), "prompt_variant": finchain_prompt}
    problems = stratified_order(list(iter_problems(templates, seeds)),
                                lambda p: (p.domain, p.level, template_id_of(p.id)), int(finchain_sample_seed))
    rows = [{**p.to_dict(), **_prompt_fields(p.question, finchain_prompt), **extra} for p in problems]
    if finchain_run is not None:
        finchain_run.update(run_info(params, finchain_prompt, seeds, _truthy(finchain_fresh)),
                            sample_order=record(int(finchain_sample_seed)))
    return {SPLIT: to_hf_dataset(rows)}


def _prompt_fields(question: str, variant: str) -> dict[str, str]:
    """``system`` feeds the task's ``description`` (a system message under a chat template),
    ``prompt`` its ``doc_to_text``; ``response_prefix`` is what the prompt already wrote of the answer
    (the completion prompt ends with "Step 1:"), which the scorer puts back in front of the reply."""
    if variant == "chat":
        messages = prompts.chat_messages(question)
        return {"system": messages[0]["content"], "prompt": messages[1]["content"], "response_prefix": ""}
    text = prompts.completion_prompt(question)
    return {"system": "", "prompt": text, "response_prefix": text.rsplit("\n", 1)[-1]}


def _chaineval_params(profile: str, overrides: dict | None):
    from scorers.params import resolve

    if overrides is not None and not isinstance(overrides, dict):
        raise ValueError("finchain_chaineval must be a JSON object of ChainEval parameters, "
                         f"e.g. --metadata '{{\"finchain_chaineval\": {{\"step_tol\": 0.1}}}}'; got {overrides!r}")
    return resolve(profile, **(overrides or {}))


def _truthy(value: bool | str | int) -> bool:
    """``--metadata`` gives JSON booleans, ``--model_args`` may give the text 'true'."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "y")
    return bool(value)


def run_info(params, prompt_variant: str, seeds: list[int], fresh: bool) -> dict[str, Any]:
    """What a result needs to be comparable: versions, prompt, seeds, ChainEval parameters, embedder.

    lm-eval 0.4.13 has no hook for a task to add information to its results, but the values of the
    metadata mapping reach this function by reference and that mapping is what ``results["configs"]``
    prints: each leaf's YAML carries an empty ``finchain_run: {}`` that we fill in place, so the
    record appears under ``configs.<task>.metadata.finchain_run`` with plain ``lm_eval`` too.
    """
    from finchain_tasks.finchain.versioning import task_version
    from scorers.embeddings import shared_embedder

    return {
        "package_version": finchain_tasks.__version__,
        "task_version": task_version(),
        "prompt_variant": prompt_variant,
        "seeds": seeds if fresh else {"count": len(seeds), "start": seeds[0] if seeds else None},
        "fresh_seeds": fresh,
        "chaineval": params.to_dict(),
        "embedder": shared_embedder(params.embedding_model).info,
    }
