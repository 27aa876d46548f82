"""PRMs for the hosts and the CLI: one spec string builds any backend.

``calc`` and ``hf`` live in :mod:`scorers.prm` (host-free); ``judge`` lives here because it needs the
model registry and litellm. :func:`load_prm` is the only place a spec becomes a PRM, so Inspect,
lm-eval and ``finchain bon`` accept exactly the same strings and fail the same way, before any request.
"""

from __future__ import annotations

from typing import Any

from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRM
from scorers.prm.spec import PRMSpec, parse_spec

__all__ = ["OPT_INS", "check_spec", "load_prm", "opt_ins", "opt_ins_text"]

OPT_INS = ("trust_remote_code", "allow_pickle")
"""The user's opt-ins for an ``hf`` checkpoint: run its own code, load pickle weights (both off by default)."""


def check_spec(spec: str | PRMSpec, registry: Any = None) -> PRMSpec:
    """Parse and check a spec without loading weights or sending a request (a judge's model must be known)."""
    parsed = parse_spec(spec)
    if parsed.backend == "judge":
        from finchain_tasks.models.registry import load_registry

        (registry or load_registry()).model(parsed.target)
    return parsed


def opt_ins(trust_remote_code: Any = False, allow_pickle: Any = False) -> dict[str, bool]:
    """The opt-ins as :func:`load_prm` takes them, from a host's options (``-T prm_trust_remote_code=true``,
    ``--metadata '{"finchain_prm_trust_remote_code": true}'``); anything but a boolean is refused, so a
    string like ``"false"`` can never switch one on."""
    out = {}
    for name, value in zip(OPT_INS, (trust_remote_code, allow_pickle)):
        if not isinstance(value, bool):
            raise ValueError(f"prm_{name} must be true or false, got {value!r}")
        out[name] = value
    return out


def opt_ins_text(options: dict[str, bool]) -> str:
    """The opt-ins that are on, comma-joined (how lm-eval documents carry them to the filter)."""
    return ",".join(k for k in OPT_INS if options.get(k))


def load_prm(spec: str | PRMSpec, *, agg: str = DEFAULT_AGG, zeta: float = DEFAULT_ZETA, registry: Any = None,
             trust_remote_code: bool = False, allow_pickle: bool = False, **options: Any) -> PRM:
    """The PRM a spec names; ``options`` go to the backend (``cache_path``, ``api_base`` for a judge;
    ``max_length``, ``batch_tokens`` for ``hf``). ``trust_remote_code`` and ``allow_pickle`` are the
    user's explicit opt-ins for an ``hf`` checkpoint's own code and pickle weights (never a file's; see
    docs/security.md)."""
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

    return FinPRM.from_pretrained(parsed.target, mode=parsed.mode or None, trust_remote_code=trust_remote_code,
                                  allow_pickle=allow_pickle, agg=agg, zeta=zeta, **options)
