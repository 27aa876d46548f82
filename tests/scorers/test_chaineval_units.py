"""scorers/chaineval.py piece by piece, with exact (one-hot) embeddings so every number is worked out
by hand: metrics and their first-error buckets, rounding, the text that is embedded, categorical
values read back from gold text, and the per-output fields of a result."""

from __future__ import annotations

import numpy as np
import pytest

from scorers.chaineval import (
    CHUNK,
    ChainEvalResult,
    categorical_value,
    clean,
    embed_text,
    gold_from_text,
    score,
    score_batch,
)
from scorers.params import METRIC_KEYS
from scorers.records import GoldSolution, GoldStep

WORDS = ("Revenue", "Cost", "Profit", "Margin")


class OneHot:
    """The vector of a text is the one-hot of the first of WORDS it contains (all zeros for none)."""

    def __init__(self):
        self.seen: list[str] = []

    def encode_cached(self, texts):
        self.seen.extend(texts)
        out = np.zeros((len(texts), len(WORDS)), np.float32)
        for row, text in enumerate(texts):
            hit = next((k for k, w in enumerate(WORDS) if w in text), None)
            if hit is not None:
                out[row, hit] = 1.0
        return out


def _gold(*pairs, answer=None, unit="") -> GoldSolution:
    steps = tuple(GoldStep(text, value, "", text) for text, value in pairs)
    return GoldSolution(steps, answer if answer is not None else steps[-1].value, unit)


GOLD = _gold(("Revenue = 100", 100.0), ("Cost = 60", 60.0), ("Profit = 40", 40.0))


def test_result_fields_for_a_partly_right_output():
    """Gold revenue, cost, profit; output revenue right, cost wrong (70), profit right, one extra step.
    Paper: A = diag(1, 0, 1) plus a zero column -> 2 * 2 / (3 + 4) = 0.571429; matched gold {1, 3}:
    recall 2/3, precision 2/4, f1 = 2 * 0.5 * 0.6667 / 1.1667 = 0.571429; first error at gold step 2."""
    output = ("Step 1: Revenue = 100\nStep 2: Cost = 70\nStep 3: Profit = 40\nStep 4: Margin looks fine\n"
              "Final answer: 40")
    r = score(GOLD, output, "paper", OneHot())
    assert r.chaineval == round(4 / 7, 6)
    assert (r.step_recall, r.step_precision, r.step_f1) == (round(2 / 3, 6), 0.5, round(4 / 7, 6))
    assert r.first_error_step == 2 and (r.n_gold_steps, r.n_pred_steps) == (3, 4)
    assert r.fac == 1.0 and r.parse_ok == 1.0 and r.final_answer == "40"
    assert r.pred_steps == ["Revenue = 100", "Cost = 70", "Profit = 40", "Margin looks fine"]
    assert r.alignment == [
        {"gold": 1, "pred": 1, "similarity": 1.0, "gate": 1.0, "score": 1.0, "matched": True},
        {"gold": 3, "pred": 3, "similarity": 1.0, "gate": 1.0, "score": 1.0, "matched": True},
    ]
    assert set(r.scores()) == {"chaineval", "fac", "fac_strict", "step_precision", "step_recall", "step_f1",
                               "first_error_step",
                               "n_gold_steps", "n_pred_steps", "parse_ok", "final_answer"}
    assert r.scores()["first_error_step"] == 2
    m = r.metrics()
    assert list(m) == list(METRIC_KEYS)
    assert (m["chaineval"], m["fac"], m["step_f1"], m["precision"], m["recall"], m["parse_ok"]) == (
        r.chaineval, 1.0, r.step_f1, 0.5, r.step_recall, 1.0)
    assert (m["no_error"], m["err_1"], m["err_2"], m["err_3"], m["err_4plus"]) == (0.0, 0.0, 1.0, 0.0, 0.0)


def test_the_match_threshold_decides_matches_but_not_the_score():
    output = "Step 1: Revenue = 100\nStep 2: Cost = 60\nStep 3: Profit = 40"
    high = score(GOLD, output, "paper", OneHot(), match_threshold=1.0)
    assert high.step_recall == 1.0 and high.first_error_step is None  # 1.0 >= 1.0: inclusive
    r = score(GOLD, "Step 1: Revenue = 100\nStep 2: Costs were 60\nStep 3: Profit = 40", "paper", OneHot())
    assert r.chaineval == 1.0 and r.alignment[1]["matched"] is True


