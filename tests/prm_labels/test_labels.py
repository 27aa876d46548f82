"""Label construction: the paper's arithmetic by hand, the exact recipe on candidates with injected
errors at known positions, the fused recipe with deterministic signals, and bad input kept as unknown."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.prm.labels import FusedSignals, LabelItem, label_items, summarise
from scorers.prm.labels.fusion import accuracy_score, binarise, coverage, softmax_fuse, trajectory_score
from tests.support.prm_label_fakes import FakeAccuracy, FakeConcepts, FakeImportance, FakeQualitative


def test_softmax_fusion_by_hand():
    assert softmax_fuse([0.0, 0.0, 0.0]) == 0.0
    assert softmax_fuse([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    # weights e^0/(1+e), e^1/(1+e): the fused score is e/(1+e)
    assert softmax_fuse([0.0, 1.0]) == pytest.approx(math.e / (1 + math.e))
    # the fake's incorrect step: r = (1/8, 0.2, 0): below 0.5; its correct step (7/8, 0.9, 2): above
    lo = [0.125, 0.2, 0.0]
    assert softmax_fuse(lo) == pytest.approx(sum(math.exp(r) * r for r in lo) / sum(math.exp(r) for r in lo))
    assert binarise(softmax_fuse(lo), 0.5) == 0 and binarise(softmax_fuse([0.875, 0.9, 2.0]), 0.5) == 1


@settings(deadline=None, max_examples=300)  # no deadline: the CPU is shared, a slow example is not a failure
@given(st.lists(st.floats(0, 2), min_size=1, max_size=3))
def test_fusion_lies_between_mean_and_max(scores):
    fused = softmax_fuse(scores)
    assert sum(scores) / len(scores) - 1e-9 <= fused <= max(scores) + 1e-9


def test_accuracy_and_trajectory_arithmetic():
    assert accuracy_score(1, 0) == 1.0 and accuracy_score(1, 1, omega=1.0) == 2.0
    assert coverage(["a", "b", "c", "d"], ["b", "d", "z"]) == 0.5
    assert trajectory_score(1, 0.5) == 1.75 and binarise(1.75, 1.25) == 1
    assert binarise(trajectory_score(1, 0.1), 1.25) == 0      # right answer, little knowledge: penalised
    assert binarise(trajectory_score(0, 0.9), 1.25) == 1      # 1.35: the paper's formula lets this pass
    assert binarise(trajectory_score(0, 0.5), 1.25) == 0
    with pytest.raises(ValueError, match="no knowledge points"):
        coverage([], ["a"])


def _expected(item: LabelItem, wrong: frozenset[int]) -> list[int]:
    return [0 if j in wrong else 1 for j in range(len(item.steps))]


def test_exact_recipe_finds_the_injected_step_and_its_dependents(domain_pool):
    items, wrong = domain_pool
    labels = label_items(items, "exact")
    assert len(labels) == len(items) > 40
    injected = [w for w in wrong if w]
    assert sum(len(w) > 1 for w in injected) >= 10  # the error propagates in many candidates
    for item, lab, w in zip(items, labels, wrong):
        assert lab.step_labels == _expected(item, w), item.id
        if not w:  # the gold trace: every step right, answer right, full coverage
            assert lab.traj_label == 1 and lab.traj_scores["r_traj"] == pytest.approx(2.5)
    summary = summarise(labels)
    assert summary["steps_incorrect"] == sum(len(w) for w in wrong) and summary["steps_unknown"] == 0


def _truth_from(pool):
    items, wrong = pool
    table = {it.id: w for it, w in zip(items, wrong)}
    return lambda item, k: k not in table[item.id]


def test_fused_recipe_with_fake_signals_reproduces_the_truth(domain_pool):
    items, wrong = domain_pool
    truth = _truth_from(domain_pool)
    imp = FakeImportance(truth)
    signals = FusedSignals(imp, FakeQualitative(truth), FakeAccuracy(truth), FakeConcepts())
    labels = label_items(items, "fused", signals)
    for item, lab, w in zip(items, labels, wrong):
        assert lab.step_labels == _expected(item, w)
        assert all(s["exact"] == lab.step_labels[k] for k, s in enumerate(lab.step_scores))
    assert imp.calls == sum(len(i.steps) for i in items)


def test_exact_verdict_overrides_a_wrong_procedural_judgement(domain_pool):
    """The judge says every step is procedurally wrong; on FinChain the exact verdict replaces it."""
    items, wrong = domain_pool
    truth = _truth_from(domain_pool)

    class Harsh:
        def accuracy(self, item, k):
            return 0.0, 1.0

    labels = label_items(items[:3], "fused", FusedSignals(FakeImportance(truth), FakeQualitative(truth), Harsh(),
                                                          FakeConcepts()))
    gold_steps = labels[0].step_scores
    assert all(s["procedural"] == 1.0 and s["accuracy"] == 2.0 for s in gold_steps)


def test_bad_input_is_labelled_unknown_with_its_reason():
    no_steps = LabelItem("a", "Q?", (), "")
    no_gold = LabelItem("b", "Q?", ("2 + 2 = 4",), "4", knowledge=("addition",))
    flaky = LabelItem("c", "Q?", ("2 + 2 = 4", "4 × 3 = 12"), "12", gold_answer=12.0, knowledge=("product",))

    def truth(item, k):
        return None if (item.id, k) == ("c", 1) else True  # the judge fails on c's second step

    signals = FusedSignals(FakeImportance(truth), FakeQualitative(truth), FakeAccuracy(truth), FakeConcepts())
    labels = label_items([no_steps, no_gold, flaky], "fused", signals)
    assert [lab.id for lab in labels] == ["a", "b", "c"]  # nothing dropped
    assert labels[0].step_labels == [] and labels[0].traj_label is None
    assert labels[0].reasons == {"trace": "trace has no steps"}
    assert labels[1].traj_label is None and labels[1].reasons == {"trajectory": "missing gold answer"}
    assert labels[2].step_labels == [1, None]
    assert labels[2].reasons == {"step 2": "fake importance: no verdict for step 2"}
    assert labels[2].traj_label == 0  # 12 is right (1) but 'product' is not written: 1 + 0 < 1.25
    summary = summarise(labels)
    assert (summary["steps_correct"], summary["steps_unknown"], summary["traj_unknown"]) == (2, 1, 2)
    assert summary["reasons"] == {"trace has no steps": 1, "missing gold answer": 1,
                                  "fake importance: no verdict for step #": 1}
    exact = label_items([no_steps, no_gold], "exact")
    assert all(lab.traj_label is None and lab.reasons["trace"] for lab in exact)


def test_unknown_recipe_and_missing_signals_are_clear_errors():
    with pytest.raises(ValueError, match="unknown label recipe 'mc'"):
        label_items([], "mc")
    with pytest.raises(ValueError, match="needs signals"):
        label_items([], "fused")
