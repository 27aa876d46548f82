"""The reader-labelled corpus (tests/data/reader_labels/authors/): the yardstick for ``fac``.

Always run: the shipped labels follow the schema (fields, types, classes), no row is labelled twice, and
no field carries text (the authors' repository has no licence: ids, the reader's answer and labels only);
the schema checker rejects each kind of bad line with a one-line error naming file, line and field.

With FINCHAIN_AUTHORS_DIR set: the labels join to the authors' rows (seed checked), and ``fac``, computed
as ``finchain reproduce --fac-only`` computes it, agrees with the reader on the rows the reader did not
call ambiguous: at least the floor measured on this code, and the issue-38 target of 99.5%, which today's
reading misses (verdict lines, two-quantity answers; see the corpus README) and so is marked xfail.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.reader_agreement import (
    MAX_TEXT,
    REASONS,
    LabelError,
    agreement,
    join,
    load_labels,
    readings,
    their_bug_rows,
)

GOOD = {"row": "metamath_13b:12", "seed": 7, "label": "right", "answer": -7.88, "gold": -7.88,
        "within_tolerance": True, "within_rounding": True, "reason": "direction word", "stratum": "random"}


@pytest.fixture(scope="module")
def labels() -> list[dict]:
    return load_labels()


def test_shipped_labels_follow_the_schema_with_500_rows_or_more(labels):
    assert len(labels) >= 500
    assert {x["label"] for x in labels} == {"right", "wrong", "ambiguous"}
    assert {x["reason"] for x in labels} <= set(REASONS)


def test_shipped_labels_have_no_duplicate_row_and_no_text(labels):
    rows = [x["row"] for x in labels]
    assert len(rows) == len(set(rows))
    longest = max((v for x in labels for v in x.values() if isinstance(v, str)), key=len)
    assert len(longest) <= MAX_TEXT


def test_shipped_labels_record_rounding_only_where_the_reader_read_a_number(labels):
    for x in labels:
        numeric = isinstance(x["answer"], float | int) and isinstance(x["gold"], float | int) \
            and not isinstance(x["gold"], bool)
        assert (x["within_tolerance"] is not None) == numeric, x["row"]
        if x["label"] == "right" and numeric and not x.get("magnitude"):
            assert x["within_tolerance"], x["row"]  # the convention: right means within 5% of the gold


def _write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("bad", "message"), [
    ("{not json", r"labels.jsonl:1: not JSON"),
    ([1, 2], r"labels.jsonl:1: not a JSON object"),
    ({**GOOD, "generation": "x"}, r"unexpected field\(s\) \['generation'\]"),
    ({k: v for k, v in GOOD.items() if k != "reason"}, r"missing \['reason'\]"),
    ({**GOOD, "seed": "7"}, r"field 'seed' has type str"),
    ({**GOOD, "seed": True}, r"field 'seed' has type bool"),
    ({**GOOD, "answer": "x" * (MAX_TEXT + 1)}, r"field 'answer' is longer than 40 characters"),
    ({**GOOD, "row": "metamath_13b"}, r"field 'row' must read"),
    ({**GOOD, "label": "maybe"}, r"field 'label' must be one of"),
    ({**GOOD, "reason": "vibes"}, r"field 'reason' 'vibes' is not a known class"),
    ({**GOOD, "magnitude": "yes"}, r"field 'magnitude' has type str"),
])
def test_schema_rule_rejects_each_bad_line_naming_file_line_and_field(tmp_path, bad, message):
    with pytest.raises(LabelError, match=message):
        load_labels(_write(tmp_path, bad))


def test_schema_rule_accepts_a_good_line_and_rejects_a_row_labelled_twice(tmp_path):
    assert load_labels(_write(tmp_path, GOOD, {**GOOD, "row": "metamath_13b:13"}))[1]["row"] == "metamath_13b:13"
    with pytest.raises(LabelError, match=r"labels.jsonl:2: row metamath_13b:12 is labelled twice"):
        load_labels(_write(tmp_path, GOOD, GOOD))


def test_join_rule_refuses_a_row_whose_seed_changed(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "metamath_13b.jsonl").write_text(json.dumps({"seed": 8}) + "\n", encoding="utf-8")
    with pytest.raises(LabelError, match=r"metamath_13b:0: seed 8 in the results file, 7 in the label"):
        join([{**GOOD, "row": "metamath_13b:0"}], tmp_path)
    with pytest.raises(LabelError, match=r"the results file has 1 lines"):
        join([{**GOOD, "row": "metamath_13b:5"}], tmp_path)


def test_agreement_rule_skips_ambiguous_rows_and_counts_strict_only_within_rounding():
    rows = [{"row": "a", "label": "right", "reason": "plain", "within_rounding": False, "fac": 1.0, "fac_strict": 0.0},
            {"row": "b", "label": "wrong", "reason": "plain", "within_rounding": False, "fac": 1.0, "fac_strict": 0.0},
            {"row": "c", "label": "ambiguous", "reason": "plain", "within_rounding": None, "fac": 0.0,
             "fac_strict": 0.0},
            {"row": "d", "label": "right", "reason": "verdict line", "within_rounding": None, "fac": 1.0,
             "fac_strict": 1.0}]
    fac = agreement(rows, "fac")
    assert (fac["n"], fac["agree"], [r["row"] for r in fac["disagreements"]]) == (3, 2, ["b"])
    assert fac["by_reason"] == {"plain": [2, 1], "verdict line": [1, 1]}
    strict = agreement(rows, "fac_strict")
    assert (strict["n"], strict["agree"]) == (3, 3)


AUTHORS = os.environ.get("FINCHAIN_AUTHORS_DIR")
_needs_authors = pytest.mark.skipif(
    not AUTHORS or not Path(AUTHORS, "results").is_dir(),
    reason="set FINCHAIN_AUTHORS_DIR to the FinChain authors' repository to join the reader's labels to their texts")

FAC_FLOOR = 0.976
"""Reader agreement of ``fac`` measured on this code (462 of 473 rows, up from 433 once a verdict or the
two quantities stated before a bare answer line are read); a regression guard."""
FAC_TARGET = 0.995
"""Issue 38's target for the reader agreement of ``fac``."""