@pytest.mark.parametrize("first, bucket", [(None, "no_error"), (1, "err_1"), (2, "err_2"), (3, "err_3"),
                                           (4, "err_4plus"), (9, "err_4plus")])
def test_first_error_buckets(first, bucket):
    r = ChainEvalResult(0.5, 0.0, 0.0, 0.0, 0.0, first, 3, 3, 1.0)
    errors = {k: v for k, v in r.metrics().items() if k in ("no_error", "err_1", "err_2", "err_3", "err_4plus")}
    assert errors == {k: float(k == bucket) for k in errors}


def test_no_steps_or_no_answer():
    empty = score(GOLD, "", "paper", OneHot())
    assert (empty.chaineval, empty.parse_ok, empty.fac, empty.n_pred_steps, empty.first_error_step) == (
        0.0, 0.0, 0.0, 0, 1)
    assert empty.step_f1 == 0.0 and empty.alignment == [] and empty.final_answer == ""
    # steps but no value anywhere: nothing to read as the answer, so it does not parse
    words = score(GOLD, "Step 1: Revenue is up\nStep 2: Profit too", "paper", OneHot())
    assert words.parse_ok == 0.0 and words.n_pred_steps == 2
    no_gold = score(GoldSolution((), None), "Step 1: Revenue = 100", "paper", OneHot())
    assert (no_gold.chaineval, no_gold.step_recall, no_gold.step_precision, no_gold.first_error_step) == (
        0.0, 0.0, 0.0, None)


def test_score_batch_checks_lengths_reads_none_as_empty_and_reports_progress():
    with pytest.raises(ValueError, match="^2 gold solutions but 1 outputs$"):
        score_batch([GOLD, GOLD], ["x"], "paper", OneHot())
    seen: list[int] = []
    out = score_batch([GOLD] * 3, [None, "Step 1: Revenue = 100", ""], "paper", OneHot(), progress=seen.append)
    assert seen == [3] and [r.n_pred_steps for r in out] == [0, 1, 0]
    big = score_batch([GOLD] * (CHUNK + 2), ["Step 1: Revenue = 100"] * (CHUNK + 2), "paper", OneHot(),
                      progress=(chunks := []).append)
    assert chunks == [CHUNK, 2] and len(big) == CHUNK + 2 and big[-1].chaineval == round(2 / 4, 6)
    assert score(GOLD, "Step 1: Revenue = 100", "paper", OneHot()) == out[1]


def test_overrides_reach_the_scorer():
    output = "Step 1: Revenue = 110\nStep 2: Cost = 60\nStep 3: Profit = 40"
    assert score(GOLD, output, "paper", OneHot()).first_error_step == 1
    assert score(GOLD, output, "paper", OneHot(), step_tol=0.1).first_error_step is None


def test_what_is_embedded():
    emb = OneHot()
    score(_gold(("Revenue = 1,200.", 1200.0)), "Step 1: Revenue = 1,200.", "paper", emb)
    assert emb.seen == ["Revenue = #", "Revenue = #"]
    assert embed_text("  Net = 1,234.5;  ", True) == "Net = #"
    assert embed_text("  Net = 1,234.5;  ", False) == "Net = 1,234.5"
    assert embed_text("Net = 1,234.5.", False, strip_punctuation=False) == "Net = 1,234.5."
    assert embed_text("Rate 2.5e-3 and 7", True) == "Rate # and #"
    assert embed_text("...", True) == "..."  # nothing but punctuation: kept as it is
    assert embed_text(" , ", False) == ","


def test_clean():
    assert clean(-0.0) == 0.0 and str(clean(-0.0)) == "0.0"
    assert clean(0.1234565) == 0.123457 or clean(0.1234565) == 0.123456  # float rounding of a tie
    assert clean(0.12345678) == 0.123457 and clean(0.12345678, 4) == 0.1235
    assert type(clean(np.float32(0.5))) is float and clean(np.float32(0.8)) == 0.8


