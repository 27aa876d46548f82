"""The rules of scorers/v1_rule.py (the FinChain authors' eval.py), one table per rule, inputs at each rule's edges
(issue 39.3): the cosine a step pair needs, the value tolerances of a step and of the final answer, how a text
answer matches, which number a step's value is (each pattern's alternatives and character classes), scale words,
and where steps start. Figures are written out, not read from the module, so a moved threshold fails here."""

from __future__ import annotations

import numpy as np
import pytest

from scorers.v1_rule import (
    V1_COSINE,
    V1_FINAL_TOL,
    V1_STEP_TOL,
    bow_cosine,
    score_v1,
    score_v1_batch,
    split_steps,
    step_value,
    to_number,
)


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


# ---------------------------------------------------------------------------------- issue 39: mutmut's survivors
@pytest.mark.parametrize(("text", "number"), [
    ("1~234", 1234.0),  # "~" is dropped before the number is read, so the digits around it join up
    ("1$234", 1234.0),  # "$" as well, wherever it stands
    ("~5", 5.0),
])
def test_rule_to_number_drops_tilde_and_dollar_before_reading_the_digits(text, number):
    assert to_number(text) == number


@pytest.mark.parametrize(("step", "value"), [
    ("about 1~234 units", 1234.0),  # the fallback's "\d." takes any character after the first digit
    ("about 1$234 units", 1234.0),
    ("A = 5\nB = 6", 6.0),  # whitespace collapsed first, so "the last =" is the last one across lines
    ("so:  5", " 5"),  # a run of spaces reads as one
    ("so\n5", None),  # a line break is a space, not a full stop
])
def test_rule_a_step_value_is_read_from_the_whitespace_collapsed_step(step, value):
    assert step_value(step) == value


@pytest.mark.parametrize(("a", "b", "cosine"), [
    ("a", "a a", 1.0),  # counts multiply: 1 * 2 / (1 * 2)
    ("a a", "a", 1.0),
    ("a a b", "a", 2 / 5 ** 0.5),  # a norm squares the counts: sqrt(4 + 1)
    ("a", "a b b", 1 / 5 ** 0.5),
    ("a b", "c d", 0.0),
    ("x", "x y z w", 0.5),
])
def test_rule_bow_cosine_is_the_cosine_of_word_counts(a, b, cosine):
    assert bow_cosine(a, b) == pytest.approx(cosine, abs=1e-12)


@pytest.mark.parametrize(("text", "steps"), [
    ("Step 1: a  b", ["a b"]),
    ("Step 1: a\n  b\nStep 2: c\t d", ["a b", "c d"]),
])
def test_rule_step_texts_have_their_whitespace_collapsed(text, steps):
    assert split_steps(text) == steps


@pytest.mark.parametrize(("gold", "pred", "recall"), [
    ("So: 5", "Thus: 5", 1.0),  # text values, cosine 1
    ("So: 5", "Thus: final answer is: 5", 1.0),  # cosine exactly 0.5 = 1 / (1 * 2): still a step match
    ("So: 5", "Thus: answer: 5", 1.0),  # 1 / sqrt(2)
    ("So: final answer is: 5", "Thus: answer: 5", 0.0),  # 1 / (2 * sqrt(2)), under 0.5
    ("So: 5", "Thus: 6", 0.0),
])
def test_rule_a_text_step_value_matches_at_a_bag_of_words_cosine_of_at_least_0_5(gold, pred, recall):
    assert score_v1(f"Step 1: {gold}", f"Step 1: {pred}", same).step_recall == recall


@pytest.mark.parametrize(("gold", "pred", "recall"), [
    ("A = 9", "A is 9.90001", 0.5),  # |9 - 9.90001| / (9 + 1e-4) is exactly 0.1 in floating point: not under it
    ("A = 9", "A is 9.9", 1.0),
    ("A = 0", "A is 0.00001", 0.5),  # exactly 0.1 again: 1e-5 / 1e-4
])
def test_rule_a_step_value_at_exactly_the_10_percent_tolerance_does_not_match(gold, pred, recall):
    res = score_v1(f"Step 1: {gold}\nStep 2: B = 7", f"Step 1: {pred}\nStep 2: B = 7", same)
    assert res.step_recall == recall


@pytest.mark.parametrize(("pred", "fac"), [
    ("4.200005", 0.0),  # |4 - 4.200005| / (4 + 1e-4) is exactly 0.05: not under it
    ("3.799995", 0.0),
    ("4.2", 1.0),
])
def test_rule_a_final_answer_at_exactly_the_5_percent_tolerance_does_not_match(pred, fac):
    assert score_v1("Step 1: A = 4", f"Step 1: A is {pred}", same).fac == fac


@pytest.mark.parametrize(("gold", "recall"), [
    ("Step 1: Find A.\nStep 2: A = 100", 0.5),  # a gold step without a value is skipped, the next still matches
    ("Step 1: A = 100\nStep 2: Find A.", 0.5),
    ("Step 1: Find A.\nStep 2: Find B.\nStep 3: A = 100", 1 / 3),
])
def test_rule_a_gold_step_without_a_value_matches_nothing_and_stops_nothing(gold, recall):
    assert score_v1(gold, "Step 1: A = 100", same).step_recall == pytest.approx(recall)


