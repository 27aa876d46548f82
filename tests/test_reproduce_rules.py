"""``finchain reproduce``'s rules over plain data (issue 39.3): how a sample of the authors' per-sample file is
joined to ours (all five key fields), how their levels and test instances are read, the published table's
columns, what each agreement share counts (within 1e-6, within 0.05, edges included), which samples count as
right for the AUC, the profiles run by default and the report table's columns. Their repository is never
read: the lines are written here in its shapes, and results stand in for ChainEval's (no embeddings)."""

from __future__ import annotations

import json
import math
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


# == issue 39's mutmut pass: the rules its survivors showed unpinned ==================================

# -- their repository, read --------------------------------------------------------------------------

def _jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("row, found", [([1, 2], "list"), ("text", "str"), (3, "int"), (None, "NoneType")])
def test_rule_a_line_of_theirs_that_is_not_an_object_is_one_line_naming_file_and_row(tmp_path, row, found):
    _jsonl(tmp_path / "results" / "m.jsonl", [{"seed": 1}, row])
    with pytest.raises(authors.AuthorsDataError) as raised:
        authors.authors_rows(tmp_path)
    assert str(raised.value) == f"{tmp_path / 'results' / 'm.jsonl'}: row 2: expected a JSON object, found {found}"


def test_rule_each_results_file_is_one_model_named_by_its_stem_and_nothing_below_it_is_read(tmp_path):
    _jsonl(tmp_path / "results" / "b.jsonl", [{"seed": 2}])
    _jsonl(tmp_path / "results" / "a.jsonl", [{"seed": 1}, {"seed": 3}])
    _jsonl(tmp_path / "results" / "deeper" / "c.jsonl", [{"seed": 4}])
    (tmp_path / "results" / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / "results" / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    _jsonl(tmp_path / "outside.jsonl", [{"seed": 9}])
    skipped = []
    assert authors.authors_rows(tmp_path, skipped) == {"a": [{"seed": 1}, {"seed": 3}], "b": [{"seed": 2}]}
    assert [p.name for p, _ in skipped] == ["link.jsonl"]
    assert authors.authors_rows(tmp_path) == {"a": [{"seed": 1}, {"seed": 3}], "b": [{"seed": 2}]}


def test_rule_a_folder_without_results_is_named_in_the_error(tmp_path):
    with pytest.raises(authors.AuthorsDataError, match=rf"^{tmp_path}: no results/ folder \(expected the FinChain "
                                                       r"authors' repository\)$"):
        authors.authors_rows(tmp_path)
    with pytest.raises(authors.AuthorsDataError, match=rf"^{tmp_path}: no data/testset/ folder \(expected the "
                                                       r"FinChain authors' repository\)$"):
        authors.authors_problems(tmp_path)


@pytest.mark.parametrize("given, env, expected", [("/a", "/b", "/a"), (None, "/b", "/b"), ("", "/b", "/b"),
                                                  (None, None, None), (None, "", None)])
def test_rule_their_repository_is_the_path_given_else_the_environments(monkeypatch, given, env, expected):
    from pathlib import Path

    if env is None:
        monkeypatch.delenv(authors.AUTHORS_ENV, raising=False)
    else:
        monkeypatch.setenv(authors.AUTHORS_ENV, env)
    if expected:
        assert authors.authors_dir(given, "-T authors_path=DIR") == Path(expected)
    else:
        with pytest.raises(ValueError, match=r"^give the FinChain authors' repository with -T authors_path=DIR, or "
                                             r"set \$FINCHAIN_AUTHORS_DIR$"):
            authors.authors_dir(given, "-T authors_path=DIR")


def test_rule_a_test_instance_becomes_a_row_with_an_authors_id_and_their_text_gold(tmp_path):
    _jsonl(tmp_path / "data" / "testset" / "banking" / "loans.jsonl",
           [{"id": 3, "seed": 9, "level": "Basic", "question": "Q?", "solution": "Step 1: 1 + 1 = 2"},
            {"id": "4", "seed": 1, "solution": None}])
    _jsonl(tmp_path / "data" / "testset" / "banking" / "deeper" / "x.jsonl", [{"id": 5, "seed": 1}])
    assert authors.authors_problems(tmp_path) == [
        {"id": "authors/banking/loans/3/9", "source": "finchain-authors", "domain": "banking", "topic": "loans",
         "template": "3", "seed": 9, "level": "easy", "question": "Q?", "solution": "Step 1: 1 + 1 = 2"},
        {"id": "authors/banking/loans/4/1", "source": "finchain-authors", "domain": "banking", "topic": "loans",
         "template": "4", "seed": 1, "level": "", "question": "", "solution": None}]


@pytest.mark.parametrize("recall, precision, step_f1", [
    (1.0, 1.0, 2 / 2.0001), (0.5, 0.25, 2 * 0.125 / 0.7501), (0, 0, 0.0), (1, 0, 0.0), (None, 0.5, "absent"),
    (0.5, None, "absent"),
])
def test_rule_their_step_f1_is_their_aggregate_formula_from_recall_and_precision(tmp_path, recall, precision,
                                                                                step_f1):
    _their_file(tmp_path, [{**KEY, "recall": recall, "precision": precision}])
    (row,) = authors.their_scores(tmp_path, "m")[0].values()
    assert row.get("step_f1", "absent") == (step_f1 if step_f1 == "absent" else pytest.approx(step_f1, abs=1e-12))


@pytest.mark.parametrize("field, value, got", [("recall", "0.5", "str"), ("precision", True, "bool"),
                                               ("recall", [1], "list")])
def test_rule_a_score_of_theirs_that_is_not_a_number_is_one_line(tmp_path, field, value, got):
    _their_file(tmp_path, [{**KEY, "recall": 0.5, "precision": 0.5}, {**KEY, "seed": 2, "recall": 0.5,
                                                                      "precision": 0.5, field: value}])
    path = tmp_path / "evals" / "m.jsonl"
    with pytest.raises(authors.AuthorsDataError, match=rf"^{path}: row 2: {field}: expected a number, got {got}$"):
        authors.their_scores(tmp_path, "m")


@pytest.mark.parametrize("files, rel", [
    (("evals/m.jsonl", "evals/reasoning_parsed/m.jsonl"), "evals/m.jsonl"),
    (("evals/reasoning_parsed/m.jsonl",), "evals/reasoning_parsed/m.jsonl"),
    ((), ""),
])
def test_rule_their_scores_come_from_evals_else_from_reasoning_parsed(tmp_path, files, rel):
    for k, f in enumerate(files):
        _jsonl(tmp_path / f, [{**KEY, "final_answer_match": k}])
    scores, found = authors.their_scores(tmp_path, "m")
    assert found == rel and (list(scores.values())[0]["final_answer_match"] == 0 if rel else scores == {})


@pytest.mark.parametrize("text, means", [
    ("m & 1 & 2 & 3 & 4 & 5 & 6 & 7 & 8", {"m": dict(zip(authors.PUBLISHED_COLUMNS, map(float, range(1, 9))))}),
    ("  m  &1&2&3&4&5&6&7&8  ", {"m": dict(zip(authors.PUBLISHED_COLUMNS, map(float, range(1, 9))))}),
    ("m & 1 & 2 & 3 & 4 & 5 & 6 & 7 & x\nn & 1 & 2 & 3 & 4 & 5 & 6 & 7 & 8",
     {"n": dict(zip(authors.PUBLISHED_COLUMNS, map(float, range(1, 9))))}),  # a bad line is passed over
    ("m & 1 & 2 & 3 & 4 & 5 & 6 & 7 & 8 & 9", {}), ("m & 1 & 2 & 3 & 4 & 5 & 6 & 7", {}), ("", {}),
])
def test_rule_a_published_line_counts_only_with_a_name_and_eight_numbers(tmp_path, text, means):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "overall_results.txt").write_text(text + "\n", encoding="utf-8")
    assert authors.published_means(tmp_path) == means


