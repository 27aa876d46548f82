"""Harness-independent scoring for FinChain and CFLUE.

Nothing here imports ``finchain_tasks``, lm-eval or Inspect; heavy dependencies (numba, torch,
sentence-transformers) load lazily inside the functions that need them.
"""

from scorers.records import GoldSolution, GoldStep, Value

__all__ = ["GoldSolution", "GoldStep", "Value"]
