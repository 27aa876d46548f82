"""PRMs for the hosts and the CLI: one spec string builds any backend.

``calc`` and ``hf`` live in :mod:`scorers.prm` (host-free); ``judge`` lives here because it needs the
model registry and litellm. :func:`load_prm` is the only place a spec becomes a PRM, so Inspect,
lm-eval and ``finchain bon`` accept exactly the same strings and fail the same way, before any request.
"""

from __future__ import annotations

from typing import Any

from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRM
from scorers.prm.spec import PRMSpec, parse_spec

__all__ = ["check_spec", "load_prm"]


def check_spec(spec: str | PRMSpec, registry: Any = None) -> PRMSpec:
    """Parse and check a spec without loading weights or sending a request (a judge's model must be known)."""
    parsed = parse_spec(spec)
    if parsed.backend == "judge":
        from finchain_tasks.models.registry import load_registry

        (registry or load_registry()).model(parsed.target)
    return parsed


def load_prm(spec: str | PRMSpec, *, agg: str = DEFAULT_AGG, zeta: float = DEFAULT_ZETA, registry: Any = None,
             **options: Any) -> PRM:
    """The PRM a spec names; ``options`` go to the backend (``cache_path``, ``api_base`` for a judge;
    ``max_length``, ``batch_tokens`` for ``hf``)."""
    from scorers.prm.base import aggregate

    aggregate([], agg)  # an unknown aggregation fails here, with the same line everywhere
    parsed = check_spec(spec, registry)
    if parsed.backend == "calc":
        from scorers.prm.calc import CalcPRM

        return CalcPRM(agg=agg, zeta=zeta)
    if parsed.backend == "judge":
        from finchain_tasks.prm.judge import JudgePRM

        return JudgePRM(parsed.target, registry=registry, agg=agg, zeta=zeta, **options)
    from scorers.prm.hf import FinPRM

    return FinPRM.from_pretrained(parsed.target, mode=parsed.mode, agg=agg, zeta=zeta, **options)