# -- the comparison ------------------------------------------------------------------------------------

@pytest.mark.parametrize("scores, labels, expected", [
    ([0.9, 0.1], [True, False], 1.0), ([0.1, 0.9], [True, False], 0.0), ([0.5, 0.5], [True, False], 0.5),
    ([0.5, 0.5, 0.5], [True, True, False], 0.5), ([0.2, 0.5, 0.5, 0.9], [False, True, False, True], 0.875),
    ([0.1, 0.4, 0.35, 0.8], [False, False, True, True], 0.75),
    ([0.3, 0.3, 0.3, 0.1], [True, False, True, False], 0.75),
    ([0.9], [True], None), ([0.9], [False], None), ([], [], None),
])
def test_rule_the_auc_is_the_share_of_right_wrong_pairs_ranked_right_ties_half(scores, labels, expected):
    assert compare.auc(scores, labels) == expected


@pytest.mark.parametrize("values, mean", [([1.0, None, 3.0], 2.0), ([float("nan"), 4.0], 4.0), ([0.0], 0.0)])
def test_rule_a_mean_leaves_out_missing_values(values, mean):
    assert compare._mean(values) == mean


@pytest.mark.parametrize("values", [[], [None], [float("nan")]])
def test_rule_a_mean_of_nothing_is_nan(values):
    assert math.isnan(compare._mean(values))


def test_rule_our_means_count_every_row_and_theirs_only_the_rows_they_scored():
    rows = _rows(3)
    res = [_result(0.2, chaineval=0.3), _result(0.4, fac=0.0, chaineval=0.6), _result(0.9, chaineval=0.9)]
    theirs = {authors._key(rows[0]): {"final_answer_match": 1.0, "recall": 0.22, "precision": None, "step_f1": 0.1},
              authors._key(rows[1]): {"final_answer_match": None, "recall": 1.0, "precision": 0.5, "step_f1": 0.3}}
    paper = [_result(0.2, chaineval=0.9), _result(0.4, fac=0.0, chaineval=0.0), _result(0.9, chaineval=0.6)]
    comp = compare.compare_model("m", rows, {"reference": res, "paper": paper}, theirs, "evals/m.jsonl", {})
    assert comp.ours["recall"] == pytest.approx(0.5) and comp.ours["fac"] == pytest.approx(2 / 3)
    assert comp.theirs == {"fac": 1.0, "recall": pytest.approx(0.61), "precision": 0.5, "step_f1": pytest.approx(0.2)}
    assert comp.ours["chaineval_reference"] == pytest.approx(0.6) and comp.ours["chaineval_paper"] == pytest.approx(0.5)
    assert comp.agree_05 == {"fac": 1.0, "recall": 0.5, "precision": 0.0, "step_f1": 0.0}
    stats = comp.by_profile["reference"]
    assert stats.chaineval == pytest.approx(0.6) and stats.means["precision"] == pytest.approx(0.5)
    assert comp.by_profile["paper"].auc == 1.0 and comp.auc == {"reference": 0.5, "paper": 1.0}
    assert (comp.model, comp.n, comp.their_file) == ("m", 3, "evals/m.jsonl")


def test_rule_a_fac_row_exists_for_each_sample_they_scored_and_a_disagreement_has_a_reason():
    rows = [{**r, "_gold_answer": g, "solution": "Step 1: 1 + 1 = 2", "generation": "The value is $2."}
            for r, g in zip(_rows(4), [2.123456789, "yes", 2.0, 2.0])]
    res = [_result(1.0, fac=1.0), _result(1.0, fac=0.0), _result(1.0, fac=1.0), _result(1.0, fac=1.0)]
    theirs = {authors._key(rows[0]): {"final_answer_match": 0}, authors._key(rows[1]): {"final_answer_match": 0},
              authors._key(rows[2]): {"final_answer_match": None}}
    comp = compare.compare_model("m", rows, {"reference": res}, theirs, "", {})
    assert [(e["key"], e["gold"], e["ours_fac"], e["their_fac"], bool(e["reason"])) for e in comp.fac_rows] == [
        ("0/7/t/s/Basic", 2.123457, 1.0, 0, True), ("1/7/t/s/Basic", "yes", 0.0, 0, False)]
    assert comp.n_fac_disagree == 1 and comp.disagreements == comp.fac_rows[:1]
    assert comp.fac_rows[0]["their_answer"] == ""


