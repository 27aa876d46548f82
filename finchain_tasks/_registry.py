"""Inspect's entry point (``[project.entry-points.inspect_ai]``): registers tasks, scorer, provider.

Inspect imports this module on every run of every user that has the package installed, so it
imports only Inspect itself and our thin adapters: torch, sentence-transformers, numba, litellm
and lm-eval load later, inside the functions that need them (a test checks this).
"""

from finchain_tasks.inspect.alias import register_bare_names
from finchain_tasks.inspect.cflue import cflue, cflue_scorer, majority_vote
from finchain_tasks.inspect.litellm_provider import litellm_api
from finchain_tasks.inspect.scorer import chaineval
from finchain_tasks.inspect.tasks import finchain

__all__ = ["cflue", "cflue_scorer", "chaineval", "finchain", "litellm_api", "majority_vote"]

register_bare_names()
