"""ChainEval's promises, on real embeddings and real templates."""

import json
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finchain_tasks.engine import all_templates, get
from scorers.chaineval import score, score_batch
from scorers.params import no_match_note, no_match_score, resolve
from scorers.records import GoldSolution, GoldStep
from scorers.rows import gold_of

PROBLEMS = [t.generate(k % 7) for k, t in enumerate(all_templates().values())]
"""One problem of every template (seeds 0-6 in turn): 290 golds keep the embedding cost of a full sweep low."""


@pytest.mark.parametrize("profile", ["paper", "reference"])
def test_gold_solution_scores_one(profile):
    # a problem row (structured steps + solution text) is how every host hands gold over; the
    # reference profile embeds text as it is, so the gold side must be the steps as rendered
    results = score_batch([gold_of(p.to_dict()) for p in PROBLEMS], [p.solution for p in PROBLEMS], profile)
    for p, r in zip(PROBLEMS, results):
        assert r.fac == 1.0, p.id
        assert r.chaineval == pytest.approx(1.0, abs=1e-6), (p.id, r.alignment)
        assert r.step_recall == r.step_precision == 1.0 and r.first_error_step is None
        assert r.n_gold_steps == r.n_pred_steps == len(p.steps) and r.parse_ok == 1.0


def test_no_usable_step_scores_zero_paper_and_three_quarters_reference():
    gold = PROBLEMS[0].gold()
    text = "I am not able to help with that request."
    assert score(gold, text, "paper").chaineval == 0.0 == no_match_score(resolve("paper"))
    assert score(gold, text, "reference").chaineval == 0.75 == no_match_score(resolve("reference"))
    assert "0.75" in no_match_note(resolve("reference")) and no_match_note(resolve("paper")) is None
    assert no_match_score(resolve("reference", gap_penalty=0.1)) == 0.9 == score(gold, text, "reference",
                                                                                 gap_penalty=0.1).chaineval
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


# --- ChainEval fidelity (issue 10, item 6) -----------------------------------------------------

class TableEmbedder:
    """Vectors looked up by text (an unknown text is an error): similarities known exactly, and a
    record of the texts the scorer chose to embed."""

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = {t: np.asarray(v, dtype=np.float32) for t, v in vectors.items()}
        self.seen: list[str] = []

    def encode_cached(self, texts):
        self.seen.extend(texts)
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 2), np.float32)


HALF = [0.5, float(np.sqrt(0.75))]  # cos with [1, 0] is 0.5 exactly, also in float32


def test_reference_pairs_on_an_exact_tie_and_paper_does_not():
    """One gold step, one predicted step, A = 0.5 (gate 1: the gold step has no value). Reference
    pairs on the tie: 1 - 0.5 / 1 = 0.5; with the skip rule it takes two gaps: 1 - 0.5 / 2 = 0.75."""
    gold = GoldSolution((GoldStep("Explain", None, "", "Explain the plan"),), None)
    embedder = TableEmbedder({"Explain the plan": [1.0, 0.0], "Some text": HALF})
    ref = score(gold, "Some text", "reference", embedder)
    assert ref.chaineval == 0.5 and [(a["gold"], a["pred"]) for a in ref.alignment] == [(1, 1)]
    skip = score(gold, "Some text", "reference", embedder, tie_rule="skip")
    assert skip.chaineval == 0.75 and skip.alignment == []
    assert score(gold, "Some text", "paper", embedder).chaineval == 0.5  # max-sum: 2 * 0.5 / 2


def test_reference_embeds_text_as_written_and_paper_strips_closing_punctuation():
    gold = GoldSolution((GoldStep("Net income", 50.0, "", "Net income = 50."),), 50.0)
    embedder = TableEmbedder({"Net income = 50.": [1.0, 0.0], "Net income = 50": HALF,
                              "Net income = #": [1.0, 0.0]})
    score(gold, "Net income = 50.", "reference", embedder)
    assert embedder.seen == ["Net income = 50.", "Net income = 50."]
    embedder.seen.clear()
    score(gold, "Net income = 50.", "paper", embedder)
    assert embedder.seen == ["Net income = #", "Net income = #"]
    embedder.seen.clear()
    score(gold, "Net income = 50.", "reference", embedder, strip_punctuation=True)
    assert embedder.seen == ["Net income = 50", "Net income = 50"]


def test_reference_similarity_is_the_cosine_of_the_raw_texts():
    """Second computation: the reference alignment's similarity equals the cosine the embedder gives
    the two texts exactly as written (the authors embed them raw)."""
    from scorers.embeddings import shared_embedder

    gold_text, pred_text = "Net income for the year = $50,000.", "So the net income for the year is $50,000."
    gold = GoldSolution((GoldStep("Net income", 50000.0, "$", gold_text),), 50000.0, "$")
    got = score(gold, pred_text, "reference").alignment[0]["similarity"]
    vecs = shared_embedder().encode([gold_text, pred_text])
    assert got == round(float(np.clip(vecs[0] @ vecs[1], 0, 1)), 4)