@pytest.mark.parametrize("n, top, shown", [(3, 0, 0), (3, 1, 1), (3, 2, 2), (3, 12, 3), (13, None, 12), (12, None, 12)])
def test_rule_the_report_keeps_the_first_top_disagreements_12_unless_told(n, top, shown):
    rows = [{**r, "_gold_answer": 2.0, "solution": "Step 1: 1 + 1 = 2", "generation": "The value is $2."}
            for r in _rows(n)]
    res = [_result(1.0, fac=1.0)] * n
    theirs = {authors._key(r): {"final_answer_match": 0} for r in rows}
    comp = compare.compare_model("m", rows, {"reference": res}, theirs, "", {}, **({"top": top} if top is not None
                                                                                  else {}))
    assert comp.disagreements == comp.fac_rows[:shown] and comp.n_fac_disagree == n


@pytest.mark.parametrize("profiles, expected", [
    (("reference",), ("reference",)), (("paper", "v1", "paper"), ("paper", "v1")),
    (("v1", "reference"), ("v1", "reference")),
])
def test_rule_profiles_run_once_each_in_the_order_given(profiles, expected):
    assert compare.check_profiles(profiles) == expected


@pytest.mark.parametrize("profiles, named", [((), "'(none given)'"), (("nope", "paper", "v2"), "['nope', 'v2']")])
def test_rule_an_unknown_or_empty_profile_list_is_refused_naming_the_known_ones(profiles, named):
    from scorers.params import PROFILES

    with pytest.raises(ValueError) as raised:
        compare.check_profiles(profiles)
    assert str(raised.value) == f"unknown profile(s) {named.strip(chr(39)) if '(' in named else named}: choose " \
                                f"from {', '.join((*PROFILES, 'v1'))}"


def _repository(root, n=3):
    (root / "results").mkdir(parents=True, exist_ok=True)
    lines = [{**KEY, "seed": k, "solution": f"Step 1: Equity = {k + 30} - 10 = ${k + 20}",
              "generation": f"Step 1: Equity = {k + 30} - 10 = ${k + 20}"} for k in range(n)]
    lines.append({**KEY, "seed": n, "solution": None, "generation": "x"})  # no gold text: passed over
    _jsonl(root / "results" / "m.jsonl", lines)
    _jsonl(root / "results" / "other.jsonl", lines[:1])
    _their_file(root, [{**KEY, "seed": k, "final_answer_match": 1, "recall": 1.0, "precision": 1.0}
                       for k in range(n)])


class _Constant:
    def encode_cached(self, texts):
        import numpy as np

        out = np.zeros((len(texts), 4), np.float32)
        out[:, 0] = 1.0
        return out


@pytest.mark.parametrize("limit, models, expected", [
    (None, (), {"m": 3, "other": 1}), (2, (), {"m": 2, "other": 1}), (None, ("other",), {"other": 1}),
    (0, ("m",), {"m": 3}),
])
def test_rule_reproduce_scores_each_model_asked_up_to_the_limit_without_rows_lacking_gold(tmp_path, limit, models,
                                                                                         expected):
    _repository(tmp_path)
    out = compare.reproduce(tmp_path, ("paper",), limit=limit, models=models, embedder=_Constant())
    assert {c.model: c.n for c in out} == expected
    assert all(c.their_file == ("evals/m.jsonl" if c.model == "m" else "") for c in out)


def test_rule_the_v1_profile_scores_their_gold_text_with_their_rule(tmp_path):
    _repository(tmp_path, 2)
    (comp,) = compare.reproduce(tmp_path, ("paper", "v1"), models=("m",), embedder=_Constant())
    assert list(comp.by_profile) == ["paper", "v1"] and comp.by_profile["v1"].means["fac"] == 1.0
    assert [e["their_answer"] for e in comp.fac_rows] == [20.0, 21.0]  # their rule's reading, re-run


# -- the report -------------------------------------------------------------------------------------------

def _comparison():
    stats = compare.ProfileStats(means={"fac": 0.5, "recall": 0.25}, agree_exact={"fac": 1.0},
                                 agree_05={"fac": 0.75}, chaineval=0.123456, auc=None)
    return compare.ModelComparison(
        "m", 4, "evals/m.jsonl", theirs={"fac": 0.4}, published={"final_answer_match": 0.3, "rougeL": 0.2},
        by_profile={"reference": stats, "v1": compare.ProfileStats(chaineval=float("nan"), auc=0.5)},
        disagreements=[{"key": "1/7/t/s/Basic", "ours_fac": 1.0, "their_fac": 0, "gold": 20.0, "our_answer": "$20",
                        "reason": "their bug: x"}], n_fac_disagree=5)


def test_rule_the_report_table_has_a_row_per_metric_and_profile_then_the_published_only_columns():
    rows = compare.table_rows(_comparison())
    assert rows[:2] == [["fac", "reference", "0.5000", "0.4000", "0.3000", "1.0000", "0.7500"],
                        ["fac", "v1", "—", "0.4000", "0.3000", "—", "—"]]
    assert [r[:2] for r in rows[2:8]] == [["recall", "reference"], ["recall", "v1"], ["precision", "reference"],
                                          ["precision", "v1"], ["step_f1", "reference"], ["step_f1", "v1"]]
    assert rows[8:] == [["rouge2", "—", "not computed", "—", "—", "—", "—"],
                        ["rougeL", "—", "not computed", "—", "0.2000", "—", "—"],
                        ["rougeLsum", "—", "not computed", "—", "—", "—", "—"],
                        ["bertscore", "—", "not computed", "—", "—", "—", "—"]]


def test_rule_the_step_score_line_names_each_profiles_score_and_auc():
    assert compare.step_score_line(_comparison()) == ("`reference` ChainEval mean 0.1235, AUC —, `v1` step F1 "
                                                      "(eval.py has no ChainEval) mean —, AUC 0.5000")


