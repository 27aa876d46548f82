"""The reference profile's rules, pinned with numbers worked out by hand (and, for the alignment, by
a second implementation of the authors' recurrence written here): chaineval = 1 - cost / number of
moves (not n + m), the 15% step tolerance (not the 5% final one), bag-of-words matching of string
steps, and normalised equality for final answers in both profiles. Embeddings are exact by
construction (one-hot or given vectors), so every expected score is a fraction worked out below."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.chaineval import score, score_batch
from scorers.params import resolve
from scorers.records import GoldSolution, GoldStep

KEYWORDS = ("alpha", "beta", "gamma", "Revenue", "Profit", "Decision")


class KeywordEmbedder:
    """A text's vector is the one-hot of the first keyword it contains: similarity 1 between texts
    that share their keyword, 0 otherwise."""

    def encode_cached(self, texts):
        out = np.zeros((len(texts), len(KEYWORDS)), np.float32)
        for row, text in enumerate(texts):
            out[row, next(k for k, word in enumerate(KEYWORDS) if word in text)] = 1.0
        return out


EMB = KeywordEmbedder()


def _step(text: str, value=None, unit: str = "") -> GoldStep:
    return GoldStep(text, value, unit, text)


# --- normalisation by moves ------------------------------------------------------------------------------

def test_reference_normalises_by_moves_not_by_step_counts():
    """Gold alpha, beta, gamma; output alpha, gamma. A = [[1,0],[0,0],[0,1]].
    Reference path: pair, skip beta (0.25), pair: cost 0.25 over 3 moves -> 1 - 0.25/3 = 0.916667
    (over n + m = 5 it would be 0.95). Paper: 2 * 2 / (3 + 2) = 0.8."""
    gold = GoldSolution((_step("alpha"), _step("beta"), _step("gamma")), None)
    output = "Step 1: alpha\nStep 2: gamma"
    ref = score(gold, output, "reference", EMB)
    assert ref.chaineval == round(1 - 0.25 / 3, 6) == 0.916667
    assert [(a["gold"], a["pred"]) for a in ref.alignment] == [(1, 1), (3, 2)]
    assert (ref.step_recall, ref.step_precision, ref.first_error_step) == (round(2 / 3, 6), 1.0, 2)
    assert score(gold, output, "paper", EMB).chaineval == 0.8


def test_extra_predicted_steps_cost_a_gap_each_over_the_moves():
    """Gold alpha; output alpha, beta, gamma: pair + 2 skips = 0.5 over 3 moves -> 0.833333.
    Paper: 2 * 1 / 4 = 0.5."""
    gold = GoldSolution((_step("alpha"),), None)
    output = "Step 1: alpha\nStep 2: beta\nStep 3: gamma"
    assert score(gold, output, "reference", EMB).chaineval == round(1 - 0.5 / 3, 6)
    assert score(gold, output, "paper", EMB).chaineval == 0.5


# --- step tolerance 15% vs final tolerance 5% ------------------------------------------------------------

GOLD_NUMBERS = GoldSolution((_step("Revenue = 100", 100.0), _step("Profit = 40", 40.0)), 40.0)


@pytest.mark.parametrize("revenue, ref_score, ref_error, paper_score, paper_error", [
    # within 5%: both gates pass
    (104, 1.0, None, 1.0, None),
    # 10% off: reference gate passes (15%); paper fails: A = [[0,0],[0,1]] -> max-sum 2*1/4 = 0.5
    (110, 1.0, None, 0.5, 1),
    (90, 1.0, None, 0.5, 1),
    # 16% off: the reference gate fails too; pairing (cost 1) loses to two gaps (0.5): 1 - 0.5/3
    (116, round(1 - 0.5 / 3, 6), 1, 0.5, 1),
])
def test_step_gate_tolerance_per_profile(revenue, ref_score, ref_error, paper_score, paper_error):
    output = f"Step 1: Revenue = {revenue}\nStep 2: Profit = 40"
    ref = score(GOLD_NUMBERS, output, "reference", EMB)
    paper = score(GOLD_NUMBERS, output, "paper", EMB)
    assert (ref.chaineval, ref.first_error_step, ref.fac) == (ref_score, ref_error, 1.0)
    assert (paper.chaineval, paper.first_error_step, paper.fac) == (paper_score, paper_error, 1.0)


def test_final_answer_uses_the_final_tolerance_in_a_mixed_batch():
    """Final answers 10% off fail in both profiles (final tolerance 5%), though the same 10% passes
    the reference step gate; each output of the batch keeps its own verdict."""
    outputs = ["Step 1: Revenue = 100\nStep 2: Profit = 44",   # last step 10% off
               "Step 1: Revenue = 100\nStep 2: Profit = 41",   # 2.5% off
               "",
               "Step 1: Revenue = 100\nStep 2: Profit = 40"]
    ref = score_batch([GOLD_NUMBERS] * 4, outputs, "reference", EMB)
    assert [r.fac for r in ref] == [0.0, 1.0, 0.0, 1.0]
    assert [r.chaineval for r in ref] == [1.0, 1.0, 0.0, 1.0]
    paper = score_batch([GOLD_NUMBERS] * 4, outputs, "paper", EMB)
    assert [r.fac for r in paper] == [0.0, 1.0, 0.0, 1.0]
    assert [r.chaineval for r in paper] == [0.5, 1.0, 0.0, 1.0]


def test_a_step_without_a_number_passes_the_reference_gate_only():
    """Gold Revenue = 100; the step names revenue but states no number: reference gate 1 (text
    decides), paper gate 0 (missing value)."""
    output = "Step 1: Revenue is high\nStep 2: Profit = 40"
    assert score(GOLD_NUMBERS, output, "reference", EMB).chaineval == 1.0
    assert score(GOLD_NUMBERS, output, "paper", EMB).chaineval == 0.5


# --- string steps: bag of words in reference, equality in paper; final answers equal in both ---------

GOLD_TEXT = GoldSolution((_step("Decision: accept project alpha", "accept project alpha"),), "accept project alpha")


@pytest.mark.parametrize("step, ref_gate, paper_gate", [
    ("Decision: accept project alpha", 1.0, 1.0),
    ("Decision: project alpha, accept", 1.0, 0.0),   # same words, another order: bag of words only
    ("Decision: reject", 0.0, 0.0),                  # no shared word
])
def test_string_steps(step, ref_gate, paper_gate):
    ref = score(GOLD_TEXT, f"Step 1: {step}", "reference", EMB)
    paper = score(GOLD_TEXT, f"Step 1: {step}", "paper", EMB)
    # one step, similarity 1: a passing gate pairs (cost 0) -> 1; a failing one takes two gaps -> 0.75
    assert ref.chaineval == (1.0 if ref_gate else 0.75)
    assert paper.chaineval == paper_gate


@pytest.mark.parametrize("profile", ["paper", "reference"])
def test_final_answer_text_is_equality_even_where_steps_use_bag_of_words(profile):
    outputs = ["Step 1: Decision: accept project alpha\nFinal answer: Accept project alpha.",
               "Step 1: Decision: project alpha, accept\nFinal answer: project alpha, accept",
               "Step 1: Decision: reject\nFinal answer: reject"]
    assert [r.fac for r in score_batch([GOLD_TEXT] * 3, outputs, profile, EMB)] == [1.0, 0.0, 0.0]


# --- a second implementation of both objectives ----------------------------------------------------------

def _reference_dp(A: np.ndarray, gap: float) -> float:
    """The authors' recurrence: min cost with pair 1 - A, gap per skip; ties go pair, skip gold,
    skip predicted (np.argmin's first minimum); 1 - cost / moves of the chosen path."""
    n, m = A.shape
    cost = np.zeros((n + 1, m + 1))
    moves = np.zeros((n + 1, m + 1), dtype=int)
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                cost[i, j], moves[i, j] = (i + j) * gap, i + j
                continue
            options = [(cost[i - 1, j - 1] + 1 - A[i - 1, j - 1], moves[i - 1, j - 1]),
                       (cost[i - 1, j] + gap, moves[i - 1, j]), (cost[i, j - 1] + gap, moves[i, j - 1])]
            best = min(range(3), key=lambda k: options[k][0])
            cost[i, j], moves[i, j] = options[best][0], options[best][1] + 1
    return 1 - cost[n, m] / moves[n, m]


def _paper_dp(A: np.ndarray) -> float:
    n, m = A.shape
    best = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best[i, j] = max(best[i - 1, j - 1] + A[i - 1, j - 1], best[i - 1, j], best[i, j - 1])
    return 2 * best[n, m] / (n + m)


NAMES = ["ka", "kb", "kc", "kd", "ke"]
unit_vec = st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=3).filter(
    lambda v: sum(x * x for x in v) > 0.01)