@pytest.mark.parametrize("text, value", [
    ("Project to accept: Project A", "Project A"),
    ("Compliant? = Yes", True), ("Decision = no.", False), ("Flag: TRUE", True), ("Flag: False", False),
    ("Outcome = **Accept**", "Accept"), ("Choice: `Plan B`", "Plan B"), ("Choice: Plan B!", "Plan B"),
    ("Result: one two three four five six", "one two three four five six"),
    ("Result: one two three four five six seven", None),   # too long to be a short conclusion
    ("Net income = 5,000", None),                          # a number, no letters
    ("No separator here", None), ("Ends with a colon:", None),
])
def test_categorical_value(text, value):
    assert categorical_value(text) == value


def test_gold_from_text_numbers_categories_and_the_answer():
    gold = gold_from_text("Step 1: Revenue = $100\nStep 2: Cost = $60\nStep 3: Choose: Plan B\n"
                          "Final answer: Plan B", "p1")
    assert [s.value for s in gold.steps] == [100.0, 60.0, "Plan B"]
    assert [s.unit for s in gold.steps] == ["$", "$", ""]
    assert gold.steps[0].text == gold.steps[0].description == "Revenue = $100"
    assert (gold.answer, gold.answer_unit, gold.problem_id) == ("Plan B", "", "p1")
    numeric = gold_from_text("Step 1: Rate = 5%\nFinal answer: 5%")
    assert (numeric.answer, numeric.answer_unit) == (5.0, "%")
    # a solution that concludes in words has a text answer, compared as text (issue 24), never None
    words = gold_from_text("Step 1: We think about it")
    assert words.steps[0].value is None and words.answer == "We think about it"


# --- what the first mutation run left alive (see tests/MUTANTS.md) -------------------------------------

class Table:
    """Vectors by text, given as they are (not normalised)."""

    def __init__(self, vectors):
        self.vectors = {t: np.asarray(v, np.float32) for t, v in vectors.items()}
        self.seen: list[str] = []

    def encode_cached(self, texts):
        self.seen.extend(texts)
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 2), np.float32)


def test_valid_text_replaces_lone_surrogates():
    from scorers.chaineval import valid_text

    assert valid_text("a\ud800b") == "a\ufffdb" and valid_text("ok €") == "ok €" and valid_text(None) == ""


def test_default_profile_is_paper():
    output = "Step 1: Revenue = 100\nStep 2: Cost = 60"
    assert score(GOLD, output, embedder=OneHot()) == score(GOLD, output, "paper", OneHot())
    assert score_batch([GOLD], [output], embedder=OneHot()) == [score(GOLD, output, "paper", OneHot())]


def test_masking_and_punctuation_are_separate_settings():
    emb = OneHot()
    score(_gold(("Revenue = 1,200.", 1200.0)), "Step 1: Revenue = 1,200.", "paper", emb, strip_punctuation=False)
    assert emb.seen == ["Revenue = #.", "Revenue = #."]
    assert embed_text("Tax", False) == "Tax" and embed_text("Fix.", True) == "Fix"


def test_similarity_is_clipped_to_one_and_rounded_to_four_digits():
    gold = _gold(("Revenue total", None))
    big = score(gold, "Step 1: Revenue", "paper", Table({"Revenue total": [2.0, 0.0], "Revenue": [1.0, 0.0]}))
    assert big.alignment[0]["similarity"] == 1.0 and big.chaineval == 1.0
    c = 0.87654321
    part = score(gold, "Step 1: Revenue", "paper",
                 Table({"Revenue total": [1.0, 0.0], "Revenue": [c, float(np.sqrt(1 - c * c))]}))
    assert part.alignment[0]["similarity"] == 0.8765 and part.alignment[0]["score"] == 0.8765
    assert part.chaineval == round(float(np.float32(c)), 6)