def test_rule_the_markdown_report_heads_each_model_and_lists_its_disagreements():
    lines = compare.markdown([_comparison(), compare.ModelComparison("n", 0, "")]).splitlines()
    assert lines[:3] == ["# FinChain v1 reproduced from the authors' files", "",
                         "## m (4 samples; theirs from `evals/m.jsonl`)"]
    assert lines[5] == "|---|---|---:|---:|---:|---:|---:|"
    assert "| fac | reference | 0.5000 | 0.4000 | 0.3000 | 1.0000 | 0.7500 |" in lines
    assert "Final-answer disagreements: 5 (largest first):" in lines
    assert "- `1/7/t/s/Basic`: ours 1, theirs 0, gold 20.0, our answer '$20': their bug: x" in lines
    assert any(line.startswith("Step score per profile (AUC: separating outputs whose final answer is right from "
                               "wrong, by that profile's own fac): `reference` ChainEval") for line in lines)
    assert "## n (0 samples; theirs from `none`)" in lines


def test_rule_the_csv_report_has_a_row_per_model_profile_and_metric_then_step_score_and_auc(tmp_path):
    import csv

    compare.write_report([_comparison()], tmp_path / "new" / "report")
    md, csv_path = compare.write_report([_comparison()], tmp_path / "new" / "report")  # a folder made, then reused
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    assert rows[0] == ["model", "n", "profile", "metric", "ours", "theirs", "published", "agree_1e-6", "agree_0.05"]
    assert rows[1] == ["m", "4", "reference", "fac", "0.5", "0.4", "0.3", "1.0", "0.75"]
    assert rows[2] == ["m", "4", "reference", "recall", "0.25", "", "", "", ""]
    assert [r[2:4] for r in rows[1:]] == [["reference", m] for m in ("fac", "recall", "precision", "step_f1",
                                                                      "step_score", "auc")] + \
        [["v1", m] for m in ("fac", "recall", "precision", "step_f1", "step_score", "auc")]
    assert rows[5][4] == "0.123456" and rows[6][4] == "" and rows[12][4] == "0.5"
    assert md.read_text(encoding="utf-8") == compare.markdown([_comparison()])
    assert (tmp_path / "new" / "report" / "fac_disagreements.csv").is_file()


# -- the disagreement list (fac.py) -------------------------------------------------------------------

@pytest.mark.parametrize("reasons, expected", [
    (["", "", "their bug: a", "tolerance only; their bug: b", "parser: c"],
     {"n": 5, "agree": 2, "share": 0.4, "their_bugs": 1, "share_without_bugs": 0.5}),
    (["their bug: a"], {"n": 1, "agree": 0, "share": 0.0, "their_bugs": 1, "share_without_bugs": "nan"}),
    ([], {"n": 0, "agree": 0, "share": "nan", "their_bugs": 0, "share_without_bugs": "nan"}),
])
def test_rule_the_summary_counts_agreement_with_and_without_the_rows_their_rule_gets_wrong(reasons, expected):
    from finchain_tasks.reproduce.fac import fac_summary

    got = fac_summary({"reason": r} for r in reasons)
    assert {k: ("nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in got.items() if k != "reasons"} \
        == expected
    assert got["reasons"] == {r: reasons.count(r) for r in reasons if r}


def test_rule_the_markdown_list_gives_each_models_agreement_reasons_by_count_and_every_disagreement(tmp_path):
    from finchain_tasks.reproduce.fac import write_disagreements

    entries = [{"key": "1", "ours_fac": 1.0, "their_fac": 0, "gold": 40.0, "our_answer": "$40", "their_answer": "4",
                "reason": "their bug: x"},
               {"key": "2", "ours_fac": 0.0, "their_fac": 1, "gold": None, "our_answer": "a |\n b",
                "reason": "parser: y"},
               {"key": "3", "ours_fac": 1.0, "their_fac": 1, "gold": 1.0, "our_answer": "1", "reason": ""},
               {"key": "4", "ours_fac": 1.0, "their_fac": 0, "gold": 5.0, "our_answer": "5", "reason": "parser: y"}]
    write_disagreements({"m": entries}, tmp_path / "a" / "b")
    _, md = write_disagreements({"m": entries}, tmp_path / "a" / "b")  # a folder made, then reused
    assert md.read_text(encoding="utf-8").splitlines() == [
        "# Final-answer disagreements with the authors' rule", "",
        "## m: agree on 1 of 4 (25.00%); 33.33% of the 3 rows where their rule is not wrong by construction", "",
        "| rows | reason |", "|---:|---|", "| 2 | parser: y |", "| 1 | their bug: x |", "",
        "| key | ours | theirs | gold | our answer | their reading | reason |", "|---|---|---|---|---|---|---|",
        "| `1` | 1 | 0 | 40.0 | $40 | 4 | their bug: x |", "| `2` | 0 | 1 |  | a \\| b |  | parser: y |",
        "| `4` | 1 | 0 | 5.0 | 5 |  | parser: y |"]


@pytest.mark.parametrize("value, shown", [("a  b\n\tc", "a b c"), (None, ""), ("x" * 130, "x" * 120), ("a|b", "a\\|b"),
                                          (0, "0"), (1.5, "1.5")])
def test_rule_a_markdown_cell_is_one_line_of_at_most_120_characters_with_pipes_escaped(value, shown):
    from finchain_tasks.reproduce.fac import _md

    assert _md(value) == shown


def test_rule_a_score_of_theirs_of_the_wrong_type_names_the_file_the_sample_and_the_field():
    from finchain_tasks.plumbing.safe_files import UnreadableFile
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "id": "a", "solution": "Step 1: 1 + 1 = 2", "generation": "2"}]
    with pytest.raises(UnreadableFile, match="their.jsonl: sample 1/a: final_answer_match: expected"):
        fac_rows(rows, {(1, "a"): {"final_answer_match": "1"}}, lambda r: (r["seed"], r["id"]), where="their.jsonl")


@pytest.mark.parametrize("theirs, kept", [({"final_answer_match": 1}, True), ({"final_answer_match": 1.0}, True),
                                          ({"final_answer_match": True}, True), ({"final_answer_match": None}, False),
                                          (None, False)])
def test_rule_fac_rows_keep_the_samples_they_scored(theirs, kept):
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "solution": "Step 1: Equity = 30 - 10 = $20", "generation": "Step 1: Equity = $20"}]
    entries = fac_rows(rows, {(1,): theirs} if theirs else {}, lambda r: (r["seed"],))
    assert bool(entries) is kept
    if kept:
        assert entries[0]["reason"] == "" and entries[0]["gold"] == 20.0 and entries[0]["ours_fac_strict"] == 1.0


