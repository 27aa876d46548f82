"""Final-answer agreement with the FinChain authors' rule: the fast path, the reason for each
disagreement, and the list a reader can check.

Their ``final_answer_match`` (``chaineval/eval.py``) reads a final answer with a few regular
expressions; ours reads it as a careful reader would (:mod:`scorers.answers`, :mod:`scorers.text_gold`).
Where the two differ, :func:`fac_reason` names why, from the texts alone, in one of these families:

* ``their bug: ...`` a shape their rule misreads by construction: an output without ``Step``/numbered
  lines has no steps (fac 0); ``Answer: a / b = c`` is read as its first number (in an output or in
  the gold); minus signs are dropped; a figure with two integer digits loses its first one (their
  last-number pattern reads "$65.67" as 5.67 and "16.1" as 6.1); a qualitative gold is matched on a
  threshold its sentence names; an aside after the answer ("$3920.53 (2832.95 x 1.389)") gives the
  step's last number;
* ``tolerance: ...`` we read the figure the output states and it lies within the 5% both rules allow,
  where their rule read another number;
* ``ours: ...`` / ``parser: ...`` / ``two quantities: ...`` what remains: a reading of ours differs (also where
  their rule fails by construction but our pass rests on a reading the output itself contradicts: a percent
  figure read as written against a unitless gold, where the output restates it as its fraction of one).

:func:`fac_rows` computes only final-answer agreement (no embeddings: the whole of one file in a few
seconds); :func:`write_disagreements` writes every disagreement to CSV and Markdown.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scorers.v1_rule import split_steps

__all__ = ["BUG_PREFIX", "TOLERANCE_PREFIX", "fac_only", "fac_reason", "fac_rows", "fac_summary", "write_disagreements"]

BUG_PREFIX = "their bug"
"""Reasons starting with this are rows where their rule is wrong by construction and a reader reads the
output as we do (the figure we read is the one a reader takes)."""
TOLERANCE_PREFIX = "tolerance only"
"""Rows we pass within the 5% tolerance but not within rounding (``fac_strict`` 0): never counted as
their bug, whatever their rule did, since a reader may well call such an answer wrong."""

_THEIR_ANSWER = re.compile(r"\**Answer:\**(.{0,200})")
_NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
_NEGATIVE = re.compile(r"\s*(?:[A-Z]{3}\s*)?[$€£¥]?\s*[-−]\s*[$€£¥]?[0-9]")
_TWO_DIGITS = re.compile(r"(?<![0-9,.])[0-9]{2}(?:\.[0-9]+)?(?![0-9,])")
_ASIDE = re.compile(r"\(\s*[$€£¥]?[0-9][^()]*?(?:[x×*/+]|\s-\s)[^()]*\)")
_TWO_ASKS = re.compile(r"(?i:\b(?:how\s+much|what)\b[^?]{0,300}?\band\s+(?:how|what)\b)")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _expression_answer(text: str) -> bool:
    """Their last ``Answer:`` (whitespace collapsed, as their steps are) holds an expression, two numbers
    or more before its sentence ends: they read its first."""
    found = list(_THEIR_ANSWER.finditer(" ".join((text or "").split())))
    if not found:
        return False
    sentence = re.split(r"(?<=[^0-9])\.(?:\s|$)", found[-1].group(1))[0]
    return len(_NUMBER.findall(sentence)) >= 2


def _last_figure(text: str) -> str:
    found = _NUMBER.findall(text or "")
    return found[-1] if found else ""


def _percent_for_ratio(answer_text: str, gold: Any) -> bool:
    """"94.42%" for a gold ratio of 0.95: their rule compares 94.42 with 0.95."""
    figure = _last_figure(answer_text)
    if "%" not in answer_text or not figure or not _is_number(gold):
        return False
    value = float(figure.replace(",", ""))
    return _close(value / 100, abs(float(gold))) and not _close(value, abs(float(gold)))


def _close(a: float, b: float, tol: float = 0.05) -> bool:
    return abs(a - b) <= tol * (abs(b) + 1e-4)


def _truncated(answer_text: str, gold: Any, they_passed: bool) -> bool:
    """Their last-number pattern ``\\d.[\\d,]+`` reads a figure with two integer digits from its second
    digit ("65.67" -> 5.67, "16.1" -> 6.1) and skips a two-digit integer: True when the answer's figure
    is such and that misreading is what made them fail (or pass) where the figure does the opposite."""
    figure = _last_figure(answer_text)
    if not _TWO_DIGITS.fullmatch(figure) or not _is_number(gold):
        return False
    cut = figure[1:]
    misread = float(cut) if "." in cut else None  # a two-digit integer ("18%") is not read at all
    if they_passed:
        return misread is not None and _close(misread, abs(float(gold)))
    return misread is None or not _close(misread, abs(float(gold)))


def fac_reason(row: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]) -> str:
    """A one-line reason for a final-answer disagreement, from what each side read (see the module
    docstring for the families). ``ours`` holds ``fac``, ``gold_answer``, ``final_answer`` (text) and,
    when known, ``answer_value``."""
    solution = row.get("solution") or ""
    gold, answer_text = ours.get("gold_answer"), str(ours.get("final_answer") or "")
    value = ours.get("answer_value")
    if value is None and answer_text:  # reproduce() keeps only the answer's text
        from scorers.numbers import parse_number

        number = parse_number(answer_text)
        value = number.value if number is not None else None
    if _is_number(gold) and _expression_answer(solution):
        return f"{BUG_PREFIX}: eval.py reads the gold's 'Answer: a op b = c' as its first number, not c"
    they_passed = theirs["final_answer_match"] > ours["fac"]
    sign = _sign_reason(gold, value, answer_text, they_passed, row.get("generation") or "")
    if sign:
        return sign
    if not they_passed:
        reason = _we_pass(row, gold, answer_text, value)
        if ours.get("fac_strict") == 0.0 and _is_number(gold) and not reason.startswith(("tolerance", "two")):
            return f"{TOLERANCE_PREFIX}; {reason}"
        return reason
    return _they_pass(row, gold, answer_text, value)


def _written_negative(figure: str, generation: str) -> bool:
    """The output writes ``figure`` with a minus sign somewhere ("= -USD3177763", then "The answer is: 3177763")."""
    digits = _last_figure(figure)
    return bool(digits) and re.search(r"[-−]\s*(?:[A-Z]{3}\s*)?[$€£¥]?\s*" + re.escape(digits) + r"(?![0-9])",
                                      generation) is not None


def _sign_reason(gold: Any, value: Any, answer_text: str, they_passed: bool, generation: str = "") -> str:
    """The sign class: their rule drops minus signs, so where the two readings differ only in sign
    they pass. That is their bug when our figure's minus sign is written in the output; when our sign
    came from a word ("decreases by $7.88"), it is a reading of ours, named so."""
    if not (they_passed and _is_number(gold) and _is_number(value)) or (gold < 0) == (value < 0) or not gold:
        return ""
    if not _close(abs(float(value)), abs(float(gold))):
        return ""
    written = _NEGATIVE.match(answer_text) or answer_text.lstrip().startswith("(") \
        or _written_negative(answer_text, generation)
    if value < 0 and not written:
        return "ours: direction word: we read the figure as negative from a word of decrease or loss; gold is positive"
    return f"{BUG_PREFIX}: eval.py drops minus signs ([\\d.]+), so -X and X are one answer"


def _fraction_restated(generation: str, answer_text: str, gold: Any, value: Any) -> bool:
    """We pass "48.25%" against a unitless gold of 48.34 by reading the percent figure as it is written, but the
    output goes on to state its fraction of one ("for every $1 of equity, $0.48 of debt"): it means 0.4825, a
    reading the gold does not share. True when ``answer_text`` is a percent, our figure is close to the gold as
    written, and the text after its last statement writes the figure over 100 (to two decimals or more)."""
    if "%" not in answer_text or not (_is_number(gold) and _is_number(value)) or not gold:
        return False
    if not _close(abs(float(value)), abs(float(gold))) or abs(float(gold)) < 1:
        return False
    figure = _last_figure(answer_text)
    at = generation.rfind(figure) if figure else -1
    if at < 0:
        return False
    fraction = abs(float(value)) / 100
    after = generation[at + len(figure):]
    return any(abs(float(n.replace(",", "")) - fraction) <= 0.005 + 1e-9 for n in _NUMBER.findall(after)
               if "." in n and float(n.replace(",", "")) < 1)


def _we_pass(row: dict[str, Any], gold: Any, answer_text: str, value: Any) -> str:
    generation = (row.get("generation") or "").split("\nuser\n")[0]
    if _fraction_restated(generation, answer_text, gold, value):
        return "ours: percent/ratio: we read 'X%' as X for a unitless gold; the output restates it as X/100"
    if not split_steps(generation):  # their step splitting, from the one re-implementation of eval.py
        return f"{BUG_PREFIX}: an output without 'Step'/numbered lines has no steps in eval.py, so fac 0"
    if _expression_answer(generation):
        return f"{BUG_PREFIX}: eval.py's 'Answer:' rule takes the first number of 'Answer: a op b = c'"
    if isinstance(gold, (str, bool)):
        return f"{BUG_PREFIX}: eval.py compares numbers for a yes/no or text gold; the output states the gold's verdict"
    if _percent_for_ratio(answer_text, gold):
        return f"{BUG_PREFIX}: eval.py has no percent-ratio reconciliation ('94.42%' for a ratio of 0.95)"
    at = generation.rfind(answer_text) if answer_text else -1
    if at >= 0 and _ASIDE.match(generation[at + len(answer_text):at + len(answer_text) + 80].lstrip(" .")):
        return f"{BUG_PREFIX}: eval.py takes the step's last number, an operand of the aside '(a x b)' after the answer"
    if _truncated(answer_text, gold, False):
        return f"{BUG_PREFIX}: eval.py's last-number pattern drops the first of two integer digits ('65.67' -> 5.67)"
    if _TWO_ASKS.search(row.get("question") or ""):
        return "two quantities: the question asks for two; eval.py read the other one (of the gold or the output)"
    if _is_number(value) and _is_number(gold) and value == gold:
        return "parser: we read the stated figure, equal to gold; eval.py read another number of the last step"
    return "tolerance: we read the stated figure, within 5% of gold; eval.py read another number of the last step"


def _they_pass(row: dict[str, Any], gold: Any, answer_text: str, value: Any) -> str:
    if isinstance(gold, (str, bool)):
        return f"{BUG_PREFIX}: eval.py matches a threshold/number the qualitative gold names, not its conclusion"
    if _truncated(answer_text, gold, True):
        return f"{BUG_PREFIX}: eval.py's last-number pattern drops the first of two integer digits ('16.1' -> 6.1)"
    if not answer_text and value is None:
        return "ours: the output states no answer; eval.py matched a number of its last step"
    if _TWO_ASKS.search(row.get("question") or ""):
        return "two quantities: the question asks for two; we read another of the output's quantities than eval.py"
    return "parser: we read a different quantity of the conclusion (duration, share, threshold or operand skipped)"


def fac_rows(rows: list[dict[str, Any]], theirs: dict[tuple, dict[str, Any]], key, params=None,
             where: str = "their scores") -> list[dict]:
    """Final-answer agreement only, one dict per row with gold and their score: no embeddings, so the
    whole of one file takes seconds. ``key(row)`` joins a row to ``theirs``; a score of the wrong type is one
    line naming ``where`` (their file), the sample and the field."""
    from finchain_tasks.plumbing.safe_files import expect
    from scorers.final_answer import judge_answer
    from scorers.params import resolve
    from scorers.rows import RowError, gold_of
    from scorers.steps import parse_output

    params = params or resolve("reference")
    out = []
    for row in rows:
        their = theirs.get(key(row))
        if their is None or their.get("final_answer_match") is None:
            continue
        expect(their["final_answer_match"], (int, float, bool), f"{where}: sample {'/'.join(map(str, key(row)))}",
               "final_answer_match")
        try:
            gold = gold_of(row)
        except RowError:
            continue  # a row without gold text (one of 2,700 has solution: null)
        parsed = parse_output(row.get("generation") or "")
        judged = judge_answer(gold, parsed, params)  # ChainEval's own reading of the final answer
        fac, strict = float(judged.fac), float(judged.fac_strict)
        ours = {"fac": fac, "fac_strict": strict, "gold_answer": gold.answer, "final_answer": parsed.final_answer_text,
                "answer_value": parsed.final_answer.value if parsed.final_answer else None}
        entry = {"key": "/".join(map(str, key(row))), "ours_fac": fac, "ours_fac_strict": strict,
                 "their_fac": their["final_answer_match"],
                 "gold": _show(gold.answer), "our_answer": parsed.final_answer_text, "their_answer": "",
                 "reason": ""}
        if fac != their["final_answer_match"]:
            entry["reason"] = fac_reason(row, ours, their)
        out.append(entry)
    return out


def fac_only(root: Path, out_dir: Path, limit: int | None = None,
             skipped: list[tuple[Path, str]] | None = None) -> dict[str, dict[str, Any]]:
    """``finchain reproduce --fac-only``: final-answer agreement of every generation file under ``root``
    with the authors' per-sample file, every disagreement written under ``out_dir``; summary per model."""
    from finchain_tasks.reproduce.authors import _key, authors_rows, their_scores

    per_model = {}
    for model, rows in authors_rows(root, skipped).items():
        theirs, rel = their_scores(root, model)
        per_model[model] = fac_rows(rows[:limit] if limit else rows, theirs, _key, where=str(Path(root) / rel))
    write_disagreements(per_model, out_dir)
    return {model: fac_summary(entries) for model, entries in per_model.items()}