@pytest.mark.parametrize("profile", ["paper", "reference"])
def test_categorical_final_answer_needs_normalised_equality(profile):
    gold = GoldSolution((GoldStep("NPV of A", 120.0, "$", "NPV of A = $120"),
                         GoldStep("Project to accept", "Project A", "", "Project to accept: Project A")),
                        "Project A")
    steps = "Step 1: NPV of A = $120\nStep 2: Project to accept: Project A\n"
    assert score(gold, steps + "Final answer: Project B", profile).fac == 0.0
    assert score(gold, steps + "Final answer: Accept project A and B", profile).fac == 0.0
    assert score(gold, steps + "Final answer: **project a.**", profile).fac == 1.0


SOLUTION = "Step 1: NPV of A = $120.\nStep 2: Project to accept: Project A.\nFinal answer: Project A"


def test_gold_from_text_keeps_categorical_steps():
    gold = gold_of({"solution": SOLUTION, "id": "x"})
    assert [s.value for s in gold.steps] == [120.0, "Project A"]
    wrong = score(gold, SOLUTION.replace("accept: Project A", "accept: Project B"), "paper")
    assert wrong.first_error_step == 2 and wrong.step_recall == 0.5
    # (reference matches categorical steps by bag of words, as the authors' script does, so there
    # "Project to accept: Project B" still overlaps "Project A": the profile keeps that behaviour)


def test_gold_from_text_agrees_with_the_structured_steps_of_every_template():
    """The structured steps are a second source for what the text should give back."""
    for p in PROBLEMS:
        parsed = gold_of({"solution": p.solution})
        structured = p.gold()
        assert len(parsed.steps) == len(structured.steps), p.id
        for a, b in zip(parsed.steps, structured.steps):
            if isinstance(b.value, str):
                assert a.value == b.value, p.id
            elif b.value is not None:
                assert isinstance(a.value, float) and a.value == pytest.approx(b.value, rel=1e-3, abs=0.01), p.id


def test_i_dont_know_scores_zero_in_paper_against_text_gold():
    golds = [gold_of({"solution": p.solution}) for p in PROBLEMS]
    results = score_batch(golds, ["I don't know."] * len(golds), "paper")
    assert {r.chaineval for r in results} == {0.0}, [(p.id, r.chaineval) for p, r in zip(PROBLEMS, results)]


def _all_floats(result) -> list[float]:
    values = [v for v in result.scores().values() if isinstance(v, float)]
    values += [a[k] for a in result.alignment for k in ("similarity", "gate", "score")]
    return values + list(result.metrics().values())


def test_outputs_are_clean_float64():
    """cos = 0.8 in float32 is 0.800000011920929 as a float64: the score must say 0.8."""
    gold = GoldSolution((GoldStep("Explain", None, "", "Explain the plan"),), None)
    embedder = TableEmbedder({"Explain the plan": [1.0, 0.0], "Some text": [0.8, 0.6]})
    result = score(gold, "Some text", "paper", embedder)
    assert result.chaineval == 0.8 and result.alignment[0]["similarity"] == 0.8
    assert json.dumps(result.scores()["chaineval"]) == "0.8"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, len(PROBLEMS) - 1), cut=st.integers(0, 6), profile=st.sampled_from(["paper", "reference"]))
def test_every_written_number_is_clean(k, cut, profile):
    p = PROBLEMS[k]
    text = "\n".join(p.solution.splitlines()[cut:])
    for value in _all_floats(score(p.gold(), text, profile)):
        assert value == round(value, 6) and (value != 0 or math.copysign(1.0, value) == 1.0), value


def test_metric_keys_give_the_first_error_distribution():
    p = get("investment_analysis/compound_interest/rate_change_midway").generate(4)
    gold = p.gold()
    assert score(gold, p.solution).metrics() == {
        "chaineval": 1.0, "fac": 1.0, "fac_strict": 1.0, "step_f1": 1.0, "precision": 1.0, "recall": 1.0,
        "parse_ok": 1.0, "no_error": 1.0, "err_1": 0.0, "err_2": 0.0, "err_3": 0.0, "err_4plus": 0.0}
    wrong = score(gold, _perturb_step(p.solution, 2, 1.5)).metrics()
    assert (wrong["no_error"], wrong["err_2"]) == (0.0, 1.0)
    late = score(gold, _perturb_step(p.solution, 5, 1.5)).metrics()
    assert (late["err_4plus"], late["no_error"]) == (1.0, 0.0)
    assert sum(v for k, v in late.items() if k == "no_error" or k.startswith("err_")) == 1.0


def test_a_lone_surrogate_does_not_fail_the_batch():
    """A JSON escape can put a lone surrogate in a reply; the tokenizer refuses it, which used to
    fail every output of the batch. It is read as U+FFFD instead."""
    p = PROBLEMS[0]
    bad = p.solution.replace("Step 1:", "Step 1: \ud800", 1)
    got = score_batch([p.gold(), p.gold()], [bad, p.solution])
    want = score_batch([p.gold()], [bad.replace("\ud800", "\ufffd")])[0]
    assert got[0].scores() == want.scores() and got[1].chaineval == 1.0
    gold = GoldSolution((GoldStep("Rate", 5.0, "", "Rate \udfff = 5"),), 5.0)
    assert score(gold, "Step 1: Rate = 5\nFinal answer: 5").fac == 1.0