def test_rule_fac_only_summarises_and_writes_each_models_rows_up_to_the_limit(tmp_path):
    from finchain_tasks.reproduce.fac import fac_only

    _repository(tmp_path / "a")
    summary = fac_only(tmp_path / "a", tmp_path / "out", limit=2)
    assert {m: s["n"] for m, s in summary.items()} == {"m": 2, "other": 0}
    assert summary["m"]["agree"] == 2 and (tmp_path / "out" / "fac_disagreements.md").is_file()
    assert {m: s["n"] for m, s in fac_only(tmp_path / "a", tmp_path / "out").items()} == {"m": 3, "other": 0}


EXPRESSION_GOLD = "Step 1: 8.48 + 1 = 9.48\nStep 2: Final Answer: 9.48 - 2.04 = 7.44"
REASONS = {
    "gold": "their bug: eval.py reads the gold's 'Answer: a op b = c' as its first number, not c",
    "minus": "their bug: eval.py drops minus signs ([\\d.]+), so -X and X are one answer",
    "direction": "ours: direction word: we read the figure as negative from a word of decrease or loss; gold is "
                 "positive",
    "fraction": "ours: percent/ratio: we read 'X%' as X for a unitless gold; the output restates it as X/100",
    "no steps": "their bug: an output without 'Step'/numbered lines has no steps in eval.py, so fac 0",
    "answer rule": "their bug: eval.py's 'Answer:' rule takes the first number of 'Answer: a op b = c'",
    "verdict": "their bug: eval.py compares numbers for a yes/no or text gold; the output states the gold's verdict",
    "percent": "their bug: eval.py has no percent-ratio reconciliation ('94.42%' for a ratio of 0.95)",
    "aside": "their bug: eval.py takes the step's last number, an operand of the aside '(a x b)' after the answer",
    "cut, failed": "their bug: eval.py's last-number pattern drops the first of two integer digits ('65.67' -> 5.67)",
    "two, failed": "two quantities: the question asks for two; eval.py read the other one (of the gold or the output)",
    "equal": "parser: we read the stated figure, equal to gold; eval.py read another number of the last step",
    "tolerance": "tolerance: we read the stated figure, within 5% of gold; eval.py read another number of the last "
                 "step",
    "threshold": "their bug: eval.py matches a threshold/number the qualitative gold names, not its conclusion",
    "cut, passed": "their bug: eval.py's last-number pattern drops the first of two integer digits ('16.1' -> 6.1)",
    "no answer": "ours: the output states no answer; eval.py matched a number of its last step",
    "two, passed": "two quantities: the question asks for two; we read another of the output's quantities than "
                   "eval.py",
    "other": "parser: we read a different quantity of the conclusion (duration, share, threshold or operand skipped)",
}
TWO = "What is in each fund and what is the share?"


@pytest.mark.parametrize("family, generation, ours_fac, gold, answer, value, extra", [
    ("gold", "Step 1: It is 7.44 BTC.", 1, 7.44, "7.44", 7.44, {"solution": EXPRESSION_GOLD}),
    ("gold", "Step 1: It is 7.44 BTC.", 0, 7.44, "7.44", 7.44, {"solution": EXPRESSION_GOLD}),
    ("minus", "Step 4: The value is -$8.43.", 0, 8.43, "-$8.43", -8.43, {}),
    ("minus", "Step 4: The value is -$8.43.", 0, 8.43, "-$8.43", None, {}),  # the value read from the answer's text
    ("minus", "Step 2: The change is -105.", 0, 100.0, "-105", -105.0, {}),  # within 5% of |gold|: the sign class
    ("other", "Step 2: The change is -105.01.", 0, 100.0, "-105.01", -105.01, {}),  # beyond 5%: not
    ("minus", "Step 2: It fell (0.5).", 0, 0.5, "(0.5)", -0.5, {}),  # an accounting bracket writes the minus
    ("direction", "Step 2: The value decreases by 0.5.", 0, 0.5, "0.5", -0.5, {}),
    ("fraction", "The ratio is 48.25%. For every $1 there is $0.48 of debt.", 1, 48.34, "48.25%", 48.25,
     {"strict": 1.0}),
    ("no steps", "The net payment is $65.70.", 1, 65.7, "$65.70", 65.7, {}),
    ("answer rule", "Step 1: Subtract.\nStep 2: Answer: $80 - $14.30 = $65.70", 1, 65.7, "$65.70", 65.7, {}),
    ("answer rule", "Step 1: Subtract.\nStep 2: **Answer:** $80 - $14.30", 1, 65.7, "$65.70", 65.7, {}),
    ("verdict", "Step 1: No, it is not required.", 1, False, "No", None, {}),
    ("verdict", "Step 1: Yes, it is.", 1, "yes", "Yes", None, {}),
    ("percent", "Step 3: Debt-to-equity ratio = 94.42%", 1, 0.95, "94.42%", 94.42, {}),
    ("aside", "Step 3: Alice receives $3920.53 (2832.95 x 1.389).", 1, 3934.97, "$3920.53", 3920.53, {}),
    ("cut, failed", "Step 1: Subtract.\nStep 2: GreenGrocer receives $65.67.", 1, 65.7, "$65.67", 65.67, {}),
    ("cut, failed", "Step 2: The rate is 18%.", 1, 18.5, "18%", 18.0, {}),  # a two-digit integer is not read at all
    ("tolerance", "Step 2: The rate is 118%.", 1, 120.0, "118%", 118.0, {}),  # three integer digits: read whole
    ("tolerance", "Step 2: The rate is 8.5.", 1, 8.6, "8.5", 8.5, {}),
    ("two, failed", "Step 2: 250 units each.", 1, 260.0, "250", 250.0, {"question": TWO}),
    ("equal", "Step 2: The total is 250.", 1, 250.0, "250", 250.0, {}),
    ("tolerance", "Step 2: 250 units each.", 1, 260.0, "250", 250.0, {"strict": 1.0}),
    ("threshold", "Step 1: The threshold of 25%.", 0, False, "25%", 25.0, {}),
    ("cut, passed", "Step 2: The leverage ratio is 16.1 to 1.", 0, 6.17, "16.1", 16.1, {}),
    ("other", "Step 2: The leverage ratio is 16.1 to 1.", 0, 12.0, "16.1", 16.1, {}),  # 6.1 is not near 12
    ("other", "Step 2: The rate is 18.", 0, 8.0, "18", 18.0, {}),  # a two-digit integer: they read no 8
    ("no answer", "Step 1: Find the rate.\nStep 2: Divide.", 0, 1.63, "", None, {}),
    ("two, passed", "Step 2: 250 units each.", 0, 260.0, "250", 250.0, {"question": TWO}),
    ("other", "Step 2: 250 units each.", 0, 260.0, "250", 250.0, {}),
])
def test_rule_each_disagreement_gets_its_familys_reason_in_full(family, generation, ours_fac, gold, answer, value,
                                                               extra):
    assert _why(generation, ours_fac, gold, answer, value, **extra) == REASONS[family]


