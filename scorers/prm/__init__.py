"""Process reward models and Best-of-N selection (host-free).

* :mod:`scorers.prm.base`: the PRM interface, R = agg(step probs) + ζ · p_traj.
* :mod:`scorers.prm.calc`: the reference-free arithmetic checker (``calc``).
* :mod:`scorers.prm.hf`: the Fin-PRM architecture on a Hugging Face backbone (torch, loaded lazily).
* :mod:`scorers.prm.selectors`: the selectors.
* :mod:`scorers.prm.curves`: accuracy-versus-N curves with cluster-bootstrap intervals.
* :mod:`scorers.prm.spec`: the one parser of PRM spec strings.
"""

from scorers.prm.base import (
           AGGS,
           DEFAULT_AGG,
           DEFAULT_ZETA,
           PRM,
           PRMInput,
           PRMScore,
           aggregate,
           make_score,
           prm_input,
           reward,
)
from scorers.prm.calc import CalcPRM, check_step
from scorers.prm.selectors import SELECTORS, Candidate, answer_key, select_all

__all__ = ["AGGS", "DEFAULT_AGG", "DEFAULT_ZETA", "PRM", "SELECTORS", "CalcPRM", "Candidate", "PRMInput", "PRMScore",
           "aggregate", "answer_key", "check_step", "make_score", "prm_input", "reward", "select_all"]
