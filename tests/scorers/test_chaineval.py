"""ChainEval's promises, on real embeddings and real templates."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finchain_tasks.engine import all_templates, get
from scorers.chaineval import score, score_batch
from scorers.params import resolve
from scorers.records import GoldSolution, GoldStep

PROBLEMS = [t.generate(s) for t in all_templates().values() for s in (0, 1)]


@pytest.mark.parametrize("profile", ["paper", "reference"])
def test_gold_solution_scores_one(profile):
    results = score_batch([p.gold() for p in PROBLEMS], [p.solution for p in PROBLEMS], profile)
    for p, r in zip(PROBLEMS, results):
        assert r.fac == 1.0, p.id
        assert r.chaineval == pytest.approx(1.0, abs=1e-6), (p.id, r.alignment)
        assert r.step_recall == r.step_precision == 1.0 and r.first_error_step is None
        assert r.n_gold_steps == r.n_pred_steps == len(p.steps) and r.parse_ok == 1.0


def test_no_usable_step_scores_zero_paper_and_three_quarters_reference():
    gold = PROBLEMS[0].gold()
    text = "I am not able to help with that request."
    assert score(gold, text, "paper").chaineval == 0.0
    assert score(gold, text, "reference").chaineval == pytest.approx(0.75)
    for profile in ("paper", "reference"):
        for empty in ("", None, "   \n"):
            assert score(gold, empty, profile).chaineval == 0.0


def _perturb_step(solution: str, k: int, factor: float) -> str:
    """Scale the value after the last '=' of step k (1-based) in a rendered solution."""
    lines = solution.splitlines()
    head, _, tail = lines[k - 1].rpartition("=")
    number = re.search(r"-?[\d,]*\.?\d+", tail)
    value = float(number.group(0).replace(",", "")) * factor
    lines[k - 1] = f"{head}= {tail[:number.start()]}{value:.6f}{tail[number.end():]}"
    return "\n".join(lines)


@pytest.mark.parametrize("profile", ["paper", "reference"])
def test_wrong_intermediate_number_is_the_first_error(profile):
    p = get("investment_analysis/compound_interest/rate_change_midway").generate(4)
    gold = p.gold()
    base = score(gold, p.solution, profile)
    wrong = score(gold, _perturb_step(p.solution, 2, 1.5), profile)
    assert wrong.first_error_step == 2
    assert wrong.chaineval < base.chaineval
    assert [a["gate"] for a in wrong.alignment if a["gold"] == 2] in ([0.0], [])
    within = score(gold, _perturb_step(p.solution, 2, 1.01), profile)
    assert within.first_error_step is None and within.fac == base.fac
    assert [a["gate"] for a in within.alignment] == [a["gate"] for a in base.alignment]
    # paper masks digits before embedding, so nothing changes; reference embeds raw text, so
    # the new digits move the similarity a little (the gate still passes)
    tolerance = 1e-6 if profile == "paper" else 0.02
    assert within.chaineval == pytest.approx(base.chaineval, abs=tolerance)


def test_missing_reordered_merged_and_extra_steps():
    p = get("investment_analysis/compound_interest/rate_change_midway").generate(2)
    gold, lines = p.gold(), p.solution.splitlines()
    steps, final = lines[:-1], lines[-1]
    full = score(gold, p.solution)
    skipped = score(gold, "\n".join(steps[:2] + steps[3:] + [final]))
    assert skipped.first_error_step == 3 and skipped.step_recall == pytest.approx(4 / 5)
    assert skipped.step_precision == 1.0 and skipped.chaineval < full.chaineval
    extra = score(gold, "\n".join(steps + ["Step 6: We also note the weather was nice today.", final]))
    assert extra.step_recall == 1.0 and extra.step_precision == pytest.approx(5 / 6)
    assert extra.chaineval == pytest.approx(2 * 5 / 11, abs=1e-5)
    swapped = score(gold, "\n".join([steps[1], steps[0]] + steps[2:] + [final]))
    assert swapped.step_recall == pytest.approx(4 / 5)  # order is kept: one of the two is skipped
    merged_text = steps[0] + " " + steps[1].split(":", 1)[1]
    merged = score(gold, "\n".join([merged_text] + steps[2:] + [final]))
    assert merged.n_pred_steps == 4 and merged.step_recall <= 4 / 5 and merged.fac == 1.0


def test_final_answer_tolerance():
    p = PROBLEMS[0]
    gold = p.gold()
    assert score(gold, f"Final answer: {p.answer * 1.04:.2f}").fac == 1.0
    assert score(gold, f"Final answer: {p.answer * 1.06:.2f}").fac == 0.0


def test_categorical_gold_step():
    gold = GoldSolution((GoldStep("NPV of A", 120.0, "$", "NPV of A = $120"),
                         GoldStep("Project to accept", "Project A", "", "Project to accept: Project A")),
                        "Project A")
    good = score(gold, "Step 1: NPV of A = $120\nStep 2: Project to accept: Project A\nFinal answer: Project A")
    bad = score(gold, "Step 1: NPV of A = $120\nStep 2: Project to accept: Project B\nFinal answer: Project B")
    assert good.fac == 1.0 and good.first_error_step is None
    assert bad.fac == 0.0 and bad.first_error_step == 2


def test_overrides_and_unknown_profile():
    assert resolve("reference", step_tol=0.5).step_tol == 0.5
    with pytest.raises(ValueError, match="unknown ChainEval profile"):
        resolve("nope")
    with pytest.raises(ValueError, match="unknown ChainEval parameter"):
        resolve("paper", tolerance=1)


hostile = st.one_of(
    st.text(max_size=400),
    st.just("NaN = nan; inf = 1e308 * 10 = 1e999"),
    st.just("<script>alert('x')</script> Step 1: = 5"),
    st.just("Step 1: " + "9" * 5000),
    st.builds(lambda t: t * 2000, st.text(min_size=1, max_size=50)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile, profile=st.sampled_from(["paper", "reference"]))
def test_fuzzed_outputs_never_raise_and_stay_in_range(text, profile):
    gold = PROBLEMS[3].gold()
    first = score(gold, text, profile)
    again = score(gold, text, profile)
    assert first.scores() == again.scores()
    for key in ("chaineval", "fac", "step_precision", "step_recall", "step_f1", "parse_ok"):
        assert 0.0 <= first.scores()[key] <= 1.0


def test_batch_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="gold solutions but"):
        score_batch([PROBLEMS[0].gold()], [])