@pytest.mark.parametrize("family, strict, prefixed", [
    ("no steps", 0.0, True), ("no steps", 1.0, False), ("no steps", None, False),
])
def test_rule_a_pass_outside_rounding_is_prefixed_tolerance_only(family, strict, prefixed):
    reason = _why("The net payment is $63.50.", 1, 65.7, "$63.50", 63.5, strict=strict)
    assert reason == (f"tolerance only; {REASONS[family]}" if prefixed else REASONS[family])


def test_rule_a_qualitative_gold_is_never_prefixed_tolerance_only():
    assert _why("Step 1: No, it is not required.", 1, False, "No", None, strict=0.0) == REASONS["verdict"]


def test_rule_a_fac_rows_gold_is_shown_to_6_decimals():
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "solution": "Step 1: Ratio = 2 / 3 = 0.6666666667", "generation": "Step 1: Ratio = 0.6667"}]
    (entry,) = fac_rows(rows, {(1,): {"final_answer_match": 1}}, lambda r: (r["seed"],))
    assert entry["gold"] == 0.666667


def test_rule_fac_only_names_their_file_when_a_score_of_theirs_has_the_wrong_type(tmp_path):
    from finchain_tasks.plumbing.safe_files import UnreadableFile
    from finchain_tasks.reproduce.fac import fac_only

    _repository(tmp_path / "a", 1)
    _their_file(tmp_path / "a", [{**KEY, "seed": 0, "final_answer_match": "1"}])
    with pytest.raises(UnreadableFile, match=rf"^{tmp_path / 'a' / 'evals' / 'm.jsonl'}: sample 0/7/t/s/Basic: "
                                             "final_answer_match: expected"):
        fac_only(tmp_path / "a", tmp_path / "out")


@pytest.mark.parametrize("order", [("v1",), ("v1", "reference"), ("reference", "v1")])
def test_rule_ours_is_the_first_chaineval_profile_and_v1_alone_compares_without_error(order):
    """``finchain reproduce -p v1`` alone crashed on a field only ChainEval's result had; with ``-p v1 -p reference``
    the authors' rule became "ours"."""
    from scorers.v1_rule import V1Result

    rows = [{**_rows(1)[0], "_gold_answer": 20.0, "solution": "Step 1: 30 - 10 = $20", "generation": "Answer: $10"}]
    theirs = {authors._key(rows[0]): {"final_answer_match": 1, "recall": 1.0, "precision": 1.0, "step_f1": 1.0}}
    v1 = [V1Result(1.0, 1.0, 0.0, 10.0, 20.0, 1, 1)]
    ours = [SimpleNamespace(chaineval=1.0, fac=1.0, fac_strict=1.0, step_recall=1.0, step_precision=1.0, step_f1=1.0,
                            final_answer="$20", answer_value=20.0)]
    results = {p: (v1 if p == "v1" else ours) for p in order}
    comparison = compare.compare_model("m", rows, results, theirs, "", {})
    expected = 0.0 if order == ("v1",) else 1.0
    assert comparison.ours["fac"] == expected
    (row,) = comparison.fac_rows
    assert row["ours_fac"] == expected and row["their_answer"] == 10.0
    assert (v1[0].fac_strict, v1[0].answer_value) == (0.0, 10.0)


# == issue 39, second mutmut pass: the reading rules behind each disagreement reason (fac.py) ==============

@pytest.mark.parametrize("a, b, close", [(5e-06, 0.0, True), (5.1e-06, 0.0, False), (105.0, 100.0, True),
                                         (105.1, 100.0, False), (94.9, 100.0, False)])
def test_rule_close_means_within_5_percent_of_the_second_figure_boundary_included(a, b, close):
    from finchain_tasks.reproduce.fac import _close

    assert _close(a, b) is close


@pytest.mark.parametrize("generation, answer, value, gold, restated", [
    # the text after the LAST statement of the figure is read, not after its first
    ("Step 1: 48.25%, i.e. 0.48 of one.\nStep 2: The ratio is 48.25%.", "48.25%", 48.25, 48.34, False),
    ("Step 1: The ratio is 98.50%, that is 0.985 of one.", "98.50%", 98.5, 98.5, True),  # the figure over 100 exactly
    ("Step 1: The ratio is 48.50%, that is 0.49 of one.", "48.50%", 48.5, 48.5, True),  # half a cent off: kept
    ("Step 1: The ratio is 48.50%, that is 0.4901 of one.", "48.50%", 48.5, 48.5, False),
    ("Step 1: The share is 1.00%, 0.015000001 of it.", "1.00%", 1.0, 1.0, True),  # 0.005 + 1e-9 off: the edge, kept
    ("Step 1: The ratio is 48.25%: $0,000.48 per $1.", "48.25%", 48.25, 48.34, True),  # a separator below one
    ("Step 1: The ratio is 48.25%, $482.50 of $1,000.00.", "48.25%", 48.25, 48.34, False),  # a figure above one
    ("Step 1: The ratio is 48.25%, 0.48 of one.", "%", 48.25, 48.34, False),  # the answer writes no figure
])
def test_rule_a_percent_is_restated_as_its_fraction_of_one_after_its_last_statement_within_half_a_cent(
        generation, answer, value, gold, restated):
    assert (_why(generation, 1, gold, answer, value, strict=1.0) == REASONS["fraction"]) is restated


