"""The HTML of each view. Every piece of text that comes from a model, a log or a template goes through
:func:`html.escape`: an output of ``<img src=x onerror=...>`` is shown as those characters, never run."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from finchain_tasks.engine.problem import Problem
from finchain_tasks.explore.verdict import Row, Verdict, shown_value

CSS = """
.fx table {border-collapse: collapse; width: 100%; font-size: 0.9em}
.fx th, .fx td {border: 1px solid #d0d4da; padding: 4px 6px; vertical-align: top; text-align: left}
.fx .num {text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap}
.fx tr.first-error td {background: #fde2e1}
.fx tr.first-error td.gold {border-left: 4px solid #c0392b}
.fx .ok {color: #1e7b34} .fx .bad {color: #b42318} .fx .none {color: #6b7280}
.fx .headline {font-size: 1.05em; margin: 0.3em 0 0.6em}
.fx .heat td {text-align: center; min-width: 2.6em}
.fx pre {white-space: pre-wrap; word-break: break-word}
.fx-compare-cols {display: grid; grid-auto-flow: column; grid-auto-columns: minmax(0, 1fr); gap: 1em; margin-top: 0.8em}
.fx-compare-col {min-width: 0; overflow-x: auto}
.fx-compare-col td {overflow-wrap: break-word}
.fx-compare-col td.gold, .fx-compare-col td:nth-child(2) {width: 38%}
.fx .val {font-variant-numeric: tabular-nums; white-space: nowrap}
@media (max-width: 1023.98px) {.fx-compare-cols {grid-auto-flow: row}}
"""
METRICS = ("chaineval", "fac", "fac_strict", "step_f1", "step_precision", "step_recall", "first_error_step",
           "n_gold_steps", "n_pred_steps", "parse_ok")


def message(text: str, kind: str = "error") -> str:
    """A one-line notice in place of a view (a bad paste, a model error): the app stays usable."""
    tone = "bad" if kind == "error" else "none"
    return f'<div class="fx"><p class="{tone}" data-kind="{kind}">{escape(text)}</p></div>'


def problem_html(problem: Problem, task_version: str) -> str:
    rows = "".join(
        f"<tr><td class='num'>{k}</td><td>{escape(g.text or g.description)}</td><td><code>{escape(s.formula)}</code>"
        f"</td><td class='num'>{escape(shown_value(s.value))}</td><td>{escape(s.unit)}</td></tr>"
        for k, (s, g) in enumerate(zip(problem.steps, problem.gold_steps()), 1))
    return (f"<div class='fx' id='fx-problem' data-problem='{escape(problem.id, quote=True)}'>"
            f"<p><b>{escape(problem.id)}</b> · {escape(problem.level)} · task version {escape(task_version)}</p>"
            f"<p id='fx-question'>{escape(problem.question)}</p>"
            "<table><thead><tr><th>#</th><th>gold step</th><th>formula</th><th>value</th><th>unit</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            f"<p>Final answer: <b id='fx-gold-answer'>{escape(problem.answer_text)}</b></p></div>")


def score_text(value: Any) -> str:
    """A metric as the run report prints it: a fraction to 3 decimals, a count as a whole number."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(int(value))
    if isinstance(value, float):
        return "—" if value != value else f"{value:.3f}"
    return str(value)


def _calc(verdict: bool | None) -> str:
    if verdict is None:
        return "<span class='none'>—</span>"
    return "<span class='ok'>✓ sound</span>" if verdict else "<span class='bad'>✗ wrong</span>"


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def _row(r: Row) -> str:
    cls = " class='first-error'" if r.first_error else ""
    status = ("<span class='ok'>matched</span>" if r.matched else
              "<span class='bad'>unmatched</span>" if r.gold_index else "<span class='none'>extra step</span>")
    gold = f"{r.gold_index}. {escape(r.gold_text)}" if r.gold_index else ""
    pred = f"{r.pred_index}. {escape(r.pred_text)}" if r.pred_index else "<span class='none'>(no model step)</span>"
    return (f"<tr{cls} data-gold='{r.gold_index or ''}' data-pred='{r.pred_index or ''}'>"
            f"<td class='gold'>{gold}</td><td class='num'>{escape(r.gold_value)}</td><td>{pred}</td>"
            f"<td class='num'>{escape(r.pred_value)}</td><td class='num'>{_num(r.similarity)}</td>"
            f"<td class='num'>{_num(r.gate)}</td><td class='num'>{_num(r.score)}</td><td>{status}</td>"
            f"<td>{_calc(r.calc) if r.pred_index else ''}</td></tr>")


FULL_HEAD = ("<tr><th>gold step</th><th>gold value</th><th>model step</th><th>model value</th><th>similarity</th>"
             "<th>gate</th><th>score</th><th>alignment</th><th>calc</th></tr>")
COMPACT_HEAD = "<tr><th>gold step</th><th>model step</th><th>score</th><th>alignment</th></tr>"


def _compact_row(r: Row) -> str:
    """One row in four columns, for a verdict that shares the width with another (Compare): each value under
    its step, similarity × gate under the score, the calc verdict beside the alignment."""
    cls = " class='first-error'" if r.first_error else ""
    status = ("<span class='ok'>matched</span>" if r.matched else
              "<span class='bad'>unmatched</span>" if r.gold_index else "<span class='none'>extra step</span>")
    gold = (f"{r.gold_index}. {escape(r.gold_text)}<br><b class='val'>{escape(r.gold_value)}</b>" if r.gold_index
            else "")
    pred = (f"{r.pred_index}. {escape(r.pred_text)}<br><b class='val'>{escape(r.pred_value)}</b>" if r.pred_index
            else "<span class='none'>(no model step)</span>")
    score = (f"{_num(r.score)}<br><span class='none'>{_num(r.similarity)} × {_num(r.gate)}</span>"
             if r.score is not None else "")
    calc = f"<br>{_calc(r.calc)}" if r.pred_index else ""
    return (f"<tr{cls} data-gold='{r.gold_index or ''}' data-pred='{r.pred_index or ''}'>"
            f"<td class='gold'>{gold}</td><td>{pred}</td><td class='num'>{score}</td><td>{status}{calc}</td></tr>")


def verdict_html(v: Verdict, title: str = "", compact: bool = False) -> str:
    """Headline, metrics, the two-column alignment with the first error marked, final answers, PRM;
    ``compact``: the alignment in four columns (for Compare, where two verdicts share the width)."""
    res = v.result
    first = f"gold step {res.first_error_step}" if res.first_error_step else "none"
    fac = "<span class='ok'>right</span>" if res.fac else "<span class='bad'>wrong</span>"
    fac += " (within rounding)" if res.fac_strict else " (within 5% only)" if res.fac else ""
    metrics = "".join(f"<tr><th>{k}</th><td class='num'>{escape(score_text(res.scores().get(k)))}</td></tr>"
                      for k in METRICS)
    prm = (f" · PRM <code>{escape(v.prm)}</code> reward {v.prm_reward:.3f}" if v.prm and v.prm_reward is not None
           else "")
    return (f"<div class='fx fx-verdict' data-first-error='{res.first_error_step or ''}' data-fac='{int(res.fac)}'>"
            + (f"<h4>{escape(title)}</h4>" if title else "")
            + f"<p class='headline'><b>ChainEval {res.chaineval:.3f}</b> (profile <code>{escape(v.profile)}</code>) · "
            f"final answer {fac} · step F1 {res.step_f1:.3f} · first error: "
            f"<b class='fx-first-error'>{first}</b>{prm}</p>"
            + f"<table><thead>{COMPACT_HEAD if compact else FULL_HEAD}</thead><tbody>"
            + "".join((_compact_row if compact else _row)(r) for r in v.rows) + "</tbody></table>"
            f"<p>Model's final answer: <b class='fx-model-answer'>{escape(v.model_answer)}</b> · gold: "
            f"<b>{escape(v.gold_answer)}</b></p>"
            f"<details><summary>every metric</summary><table>{metrics}</table></details></div>")


def heatmap_html(v: Verdict) -> str:
    """The gated score matrix A (rows gold steps, columns model steps), shaded by value; the path's pairs
    are outlined, and each cell's title gives similarity and gate."""
    scores = v.matrices.get("score") or []
    if not scores or not scores[0]:
        return message("no score matrix: the output has no steps", "info")
    sims, gates = v.matrices.get("similarity", scores), v.matrices.get("gate", scores)
    path = {(a["gold"] - 1, a["pred"] - 1) for a in v.result.alignment}
    head = "".join(f"<th>m{j + 1}</th>" for j in range(len(scores[0])))
    body = []
    for i, line in enumerate(scores):
        cells = []
        for j, a in enumerate(line):
            tone = int(255 - 160 * max(0.0, min(1.0, a)))
            ring = "outline: 2px solid #1f2937;" if (i, j) in path else ""
            cells.append(f"<td style='background: rgb({tone},{tone},255);{ring}' title='similarity "
                         f"{sims[i][j]:.2f} × gate {gates[i][j]:.2f}'>{a:.2f}</td>")
        body.append(f"<tr><th>g{i + 1}</th>{''.join(cells)}</tr>")
    return f"<div class='fx'><table class='heat'><tr><th></th>{head}</tr>{''.join(body)}</table></div>"


def compare_html(verdicts: Sequence[tuple[str, Verdict]]) -> str:
    """Several answers to one problem: a summary line each, then their verdicts side by side."""
    head = "".join(
        f"<tr><td>{escape(label)}</td><td class='num'>{v.result.chaineval:.3f}</td><td class='num'>{int(v.result.fac)}"
        f"</td><td class='num'>{v.result.step_f1:.3f}</td><td class='num'>{v.result.first_error_step or '—'}</td></tr>"
        for label, v in verdicts)
    # side by side from 1024 px up, stacked below (CSS above): each verdict keeps its own column and scrolls
    # inside it rather than spill over its neighbour
    cols = "".join(f"<div class='fx-compare-col'>{verdict_html(v, label, compact=True)}</div>"
                   for label, v in verdicts)
    return ("<div class='fx'><table><tr><th>answer</th><th>ChainEval</th><th>final answer</th><th>step F1</th>"
            f"<th>first error</th></tr>{head}</table><div class='fx-compare-cols'>{cols}</div></div>")


def samples_html(rows: Sequence[dict], limit: int = 200) -> str:
    """A run's samples as a table; each row names the problem id that the verdict view opens."""
    if not rows:
        return message("no sample matches these filters", "info")
    keys = ("model", "sample_id", "level", "chaineval", "fac", "first_error_step")
    if "difference" in rows[0]:
        keys = (*keys[:4], "versus", "versus_chaineval", "difference", *keys[4:])
    head = "".join(f"<th>{k}</th>" for k in keys)
    body = "".join("<tr>" + "".join(f"<td>{escape(_cell(r.get(k)))}</td>" for k in keys) + "</tr>"
                   for r in rows[:limit])
    more = f"<p class='none'>showing {limit} of {len(rows)}</p>" if len(rows) > limit else ""
    return f"<div class='fx' id='fx-samples' data-count='{len(rows)}'><table><tr>{head}</tr>{body}</table>{more}</div>"


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)
