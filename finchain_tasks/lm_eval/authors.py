"""The lm-eval leaf ``finchain_authors``: the FinChain authors' 2,700 test instances with their gold text.

Their repository has no licence, so nothing of it is shipped: the loader reads it from the directory
given as ``--metadata '{"authors_path": DIR}'``, else ``$FINCHAIN_AUTHORS_DIR`` (the same rule as
Inspect's ``-T authors_path``, one function: :func:`finchain_tasks.reproduce.authors.authors_dir`).

Their gold exists only as text, so every document is scored on ChainEval's text-gold path: gold steps
are parsed from the solution, the final answer is read by ``scorers/text_gold.py`` with the question
telling it which unit is asked for. The default profile is therefore ``reference``; ``paper`` may be
chosen (``finchain_profile``) but cannot check units and rounding the way a structured gold allows.
An instance whose solution is missing or has no step to score against is left out and counted in
the run record (``finchain_run``), never scored 0. Scoring, prompts and options are the FinChain
leaves' own (:mod:`finchain_tasks.lm_eval.dataset`, :mod:`finchain_tasks.lm_eval.scoring`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from finchain_tasks.lm_eval.dataset import PROMPT_VARIANTS, SPLIT, _chaineval_params, _prompt_fields

DEFAULT_PROFILE = "reference"
"""Text gold only: the official script's path (see the module docstring)."""
LEAF = "finchain_authors"
METADATA_HINT = "--metadata '{\"authors_path\": DIR}'"


def authors_docs(root: Path, params, prompt: str, sample_seed: int = 0) -> tuple[list[dict[str, Any]], list[str]]:
    """Documents for every test instance that has gold steps, in the stratified order (so that
    ``--limit N`` spreads over templates), and the ids of those left out with why."""
    from finchain_tasks.finchain.sampling import stratified_order, template_id_of
    from finchain_tasks.reproduce.authors import authors_problems
    from scorers.rows import RowError, gold_of

    extra = {"chaineval_params": json.dumps(params.to_dict(), sort_keys=True), "prompt_variant": prompt}
    docs, skipped = [], []
    for r in authors_problems(root):
        try:
            gold = gold_of(r)
        except RowError as err:
            skipped.append(f"{r['id']}: {err}")
            continue
        docs.append({"id": r["id"], "source": r["source"], "domain": r["domain"], "topic": r["topic"],
                     "template": r["template"], "seed": str(r["seed"]), "level": r["level"],
                     "question": r["question"], "solution": r["solution"], "answer": json.dumps(gold.answer),
                     **_prompt_fields(r["question"], prompt), **extra})
    order = stratified_order(docs, lambda d: (d["domain"], d["level"], template_id_of(d["id"])), sample_seed)
    return order, skipped


def load_authors(authors_path: str | None = None, finchain_profile: str = DEFAULT_PROFILE,
                 finchain_chaineval: dict | None = None, finchain_prompt: str = "chat",
                 finchain_run: dict | None = None, finchain_sample_seed: int = 0, **_: Any) -> dict:
    """``{"test": datasets.Dataset}`` of their instances; fills ``finchain_run`` with where they came
    from and what was left out (lm-eval prints it under ``configs.finchain_authors.metadata``)."""
    import datasets

    from finchain_tasks.reproduce.authors import authors_dir

    if finchain_prompt not in PROMPT_VARIANTS:
        raise ValueError(f"finchain_prompt must be one of {PROMPT_VARIANTS}, got {finchain_prompt!r}")
    root = authors_dir(authors_path, METADATA_HINT)
    params = _chaineval_params(finchain_profile, finchain_chaineval)
    docs, skipped = authors_docs(root, params, finchain_prompt, int(finchain_sample_seed))
    if not docs:
        raise ValueError(f"{root}: no test instance with a gold solution under data/testset/")
    if finchain_run is not None:
        finchain_run.update(run_info(root, params, finchain_prompt, len(docs), skipped))
    return {SPLIT: datasets.Dataset.from_list(docs)}


def run_info(root: Path, params, prompt: str, n: int, skipped: list[str]) -> dict[str, Any]:
    """What makes a result comparable: versions, the data's folder, prompt, ChainEval parameters, embedder,
    and the instances left out (with why)."""
    import finchain_tasks
    from finchain_tasks.finchain.versioning import task_version
    from scorers.embeddings import shared_embedder

    return {"package_version": finchain_tasks.__version__, "task_version": task_version(),
            "source": "finchain-authors", "authors_path": str(root), "n_instances": n,
            "skipped": skipped, "prompt_variant": prompt, "chaineval": params.to_dict(),
            "embedder": shared_embedder(params.embedding_model).info}