def _show(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else value


def fac_summary(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Agreement on all rows, and on the rows where their rule is not wrong by construction."""
    entries = list(entries)
    dis = [e for e in entries if e["reason"]]
    bugs = sum(e["reason"].startswith(BUG_PREFIX) for e in dis)
    n, agree = len(entries), len(entries) - len(dis)
    return {"n": n, "agree": agree, "share": agree / n if n else float("nan"), "their_bugs": bugs,
            "share_without_bugs": agree / (n - bugs) if n - bugs else float("nan"),
            "reasons": Counter(e["reason"] for e in dis)}


_COLUMNS = ("model", "key", "ours_fac", "their_fac", "gold", "our_answer", "their_answer", "reason")


def write_disagreements(per_model: dict[str, list[dict[str, Any]]], out_dir: Path) -> tuple[Path, Path]:
    """``fac_disagreements.csv`` and ``.md``: every final-answer disagreement (key, our answer, their
    reading when a ``v1`` run supplied it, gold, reason), with the count per reason first."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out_dir / "fac_disagreements.csv", out_dir / "fac_disagreements.md"
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(_COLUMNS)
        for model, entries in per_model.items():
            for e in entries:
                if e["reason"]:
                    w.writerow([model] + [e.get(c, "") for c in _COLUMNS[1:]])
    lines = ["# Final-answer disagreements with the authors' rule", ""]
    for model, entries in per_model.items():
        s = fac_summary(entries)
        lines += [f"## {model}: agree on {s['agree']} of {s['n']} ({s['share']:.2%}); "
                  f"{s['share_without_bugs']:.2%} of the {s['n'] - s['their_bugs']} rows where their rule is not wrong "
                  "by construction", "", "| rows | reason |", "|---:|---|"]
        lines += [f"| {k} | {_md(r)} |" for r, k in s["reasons"].most_common()]
        lines += ["", "| key | ours | theirs | gold | our answer | their reading | reason |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| `{e['key']}` | {e['ours_fac']:.0f} | {e['their_fac']} | {_md(e['gold'])} | "
                  f"{_md(e['our_answer'])} | {_md(e.get('their_answer', ''))} | {_md(e['reason'])} |"
                  for e in entries if e["reason"]]
        lines.append("")
    md_path.write_text("\n".join(lines), encoding="utf-8")
    return csv_path, md_path


def _md(value: Any) -> str:
    text = " ".join(str(value if value is not None else "").split())[:120]
    return text.replace("|", "\\|")
