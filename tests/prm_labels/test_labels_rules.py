"""The label recipes' thresholds, at their edges (issue 39, found by the literal pass).

test_labels.py checks the paper's arithmetic with the thresholds written into the test (``binarise(x, 0.5)``),
so moving ``STEP_THRESHOLD`` or ``TRAJ_THRESHOLD`` in fusion.py left every test green. Here the ``fused``
recipe labels one-step traces whose signals are fixed by the test, so the score each label reads is known
exactly: a step is correct from a fused score of 0.5 up, a trajectory from r_out + 1.5 · r_cover = 1.25 up.
No gold trace: ChainEval (and its embedding model) never runs.

Below them, the rules mutmut's survivors showed open (issue 39): the fusion's weights are relative to the
largest score (no overflow far from zero), its two refusals word for word; the exact signals of a hand-made
two-step gold trace (a step is right when its value passes ChainEval's gate and its written arithmetic holds;
r_cover counts the gold steps paired with a right step), a trace that cannot be checked (no verdicts, zero
signals, its reason, its place in the batch kept), the embedder given deciding the pairing, and no embedding
model loaded when no item has a gold trace. Embedders here are a few fixed vectors: milliseconds."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from scorers import chaineval
from scorers.prm.labels import FusedSignals, LabelItem, label_items
from scorers.prm.labels.exact import ExactSignals, exact_signals, trace_text
from scorers.prm.labels.fusion import coverage, softmax_fuse
from scorers.rows import gold_of


class FixedSignals:
    """Every step gets the same three scores; the first ``used`` knowledge points count as used."""

    def __init__(self, step: float = 1.0, used: int = 0):
        self.step, self.n_used = step, used

    def importance(self, item, k):
        return self.step

    def qualitative(self, item, k):
        return self.step

    def accuracy(self, item, k):
        return self.step, 0.0  # r_acc = r_corr + ω · 0 = the same score: the fused score is that score

    def used(self, item):
        return item.knowledge[:self.n_used]


def _label(step: float = 1.0, used: int = 0, points: int = 1, answer: str = "4"):
    item = LabelItem("t", "What is 2 + 2?", ("2 + 2 = 4",), answer, gold_answer=4.0,
                     knowledge=tuple(f"point {k}" for k in range(points)))
    sig = FixedSignals(step, used)
    return label_items([item], "fused", FusedSignals(sig, sig, sig, sig))[0]


@pytest.mark.parametrize("fused, label", [
    (0.0, 0), (0.4, 0), (0.45, 0), (0.499, 0),
    (0.5, 1),  # the threshold itself is a pass ("thresholding at 0.5")
    (0.501, 1), (0.55, 1), (0.6, 1), (1.0, 1),
])
def test_a_step_is_correct_from_a_fused_score_of_one_half_up(fused, label):
    assert _label(step=fused).step_labels == [label]


@pytest.mark.parametrize("right, used, points, label", [
    (1, 0, 6, 0),    # 1.0: a right answer that uses no knowledge point fails
    (1, 5, 31, 0),   # 1 + 1.5 · 5/31 ≈ 1.242: just under
    (1, 1, 6, 1),    # 1 + 1.5 · 1/6 = 1.25: the threshold itself passes
    (0, 24, 29, 0),  # 1.5 · 24/29 ≈ 1.241: a wrong answer just under
    (0, 5, 6, 1),    # 1.5 · 5/6 = 1.25: a wrong answer with most knowledge passes (the paper's formula)
    (0, 6, 6, 1),    # 1.5
    (1, 6, 6, 1),    # 2.5: the most there is
])
def test_a_trajectory_passes_from_r_out_plus_one_and_a_half_coverage_of_one_and_a_quarter_up(
        right, used, points, label):
    assert _label(used=used, points=points, answer="4" if right else "5").traj_label == label


def test_the_trajectory_score_is_r_out_plus_one_and_a_half_coverage():
    assert _label(used=1, points=2).traj_scores == pytest.approx({"r_out": 1.0, "r_cover": 0.5, "r_traj": 1.75,
                                                                  "eta": 1.5})


# ------------------------------------------------------------------------------------------ the fusion's edges

@pytest.mark.parametrize("scores, fused", [
    ([1000.0, 1000.0], 1000.0),     # e^2000 would overflow: the weights are taken relative to the largest
    ([800.0, 0.0], 800.0),
    ([-1000.0, -1000.0], -1000.0),  # e^-2000 would be 0 for both: the weights are relative, 1 and 1
    ([-800.0, -801.0], (-800.0 * 1 - 801.0 * math.exp(-1)) / (1 + math.exp(-1))),
])
def test_softmax_fusion_holds_for_scores_far_from_zero(scores, fused):
    assert softmax_fuse(scores) == pytest.approx(fused)


@pytest.mark.parametrize("call, message", [
    (lambda: softmax_fuse([]), "softmax fusion needs at least one score"),
    (lambda: coverage([], ["a"]), "the question has no knowledge points: coverage is undefined"),
])
def test_fusion_refuses_empty_input_with_its_message(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


# ------------------------------------------------------------------------------------------ the exact signals

class SameVector:
    """Every text the same unit vector: every similarity is 1, so ChainEval's gate alone pairs the steps."""

    def encode_cached(self, texts):
        out = np.zeros((len(texts), 4), np.float32)
        out[:, 0] = 1.0
        return out


