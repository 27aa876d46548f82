"""``finchain reproduce``'s rules over plain data (issue 39.3): how a sample of the authors' per-sample file is
joined to ours (all five key fields), how their levels and test instances are read, the published table's
columns, what each agreement share counts (within 1e-6, within 0.05, edges included), which samples count as
right for the AUC, the profiles run by default and the report table's columns. Their repository is never
read: the lines are written here in its shapes, and results stand in for ChainEval's (no embeddings)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from finchain_tasks.reproduce import authors, compare

KEY = {"seed": 1, "id": "7", "topic": "t", "subtopic": "s", "level": "Basic"}


def _their_file(root, rows):
    (root / "evals").mkdir(parents=True, exist_ok=True)
    (root / "evals" / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("field, other", [("seed", 2), ("id", "8"), ("topic", "u"), ("subtopic", "z"),
                                          ("level", "Advanced")])
def test_rule_their_samples_are_told_apart_by_each_of_seed_id_topic_subtopic_and_level(tmp_path, field, other):
    _their_file(tmp_path, [{**KEY, "final_answer_match": 1}, {**KEY, field: other, "final_answer_match": 0}])
    scores, rel = authors.their_scores(tmp_path, "m")
    assert rel == "evals/m.jsonl" and len(scores) == 2
    assert scores[authors._key(KEY)]["final_answer_match"] == 1


@pytest.mark.parametrize("level, ours", [("Basic", "easy"), ("basic", "easy"), ("Easy", "easy"),
                                         ("Intermediate", "intermediate"), ("ADVANCED", "advanced"),
                                         ("Expert", "expert")])
def test_rule_their_basic_level_is_our_easy_and_other_levels_keep_their_name(tmp_path, level, ours):
    folder = tmp_path / "data" / "testset" / "banking"
    folder.mkdir(parents=True)
    (folder / "loans.jsonl").write_text(json.dumps({"id": 3, "seed": 9, "level": level, "question": "Q?",
                                                    "solution": "Step 1: 1 + 1 = 2"}) + "\n", encoding="utf-8")
    (row,) = authors.authors_problems(tmp_path)
    assert row["level"] == ours


def test_rule_a_published_line_is_a_model_and_the_eight_columns_in_order(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "overall_results.txt").write_text(
        "m & 0.1 & 0.2 & 0.3 & 0.4 & 0.5 & 0.6 & 0.7 & 0.8\nshort & 0.1\n", encoding="utf-8")
    assert authors.published_means(tmp_path) == {"m": {
        "final_answer_match": 0.1, "recall": 0.2, "precision": 0.3, "step_f1": 0.4, "rouge2": 0.5, "rougeL": 0.6,
        "rougeLsum": 0.7, "bertscore": 0.8}}


# -- agreement shares and AUC ----------------------------------------------------------------------------

def _result(value: float, fac: float = 1.0, chaineval: float = 0.5):
    return SimpleNamespace(chaineval=chaineval, fac=fac, fac_strict=fac, step_recall=value, step_precision=value,
                           step_f1=value, final_answer="", answer_value=None)


def _rows(n):
    return [{**KEY, "seed": k} for k in range(n)]


def _theirs(rows, values):
    return {authors._key(r): {"final_answer_match": 1.0, "recall": v, "precision": v, "step_f1": v}
            for r, v in zip(rows, values)}


@pytest.mark.parametrize("difference, exact, within_05", [
    (0.0, 1.0, 1.0), (1e-6, 1.0, 1.0), (2e-6, 0.0, 1.0), (1e-5, 0.0, 1.0), (0.04, 0.0, 1.0), (0.05, 0.0, 1.0),
    (0.055, 0.0, 0.0), (0.5, 0.0, 0.0),
])
@pytest.mark.parametrize("where", ["profile", "model"])
def test_rule_agreement_counts_a_difference_up_to_1e_6_as_exact_and_up_to_0_05_as_close(difference, exact, within_05,
                                                                                         where):
    rows = _rows(1)
    res, theirs = [_result(0.0)], _theirs(rows, [difference])
    if where == "profile":
        stats = compare.profile_stats(rows, res, theirs)
    else:
        stats = compare.compare_model("m", rows, {"reference": res}, theirs, "evals/m.jsonl", {})
    assert (stats.agree_exact["recall"], stats.agree_05["recall"]) == (exact, within_05)


@pytest.mark.parametrize("where", ["profile", "model"])
def test_rule_each_shared_metric_is_compared_with_its_own_column_of_theirs(where):
    rows = _rows(1)
    res = [SimpleNamespace(chaineval=0.5, fac=1.0, fac_strict=1.0, step_recall=0.2, step_precision=0.3,
                           step_f1=0.4, final_answer="", answer_value=None)]
    theirs = {authors._key(rows[0]): {"final_answer_match": 1.0, "recall": 0.2, "precision": 0.3, "step_f1": 0.4}}
    if where == "profile":
        stats = compare.profile_stats(rows, res, theirs)
        assert stats.means == {"fac": 1.0, "recall": 0.2, "precision": 0.3, "step_f1": 0.4}
    else:
        stats = compare.compare_model("m", rows, {"reference": res}, theirs, "evals/m.jsonl", {})
        assert stats.theirs == {"fac": 1.0, "recall": 0.2, "precision": 0.3, "step_f1": 0.4}
    assert stats.agree_exact == {"fac": 1.0, "recall": 1.0, "precision": 1.0, "step_f1": 1.0}


@pytest.mark.parametrize("where", ["profile", "model"])
def test_rule_the_auc_separates_outputs_whose_final_answer_is_right_fac_1_from_the_rest(where):
    rows = _rows(3)
    res = [_result(0.0, fac=1.0, chaineval=0.9), _result(0.0, fac=0.0, chaineval=0.2),
           _result(0.0, fac=0.95, chaineval=0.1)]
    theirs = _theirs(rows, [0.0] * 3)
    if where == "profile":
        assert compare.profile_stats(rows, res, theirs).auc == 1.0
    else:
        assert compare.compare_model("m", rows, {"reference": res}, theirs, "", {}).auc == {"reference": 1.0}


# -- what a run shows ----------------------------------------------------------------------------------

def test_rule_reproduce_runs_the_reference_and_paper_profiles_by_default(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "m.jsonl").write_text(json.dumps(
        {**KEY, "solution": "Step 1: Equity = 30 - 10 = $20", "generation": "Step 1: Equity = 30 - 10 = $20"}) + "\n")
    _their_file(tmp_path, [{**KEY, "final_answer_match": 1, "recall": 1.0, "precision": 1.0}])

    class Constant:
        def encode_cached(self, texts):
            import numpy as np

            out = np.zeros((len(texts), 4), np.float32)
            out[:, 0] = 1.0
            return out

    (comparison,) = compare.reproduce(tmp_path, embedder=Constant())
    assert list(comparison.by_profile) == ["reference", "paper"]


def test_rule_the_report_table_has_these_columns_in_this_order():
    comparison = compare.ModelComparison("m", 0, "")
    header = compare.markdown([comparison]).splitlines()[4]
    assert header == ("| metric | profile | ours | theirs (per-sample file) | published | agree ≤1e-6 | agree ≤0.05 |")


def test_rule_a_disagreement_row_carries_their_reading_when_their_rule_was_run():
    rows = _rows(1)
    ours = [SimpleNamespace(chaineval=1.0, fac=1.0, fac_strict=1.0, step_recall=1.0, step_precision=1.0, step_f1=1.0,
                            final_answer="$20", answer_value=20.0)]
    v1 = [SimpleNamespace(chaineval=0.0, fac=0.0, fac_strict=0.0, step_recall=0.0, step_precision=0.0, step_f1=0.0,
                          final_answer="10", answer_value=10.0)]
    theirs = {authors._key(rows[0]): {"final_answer_match": 0, "recall": 1.0, "precision": 1.0, "step_f1": 1.0}}
    rows = [{**rows[0], "_gold_answer": 20.0, "solution": "Step 1: 30 - 10 = $20", "generation": "Answer: $20"}]
    comparison = compare.compare_model("m", rows, {"reference": ours, "v1": v1}, theirs, "", {})
    (row,) = comparison.fac_rows
    assert (row["our_answer"], row["their_answer"], row["ours_fac"], row["their_fac"]) == ("$20", "10", 1.0, 0)


# -- the reason a final-answer disagreement gets (finchain_tasks/reproduce/fac.py) --------------------------

def _why(generation, ours_fac, gold, answer, value, strict=None, question="What is the value?", solution=None):
    from finchain_tasks.reproduce.fac import fac_reason

    row = {"solution": solution or "Step 1: Net = 80 - 14.3 = 65.70", "generation": generation, "question": question}
    ours = {"fac": ours_fac, "gold_answer": gold, "final_answer": answer, "answer_value": value}
    if strict is not None:
        ours["fac_strict"] = strict
    return fac_reason(row, ours, {"final_answer_match": 1 - int(ours_fac)})


DROPS_MINUS = "their bug: eval.py drops minus signs"
DIRECTION = "ours: direction word"


@pytest.mark.parametrize("answer", ["-8.43", "−8.43", "-$8.43", "-€8.43", "-£8.43", "-¥8.43", "$-8.43", "€-8.43",
                                    "£-8.43", "¥-8.43", "USD -8.43", " -$8.43"])
def test_rule_a_minus_sign_written_before_or_after_the_currency_makes_the_sign_their_bug(answer):
    assert _why("Step 4: The value is given above.", 0, 8.43, answer, -8.43).startswith(DROPS_MINUS)


@pytest.mark.parametrize("generation, answer, value, gold, reason", [
    ("Step 2: It pays -USD3,177,763.\nThe answer is: 3,177,763", "3,177,763", -3177763.0, 3184889.64, DROPS_MINUS),
    ("Step 2: The loss is -65,70 euros.\nThe answer is: 65.70", "65.70", -65.7, 65.7, DIRECTION),
    ("Step 2: The value decreases by 0.5.", "0.5", -0.5, 0.5, DIRECTION),
    ("Step 2: The change is -0.5.", "-0.5", -0.5, 0.5, DROPS_MINUS),
    ("Step 2: The change is 0.5.", "0.5", 0.5, -0.5, DROPS_MINUS),
    ("Step 2: The change is 0.5.", "0.5", 0.5, 0.5, "parser"),  # same sign: no sign class
])
def test_rule_the_sign_class_needs_opposite_signs_and_names_a_written_minus_their_bug(generation, answer, value,
                                                                                      gold, reason):
    assert _why(generation, 0, gold, answer, value).startswith(reason)


@pytest.mark.parametrize("generation, answer, gold, restated", [
    ("The ratio is 48.25%. For every $1 there is $0.48 of debt.", "48.25%", 48.34, True),
    ("48.25% is the ratio, $0.48 per $1.", "48.25%", 48.34, True),  # the figure opens the output
    ("The ratio is 48.3 percent; $0.48 per $1.", "48.25%", 48.34, False),  # the answer's figure is not written
    ("The share is 1.00%, 0.01 of the total.", "1.00%", 1.0, True),  # a gold of exactly 1
    ("The share is 1.5%, 0.015 of the total.", "1.5%", 1.5, True),
    ("The share is 0.93%, about 0.0093 a year.", "0.93%", 0.93, False),  # a gold below 1
    ("The ratio is 100.0%, that is 1.00 of it.", "100.0%", 100.0, False),  # a fraction of one is below 1
    ("The ratio is 120.5%, that is 1.205 of it.", "120.5%", 120.5, False),
])
def test_rule_a_percent_restated_as_its_fraction_of_one_is_a_reading_of_ours(generation, answer, gold, restated):
    value = float(answer.rstrip("%"))
    reason = _why(generation, 1, gold, answer, value, strict=1.0)
    assert reason.startswith("ours: percent/ratio") is restated


@pytest.mark.parametrize("answer_line, expression", [
    ("Answer: $65.70", False),
    ("Answer: the net is 65.70 dollars. Then 80 and 14.3 are the inputs", False),
    ("Answer: $80 - $14.30", True),
    ("Answer: $80 - $14.30 = $65.70", True),
])
def test_rule_their_answer_rule_misreads_an_answer_holding_two_numbers_or_more_in_its_sentence(answer_line,
                                                                                            expression):
    reason = _why(f"Step 1: Subtract.\nStep 2: {answer_line}", 1, 65.7, "$65.70", 65.7)
    assert ("'Answer:' rule takes the first number" in reason) is expression


@pytest.mark.parametrize("aside", ["(2832.95 x 1.389)", "(2832.95 × 1.389)", "(2832.95 * 1.389)",
                                   "(2832.95 / 1.389)", "(2832.95 + 1.389)", "(2832.95 - 1.389)",
                                   "($2832.95 x 1.389)", "(€2832.95 x 1.389)", "(£2832.95 x 1.389)",
                                   "(¥2832.95 x 1.389)"])
def test_rule_an_aside_computation_after_the_answer_is_their_bug(aside):
    reason = _why(f"Step 3: Alice receives $3920.53 {aside}.", 1, 3934.97, "$3920.53", 3920.53)
    assert "an operand of the aside" in reason


@pytest.mark.parametrize("generation, aside", [
    ("$3920.53 (2832.95 x 1.389) is what Alice receives.\nStep 1: done", True),  # the answer opens the output
    ("Step 3 (2832.95 x 1.389) gives it.", False),  # the answer is not written: nothing follows it
    ("Step 3: Alice receives $3920.53 (2832) x 1.389).", False),
    ("Step 3: Alice receives $3920.53 (2832 x (1.389).", False),
    ("Step 3: Alice receives $3920.53 (2832 (x 1.389)).", False),
    ("Step 3: Alice receives $3920.53 (2832.95-1.389).", False),  # a hyphen, not a spaced minus
])
def test_rule_an_aside_is_one_bracket_pair_holding_an_operator_right_after_the_answer(generation, aside):
    reason = _why(generation, 1, 3934.97, "$3920.53", 3920.53)
    assert ("an operand of the aside" in reason) is aside


@pytest.mark.parametrize("question, two", [
    ("How much is in each fund, and how large is the share?", True),
    ("How much is in each fund, and what is the share?", True),
    ("What is in each fund and how large is the share?", True),
    ("What is in each fund and what is the share?", True),
    ("What is in each fund?", False),
])
def test_rule_a_question_asking_what_or_how_much_and_then_how_or_what_asks_for_two_quantities(question, two):
    reason = _why("Step 2: 250 units each.", 1, 260.0, "250", 250.0, strict=1.0, question=question)
    assert reason.startswith("two quantities") is two


@pytest.mark.parametrize("question, starts", [
    ("What is the value?", "tolerance: "),
    ("What is in each fund and what is the share?", "two quantities"),
])
def test_rule_a_tolerance_or_two_quantity_reason_is_never_prefixed_tolerance_only(question, starts):
    assert _why("Step 2: 250 units each.", 1, 260.0, "250", 250.0, strict=0.0, question=question).startswith(starts)


def test_rule_each_fac_row_holds_key_both_facs_strict_gold_both_answers_and_reason():
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "solution": "Step 1: Equity = 50 - 10 = $40", "generation": "The equity is $40.",
             "question": "What is the equity?"}]
    (entry,) = fac_rows(rows, {(1,): {"final_answer_match": 0}}, lambda r: (r["seed"],))
    assert set(entry) == {"key", "ours_fac", "ours_fac_strict", "their_fac", "gold", "our_answer", "their_answer",
                          "reason"}
    assert (entry["our_answer"], entry["their_answer"]) == ("$40", "")
    assert "no steps in eval.py" in entry["reason"]


def test_rule_a_fac_rows_reason_reads_the_answers_own_text():
    """The aside is found after the answer as written ("$3920.53"): its text, not only its value, reaches the reason."""
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "solution": "Step 1: Total = 2832.95 x 1.389 = $3934.97", "question": "What does Alice get?",
             "generation": "Step 1: Multiply.\nStep 2: Alice receives $3920.53 (2832.95 x 1.389)."}]
    (entry,) = fac_rows(rows, {(1,): {"final_answer_match": 0}}, lambda r: (r["seed"],))
    assert entry["ours_fac"] == 1.0 and "an operand of the aside" in entry["reason"]


def test_rule_the_disagreement_csv_has_these_columns_in_this_order(tmp_path):
    from finchain_tasks.reproduce.fac import write_disagreements

    entry = {"key": "1", "ours_fac": 1.0, "their_fac": 0, "gold": 40.0, "our_answer": "$40", "their_answer": "",
             "reason": "their bug: x"}
    csv_path, _ = write_disagreements({"m": [entry]}, tmp_path)
    lines = csv_path.read_text("utf-8").splitlines()
    assert lines == ["model,key,ours_fac,their_fac,gold,our_answer,their_answer,reason",
                     "m,1,1.0,0,40.0,$40,,their bug: x"]
