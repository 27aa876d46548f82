"""The ``finchain_authors`` leaf's YAML (``python -m finchain_tasks.lm_eval.build`` writes it).

The leaf is a FinChain leaf in everything but its documents: the same prompt, stop sequences, token
budget, scoring filter and metrics (taken from the FinChain leaf config, one source), with the authors'
test set as ``custom_dataset`` and no domain/level slice. It belongs to no group: its instances are not
FinChain's generated problems, so no aggregate mixes the two.
"""

from __future__ import annotations

from collections.abc import Callable

from finchain_tasks.lm_eval.authors import LEAF

FOLDER = "authors"
LOADER = "finchain_tasks.lm_eval.authors.load_authors"


def configs(finchain_leaf: Callable[[str, str, str], dict], function: Callable[[str], str]) -> dict[str, dict]:
    """Relative path -> config of the leaf, from ``finchain_leaf(name, domain, level)`` (build.leaf_config)."""
    cfg = finchain_leaf(LEAF, "", "")
    cfg.pop("dataset_kwargs")
    cfg["custom_dataset"] = function(LOADER)
    return {f"{FOLDER}/{LEAF}.yaml": cfg}
