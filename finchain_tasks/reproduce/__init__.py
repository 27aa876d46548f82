"""Reproducing the FinChain paper from the authors' own files: :mod:`.authors` reads their repository,
:mod:`.compare` rescores their generations under each ChainEval profile and compares, :mod:`.fac` is the
final-answer agreement with their rule. The names are re-exported here, where they were imported from before
the package was split."""

from finchain_tasks.reproduce.authors import *  # noqa: F403
from finchain_tasks.reproduce.authors import _key  # noqa: F401  (tests and the board key rows by it)
from finchain_tasks.reproduce.compare import *  # noqa: F403
from finchain_tasks.reproduce.fac import *  # noqa: F403
