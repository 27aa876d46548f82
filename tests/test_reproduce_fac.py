"""Final-answer agreement with the authors' rule (issue 24 item 4): the reason families, the fast path
and the disagreement list. Rows are written here in the shapes of their files, none copied from them;
the check on the real files is in tests/scorers/test_answer_shapes.py (FINCHAIN_AUTHORS_DIR)."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchain_tasks.reproduce.fac import BUG_PREFIX, fac_reason, fac_rows, fac_summary, write_disagreements


def _reason(solution, generation, ours_fac, gold, answer, value=None, question="What is the value?"):
    row = {"solution": solution, "generation": generation, "question": question}
    ours = {"fac": ours_fac, "gold_answer": gold, "final_answer": answer, "answer_value": value}
    return fac_reason(row, ours, {"final_answer_match": 1 - int(ours_fac)})


GOLD = "Step 1: Net = 80 - 14.3 = 65.70"


@pytest.mark.parametrize(("solution", "generation", "ours_fac", "gold", "answer", "value", "expected"), [
    (GOLD, "The net payment is $65.70.", 1, 65.7, "$65.70", 65.7, "no steps in eval.py"),
    (GOLD, "Step 1: Answer: $80 - $14.30 = $65.70", 1, 65.7, "$65.70", 65.7, "'Answer:' rule"),
    ("Step 1: 8.48 + 1 = 9.48\nStep 2: Final Answer: 9.48 - 2.04 = 7.44", "Step 1: It is 7.44 BTC.", 1, 7.44,
     "7.44", 7.44, "gold's 'Answer: a op b = c'"),
    (GOLD, "Step 1: Subtract.\nStep 2: GreenGrocer receives $65.67.", 1, 65.7, "$65.67", 65.67, "two integer digits"),
    (GOLD, "Step 3: Alice receives $3920.53 (2832.95 x 1.389).", 1, 3934.97, "$3920.53", 3920.53, "aside"),
    (GOLD, "Step 3: Debt-to-equity ratio = 94.42%", 1, 0.95, "94.42%", 94.42, "percent-ratio"),
    (GOLD, "Step 4: The value is -$8.43.", 0, 8.43, "-$8.43", -8.43, "minus signs"),
    ("Step 1: 12% <= 25%\nStep 2: No, disclosure is not required.", "Step 1: The threshold of 25%.", 0, False,
     "25%", 25.0, "threshold/number the qualitative gold"),
    (GOLD, "Step 2: The leverage ratio is 16.1 to 1.", 0, 6.17, "16.1", 16.1, "('16.1' -> 6.1)"),
    (GOLD, "Step 1: Find the rate.\nStep 2: Divide.", 0, 1.63, "", None, "ours: the output states no answer"),
    (GOLD, "Step 3: The new value is $4,367.01.", 1, 4417.93, "$4,367.01", 4367.01, "tolerance"),
])
def test_each_reason_family(solution, generation, ours_fac, gold, answer, value, expected):
    assert expected in _reason(solution, generation, ours_fac, gold, answer, value)


def test_only_shapes_their_rule_misreads_count_as_their_bug():
    assert _reason(GOLD, "Step 3: The new value is $4,367.01.", 1, 4417.93, "$4,367.01", 4367.01) \
        .startswith("tolerance")
    assert _reason(GOLD, "The net payment is $65.70.", 1, 65.7, "$65.70", 65.7).startswith(BUG_PREFIX)
    two = _reason(GOLD, "Step 2: 250 units each.", 1, 250.0, "250", 250.0,
                  question="How much is in each fund, and what is the share of each?")
    assert two.startswith("two quantities")


@pytest.fixture(scope="module")
def toy():
    rows = [
        {"seed": 1, "solution": "Step 1: Equity = 30 - 10 = $20", "generation": "Step 1: Equity = $20",
         "question": "What is the equity?"},
        {"seed": 2, "solution": "Step 1: Equity = 50 - 10 = $40", "generation": "The equity is $40.",
         "question": "What is the equity?"},
        {"seed": 3, "solution": None, "generation": "x"},
        {"seed": 4, "solution": "Step 1: Equity = 9 - 1 = $8", "generation": "Step 1: Equity = $9 | $8",
         "question": "What is the equity?"},
    ]
    theirs = {(1,): {"final_answer_match": 1}, (2,): {"final_answer_match": 0}, (3,): {"final_answer_match": 0}}
    return rows, theirs


def test_fac_rows_join_score_and_explain_without_embeddings(toy):
    rows, theirs = toy
    entries = fac_rows(rows, theirs, lambda r: (r["seed"],))
    assert [e["key"] for e in entries] == ["1", "2"]  # no gold, or no score of theirs: left out
    assert [e["ours_fac"] for e in entries] == [1.0, 1.0] and entries[0]["reason"] == ""
    assert "no steps in eval.py" in entries[1]["reason"]
    summary = fac_summary(entries)
    assert summary["agree"] == 1 and summary["their_bugs"] == 1 and summary["share_without_bugs"] == 1.0


def test_every_disagreement_is_written_to_csv_and_markdown(toy, tmp_path):
    rows, theirs = toy
    entries = fac_rows(rows, theirs, lambda r: (r["seed"],))
    entries.append({**entries[1], "key": "x|y", "our_answer": "a | b"})
    csv_path, md_path = write_disagreements({"toy": entries}, tmp_path)
    written = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert [r["key"] for r in written] == ["2", "x|y"] and written[0]["gold"] == "40.0"
    md = md_path.read_text(encoding="utf-8")
    assert "agree on 1 of 3" in md and "a \\| b" in md and md.count("no steps in eval.py") == 3


def test_reproduce_writes_the_disagreement_list(tmp_path):
    from finchain_tasks.reproduce.compare import reproduce, write_report
    from tests.test_reproduce import ConstantEmbedder, _row

    root = tmp_path / "authors"
    (root / "results").mkdir(parents=True)
    (root / "evals").mkdir()
    rows = [_row(1, "Step 1: Equity = 9 - 1 = $8", "The equity is $8."),
            _row(2, "Step 1: Equity = 9 - 1 = $8", "Step 1: Equity = $8")]
    (root / "results" / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    theirs = [{k: r[k] for k in ("seed", "id", "level", "topic", "subtopic")} | {"final_answer_match": 0}
              for r in rows]
    (root / "evals" / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in theirs))
    write_report(reproduce(root, ("reference",), embedder=ConstantEmbedder()), tmp_path / "out")
    written = list(csv.DictReader((tmp_path / "out" / "fac_disagreements.csv").open(encoding="utf-8")))
    assert [r["key"].split("/")[0] for r in written] == ["1", "2"]
    assert written[1]["reason"].startswith("parser") and written[0]["their_answer"] == ""


_FAMILIES = (BUG_PREFIX, "tolerance", "two quantities", "parser", "ours")


@settings(max_examples=60, deadline=None)
@given(generation=st.text(max_size=300), answer=st.text(max_size=40),
       gold=st.one_of(st.none(), st.booleans(), st.text(max_size=20), st.floats(allow_nan=True, allow_infinity=True)),
       ours_fac=st.sampled_from([0.0, 1.0]))
def test_any_row_gets_a_reason_of_a_known_family(generation, answer, gold, ours_fac):
    reason = _reason(GOLD, generation, ours_fac, gold, answer)
    assert reason.startswith(_FAMILIES)


@pytest.mark.parametrize("text", ["", "x" * 200_000 + " is 5", "(" * 5000 + "1 x 2", "<b>is</b> 1e308 " * 50,
                                  "ब्याज है ४२, और शुल्क है ७", "the fee is NaN, and the net is $1e308"])
def test_clause_answers_and_reasons_survive_bad_input(text):
    from scorers.answers import clause_answers

    assert isinstance(clause_answers(text), list)
    assert _reason(text, text, 1.0, 1e308, text[:50]).startswith(_FAMILIES)


def _reason2(generation, ours_fac, gold, answer, value, strict=None):
    row = {"solution": GOLD, "generation": generation, "question": "What is the value?"}
    ours = {"fac": ours_fac, "gold_answer": gold, "final_answer": answer, "answer_value": value}
    if strict is not None:
        ours["fac_strict"] = strict
    return fac_reason(row, ours, {"final_answer_match": 1 - int(ours_fac)})


@pytest.mark.parametrize(("generation", "ours_fac", "gold", "answer", "value", "strict", "expected"), [
    # their bug only where a reader reads what we read: the minus sign is written, or no sign is given at all
    ("Step 4: The value is -$8.43.", 0, 8.43, "-$8.43", -8.43, None, BUG_PREFIX + ": eval.py drops minus"),
    ("Step 2: The change is 7.88.", 0, -7.88, "7.88", 7.88, None, BUG_PREFIX + ": eval.py drops minus"),
    ("Step 2: It pays -USD3177763.\nThe answer is: 3177763", 0, 3184889.64, "3177763", -3177763.0, None,
     BUG_PREFIX + ": eval.py drops minus"),
    # our sign came from a word: a reading of ours, named so
    ("Step 2: The value decreases by $7.88.", 0, 7.88, "$7.88", -7.88, None, "ours: direction word"),
    # a negative gold, but the figures are far apart: not the sign class (they read "72.2" as 2.2)
    ("Step 6: The after-tax ROI is 72.2%.", 0, -2.28, "72.2%", 72.2, None, BUG_PREFIX + ": eval.py's last-number"),
    # a pass within 5% but not within rounding is never their bug
    ("The net payment is $63.50.", 1, 65.7, "$63.50", 63.5, 0.0, "tolerance only; their bug: an output without"),
    ("The net payment is $65.70.", 1, 65.7, "$65.70", 65.7, 1.0, BUG_PREFIX + ": an output without"),
    # a percent read as written against a unitless gold, where the output restates it as its fraction of one:
    # the output means 0.4825, so our pass is a reading of ours, not their bug (a reader calls it wrong)
    ("The ratio is 48.25%. For every $1 of equity there is $0.48 of debt.", 1, 48.34, "48.25%", 48.25, 1.0,
     "ours: percent/ratio"),
    # edges: no restatement, a restatement of another size, a gold below one: their bug as before
    ("The margin is 77.5%.", 1, 77.26, "77.5%", 77.5, 1.0, BUG_PREFIX + ": an output without"),
    ("The ratio is 48.25%. Equity is $0.20 per $1 of assets.", 1, 48.34, "48.25%", 48.25, 1.0,
     BUG_PREFIX + ": an output without"),
    ("The rate is 0.93%, about 0.0093 a year.", 1, 0.93, "0.93%", 0.93, 1.0, BUG_PREFIX + ": an output without"),
])
def test_rule_their_bug_only_where_a_reader_reads_as_we_do(generation, ours_fac, gold, answer, value, strict, expected):
    assert _reason2(generation, ours_fac, gold, answer, value, strict).startswith(expected)


def test_tolerance_only_rows_are_not_counted_as_their_bugs():
    entries = [{"reason": ""}, {"reason": "tolerance only; their bug: x"}, {"reason": BUG_PREFIX + ": y"}]
    summary = fac_summary(entries)
    assert (summary["their_bugs"], summary["n"], summary["agree"]) == (1, 3, 1)
