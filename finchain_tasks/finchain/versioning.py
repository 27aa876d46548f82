"""The task version: it must change whenever scores stop being comparable.

Scores stay comparable while the canonical problems, the prompts and ChainEval's defaults stay
the same. :func:`fingerprint` hashes exactly those; ``data/task_version.yaml`` records the version
with the fingerprint it was released at, and a test fails when they disagree, so nobody can change
a template, a prompt or a default without bumping the version (as inspect_evals does with eval.yaml).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources

import yaml


@lru_cache(maxsize=1)
def fingerprint() -> str:
    from finchain_tasks.engine import all_templates
    from finchain_tasks.finchain import prompts
    from finchain_tasks.finchain.generate import CANONICAL_SEEDS
    from scorers.params import PROFILES

    h = hashlib.sha256()
    for tpl in all_templates().values():
        for seed in CANONICAL_SEEDS:
            row = tpl.generate(seed).to_dict()
            h.update(json.dumps([row["id"], row["question"], row["solution"], row["level"]]).encode())
    h.update(json.dumps([prompts.SYSTEM_PROMPT, prompts.USER_TEMPLATE, prompts.COMPLETION_TEMPLATE]).encode())
    h.update(json.dumps({k: v.to_dict() for k, v in PROFILES.items()}, sort_keys=True).encode())
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def recorded() -> dict:
    text = resources.files("finchain_tasks.data").joinpath("task_version.yaml").read_text("utf-8")
    return yaml.safe_load(text)


def task_version() -> str:
    """E.g. ``"1.0.0"``: the released version of the FinChain task definition."""
    return str(recorded()["version"])
