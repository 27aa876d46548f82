"""Agreement of the final-answer checks with a careful reader, on the reader-labelled corpus.

``tests/data/reader_labels/authors/labels.jsonl`` holds, for 503 generations of the FinChain authors'
submission repository (their ``results/*.jsonl``; no licence, so only row ids are stored, never their
text), the label a reader gave after reading the question, the gold and the output: right / wrong /
ambiguous, the answer the reader takes, whether it lies within rounding of the gold, and a reason class
(see the corpus's README.md). This script joins the labels to the texts and prints, on the rows the
reader did not call ambiguous:

* ``fac``: our final-answer check, computed exactly as ``finchain reproduce --fac-only`` does
  (:func:`finchain_tasks.reproduce.fac.fac_rows`: our gold reading, our output reading, ``answer_correct``
  under the ``reference`` profile);
* ``fac_strict``: when ``fac_rows`` reports it (``ours_fac_strict``), against the reader's "within
  rounding" (a right answer within half a unit of its last digit or 0.5%); skipped when absent;
* ``v1``: the authors' own rule (:mod:`scorers.v1_rule`; its final-answer match needs no embeddings);
* ``published``: the per-sample ``final_answer_match`` the authors published (``evals/<model>.jsonl``;
  for metamath-13b it scored a field the public results lack, so it differs from ``v1`` there);

each overall and by reason class, then every disagreement (row id, reader's label and answer, our answer).

Run: ``python benchmarks/reader_agreement.py --authors /path/to/FinChain-Reasoning`` (or set
``FINCHAIN_AUTHORS_DIR``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from finchain_tasks.plumbing.jsonl import jsonl_records

LABELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "reader_labels" / "authors" / "labels.jsonl"
"""The corpus: one JSON object per labelled row."""
VERDICTS = ("right", "wrong", "ambiguous")
REASONS = ("plain", "tolerance only", "direction word", "verdict line", "boxed/LaTeX", "plan only/no answer",
           "two quantities", "sign convention", "answer line disagrees", "last figure another quantity",
           "percent/ratio", "sign missing", "gold unclear", "text answer", "wrong sign")
"""The reason classes a label may carry (README.md says what each means)."""
FIELDS = {"row": str, "seed": int, "label": str, "answer": (int, float, str, type(None)),
          "gold": (int, float, str, bool, type(None)), "within_tolerance": (bool, type(None)),
          "within_rounding": (bool, type(None)), "reason": str, "stratum": str}
"""Every field a label has, with its type(s); ``magnitude`` (bool) is the one optional field."""
OPTIONAL = {"magnitude": bool}
MAX_TEXT = 40
"""No string in a label is longer: labels carry short categories, never the authors' text."""


class LabelError(ValueError):
    """A label line that does not follow the corpus schema, or a row id that does not join."""


