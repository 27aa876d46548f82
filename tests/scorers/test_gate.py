"""scorers/gate.py directly: every branch, at its boundaries, with expectations worked out by hand
from CHAINEVAL.md (numeric gate |pred - gold| <= tol * (|gold| + floor), any unit reading; strings by
normalised equality or bag-of-words cosine; booleans by the last yes/no word)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorers.gate import answer_correct, answer_equals, final_clause, normalise, numbers_agree, step_gate, text_agrees
from scorers.numbers import Number
from scorers.params import resolve

PAPER = resolve("paper")
REFERENCE = resolve("reference")


def test_normalise_and_final_clause():
    assert normalise("  Ｐroject-A!!  is   OK. ") == "project a is ok"
    assert final_clause("NPV = 1,200: accept") == " accept"
    assert final_clause("a = b = c") == " c"
    assert final_clause("no separator") == "no separator"


# --- numbers_agree: `<=` at the boundary, `any` over unit readings -----------------------------------

def test_tolerance_boundary_is_inclusive():
    # bound = 0.25 * (100 + 0) = 25 exactly; 125 is exactly on it, a hair beyond is out
    assert numbers_agree(Number(125.0), 100.0, "", 0.25, 0.0)
    assert numbers_agree(Number(75.0), 100.0, "", 0.25, 0.0)
    assert not numbers_agree(Number(125.0 + 1e-9), 100.0, "", 0.25, 0.0)
    assert not numbers_agree(Number(74.999999), 100.0, "", 0.25, 0.0)


def test_floor_widens_the_bound_near_zero():
    # gold 0: bound = 0.5 * (0 + 0.5) = 0.25
    assert numbers_agree(Number(0.25), 0.0, "", 0.5, 0.5)
    assert not numbers_agree(Number(0.2501), 0.0, "", 0.5, 0.5)
    assert not numbers_agree(Number(1e-12), 0.0, "", 0.5, 0.0)
    assert numbers_agree(Number(0.0), 0.0, "", 0.5, 0.0)


def test_negative_gold_uses_its_magnitude():
    # bound = 0.1 * 200 = 20 around -200
    assert numbers_agree(Number(-180.0), -200.0, "", 0.1, 0.0)
    assert not numbers_agree(Number(-179.0), -200.0, "", 0.1, 0.0)
    assert not numbers_agree(Number(200.0), -200.0, "", 0.1, 0.0)


@pytest.mark.parametrize("pred, gold, unit", [
    (Number(5.0, "%"), 0.05, ""),      # readings [0.05, 5.0]: the fraction one agrees
    (Number(5.0, "%"), 5.0, ""),       # the literal one agrees
    (Number(0.05), 5.0, "%"),          # readings [0.05, 5.0]
    (Number(0.05), 0.05, "%"),
    (Number(25.0, "bp"), 0.0025, ""),  # readings [0.0025, 25.0]
])
def test_any_unit_reading_is_enough(pred, gold, unit):
    assert numbers_agree(pred, gold, unit, 0.01, 0.0)


def test_no_unit_reading_within_tolerance():
    assert not numbers_agree(Number(7.0, "%"), 0.05, "", 0.01, 0.0)  # readings 0.07 and 7.0
    assert not numbers_agree(Number(5.0, "$"), 0.05, "", 0.01, 0.0)  # a currency never scales


# --- text_agrees ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, verdict", [
    ("Compliant? = Yes", True), ("Is the ratio compliant: no", False), ("Decision: approve", True),
    ("Decision: reject", False), ("The test passes", True), ("Result = fails", False),
    ("No, wait: yes", True),                       # only the final clause counts
    ("Yes at first, then no", False),              # the last yes/no word counts
    ("Compliant? = non-compliant", False),         # a negated yes-word is a no
    ("Approved: not approved", False),
])
def test_boolean_gold_reads_the_last_verdict(text, verdict):
    assert text_agrees(verdict, text, PAPER)
    assert not text_agrees(not verdict, text, PAPER)


def test_boolean_gold_without_a_verdict_word_never_agrees():
    assert not text_agrees(True, "The ratio is 12%", PAPER)
    assert not text_agrees(False, "The ratio is 12%", PAPER)
    assert not text_agrees(True, "", REFERENCE)


def test_exact_string_match_is_word_bounded_on_the_final_clause():
    assert text_agrees("Project A", "Choose the higher NPV: project a.", PAPER)
    assert not text_agrees("Project A", "Choose: Project AB", PAPER)
    assert not text_agrees("Project A", "Project A has NPV 5: reject it", PAPER)
    assert not text_agrees("", "anything", PAPER)
    assert not text_agrees("!!", "anything: !!", PAPER)  # normalises to nothing


def _cosine(a: str, b: str) -> float:
    """Bag-of-words cosine written out again, independently of the gate."""
    wa, wb = normalise(a).split(), normalise(b).split()
    vocab = set(wa) | set(wb)
    dot = sum(wa.count(w) * wb.count(w) for w in vocab)
    na = math.sqrt(sum(wa.count(w) ** 2 for w in vocab))
    nb = math.sqrt(sum(wb.count(w) ** 2 for w in vocab))
    return dot / (na * nb) if na and nb else 0.0


def test_bag_of_words_threshold_is_inclusive():
    # {a,b,c,d} vs {a,b,x,y}: dot 2, norms 2 and 2 -> cosine exactly 0.5
    gold, text = "a b c d", "a b x y"
    assert _cosine(gold, text) == 0.5
    assert text_agrees(gold, text, resolve("reference", string_bow_min=0.5))
    assert not text_agrees(gold, text, resolve("reference", string_bow_min=0.5000001))
    # exact matching would reject it: the clause is not the gold text
    assert not text_agrees(gold, text, resolve("paper", string_bow_min=0.5))


def test_bag_of_words_reads_the_whole_step_and_counts_repeats():
    gold = "accept project alpha"
    text = "NPV is positive so accept accept: project alpha"
    # the whole text, not only the final clause, is compared (so "accept" counts, twice)
    assert text_agrees(gold, text, REFERENCE)
    assert not text_agrees(gold, "NPV is 12 million", REFERENCE)
    assert not text_agrees(gold, "", REFERENCE)


@given(st.lists(st.sampled_from(["npv", "irr", "accept", "project", "a", "b", "reject"]), max_size=6),
       st.lists(st.sampled_from(["npv", "irr", "accept", "project", "a", "b", "reject"]), max_size=6),
       st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]))
def test_bag_of_words_agrees_with_a_second_implementation(a, b, threshold):
    gold, text = " ".join(a), " ".join(b)
    expected = _cosine(gold, text) >= threshold
    if abs(_cosine(gold, text) - threshold) > 1e-9:  # away from float ties the two must agree
        assert text_agrees(gold, text, resolve("reference", string_bow_min=threshold)) == expected


# --- step_gate -------------------------------------------------------------------------------------------

def test_step_gate_gold_without_value_always_passes():
    assert step_gate(None, "", None, "", PAPER) == 1.0
    assert step_gate(None, "", Number(3.0), "x = 3", REFERENCE) == 1.0


def test_step_gate_missing_prediction_follows_the_profile():
    assert step_gate(100.0, "", None, "no number here", PAPER) == 0.0
    assert step_gate(100.0, "", None, "no number here", REFERENCE) == 1.0
    assert step_gate(100.0, "", None, "", resolve("paper", missing_value_gate=0.4)) == 0.4


def test_step_gate_uses_the_step_tolerance_not_the_final_one():
    # 10% off: inside reference's 15% step tolerance, outside paper's 5% (and both final tolerances)
    assert step_gate(100.0, "", Number(110.0), "x = 110", REFERENCE) == 1.0
    assert step_gate(100.0, "", Number(90.0), "x = 90", REFERENCE) == 1.0
    assert step_gate(100.0, "", Number(110.0), "x = 110", PAPER) == 0.0
    assert step_gate(100.0, "", Number(116.0), "x = 116", REFERENCE) == 0.0
    assert step_gate(100.0, "", Number(104.0), "x = 104", PAPER) == 1.0


def test_step_gate_strings_and_booleans_ignore_the_parsed_number():
    assert step_gate("Project A", "", Number(1.0), "Pick: Project A", PAPER) == 1.0
    assert step_gate("Project A", "", None, "Pick: Project B", PAPER) == 0.0
    assert step_gate(True, "", Number(1.0), "Compliant? yes", PAPER) == 1.0
    assert step_gate(False, "", None, "Compliant? yes", PAPER) == 0.0


def test_step_gate_integer_gold_is_a_number_not_a_boolean():
    assert step_gate(1, "", Number(1.0), "count = 1", PAPER) == 1.0
    assert step_gate(1, "", Number(2.0), "count = 2", PAPER) == 0.0


# --- answer_correct --------------------------------------------------------------------------------------

def test_answer_uses_the_final_tolerance():
    # reference: step tolerance 15%, final tolerance 5%
    assert not answer_correct(100.0, "", Number(110.0), "110", REFERENCE)
    assert answer_correct(100.0, "", Number(105.0), "105", REFERENCE)
    assert answer_correct(100.0, "", Number(110.0), "110", resolve("reference", final_tol=0.1))
    assert not answer_correct(100.0, "", Number(105.0 + 1e-5), "105", REFERENCE)  # bound 0.05 * (100 + 1e-4)


def test_answer_unit_readings():
    assert answer_correct(0.05, "", Number(5.0, "%"), "5%", PAPER)
    assert not answer_correct(0.05, "", Number(6.0, "%"), "6%", PAPER)


def test_answer_missing_pieces():
    assert not answer_correct(None, "", Number(1.0), "1", PAPER)
    assert not answer_correct(100.0, "", None, "", PAPER)
    assert not answer_correct(100.0, "", None, "about a hundred", PAPER)
    assert not answer_correct("Project A", "", None, "", PAPER)


@pytest.mark.parametrize("params", [PAPER, REFERENCE], ids=["paper", "reference"])
def test_text_answers_need_normalised_equality_in_both_profiles(params):
    assert answer_correct("Project A", "", None, "project a.", params)
    assert answer_correct("Project A", "", None, "The answer is: Project A", params)
    assert not answer_correct("Project A", "", None, "Project B", params)       # bag of words would pass it
    assert not answer_correct("Project A", "", None, "Project A or B", params)
    assert not answer_correct("", "", None, "", params)


def test_boolean_answers():
    assert answer_correct(True, "", None, "Compliant: yes", PAPER)
    assert not answer_correct(True, "", None, "Compliant: non-compliant", REFERENCE)
    assert answer_correct(False, "", None, "no", REFERENCE)
    assert not answer_correct(False, "", None, "maybe", REFERENCE)


def test_answer_equals_accepts_the_whole_answer_or_its_final_clause():
    assert answer_equals("Hold", "Decision = hold")
    assert answer_equals("a = b", "a = b")
    assert not answer_equals("Hold", "Decision = hold off")
    assert not answer_equals("", "")


# --- what the first mutation run left alive (see tests/MUTANTS.md) -------------------------------------

def test_final_clause_cuts_at_the_last_separator_even_at_the_start():
    assert final_clause("a: b: c") == " c"
    assert final_clause("a = b: c") == " c"
    assert final_clause(":yes") == "yes"
    assert final_clause("=5") == "5"


def test_the_gold_unit_reaches_the_unit_readings():
    # pred 0.05 (plain) against gold 5 in %: readings [0.05, 5.0]; read as plain gold it would be [0.05] only
    assert step_gate(5.0, "%", Number(0.05), "r = 0.05", PAPER) == 1.0
    assert answer_correct(5.0, "%", Number(0.05), "0.05", PAPER)
    assert not answer_correct(5.0, "", Number(0.05), "0.05", PAPER)


def test_a_number_without_answer_text_is_still_judged():
    assert answer_correct(100.0, "", Number(100.0), "", PAPER)
