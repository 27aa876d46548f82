"""One model output scored with everything a viewer shows, as plain data.

ChainEval's own :func:`scorers.chaineval.score_batch` does the scoring (with ``keep_matrices``), so the
explorer's verdict is the hosts' verdict, number for number; this module only lays it out: which gold
step pairs with which model step, the numbers the gate read on each side, where the chain first broke,
and the PRM's verdict on every model step."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from finchain_tasks.engine.formatting import MINUS
from finchain_tasks.engine.problem import Problem
from scorers.chaineval import ChainEvalResult, score_batch
from scorers.params import resolve
from scorers.steps import parse_output

MAX_OUTPUT_CHARS = 100_000
"""A pasted output above this (about 25,000 tokens, far beyond any answer the task asks for) is refused
with a message instead of tying up the scorer."""
MAX_CONTROL_SHARE = 0.05
"""An output whose characters are more than this share control characters or U+FFFD is binary, not text."""


@dataclass
class Row:
    """One line of the two-column view: a gold step, a model step, or the pair ChainEval aligned."""

    gold_index: int | None
    gold_text: str
    gold_value: str
    pred_index: int | None
    pred_text: str
    pred_value: str
    similarity: float | None = None
    gate: float | None = None
    score: float | None = None
    matched: bool = False
    first_error: bool = False
    calc: bool | None = None
    """The PRM's verdict on this row's model step: True sound, False wrong, None nothing to check."""


@dataclass
class Verdict:
    problem_id: str
    profile: str
    result: ChainEvalResult
    rows: list[Row]
    gold_answer: str
    model_answer: str
    prm: str
    prm_reward: float | None
    matrices: dict[str, list[list[float]]] = field(default_factory=dict)

    def metrics(self) -> dict[str, Any]:
        return self.result.scores()


def check_output(text: Any) -> str:
    """The output as text a scorer can take, or a one-line ``ValueError`` saying why not."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("paste a model output (the text is empty)")
    if len(text) > MAX_OUTPUT_CHARS:
        raise ValueError(f"this output has {len(text):,} characters; the explorer scores at most "
                         f"{MAX_OUTPUT_CHARS:,} (use `finchain score` for files)")
    odd = sum(1 for ch in text if ch == "\ufffd" or (unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\n\r\t"))
    if odd > MAX_CONTROL_SHARE * len(text):
        raise ValueError(f"this does not look like text: {odd:,} of {len(text):,} characters are control "
                         "characters or undecodable bytes")
    return text


def shown_value(value: Any, unit: str = "") -> str:
    """A value as the views show it: money to the cent (a minus sign before the $), yes/no, up to 10
    significant digits."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and unit == "$":  # −$7.88, as the templates write a debt
        return f"{MINUS if value < 0 else ''}${abs(value):,.2f}"
    if isinstance(value, float):
        return f"{value:,.10g}{'%' if unit == '%' else unit and ' ' + unit}"
    return f"{value}{unit and ' ' + unit}"


def _prm_verdicts(question: str, output: str, prm_spec: str) -> tuple[list[bool | None], float | None]:
    """Per model step: True / False / None (no verdict), and the reward R; ``calc`` needs no model."""
    from scorers.prm.base import prm_input

    if prm_spec == "calc":
        from scorers.prm.calc import CalcPRM
        prm: Any = CalcPRM()
    else:
        from finchain_tasks.prm import load_prm
        prm = load_prm(prm_spec)
    score = prm.score_batch([prm_input(question, output)])[0]
    return [None if p is None else p >= 0.5 for p in score.step_probs], score.reward


def score_output(problem: Problem, output: str, profile: str = "paper", prm: str = "calc",
                 **overrides: Any) -> Verdict:
    """Score ``output`` against ``problem``'s gold trace and lay the result out row by row."""
    output = check_output(output)
    params = resolve(profile, **overrides)
    gold = problem.gold()
    result = score_batch([gold], [output], params, keep_matrices=True)[0]
    parsed = parse_output(output)
    prm_steps, prm_reward = _prm_verdicts(problem.question, output, prm) if prm else ([], None)
    return Verdict(problem.id, params.profile, result, _rows(gold, parsed, result, prm_steps),
                   problem.answer_text, result.final_answer or "—", prm, prm_reward, result.matrices or {})


def _rows(gold, parsed, result: ChainEvalResult, prm_steps: list[bool | None]) -> list[Row]:
    """Gold and model steps in alignment order: a pair on one row, a skipped step on a row of its own."""
    pairs = {a["gold"] - 1: a for a in result.alignment}
    by_pred = {a["pred"] - 1 for a in result.alignment}
    rows: list[Row] = []
    j = 0

    def pred_row(k: int) -> Row:
        step = parsed.steps[k]
        return Row(None, "", "", k + 1, step.text, shown_value(step.value.value if step.value else None,
                   step.value.unit if step.value else ""), calc=prm_steps[k] if k < len(prm_steps) else None)

    for i, g in enumerate(gold.steps):
        pair = pairs.get(i)
        while j < len(parsed.steps) and j not in by_pred and (pair is None or j < pair["pred"] - 1):
            rows.append(pred_row(j))
            j += 1
        row = Row(i + 1, g.text or g.description, shown_value(g.value, g.unit), None, "", "",
                  first_error=result.first_error_step == i + 1)
        if pair is not None:
            k = pair["pred"] - 1
            filled = pred_row(k)
            row.pred_index, row.pred_text, row.pred_value, row.calc = k + 1, filled.pred_text, filled.pred_value, \
                filled.calc
            row.similarity, row.gate, row.score, row.matched = (pair["similarity"], pair["gate"], pair["score"],
                                                                 pair["matched"])
            j = max(j, k + 1)
        rows.append(row)
    rows.extend(pred_row(k) for k in range(j, len(parsed.steps)) if k not in by_pred)
    return rows
