"""The rules of scorers/v1_rule.py (the FinChain authors' eval.py), one table per rule, inputs at each rule's edges
(issue 39.3): the cosine a step pair needs, the value tolerances of a step and of the final answer, how a text
answer matches, which number a step's value is (each pattern's alternatives and character classes), scale words,
and where steps start. Figures are written out, not read from the module, so a moved threshold fails here."""

from __future__ import annotations

import numpy as np
import pytest

from scorers.v1_rule import V1_COSINE, V1_FINAL_TOL, V1_STEP_TOL, score_v1, split_steps, step_value, to_number


def test_rule_the_documented_thresholds():
    assert (V1_COSINE, V1_STEP_TOL, V1_FINAL_TOL) == (0.6, 0.1, 0.05)


def _at_cosine(pred_vector):
    """An encoder under which the gold step is (1, 0) and the predicted step is ``pred_vector``."""
    def encode(texts):
        return np.array([[1.0, 0.0] if t == "A = 100" else pred_vector for t in texts])
    return encode


@pytest.mark.parametrize(("pred_vector", "counted"), [
    ([3.0, 4.0], False),  # cosine exactly 0.6 (3/5, exact in binary as the literal 0.6): not strictly above
    ([0.65, (1 - 0.65 ** 2) ** 0.5], True),
    ([0.55, (1 - 0.55 ** 2) ** 0.5], False),
    ([1.0, 0.0], True),
])
def test_rule_a_step_pair_counts_only_when_its_cosine_is_strictly_above_0_6(pred_vector, counted):
    res = score_v1("Step 1: A = 100", "Step 1: so A = 100", _at_cosine(pred_vector))
    assert (res.step_recall, res.step_precision) == ((1.0, 1.0) if counted else (0.0, 0.0))


def same(texts):
    out = np.zeros((len(texts), 2))
    out[:, 0] = 1.0
    return out


@pytest.mark.parametrize(("pred", "matched"), [
    ("100", True),
    ("109.99", True),
    ("110", True),  # |100 - 110| / (100 + 1e-4) is just under 0.1
    ("110.01", False),
    ("90.01", True),
    ("89.99", False),
    ("115", False),
])
def test_rule_a_step_value_matches_within_10_percent_of_gold_plus_1e_4(pred, matched):
    # two gold steps, so the final answer (the second) does not decide the first step's match
    res = score_v1("Step 1: A = 100\nStep 2: B = 7", f"Step 1: A = {pred}\nStep 2: B = 7", same)
    assert res.step_recall == (1.0 if matched else 0.5)


@pytest.mark.parametrize(("pred", "fac"), [
    ("100", 1.0),
    ("104.5", 1.0),
    ("95.5", 1.0),
    ("105.5", 0.0),
    ("94.5", 0.0),
])
def test_rule_the_final_answer_matches_within_5_percent(pred, fac):
    assert score_v1("Step 1: A = 100", f"Step 1: A = {pred}", same).fac == fac


@pytest.mark.parametrize(("gold", "pred", "fac"), [
    ("So: 5", "Thus: 5", 1.0),  # " 5" both: one word, cosine exactly 1.0, which the rule still accepts
    ("So: answer: 5", "Thus: 5", 1.0),  # cosine 0.71: at least 0.1
    ("So: 5", "Thus: 6", 0.0),  # no shared word
    ("So: answer: 5", "Thus: answer: 5", 1.0),  # two identical words: 1 - 2e-16
    ("So: final answer: 5", "So: final answer: 5", 0.0),  # three identical words: 1 + 2e-16, above 1.0
])
def test_rule_a_text_final_answer_matches_by_bag_of_words_up_to_a_cosine_of_one(gold, pred, fac):
    assert score_v1(f"Step 1: {gold}", f"Step 1: {pred}", same).fac == fac


@pytest.mark.parametrize(("step", "value"), [
    # "= ..." (the last one): $ and commas, scale words, at least one digit
    ("A = $5", 5.0),
    ("A = 12", 12.0),
    ("A = 1,234", 1234.0),
    ("A = 2 million", 2e6),
    ("A = 2 billion", 2e9),
    ("A = 2 thousand", 2e3),
    # no "=": the last number of three characters or more, with its scale word
    ("revenue of 2.5 billion", 2.5e9),
    ("revenue of 2.5 million", 2.5e6),
    ("revenue of 2.5 thousand", 2.5e3),
    ("rose by 1,234 units", 1234.0),
    ("rose by 12,345 units", 12345.0),  # a comma after the second character too
    ("rose by 1.25", 1.25),
    # a short number after ":" or ".": kept as text, with the answer words before it
    ("so: answer: 5", " answer: 5"),
    ("so: final answer: 5", " final answer: 5"),
    ("so: final answer is: 5", " final answer is: 5"),
    ("so: 5 billion", " 5 billion"),  # a scale word stays in the text
    ("so: 5 million", " 5 million"),
    ("so: 5 thousand", " 5 thousand"),
    ("so: 5,", " 5,"),  # digits and commas
    ("so. 5", " 5"),
    ("so: 5", " 5"),
])
def test_rule_which_number_a_step_value_is(step, value):
    assert step_value(step) == value


@pytest.mark.parametrize(("text", "number"), [
    ("2.5", 2.5),
    ("5 billion", 5e9),
    ("5 million", 5e6),
    ("5 thousand", 5e3),
    ("$1,200", 1200.0),
    ("none", None),
])
def test_rule_to_number_reads_the_first_number_and_any_scale_word(text, number):
    assert to_number(text) == number


@pytest.mark.parametrize(("text", "steps"), [
    ("Step 1: a\nStep 2: b", ["a", "b"]),  # a Step line at the very start counts
    ("x\n  Step 1: a", ["a"]),
    ("1. a\n2. b", ["1. a", "2. b"]),  # digit lines, the first at the very start
    ("x\n1. a\n2. b", ["1. a", "2. b"]),
])
def test_rule_steps_start_at_the_text_start_or_after_a_newline(text, steps):
    assert split_steps(text) == steps