@pytest.mark.parametrize("answer, value, gold, family", [
    ("12.5%", 12.5, "yes", "verdict"),  # a text gold: no figure of it to compare
    ("%", None, 48.34, "tolerance"),  # a percent answer holding no figure and read as no value
    ("%", 48.25, 48.34, "tolerance"),  # ... or whose value came from elsewhere
])
def test_rule_a_percent_answer_without_a_figure_or_against_a_text_gold_is_read_without_error(answer, value, gold,
                                                                                              family):
    assert _why("Step 1: The ratio is 48.25%.", 1, gold, answer, value) == REASONS[family]


@pytest.mark.parametrize("answer, value, gold, percent", [
    ("94.42%", 94.42, 0.95, True),
    ("90.5%", 90.5, 0.95, True),  # 0.905: within 5% of 0.95
    ("90.2%", 90.2, 0.95, False),  # 0.902: not
    ("1,250.50%", 1250.5, 12.505, True),  # a thousands separator in the figure
    ("94.42", 94.42, 0.95, False),  # no percent sign: no percent-ratio reading
    ("125.5 units, 130.5%", 125.5, 125.5, False),  # the percent figure is neither the gold nor its hundredth
])
def test_rule_their_rule_lacks_percent_ratio_reconciliation_only_for_a_percent_whose_hundredth_is_the_gold(
        answer, value, gold, percent):
    assert (_why("Step 3: Debt-to-equity ratio = 94.42%", 1, gold, answer, value) == REASONS["percent"]) is percent


@pytest.mark.parametrize("answer, value, gold, family", [
    ("(8.43)", -8.43, 8.43, "minus"),  # an accounting bracket writes the minus
    (" (8.43)", -8.43, 8.43, "minus"),  # ... after a space too
    ("8.43", -8.43, 8.43, "direction"),
    ("0", 0.0, 0.000001, "equal"),  # zero has no sign: not the sign class against a tiny positive gold
    ("0", 0.0, -0.000001, "minus"),  # ... and not a direction word of ours against a tiny negative one
])
def test_rule_the_sign_class_is_their_bug_unless_our_minus_came_from_a_word(answer, value, gold, family):
    reason = _why("Step 4: The value is given above.", 0, gold, answer, value)
    assert reason == (REASONS["other"] if family == "equal" else REASONS[family])


@pytest.mark.parametrize("generation, answer, aside", [
    # the aside follows the answer's LAST statement
    ("Step 1: $3920.53 (2832.95 x 1.389) is a guess.\nStep 2: Alice receives $3920.53.", "$3920.53", False),
    ("Step 3: Alice receives $3920.53. (2832.95 x 1.389)", "$3920.53", True),  # after a full stop
    ("Step 3: Alice receives $3920.53\n(2832.95 x 1.389)", "$3920.53", False),  # on the next line: not an aside
    ("Step 3: Alice receives $3920.53 X (2832.95 x 1.389)", "$3920.53", False),
    ("Step 3: Alice receives $3920.53 in total after the exchange at spot (2832.95 x 1.389).",
     "$3920.53 in total after the exchange at spot", True),  # a long answer text
    ("a(2832.95 x 1.389)\nStep 1: Multiply.\nStep 2: Done.", "", False),  # no answer text: nothing follows it
    # a reply after the model's turn ("\nuser\n") is not the output
    ("Step 1: Multiply.\nStep 2: Alice receives $3920.53.\nuser\nAnd $3920.53 (2832.95 x 1.389)?", "$3920.53", False),
])
def test_rule_an_aside_follows_the_answers_last_statement_within_the_models_turn(generation, answer, aside):
    reason = _why(generation, 1, 3934.97, answer, 3920.53)
    assert (reason == REASONS["aside"]) is aside


@pytest.mark.parametrize("width, aside", [(80, True), (81, False)])
def test_rule_an_aside_closes_within_80_characters_of_the_answer(width, aside):
    inner = "2832.95 x 1.389" + " " * (width - len(" (2832.95 x 1.389)"))
    generation = f"Step 3: Alice receives $3920.53 ({inner})."
    assert len(generation.split("$3920.53")[1].rstrip(".")) == width
    assert (_why(generation, 1, 3934.97, "$3920.53", 3920.53) == REASONS["aside"]) is aside


@pytest.mark.parametrize("answer, value, family", [("", None, "no answer"), ("", 1.63, "other"),
                                                   ("about a third", None, "other")])
def test_rule_no_answer_is_no_answer_text_and_no_value(answer, value, family):
    assert _why("Step 1: Find the rate.\nStep 2: Divide.", 0, 1.63, answer, value) == REASONS[family]


def test_rule_fac_rows_skip_unscored_and_goldless_rows_and_go_on():
    from finchain_tasks.reproduce.fac import fac_rows

    good = {"solution": "Step 1: Equity = 30 - 10 = $20", "generation": "Step 1: Equity = $20"}
    rows = [{"seed": 0, **good}, {"seed": 1, "generation": "x"}, {"seed": 2, **good}, {"seed": 3, "generation": None}]
    theirs = {(1,): {"final_answer_match": 1}, (2,): {"final_answer_match": 1}, (3,): {"final_answer_match": 1}}
    entries = fac_rows(rows, theirs, lambda r: (r["seed"],))
    assert [e["key"] for e in entries] == ["2"]


def test_rule_fac_rows_read_an_output_without_an_answer_as_no_answer():
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": s, "solution": "Step 1: Equity = 30 - 10 = $20", "generation": g}
            for s, g in ((1, "I cannot tell."), (2, None))]
    entries = fac_rows(rows, {(1,): {"final_answer_match": 1}, (2,): {"final_answer_match": 1}},
                       lambda r: (r["seed"],))
    assert [(e["our_answer"], e["ours_fac"], e["reason"]) for e in entries] == [("", 0.0, REASONS["no answer"])] * 2