def _check(label: Any, where: str) -> dict[str, Any]:
    if not isinstance(label, dict):
        raise LabelError(f"{where}: not a JSON object")
    extra = set(label) - set(FIELDS) - set(OPTIONAL)
    missing = set(FIELDS) - set(label)
    if extra or missing:
        raise LabelError(f"{where}: unexpected field(s) {sorted(extra)}, missing {sorted(missing)}")
    for name, kind in {**FIELDS, **{k: v for k, v in OPTIONAL.items() if k in label}}.items():
        value = label[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise LabelError(f"{where}: field '{name}' has type {type(value).__name__}")
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise LabelError(f"{where}: field '{name}' is longer than {MAX_TEXT} characters (no text is stored)")
    model, _, line = label["row"].partition(":")
    if not model or not line.isdigit():
        raise LabelError(f"{where}: field 'row' must read '<results file stem>:<line index>'")
    if label["label"] not in VERDICTS:
        raise LabelError(f"{where}: field 'label' must be one of {VERDICTS}")
    if label["reason"] not in REASONS:
        raise LabelError(f"{where}: field 'reason' {label['reason']!r} is not a known class")
    return label


def load_labels(path: Path = LABELS) -> list[dict[str, Any]]:
    """Every label of ``path``, checked against the schema; one-line :class:`LabelError` naming the
    file, line and field otherwise, and on a duplicate row id."""
    out, seen = [], set()
    for n, label in jsonl_records(path, LabelError):
        where = f"{path}:{n}"
        label = _check(label, where)
        if label["row"] in seen:
            raise LabelError(f"{where}: row {label['row']} is labelled twice")
        seen.add(label["row"])
        out.append(label)
    return out


def join(labels: Iterable[dict[str, Any]], root: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(label, authors' row) pairs: ``row`` is ``<file stem>:<line index>`` of ``root/results``; the
    row's ``seed`` must equal the label's, so a changed file is caught, not silently mislabelled."""
    files: dict[str, tuple[int, dict[int, Any]]] = {}
    out = []
    for label in labels:
        model, _, line = label["row"].partition(":")
        if model not in files:
            path = Path(root) / "results" / f"{model}.jsonl"
            if not path.is_file():
                raise LabelError(f"{path}: no such results file (label {label['row']})")
            records = list(jsonl_records(path, LabelError))  # line index = line number - 1
            files[model] = (records[-1][0] if records else 0, {n - 1: row for n, row in records})
        count, rows = files[model]
        if int(line) >= count:
            raise LabelError(f"{label['row']}: the results file has {count} lines")
        row = rows.get(int(line))
        if not isinstance(row, dict):
            raise LabelError(f"{label['row']}: not a JSON object in the results file")
        if row.get("seed") != label["seed"]:
            raise LabelError(f"{label['row']}: seed {row.get('seed')} in the results file, "
                             f"{label['seed']} in the label")
        out.append((label, row))
    return out


def _v1_fac(row: dict[str, Any]) -> float:
    """The authors' final-answer match (:func:`scorers.v1_rule.score_v1`): its step similarities need
    an encoder, its final answer does not, so a constant one stands in."""
    import numpy as np

    from scorers.v1_rule import score_v1

    return score_v1(row.get("solution") or "", row.get("generation") or "",
                    lambda texts: np.ones((len(texts), 1))).fac


def _published(pairs: list[tuple[dict[str, Any], dict[str, Any]]], root: Path | None) -> dict[str, float]:
    """The authors' published per-sample ``final_answer_match`` (``evals/<model>.jsonl``) per row id."""
    if root is None:
        return {}
    from finchain_tasks.reproduce.authors import _key, their_scores

    tables = {m: their_scores(root, m)[0] for m in {label["row"].partition(":")[0] for label, _ in pairs}}
    out = {}
    for label, row in pairs:
        their = tables[label["row"].partition(":")[0]].get(_key(row))
        if their is not None and their.get("final_answer_match") is not None:
            out[label["row"]] = float(their["final_answer_match"])
    return out


def readings(pairs: list[tuple[dict[str, Any], dict[str, Any]]], root: Path | None = None) -> list[dict[str, Any]]:
    """Per labelled row: the reader's label and answer beside ``fac`` (and ``fac_strict`` when the
    code reports it), our answer text, the authors' rule's ``v1`` match and, with ``root``, their
    published per-sample match."""
    from finchain_tasks.reproduce.fac import fac_rows

    rows = [dict(row, _reader_row=label["row"]) for label, row in pairs]
    key = lambda row: (row["_reader_row"],)  # noqa: E731
    theirs = {key(row): {"final_answer_match": _v1_fac(row)} for row in rows}
    ours = {e["key"]: e for e in fac_rows(rows, theirs, key)}
    published = _published(pairs, root)
    out = []
    for label, _ in pairs:
        entry = ours.get(label["row"])
        if entry is None:
            raise LabelError(f"{label['row']}: no gold could be read from the row (fac_rows skipped it)")
        strict = entry.get("ours_fac_strict")
        out.append({"row": label["row"], "label": label["label"], "reason": label["reason"],
                    "answer": label["answer"], "within_rounding": label["within_rounding"],
                    "fac": entry["ours_fac"], "fac_strict": strict, "v1": theirs[(label["row"],)]["final_answer_match"],
                    "published": published.get(label["row"]), "our_answer": entry["our_answer"], "gold": entry["gold"]})
    return out


def their_bug_rows(pairs: list[tuple[dict[str, Any], dict[str, Any]]], root: Path) -> list[dict[str, Any]]:
    """The corpus rows ``finchain reproduce --fac-only`` labels "their bug" (:func:`finchain_tasks.reproduce.fac.
    fac_reason` against the authors' published per-sample ``final_answer_match``), each with the reader's label
    and ``contradicted``: the reader (not ambiguous) sides with their rule, not with our ``fac``. Such a label
    would blame their rule for a reading of ours; issue 38 wants none."""
    from finchain_tasks.reproduce.fac import BUG_PREFIX, fac_rows

    published = _published(pairs, root)
    rows = [dict(row, _reader_row=label["row"]) for label, row in pairs if label["row"] in published]
    theirs = {(row["_reader_row"],): {"final_answer_match": published[row["_reader_row"]]} for row in rows}
    entries = {e["key"]: e for e in fac_rows(rows, theirs, lambda row: (row["_reader_row"],))}
    out = []
    for label, _ in pairs:
        entry = entries.get(label["row"])
        if entry is None or not entry["reason"].startswith(BUG_PREFIX):
            continue
        reader = reader_says({"label": label["label"], "within_rounding": label["within_rounding"]}, "fac")
        out.append({"row": label["row"], "label": label["label"], "answer": label["answer"], "reason": entry["reason"],
                    "fac": entry["ours_fac"], "our_answer": entry["our_answer"],
                    "contradicted": reader is not None and reader != entry["ours_fac"]})
    return out


def reader_says(reading: dict[str, Any], metric: str) -> float | None:
    """What the reader's label makes of ``metric`` for this row: 1 or 0, None when ambiguous. For
    ``fac_strict`` a right answer counts only when within rounding (a verdict or text answer is)."""
    if reading["label"] == "ambiguous":
        return None
    right = reading["label"] == "right"
    if metric == "fac_strict":
        return float(right and reading["within_rounding"] is not False)
    return float(right)


def agreement(rows: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    """Agreement of ``metric`` with the reader on the rows they did not call ambiguous, overall and by
    reason class, and the disagreeing rows."""
    scored = [r for r in rows if reader_says(r, metric) is not None and r.get(metric) is not None]
    dis = [r for r in scored if float(r[metric]) != reader_says(r, metric)]
    by_reason: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in scored:
        by_reason[r["reason"]][0] += 1
        by_reason[r["reason"]][1] += r not in dis
    n = len(scored)
    return {"n": n, "agree": n - len(dis), "share": (n - len(dis)) / n if n else float("nan"),
            "by_reason": dict(by_reason), "disagreements": dis}


def _print(rows: list[dict[str, Any]], metric: str, title: str) -> None:
    if not any(r.get(metric) is not None for r in rows):
        print(f"\n{title}: not available (no {metric} reading for any row); skipped")
        return
    a = agreement(rows, metric)
    print(f"\n{title}: agrees with the reader on {a['agree']} of {a['n']} ({a['share']:.2%})")
    for reason, (n, ok) in sorted(a["by_reason"].items(), key=lambda kv: -kv[1][0]):
        print(f"  {reason:30s} {ok:4d}/{n:<4d} {ok / n:7.1%}")
    for r in sorted(a["disagreements"], key=lambda r: (r["reason"], r["row"])):
        print(f"  x {r['row']:24s} [{r['reason']}] reader {r['label']} ({r['answer']!r}); {metric}={r[metric]:.0f}; "
              f"gold {r['gold']!r}; our answer {' '.join(str(r['our_answer'] or '').split())[:70]!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--authors", default=os.environ.get("FINCHAIN_AUTHORS_DIR"),
                        help="the FinChain authors' repository (default $FINCHAIN_AUTHORS_DIR)")
    parser.add_argument("--labels", default=str(LABELS), help="the labels file (default: the shipped corpus)")
    args = parser.parse_args(argv)
    if not args.authors:
        parser.error("give the authors' repository with --authors or set FINCHAIN_AUTHORS_DIR")
    labels = load_labels(Path(args.labels))
    pairs = join(labels, Path(args.authors))
    rows = readings(pairs, Path(args.authors))
    counts = {v: sum(r["label"] == v for r in rows) for v in VERDICTS}
    print(f"{len(rows)} labelled rows: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
    _print(rows, "fac", "fac (ours, 5% tolerance)")
    _print(rows, "fac_strict", "fac_strict (ours, within rounding)")
    _print(rows, "v1", "v1 (the authors' eval.py rule, scorers/v1_rule.py)")
    _print(rows, "published", "published (the authors' per-sample final_answer_match, evals/<model>.jsonl)")
    bugs = their_bug_rows(pairs, Path(args.authors))
    wrong = [b for b in bugs if b["contradicted"]]
    print(f"\n'their bug' labels (finchain reproduce --fac-only) on the corpus: {len(bugs)}; "
          f"the reader contradicts {len(wrong)}")
    for b in wrong:
        print(f"  x {b['row']:24s} reader {b['label']} ({b['answer']!r}); fac={b['fac']:.0f}; {b['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