@pytest.fixture(scope="module")
def read(labels):
    return readings(join(labels, Path(AUTHORS)))


@_needs_authors
def test_fac_agrees_with_the_reader_at_least_as_measured(read):
    a = agreement(read, "fac")
    assert a["n"] >= 450
    assert a["share"] >= FAC_FLOOR, [(r["row"], r["label"], r["our_answer"]) for r in a["disagreements"]]


@_needs_authors
@pytest.mark.xfail(strict=True, reason="issue 38: text golds in other words, figures of the other quantity "
                                       "and a few others remain; remove this mark when fac reaches the target")
def test_fac_agrees_with_the_reader_on_995_in_1000_rows(read):
    assert agreement(read, "fac")["share"] >= FAC_TARGET


@_needs_authors
def test_no_their_bug_label_the_reader_contradicts(labels):
    # issue 38: a row is "their bug" (excluded from the headline agreement) only where a reader reads it as we
    # do; on the corpus, none of the labels `finchain reproduce --fac-only` gives may have the reader side with
    # their rule (158 labels at this commit)
    bugs = their_bug_rows(join(labels, Path(AUTHORS)), Path(AUTHORS))
    assert len(bugs) >= 100
    assert [(b["row"], b["label"], b["reason"]) for b in bugs if b["contradicted"]] == []


@_needs_authors
def test_labels_join_to_the_authors_rows_with_their_seeds(labels):
    pairs = join(labels, Path(AUTHORS))
    assert len(pairs) == len(labels)
    assert all(row.get("generation") is not None for _, row in pairs)