def _zero_for(zero_text):
    """Every text the unit vector (1, 0), except ``zero_text``: the zero vector (an encoder's empty reading)."""
    def encode(texts):
        return np.array([[0.0, 0.0] if t == zero_text else [1.0, 0.0] for t in texts])
    return encode


@pytest.mark.parametrize(("zero_text", "recall", "precision"), [
    ("A = 100", 0.5, 0.5),  # a gold step with a zero vector matches nothing; "so B = 7" still counts
    ("so B = 7", 0.5, 0.5),  # the same on the predicted side: "B = 7" is still matched
    ("nothing", 1.0, 1.0),
])
def test_rule_a_step_with_a_zero_embedding_matches_nothing_and_spoils_nothing(zero_text, recall, precision):
    res = score_v1("Step 1: A = 100\nStep 2: B = 7", "Step 1: so A = 100\nStep 2: so B = 7", _zero_for(zero_text))
    assert (res.step_recall, res.step_precision) == (recall, precision)


@pytest.mark.parametrize(("gold", "pred", "recall", "precision"), [
    ("Step 1: A = 100\nStep 2: B = 100", "Step 1: A = 100", 1.0, 1.0),  # one predicted step matched by two gold
    ("Step 1: A = 100", "Step 1: A = 100\nStep 2: B = 100", 1.0, 0.5),  # the gold step marks its first match only
    ("Step 1: A = 100\nStep 2: B = 7", "Step 1: A = 100\nStep 2: B = 100", 0.5, 0.5),
    ("Step 1: A = 100\nStep 2: B = 7", "Step 1: B = 7\nStep 2: A = 100", 1.0, 1.0),
])
def test_rule_precision_counts_predicted_steps_any_gold_step_matched(gold, pred, recall, precision):
    res = score_v1(gold, pred, same)
    assert (res.step_recall, res.step_precision) == (recall, precision)


@pytest.mark.parametrize(("gold", "pred", "fac"), [
    ("Step 1: A = 100", "Step 1: no number here", 0.0),  # the prediction has no final value
    ("Step 1: no number here", "Step 1: A = 100", 0.0),  # the gold has none
    ("Step 1: no number here", "Step 1: none here either", 0.0),
    ("Step 1: A = 100", "Step 1: A = 100", 1.0),
])
def test_rule_a_missing_final_value_on_either_side_is_no_final_answer_match(gold, pred, fac):
    assert score_v1(gold, pred, same).fac == fac


@pytest.mark.parametrize(("gold", "pred", "fields"), [
    ("Step 1: A = 100\nStep 2: B = 7\nStep 3: done", "Step 1: A = 9\nStep 2: no value", (9.0, 7.0, 3, 2)),
    ("Step 1: A = 100", None, (None, 100.0, 1, 0)),  # no predicted steps: the early result keeps the gold's
    ("", "Step 1: A = 9", (9.0, None, 0, 1)),  # no gold steps: it keeps the prediction's
    ("Step 1: A = 100", "Step 1: A = 100", (100.0, 100.0, 1, 1)),
])
def test_rule_a_result_holds_both_final_values_and_both_step_counts(gold, pred, fields):
    res = score_v1(gold, pred, same)
    assert (res.final_answer, res.gold_answer, res.n_gold_steps, res.n_pred_steps) == fields


def _by_text(texts):
    """A text's direction is its character codes' sum mod 16: equal texts have cosine 1, the test's others
    (checked to fall in distinct directions) cosine 0."""
    return np.array([[1.0 if i == sum(map(ord, t)) % 16 else 0.0 for i in range(16)] for t in texts])


def test_rule_a_batch_scores_each_output_against_its_own_gold():
    golds = ["Step 1: A = 100", "Step 1: B = 200\nStep 2: C = 300", "", "Step 1: D = 400"]
    outputs = ["Step 1: A = 100", "Step 1: B = 200\nStep 2: C = 999", "Step 1: E = 5", "Step 1: D = 400"]
    assert len({sum(map(ord, t)) % 16 for t in ["A = 100", "B = 200", "C = 300", "C = 999", "E = 5", "D = 400"]}) == 6
    got = [(r.step_recall, r.step_precision, r.n_gold_steps, r.n_pred_steps)
           for r in score_v1_batch(golds, outputs, _by_text)]
    assert got == [(1.0, 1.0, 1, 1), (0.5, 0.5, 2, 2), (0.0, 0.0, 0, 1), (1.0, 1.0, 1, 1)]


@pytest.mark.parametrize(("golds", "outputs", "calls"), [
    (["Step 1: A = 1\nStep 2: B = 2"], ["Step 1: C = 3"], [["A = 1", "B = 2", "C = 3"]]),  # gold texts first
    (["Step 1: A = 1", "Step 1: B = 2"], [None, "Step 1: C = 3"], [["A = 1", "B = 2", "C = 3"]]),
    (["", "no steps"], [None, "nor here"], []),  # nothing to encode: the encoder (a model) is not called
])
def test_rule_a_batch_encodes_every_step_text_in_one_call_and_none_without_steps(golds, outputs, calls):
    seen = []

    def encode(texts):
        seen.append(list(texts))
        return same(texts)
    score_v1_batch(golds, outputs, encode)
    assert seen == calls
