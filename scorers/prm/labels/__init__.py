"""Fin-PRM training labels (host-free): signals, the paper's fusion, exact FinChain signals, recipes.

* :mod:`.signals`: :class:`LabelItem` and the signal protocols (importance, qualitative, accuracy, concepts).
* :mod:`.fusion`: softmax fusion, thresholds, r_traj = r_out + η · r_cover.
* :mod:`.exact`: ChainEval + ``calc`` step verdicts for FinChain problems.
* :mod:`.recipe`: the ``exact`` and ``fused`` recipes and the summary.
* deterministic signals for tests live in ``tests/support/prm_label_fakes.py``.
Model-backed signals (litellm, disk cache, cost) live in ``finchain_tasks.prm.labeling``.
"""

from scorers.prm.labels.recipe import RECIPES, FusedSignals, TraceLabels, answer_matches, label_items, summarise
from scorers.prm.labels.signals import LabelItem, Unknown

__all__ = ["RECIPES", "FusedSignals", "LabelItem", "TraceLabels", "Unknown", "answer_matches", "label_items",
           "summarise"]
