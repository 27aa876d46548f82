"""ChainEval's parameters and its two profiles: the one place these numbers live.

``paper`` follows the FinChain paper's description; ``reference`` reproduces the authors'
public evaluation script (its constants are named in comments). Every field can be overridden
one by one: ``resolve("reference", step_tol=0.1)``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass(frozen=True)
class ChainEvalParams:
    profile: str = "paper"
    step_tol: float = 0.05
    """Relative tolerance of the numeric gate (reference: VALUE_REL_TOL = 0.15)."""
    final_tol: float = 0.05
    """Relative tolerance of final-answer correctness (reference: FINAL_REL_TOL = 0.05)."""
    abs_floor: float = 1e-4
    """Added to |gold| in the tolerance, so a gold value of 0 still admits a tiny error."""
    missing_value_gate: float = 0.0
    """Gate when gold has a value and the step has none (reference: 1.0, text decides)."""
    string_match: str = "exact"
    """'exact': normalised equality; 'bow': bag-of-words cosine >= string_bow_min (reference)."""
    string_bow_min: float = 0.3
    objective: str = "max_sum"
    """'max_sum': maximise the gated sum, skips free, normalise by (n + m) / 2 (paper);
    'min_cost': minimise (1 - A) per pair + gap_penalty per skip, normalise by moves (reference)."""
    gap_penalty: float = 0.25
    """Cost of skipping a step under 'min_cost' (reference: DTW_GAP_PENALTY)."""
    mask_numbers: bool = True
    """Embed step text with its numbers replaced by '#', so similarity judges the explanation and
    the gate alone judges the numbers (a value within tolerance then changes nothing). The
    reference script embeds raw text: False there."""
    match_threshold: float = 0.45
    """A pair counts as a match when its gated score reaches this (DTW_SIM_ACCEPT)."""
    embedding_model: str = DEFAULT_EMBEDDING_MODEL

    def to_dict(self) -> dict:
        return asdict(self)


PROFILES: dict[str, ChainEvalParams] = {
    "paper": ChainEvalParams(),
    "reference": ChainEvalParams(
        profile="reference", step_tol=0.15, final_tol=0.05, missing_value_gate=1.0,
        string_match="bow", objective="min_cost", mask_numbers=False,
    ),
}


def resolve(profile: str | ChainEvalParams = "paper", **overrides) -> ChainEvalParams:
    """A profile by name (or as given) with any fields overridden; unknown names are an error."""
    if isinstance(profile, ChainEvalParams):
        base = profile
    elif profile in PROFILES:
        base = PROFILES[profile]
    else:
        raise ValueError(f"unknown ChainEval profile {profile!r}; choose one of {sorted(PROFILES)}")
    known = {f.name for f in fields(ChainEvalParams)}
    unknown = set(overrides) - known
    if unknown:
        raise ValueError(f"unknown ChainEval parameter(s) {sorted(unknown)}; known: {sorted(known)}")
    params = replace(base, **overrides)
    if params.objective not in ("max_sum", "min_cost"):
        raise ValueError(f"objective must be 'max_sum' or 'min_cost', got {params.objective!r}")
    if params.string_match not in ("exact", "bow"):
        raise ValueError(f"string_match must be 'exact' or 'bow', got {params.string_match!r}")
    for name in ("step_tol", "final_tol", "gap_penalty", "abs_floor"):
        if not getattr(params, name) >= 0:
            raise ValueError(f"{name} must be >= 0, got {getattr(params, name)!r}")
    return params
