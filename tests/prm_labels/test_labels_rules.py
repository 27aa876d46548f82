"""The label recipes' thresholds, at their edges (issue 39, found by the literal pass).

test_labels.py checks the paper's arithmetic with the thresholds written into the test (``binarise(x, 0.5)``),
so moving ``STEP_THRESHOLD`` or ``TRAJ_THRESHOLD`` in fusion.py left every test green. Here the ``fused``
recipe labels one-step traces whose signals are fixed by the test, so the score each label reads is known
exactly: a step is correct from a fused score of 0.5 up, a trajectory from r_out + 1.5 · r_cover = 1.25 up.
No gold trace: ChainEval (and its embedding model) never runs."""

from __future__ import annotations

import pytest

from scorers.prm.labels import FusedSignals, LabelItem, label_items


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