class VectorEmbedder:
    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors

    def encode_cached(self, texts):
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 3), np.float32)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(unit_vec, min_size=1, max_size=5), st.lists(unit_vec, min_size=1, max_size=5))
def test_both_objectives_agree_with_a_second_implementation(gold_vs, pred_vs):
    def unit(v):
        a = np.asarray(v, np.float32)
        return (a / np.linalg.norm(a)).astype(np.float32)

    gold_names = ["g" + n for n in NAMES[:len(gold_vs)]]
    pred_names = ["p" + n for n in NAMES[:len(pred_vs)]]
    vectors = {**dict(zip(gold_names, map(unit, gold_vs))), **dict(zip(pred_names, map(unit, pred_vs)))}
    gold = GoldSolution(tuple(_step(t) for t in gold_names), None)
    output = "\n".join(f"Step {k}: {t}" for k, t in enumerate(pred_names, 1))
    G = np.stack([vectors[t] for t in gold_names])
    P = np.stack([vectors[t] for t in pred_names])
    A = np.clip(G @ P.T, 0.0, 1.0).astype(np.float64)
    emb = VectorEmbedder(vectors)
    ref, paper = score(gold, output, "reference", emb), score(gold, output, "paper", emb)
    assert ref.chaineval == pytest.approx(min(max(_reference_dp(A, 0.25), 0.0), 1.0), abs=2e-6)
    assert paper.chaineval == pytest.approx(_paper_dp(A), abs=2e-6)
    assert score(gold, output, resolve("reference", gap_penalty=0.4), emb).chaineval == pytest.approx(
        min(max(_reference_dp(A, 0.4), 0.0), 1.0), abs=2e-6)