def test_units_of_gold_steps_and_answers_reach_the_gate():
    gold = GoldSolution((GoldStep("Rate = 5%", 5.0, "%", "Rate = 5%"),), 5.0, "%")
    r = score(gold, "Step 1: Rate = 0.05\nFinal answer: 0.05", "paper", OneHot())  # no keyword: similarity 0
    assert r.alignment == [] and r.fac == 1.0
    gold = GoldSolution((GoldStep("Revenue = 5%", 5.0, "%", "Revenue = 5%"),), 5.0, "%")
    r = score(gold, "Step 1: Revenue = 0.05", "paper", OneHot())
    assert r.chaineval == 1.0 and r.alignment[0]["gate"] == 1.0


def test_tie_rule_reaches_the_alignment():
    """One gold step without a value, similarity 0.5: reference pairs on the tie (1 - 0.5 = 0.5), the
    skip rule takes two gaps (1 - 0.5 / 2 = 0.75)."""
    gold = _gold(("Revenue plan", None))
    emb = Table({"Revenue plan": [1.0, 0.0], "Some text": [0.5, float(np.sqrt(0.75))]})
    assert score(gold, "Step 1: Some text", "reference", emb).chaineval == 0.5
    assert score(gold, "Step 1: Some text", "reference", emb, tie_rule="skip").chaineval == 0.75


def test_f1_matched_flags_and_parse_ok_edges():
    full = score(GOLD, "Step 1: Revenue = 100\nStep 2: Cost = 60\nStep 3: Profit = 40", "paper", OneHot(),
                 match_threshold=1.0)
    assert full.step_f1 == 1.0 and all(a["matched"] for a in full.alignment)
    assert score(GOLD, "", "paper", OneHot()).step_precision == 0.0
    one = score(GOLD, "Step 1: Revenue = 100", "paper", OneHot())
    assert one.parse_ok == 1.0  # one step, its value read as the answer
    text_answer = score(GOLD, "Step 1: Revenue is up\nFinal answer: Plan B", "paper", OneHot())
    assert text_answer.parse_ok == 1.0 and text_answer.final_answer == "Plan B"


@pytest.mark.parametrize("text, value", [
    ("a = b: Plan C", "Plan C"), ("a: b = Plan D", "Plan D"), (":Plan E", "Plan E"), ("=Plan F", "Plan F"),
    ("Choice:Plan G", "Plan G"), ("Choice: XPlan", "XPlan"), ("Choice: Plan X.", "Plan X"),
])
def test_categorical_value_cuts_at_the_last_separator(text, value):
    assert categorical_value(text) == value


def test_gold_from_text_keeps_categorical_step_texts_and_an_empty_id():
    gold = gold_from_text("Step 1: Choose: Plan B")
    assert gold.problem_id == "" and gold.steps[0].description == gold.steps[0].text == "Choose: Plan B"


def test_negative_similarity_is_clipped_to_zero():
    """Gold revenue, cost; output revenue and the opposite of cost (cosine -1, clipped to 0). Reference with
    a gap of 1: pairing cost (1 - 0 = 1) beats two gaps (2), so the path pairs both: 1 - (0 + 1) / 2 = 0.5.
    Unclipped, the pair would cost 2 and the score fall to 0."""
    gold = _gold(("Revenue line", None), ("Cost line", None))
    emb = Table({"Revenue line": [1.0, 0.0], "Cost line": [0.0, 1.0], "Revenue": [1.0, 0.0], "Opposite": [0.0, -1.0]})
    r = score(gold, "Step 1: Revenue\nStep 2: Opposite", "reference", emb, gap_penalty=1.0)
    assert r.chaineval == 0.5 and r.alignment[1]["similarity"] == 0.0


def test_more_cuts_and_strips():
    assert categorical_value("a = b = Plan H") == "Plan H" and categorical_value("a: b: Plan I") == "Plan I"
    assert embed_text("FIX", False) == "FIX" and embed_text("TAX.", False) == "TAX"


def test_an_answer_alone_is_one_step():
    """Issue 24: "The answer is: 40" alone is one predicted step (its answer line), not an empty chain:
    it can at most match one gold step, so its step recall is at most 1/n."""
    r = score(GOLD, "Final answer: 40", "paper", OneHot())
    assert r.n_pred_steps == 1 and r.parse_ok == 1.0 and r.fac == 1.0
    assert r.step_recall <= 1 / r.n_gold_steps