def test_rule_a_score_of_the_wrong_type_names_their_scores_when_no_file_is_given():
    from finchain_tasks.plumbing.safe_files import UnreadableFile
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "solution": "Step 1: 1 + 1 = 2", "generation": "2"}]
    with pytest.raises(UnreadableFile, match="^their scores: sample 1: final_answer_match: expected"):
        fac_rows(rows, {(1,): {"final_answer_match": "1"}}, lambda r: (r["seed"],))


def test_rule_a_fac_rows_text_gold_is_shown_as_written():
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [{"seed": 1, "question": "Is the loan approved?", "solution": "Step 1: The ratio is 0.3.\nStep 2: Yes",
             "generation": "Step 1: Yes."}]
    (entry,) = fac_rows(rows, {(1,): {"final_answer_match": 1}}, lambda r: (r["seed"],))
    assert entry["gold"] is True  # not rounded to the number 1


def test_rule_a_disagreement_lacking_a_column_leaves_its_csv_cell_empty(tmp_path):
    from finchain_tasks.reproduce.fac import write_disagreements

    entry = {"key": "1", "ours_fac": 1.0, "their_fac": 0, "gold": 40.0, "our_answer": "$40", "reason": "their bug: x"}
    csv_path, _ = write_disagreements({"m": [entry]}, tmp_path)
    assert csv_path.read_text("utf-8").splitlines()[1] == "m,1,1.0,0,40.0,$40,,their bug: x"


@pytest.mark.parametrize("limit, n", [(None, 3), (0, 3), (1, 1)])
def test_rule_fac_only_reads_every_row_unless_a_positive_limit_and_lists_what_it_passed_over(tmp_path, limit, n):
    from finchain_tasks.reproduce.fac import fac_only

    _repository(tmp_path / "a")
    (tmp_path / "a" / "results" / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    skipped = []
    assert fac_only(tmp_path / "a", tmp_path / "out", limit, skipped)["m"]["n"] == n
    assert [p.name for p, _ in skipped] == ["link.jsonl"]


# -- the report (compare.py): file names, blank cells and blank lines ------------------------------------

def test_rule_the_report_is_reproduce_md_and_reproduce_csv_with_step_score_and_auc_rows_blank_beyond_ours(tmp_path):
    import csv

    md, csv_path = compare.write_report([_comparison()], tmp_path)
    assert (md.name, csv_path.name) == ("reproduce.md", "reproduce.csv")
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    assert rows[5:7] == [["m", "4", "reference", "step_score", "0.123456", "", "", "", ""],
                         ["m", "4", "reference", "auc", "", "", "", "", ""]]


def test_rule_the_markdown_report_separates_heading_table_step_line_and_list_by_one_blank_line():
    lines = compare.markdown([_comparison()]).split("\n")
    step = next(k for k, line in enumerate(lines) if line.startswith("Step score per profile"))
    listed = lines.index("Final-answer disagreements: 5 (largest first):")
    assert lines[3] == "" and lines[step - 1] == "" and lines[step + 1] == "" and step + 2 == listed
    assert lines[listed + 1] == "" and lines[listed + 2].startswith("- `1/7/t/s/Basic`") and lines[listed + 3:] == [""]


def test_rule_only_the_jsonl_files_of_a_testset_topic_are_read(tmp_path):
    folder = tmp_path / "data" / "testset" / "banking"
    folder.mkdir(parents=True)
    (folder / "loans.jsonl").write_text(json.dumps({"id": 3, "seed": 9, "level": "Basic", "question": "Q?",
                                                    "solution": "Step 1: 1 + 1 = 2"}) + "\n", encoding="utf-8")
    (folder / "notes.txt").write_text("not a problem\n", encoding="utf-8")
    assert [r["seed"] for r in authors.authors_problems(tmp_path)] == [9]


def test_rule_fac_rows_judge_with_the_params_given():
    from dataclasses import replace

    from finchain_tasks.reproduce.fac import fac_rows
    from scorers.params import resolve

    rows = [{"seed": 1, "solution": "Step 1: Equity = 30 - 10 = $20", "generation": "Step 1: Equity = $26"}]
    wide = replace(resolve("reference"), final_tol=0.5)
    (entry,) = fac_rows(rows, {(1,): {"final_answer_match": 1}}, lambda r: (r["seed"],), params=wide)
    assert entry["ours_fac"] == 1.0


def test_rule_compare_model_lists_every_row_they_scored_after_one_they_did_not():
    rows = _rows(2)
    res = [_result(1.0), _result(1.0)]
    theirs = {authors._key(rows[1]): {"final_answer_match": 0.0, "recall": 1.0, "precision": 1.0, "step_f1": 1.0}}
    rows = [{**r, "_gold_answer": 20.0, "solution": "Step 1: 30 - 10 = $20", "generation": "Step 1: $20"} for r in rows]
    comparison = compare.compare_model("m", rows, {"reference": res}, theirs, "", {})
    assert [r["key"] for r in comparison.fac_rows] == ["/".join(authors._key(rows[1]))]


class _Recording(_Constant):
    calls = 0

    def encode_cached(self, texts):
        type(self).calls += 1
        return super().encode_cached(texts)


def test_rule_reproduce_scores_with_the_embedder_given_every_row_with_gold_and_lists_what_it_passed_over(tmp_path):
    _repository(tmp_path)
    lines = (tmp_path / "results" / "m.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "results" / "m.jsonl").write_text("\n".join([lines[-1], *lines[:-1]]) + "\n", encoding="utf-8")
    (tmp_path / "results" / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    skipped, embedder = [], _Recording()
    out = compare.reproduce(tmp_path, ("paper",), models=("m",), embedder=embedder, skipped=skipped)
    assert [c.n for c in out] == [3] and _Recording.calls > 0  # the goldless row first: the rest still scored
    assert [p.name for p, _ in skipped] == ["link.jsonl"]


def test_rule_a_null_generation_is_scored_as_an_empty_output():
    from scorers.rows import gold_of

    gold = gold_of({"solution": "Step 1: Equity = 30 - 10 = $20"})
    (res,) = compare.score_profile("reference", [{"generation": None}], [gold], _Constant())
    assert (res.step_recall, res.step_precision, res.fac) == (0.0, 0.0, 0.0)
