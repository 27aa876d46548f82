"""PRM interface, reward aggregation and the ``calc`` checker: expected values worked out by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.prm.base import NEUTRAL, PRMInput, PRMScore, aggregate, make_score, prm_input, reward
from scorers.prm.calc import CalcPRM, check_step, checks, evaluate


@pytest.mark.parametrize(("agg", "expected"), [("mean", 0.6), ("min", 0.2), ("prod", 0.9 * 0.7 * 0.2),
                                               ("last", 0.7)])
def test_aggregate_skips_unverified_steps(agg, expected):
    assert aggregate([0.9, None, 0.2, 0.7], agg) == pytest.approx(expected)


def test_aggregate_without_any_verdict_is_neutral():
    assert aggregate([None, None], "min") == NEUTRAL
    assert aggregate([], "mean") == NEUTRAL


def test_unknown_aggregation_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown aggregation 'max'"):
        aggregate([0.5], "max")


def test_reward_adds_zeta_times_trajectory():
    assert reward([0.5, 1.0], 0.8, "mean", 1.0) == pytest.approx(0.75 + 0.8)
    assert reward([0.5, 1.0], 0.8, "min", 0.5) == pytest.approx(0.5 + 0.4)
    assert reward([0.5, 1.0], None, "mean", 1.0) == pytest.approx(0.75)


def test_score_records_agg_zeta_and_round_trips():
    s = make_score([1.0, None, 0.0], 0.25, agg="mean", zeta=2.0, prm="x")
    assert (s.agg, s.zeta, s.n_unverified, s.reward) == ("mean", 2.0, 1, pytest.approx(0.5 + 0.5))
    assert PRMScore.from_dict(s.to_dict()) == s


def test_prm_input_uses_chaineval_segmentation():
    item = prm_input("Q?", "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12")
    assert item == PRMInput("Q?", ("2 + 2 = 4", "4 × 3 = 12"), "12")


@pytest.mark.parametrize(("text", "verdict"), [
    ("1,200 × 1.05 = 1,260", True),
    ("1,200 × 1.05 = 1,270", False),
    ("Growth: 14,600 × 1.3404 = 19,569.84", True),
    ("Growth: 14,600 × 1.3404 = 19,570.50", True),        # off by 0.66: beyond half a cent, within 0.5%
    ("Growth: 14,600 × 1.3404 = 19,800.00", False),       # off by 1.2%
    ("(1 − 84%) × 18,510,000.00 = $2,961,600.00.", True),  # 0.16 × 18,510,000
    ("Share: 235.05 ÷ 26,270 × 100 = 0.894747%.", True),   # a % result after × 100
    ("Rate: 0.05 × 2 = 10%", True),                        # a % result as a fraction
    ("Rate: 0.05 × 2 = 11%", False),
    ("2^10 = 1024", True),
    ("2 ** 10 = 1,000", False),
    ("√144 + 1 = 13", True),
    ("⌈10 ÷ 3⌉ = 4 periods", True),
    ("Revenue: 5.2 × 2 = 10.4 million", True),
    ("-3 + 5 = 2", True),
    ("1.05^3 = 1.157625 ≈ 1.16", True),                    # the second '=' has no operator: not a check
    ("1.05^3 = 1.2", True),                                # 1.157625 to one decimal is 1.2
    ("1.05^3 = 1.25", False),                              # off by 0.09 > 0.005 and > 0.5%
    ("The project is accepted because NPV > 0.", None),
    ("t = ln(2) ÷ ln(1.05) = 14.2", None),                 # a function outside the grammar
    ("(26,270 × 0.87%) rounded to 2 decimals = $228.55", None),
    ("Ratio: 5 ÷ 0 = 3", None),
    ("10^5000 = 1", None),
    ("x = 5", None),
])
def test_check_step(text, verdict):
    assert check_step(text) is verdict


def test_half_unit_of_last_decimal_is_tolerated():
    # 424,353,000 ÷ 78,600,000 = 5.39889...: written to 2 decimals as 5.40 (|diff| 0.0011 < 0.005).
    assert check_step("424,353,000 ÷ (78.6 × 1,000,000) = $5.40") is True
    # written to 4 decimals the same 5.40 claim is 5.4000 vs 5.3989: still within 0.5% (REL_TOL).
    assert check_step("424,353,000 ÷ (78.6 × 1,000,000) = 5.4000") is True
    assert check_step("424,353,000 ÷ (78.6 × 1,000,000) = 5.50") is False


def test_every_check_is_reported():
    found = checks("a: 2 × 3 = 6 and b: 6 + 1 = 8")
    assert [(c.computed, c.written, c.holds) for c in found] == [(6.0, 6.0, True), (7.0, 8.0, False)]


def test_evaluate_precedence_and_associativity():
    assert evaluate("2 + 3 × 4")[0] == 14
    assert evaluate("2^3^2")[0] == 512
    assert evaluate("-2^2")[0] == -4
    assert evaluate("(1 + 5%)^2")[0] == pytest.approx(1.1025)
    with pytest.raises(ValueError):
        evaluate("2 + ")


def test_calc_prm_scores_a_batch():
    items = [prm_input("q", "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 13\nStep 3: we are done"),
             prm_input("q", "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12")]
    bad, good = CalcPRM(agg="mean").score_batch(items)
    assert bad.step_probs == (1.0, 0.0, None) and bad.n_unverified == 1 and bad.reward == 0.5
    assert good.step_probs == (1.0, 1.0) and good.reward == 1.0 and good.p_traj is None
    assert (good.agg, good.zeta, good.prm) == ("mean", 1.0, "calc")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789,.=≈ ×÷+-−^()%$√⌈⌉abc\n")), max_size=80))
def test_calc_never_raises_and_verdicts_are_tristate(text):
    assert check_step(text) in (True, False, None)
    [score] = CalcPRM().score_batch([prm_input("q", text)])
    assert math.isfinite(score.reward)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10**4), st.sampled_from(["+", "−", "×", "÷"]))
def test_calc_agrees_with_python_arithmetic(a, b, op):
    exact = {"+": a + b, "−": a - b, "×": a * b, "÷": a / b}[op]
    assert check_step(f"{a:,} {op} {b:,} = {exact:,.4f}") is True
    assert check_step(f"{a:,} {op} {b:,} = {exact + 0.02 * abs(exact) + 1:,.4f}") is False
