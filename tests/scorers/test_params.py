"""scorers/params.py: the two profiles' numbers as CHAINEVAL.md's table states them, overrides that
are checked one by one with a one-line error, and the no-match score each profile gives."""

from __future__ import annotations

import pytest

from scorers.params import ChainEvalParams, no_match_note, no_match_score, resolve


def test_the_profiles_are_the_spec_table():
    paper, ref = resolve("paper"), resolve("reference")
    assert (paper.step_tol, paper.final_tol, paper.missing_value_gate, paper.string_match, paper.objective,
            paper.match_threshold, paper.tie_rule, paper.mask_numbers, paper.strip_punctuation) == (
        0.05, 0.05, 0.0, "exact", "max_sum", 0.45, "skip", True, True)
    assert (ref.step_tol, ref.final_tol, ref.missing_value_gate, ref.string_match, ref.string_bow_min, ref.objective,
            ref.gap_penalty, ref.match_threshold, ref.tie_rule, ref.mask_numbers, ref.strip_punctuation) == (
        0.15, 0.05, 1.0, "bow", 0.3, "min_cost", 0.25, 0.45, "pair", False, False)
    assert paper.abs_floor == ref.abs_floor == 1e-4
    assert paper.profile == "paper" and ref.profile == "reference"
    assert paper.to_dict()["step_tol"] == 0.05 and set(paper.to_dict()) == set(ChainEvalParams.__dataclass_fields__)


def test_resolve_overrides_and_passes_params_through():
    ref = resolve("reference", step_tol=0.1, gap_penalty=0.4)
    assert (ref.step_tol, ref.gap_penalty, ref.objective) == (0.1, 0.4, "min_cost")
    assert resolve(ref) is ref or resolve(ref) == ref
    assert resolve(ref, final_tol=0.2).final_tol == 0.2 and resolve(ref, final_tol=0.2).step_tol == 0.1
    assert resolve("paper", step_tol=1).step_tol == 1  # an int is a number


@pytest.mark.parametrize("profile, overrides, message", [
    ("papers", {}, "unknown ChainEval profile 'papers'; choose one of ['paper', 'reference']"),
    ("paper", {"step_tolerance": 0.1}, "unknown ChainEval parameter(s) ['step_tolerance']; known: "),
    ("paper", {"step_tol": "0.1"}, "ChainEval parameter step_tol must be a number, got '0.1'"),
    ("paper", {"step_tol": True}, "ChainEval parameter step_tol must be a number, got True"),
    ("paper", {"step_tol": float("nan")}, "ChainEval parameter step_tol must be a finite number, got nan"),
    ("paper", {"step_tol": float("inf")}, "ChainEval parameter step_tol must be a finite number, got inf"),
    ("paper", {"mask_numbers": "no"}, "ChainEval parameter mask_numbers must be true or false, got 'no'"),
    ("paper", {"mask_numbers": 0}, "ChainEval parameter mask_numbers must be true or false, got 0"),
    ("paper", {"objective": 1}, "ChainEval parameter objective must be text, got 1"),
    ("paper", {"objective": "max"}, "objective must be 'max_sum' or 'min_cost', got 'max'"),
    ("paper", {"tie_rule": "first"}, "tie_rule must be 'skip' or 'pair', got 'first'"),
    ("paper", {"string_match": "fuzzy"}, "string_match must be 'exact' or 'bow', got 'fuzzy'"),
    ("paper", {"step_tol": -0.01}, "step_tol must be >= 0, got -0.01"),
    ("paper", {"final_tol": -1}, "final_tol must be >= 0, got -1"),
    ("paper", {"gap_penalty": -0.5}, "gap_penalty must be >= 0, got -0.5"),
    ("paper", {"abs_floor": -1e-9}, "abs_floor must be >= 0, got -1e-09"),
    ("paper", {"match_threshold": 1.01}, "match_threshold must lie in [0, 1], got 1.01"),
    ("paper", {"string_bow_min": -0.1}, "string_bow_min must lie in [0, 1], got -0.1"),
    ("paper", {"missing_value_gate": 2}, "missing_value_gate must lie in [0, 1], got 2"),
])
def test_bad_settings_are_one_line_errors(profile, overrides, message):
    with pytest.raises(ValueError) as err:
        resolve(profile, **overrides)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


@pytest.mark.parametrize("overrides", [
    {"step_tol": 0}, {"final_tol": 0.0}, {"gap_penalty": 0}, {"abs_floor": 0},
    {"match_threshold": 0}, {"match_threshold": 1}, {"string_bow_min": 0.0}, {"string_bow_min": 1.0},
    {"missing_value_gate": 0}, {"missing_value_gate": 1}, {"embedding_model": "any/model"},
])
def test_boundary_settings_are_accepted(overrides):
    (name, value), = overrides.items()
    assert getattr(resolve("paper", **overrides), name) == value


def test_no_match_score_and_note():
    assert no_match_score(resolve("paper")) == 0.0 and no_match_note(resolve("paper")) is None
    assert no_match_score(resolve("paper", gap_penalty=0.9)) == 0.0  # max-sum ignores the gap penalty
    assert no_match_score(resolve("reference")) == 0.75
    assert no_match_score(resolve("reference", gap_penalty=0.5)) == 0.5  # boundary: two gaps cost one pair
    assert no_match_score(resolve("reference", gap_penalty=0.51)) is None
    assert no_match_note(resolve("reference")) == (
        "profile `reference` gives 0.75 to an output whose steps match nothing (the authors' recurrence: the "
        "all-gap path), while `paper` gives 0; an empty output scores 0.")
    assert no_match_note(resolve("reference", gap_penalty=0.6)) == (
        "profile `reference` gives a score that depends on the step counts to an output whose steps match nothing "
        "(the authors' recurrence: the all-gap path), while `paper` gives 0; an empty output scores 0.")
    assert no_match_note(resolve("paper", objective="min_cost", gap_penalty=0.1)).startswith(
        "profile `paper` gives 0.90 to an output")


def test_the_default_profile_is_paper_and_booleans_are_accepted():
    assert resolve() == resolve("paper") == ChainEvalParams()
    assert resolve("paper", mask_numbers=False).mask_numbers is False
    assert resolve("reference", strip_punctuation=True).strip_punctuation is True
