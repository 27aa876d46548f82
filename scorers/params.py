"""ChainEval's parameters and its two profiles: the one place these numbers live.

``paper`` follows the FinChain paper's description; ``reference`` reproduces the authors'
public evaluation script (its constants are named in comments). Every field can be overridden
one by one: ``resolve("reference", step_tol=0.1)``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

METRIC_KEYS = ("chaineval", "fac", "fac_strict", "step_f1", "precision", "recall", "parse_ok",
               "no_error", "err_1", "err_2", "err_3", "err_4plus")
"""The per-sample numbers every host aggregates (mean and stderr), under the same short keys in
Inspect and lm-eval so that one model's results compare key by key and fit an 80-column terminal.
``first_error_step`` is a position, not a quantity, so it is reported as a distribution: the share
of outputs where no step broke (``no_error``) and the share whose first broken gold step is 1, 2, 3,
or 4 and later; these five shares sum to 1."""
ERROR_BUCKETS = 4
"""First-error positions 1..3 get a key each; 4 and later share ``err_4plus``."""


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
    """How a categorical *step* value is matched: 'exact', normalised equality; 'bow', bag-of-words
    cosine >= string_bow_min (reference). Final answers are always compared by normalised equality:
    a bag-of-words match would let "Project B" pass for gold "Project A"."""
    string_bow_min: float = 0.3
    objective: str = "max_sum"
    """'max_sum': maximise the gated sum, skips free, normalise by (n + m) / 2 (paper);
    'min_cost': minimise (1 - A) per pair + gap_penalty per skip, normalise by moves (reference)."""
    gap_penalty: float = 0.25
    """Cost of skipping a step under 'min_cost' (reference: DTW_GAP_PENALTY)."""
    tie_rule: str = "skip"
    """What the path does when pairing and skipping are exactly as good: 'skip' (paper: a pair is
    taken only when it strictly improves the path) or 'pair' (reference: the authors' ``np.argmin``
    over [pair, skip gold, skip predicted] returns the first minimum, so a tie pairs)."""
    strip_punctuation: bool = True
    """Drop closing ``.;,`` from a step's text before embedding it (paper), so a trailing full stop
    does not move the similarity. The reference script embeds the text as it is: False there."""
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
        string_match="bow", objective="min_cost", mask_numbers=False, tie_rule="pair",
        strip_punctuation=False,
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
    for name, value in overrides.items():
        _check_type(name, value, _FIELD_TYPES[name])
    params = replace(base, **overrides)
    _check_values(params)
    return params


_FIELD_TYPES = {f.name: f.type for f in fields(ChainEvalParams)}
_CHOICES = {"objective": ("max_sum", "min_cost"), "tie_rule": ("skip", "pair"), "string_match": ("exact", "bow")}
_UNIT_INTERVAL = ("match_threshold", "string_bow_min", "missing_value_gate")


def _check_type(name: str, value: object, kind: str) -> None:
    """Overrides arrive from command lines as JSON or YAML: a wrong type must be a one-line error,
    not a TypeError deep inside scoring (``"0.1" >= 0``) or a silent truth value (``"no"`` is truthy)."""
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and not math.isfinite(float(value)):
            raise ValueError(f"ChainEval parameter {name} must be a finite number, got {value!r}")
    else:
        ok = isinstance(value, str)
    if not ok:
        shown = {"bool": "true or false", "float": "a number", "str": "text"}[kind]
        raise ValueError(f"ChainEval parameter {name} must be {shown}, got {value!r}")


def _check_values(params: ChainEvalParams) -> None:
    for name, choices in _CHOICES.items():
        if getattr(params, name) not in choices:
            raise ValueError(f"{name} must be {' or '.join(map(repr, choices))}, got {getattr(params, name)!r}")
    for name in ("step_tol", "final_tol", "gap_penalty", "abs_floor"):
        if not getattr(params, name) >= 0:
            raise ValueError(f"{name} must be >= 0, got {getattr(params, name)!r}")
    for name in _UNIT_INTERVAL:
        if not 0 <= getattr(params, name) <= 1:
            raise ValueError(f"{name} must lie in [0, 1], got {getattr(params, name)!r}")


def no_match_score(params: ChainEvalParams) -> float | None:
    """What ChainEval gives an output whose steps match nothing (every gated score 0), when that
    does not depend on the step counts: 0 under 'max_sum' (paper); under 'min_cost' (reference) the
    all-gap path, 1 - gap_penalty (0.75 with the authors' 0.25), as long as two gaps cost no more
    than one worthless pair (gap_penalty <= 0.5); None otherwise. An empty output scores 0 in both.
    Reports quote this beside a reference-profile score, so nobody mistakes 0.75 for skill."""
    if params.objective == "max_sum":
        return 0.0
    return 1.0 - params.gap_penalty if params.gap_penalty <= 0.5 else None


def no_match_note(params: ChainEvalParams) -> str | None:
    """One sentence for reports run under the min-cost objective (None under the paper's)."""
    floor = no_match_score(params)
    if params.objective == "max_sum":
        return None
    shown = f"{floor:.2f}" if floor is not None else "a score that depends on the step counts"
    return (f"profile `{params.profile}` gives {shown} to an output whose steps match nothing "
            "(the authors' recurrence: the all-gap path), while `paper` gives 0; an empty output scores 0.")
