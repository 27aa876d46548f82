"""FinChain as lm-evaluation-harness tasks, scored by ChainEval.

Importing this package is cheap (no lm-eval, no torch): it only says where the task YAML lives.
The pieces lm-eval loads by module path are ``dataset`` (problems generated in process),
``scoring`` (one batched ChainEval call per task) and ``models`` (the ``finchain-oracle`` self-check
backend); ``build`` writes the YAML from the template registry and ``cli`` is ``finchain-lm-eval``.
"""

from __future__ import annotations

from pathlib import Path

from finchain_tasks.lm_eval import quiet

quiet.install()  # every task module lm-eval loads by path imports this package first

TASKS_DIR: str = str(Path(__file__).resolve().with_name("tasks"))
"""The folder to pass to ``lm_eval --include_path``; also the ``lm_eval.tasks`` entry point."""


def include_path() -> str:
    """The task folder, as ``finchain paths lm-eval`` prints it."""
    return TASKS_DIR