QUESTION = "What is 2 + 2, times 3?"
GOLD = gold_of({"id": "t", "question": QUESTION, "answer": 12, "answer_unit": "",
                "steps": [{"description": "Add", "value": 4, "unit": ""},
                          {"description": "Triple", "value": 12, "unit": ""}]})


def _candidate(steps, answer="12", output="", gold=GOLD):
    return LabelItem("c", QUESTION, tuple(steps), answer, output=output, gold_answer=12.0, gold=gold)


@pytest.mark.parametrize("steps, answer, verdicts, r_out, r_cover", [
    (["2 + 2 = 4", "4 × 3 = 12"], "12", (True, True), 1.0, 1.0),
    (["2 + 2 = 5", "5 × 3 = 15"], "15", (False, False), 0.0, 0.0),     # no step's value passes the gate
    (["2 + 3 = 4", "4 × 3 = 12"], "12", (False, True), 1.0, 0.5),      # the value passes, its arithmetic is wrong:
    # the step is wrong and the gold step it pairs with is not covered
    (["The sum is 4", "Tripled it is 12"], "12", (True, True), 1.0, 1.0),  # nothing to check: the gate alone
    (["2 + 2 = 4", "4 × 3 = 13"], "13", (True, False), 0.0, 0.5),       # the last step and the answer wrong
    (["2 + 2 = 4", "so we have 4", "4 × 3 = 12"], "12", (True, False, True), 1.0, 1.0),  # an unpaired step
    (["2 + 2 = 4"], "4", (True,), 0.0, 0.5),                           # one gold step of two reproduced
])
def test_a_step_is_right_when_its_value_passes_the_gate_and_its_arithmetic_holds(steps, answer, verdicts, r_out,
                                                                                   r_cover):
    found = exact_signals([_candidate(steps, answer)], SameVector())[0]
    assert (found.steps, found.r_out, found.r_cover, found.reason) == (verdicts, r_out, r_cover, "")


@pytest.mark.parametrize("item, reason", [
    (_candidate(["2 + 2 = 4"], gold=None), "no gold trace (exact signals need a FinChain gold solution)"),
    (_candidate(["2 + 2 = 4"], gold=replace(GOLD, steps=())),
     "no gold trace (exact signals need a FinChain gold solution)"),
    (_candidate([]), "trace has no steps"),
    (_candidate(["2 + 2 = 4", "4 × 3 = 12"], output="Step 1: 2 + 2 = 4\nFinal answer: 12"),
     "ChainEval reads 1 steps where the trace has 2"),
])
def test_a_trace_that_cannot_be_checked_gets_no_verdict_and_zero_signals_with_its_reason(item, reason):
    checkable = _candidate(["2 + 2 = 4", "4 × 3 = 12"])
    found = exact_signals([item, checkable], SameVector())  # an unknown item keeps its place in the batch
    assert found[0] == ExactSignals((), 0.0, 0.0, reason)
    assert found[1] == ExactSignals((True, True), 1.0, 1.0)


@pytest.mark.parametrize("item, text", [
    (_candidate(["2 + 2 = 4", "4 × 3 = 12"]), "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12"),
    (_candidate(["2 + 2 = 4"], answer="4"), "Step 1: 2 + 2 = 4\nFinal answer: 4"),
    (_candidate(["2 + 2 = 4"], output="raw text"), "raw text"),  # the raw output, when there is one
])
def test_the_trace_chaineval_reads_numbers_the_steps_from_one(item, text):
    assert trace_text(item) == text


class LikeByWords:
    """A step is like the gold step it names (masked text -> axis); any other text is like none of them."""

    AXES = {"Add": 0, "so we have #": 0, "Triple": 1, "# × # = #": 1}

    def encode_cached(self, texts):
        out = np.zeros((len(texts), 4), np.float32)
        for row, text in enumerate(texts):
            out[row, self.AXES.get(text, 3)] = 1.0
        return out


@pytest.mark.parametrize("embedder, verdicts", [
    (SameVector(), (True, False, True)),   # equally like: the first step whose value passes the gate pairs
    (LikeByWords(), (False, True, True)),  # the embedder given pairs "so we have 4" with "Add": the first step is
    # then unpaired (the default model pairs as the first row does)
])
def test_the_embedder_given_decides_which_step_pairs_with_a_gold_step(embedder, verdicts):
    found = exact_signals([_candidate(["2 + 2 = 4", "so we have 4", "4 × 3 = 12"])], embedder)[0]
    assert (found.steps, found.r_cover) == (verdicts, 1.0)


def test_no_embedding_model_is_loaded_when_no_item_has_a_gold_trace(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("ChainEval's embedding model was loaded for nothing")

    monkeypatch.setattr(chaineval, "shared_embedder", refuse)
    found = exact_signals([_candidate(["2 + 2 = 4"], gold=None), _candidate([])])
    assert [f.reason for f in found] == ["no gold trace (exact signals need a FinChain gold solution)",
                                         "trace has no steps"]
