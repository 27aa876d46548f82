"""A short Markdown report and a static HTML report of a run, written next to its logs.

Everything that came from a model or a server (error messages, names) is escaped: ``html.escape`` in
HTML, and Markdown's table and emphasis characters in Markdown. A run with the local model says, in
both reports, that it is not a meaningful baseline (``LOCAL_MODEL_NOTE``).

Each score shows its mean, standard error and 95% interval; a run scored in ChainEval's ``reference``
profile marks its ChainEval score with † and says, right under the table, that ``reference`` gives 0.75
to an output whose steps match nothing. The reports also list the settings each result ran with, the
models skipped and why, and which domains have templates.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.plumbing.redaction import write_redacted
from finchain_tasks.runs import REPORT_HTML, REPORT_MD
from finchain_tasks.runs.engine import REQUEST_COUNTS
from finchain_tasks.runs.summary import (
    REFERENCE_NOTE,
    cost_text,
    interval_text,
    score_columns,
    score_text,
    tolerance_only_share,
)

_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
MAX_FAILURES = 50
"""Failed samples listed in a report (all of them are in summary.json)."""
DAGGER = " †"
SETTINGS = ("profile", "task_version", "seeds", "sample_order", "limit", "max_tokens", "temperature", "top_p")


def md(text: Any) -> str:
    """Text safe inside a Markdown table cell: one line, special characters backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _num(value: Optional[float], digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def local_note(summary: dict[str, Any]) -> Optional[str]:
    """The local model's disclaimer when the run has a local model, else None."""
    if not any(r.get("category") == "local" for r in summary["results"]):
        return None
    from finchain_tasks.models.local import LOCAL_MODEL_NOTE

    return LOCAL_MODEL_NOTE


def _is_reference(result: dict[str, Any]) -> bool:
    return (result.get("settings") or {}).get("profile") == "reference"


def _score_cell(result: dict[str, Any], key: str) -> str:
    """``mean ±se [lo, hi]``, with † on a ChainEval score computed in the ``reference`` profile."""
    text = score_text(result, key)
    if text != "-" and interval_text(result, key) != "-":
        text += f" {interval_text(result, key)}"
    return text + (DAGGER if key == "chaineval" and _is_reference(result) else "")


def _rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The main table as plain text cells (escaped by the writer)."""
    columns = score_columns(summary)
    head = ["model", "task", "done", "failed", *columns, "tokens in", "tokens out", "cost", "wall s"]
    body = [[r["display_name"] or r["model"], r["task_set"], f"{r['completed']}/{r['requested']}",
             str(r["failed"] + len(r["missing"])), *(_score_cell(r, k) for k in columns),
             *(("unknown" if r[k] is None else str(r[k])) for k in ("input_tokens", "output_tokens")),
             cost_text(r), _num(r["wall_s"], 1)]
            for r in summary["results"]]
    return head, body


def _setting(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_setting(v)}" for k, v in value.items() if v is not None) or "-"
    if isinstance(value, list):
        return ", ".join(map(str, value[:10])) + (f" … ({len(value)})" if len(value) > 10 else "")
    return str(value)


def _settings_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """What each result ran with, as its log recorded it."""
    body = [[r["display_name"] or r["model"], r["task_set"], r.get("harness") or "inspect",
             *(_setting((r.get("settings") or {}).get(k)) for k in SETTINGS)] for r in summary["results"]]
    return ["model", "task", "harness", *SETTINGS], body


def _notes(summary: dict[str, Any]) -> list[str]:
    """Lines shown under the results table: the reference profile's floor, beside its † scores, and the
    share of each result's fac passes that pass on the 5% tolerance only (fac_strict 0)."""
    notes = [f"† {REFERENCE_NOTE}"] if any(_is_reference(r) for r in summary["results"]) else []
    shares = [(r["display_name"] or r["model"], r["task_set"], tolerance_only_share(r)) for r in summary["results"]]
    parts = [f"{name} · {task} {share:.1%}" for name, task, share in shares if share is not None]
    if parts:
        notes.append("Tolerance-only passes (fac within 5% but fac_strict not within rounding), share of fac passes: "
                     + "; ".join(parts) + ".")
    return notes


def _skipped(summary: dict[str, Any]) -> list[str]:
    return [f"{s.get('model')}: {s.get('reason')}" for s in summary.get("skipped") or []]


def _coverage(summary: dict[str, Any]) -> str:
    cov = summary.get("coverage") or {}
    have = ", ".join(f"{d} ({n})" for d, n in (cov.get("domains_with_templates") or {}).items()) or "none"
    missing = ", ".join(cov.get("domains_without_templates") or []) or "none"
    return (f"{cov.get('templates', 0)} templates. Domains with templates (count): {have}. "
            f"Domains without templates yet: {missing}.")


def _group_rows(summary: dict[str, Any], key: str) -> tuple[list[str], list[list[str]]]:
    groups = sorted({g for r in summary["results"] for g in r[key]})
    body = [[f"{r['display_name'] or r['model']} · {r['task_set']}",
             *(_num(r[key][g].get("chaineval")) + f" (n={r[key][g]['n']})" if g in r[key] else "-" for g in groups)]
            for r in summary["results"] if r[key]]
    return ["model", *groups], body


def _failures(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    out = [(r["display_name"] or r["model"], f["id"], f["reason"] or "") for r in summary["results"]
           for f in r["failures"]]
    out += [(r["display_name"] or r["model"], m, "missing from the log") for r in summary["results"]
            for m in r["missing"]]
    return out


def _sections(summary: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    groups = [(title, *_group_rows(summary, key)) for key, title in
              (("by_domain", "ChainEval by domain"), ("by_level", "ChainEval by level"))
              if any(r[key] for r in summary["results"])]
    return [("Results", *_rows(summary)), ("Settings", *_settings_rows(summary)), *groups]


def markdown(summary: dict[str, Any]) -> str:
    lines = ["# FinChain run report", "", f"Run directory: `{md(summary['run_dir'])}` · generated "
             f"{md(summary['generated'])} · finchain-tasks {md(summary['finchain_tasks_version'])} · "
             f"{summary['sessions']} session(s), {summary['wall_s_total']:.1f} s in all", ""]
    note = local_note(summary)
    if note:
        lines += [f"> **Note:** {md(note)}", ""]
    for line in summary.get("warnings") or []:
        lines += [f"> **Warning:** {md(line)}", ""]
    resent = {m: c for m, c in (summary.get("requests_resent") or {}).items()
              if isinstance(c, dict) and any(c.get(k) for k in REQUEST_COUNTS)}
    if resent:
        lines += ["> **Re-sends:** " + "; ".join(
            f"{md(m)}: " + ", ".join(f"{c.get(k, 0)} {words}" for k, words in REQUEST_COUNTS.items())
            for m, c in resent.items()), ""]
    for title, head, body in _sections(summary):
        lines += [f"## {title}", "", "| " + " | ".join(md(h) for h in head) + " |",
                  "|" + "---|" * len(head), *("| " + " | ".join(md(c) for c in row) + " |" for row in body), ""]
        if title == "Results":
            lines += ["Scores: mean ±standard error [95% interval, mean ± 1.96 se].", ""]
            lines += [f"{md(n)}" for n in _notes(summary)] + ([""] if _notes(summary) else [])
    lines += ["## Skipped models", ""]
    lines += [f"- {md(line)}" for line in _skipped(summary)] or ["None."]
    lines += ["", "## Coverage", "", md(_coverage(summary)), ""]
    failures = _failures(summary)
    lines += ["## Failed samples", ""]
    lines += [f"- {md(m)} · `{md(i)}`: {md(reason)}" for m, i, reason in failures[:MAX_FAILURES]] or ["None."]
    if len(failures) > MAX_FAILURES:
        lines.append(f"- … and {len(failures) - MAX_FAILURES} more (see summary.json)")
    lines += ["", "Cost is unknown (not 0) where neither litellm nor the registry prices a model. "
              "ChainEval, FAC and step F1 are means over completed samples.", ""]
    return "\n".join(lines)


_CSS = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}"
        "table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .6rem;"
        "text-align:right}th:first-child,td:first-child{text-align:left}.note{background:#fff4d6;"
        "border-left:4px solid #e0a800;padding:.6rem 1rem}code{background:#f3f3f3;padding:0 .2rem}")


def _html_table(head: list[str], body: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"


def html_report(summary: dict[str, Any]) -> str:
    e = html.escape
    parts = ["<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>FinChain run report</title>",
             f"<style>{_CSS}</style></head><body><h1>FinChain run report</h1>",
             f"<p>Run directory <code>{e(summary['run_dir'])}</code> · generated {e(summary['generated'])} · "
             f"finchain-tasks {e(summary['finchain_tasks_version'])} · {summary['sessions']} session(s), "
             f"{summary['wall_s_total']:.1f} s in all</p>"]
    note = local_note(summary)
    if note:
        parts.append(f"<p class=\"note\"><strong>Note:</strong> {e(note)}</p>")
    parts += [f"<p class=\"note\"><strong>Warning:</strong> {e(line)}</p>" for line in summary.get("warnings") or []]
    for title, head, body in _sections(summary):
        parts += [f"<h2>{e(title)}</h2>", _html_table(head, body)]
        if title == "Results":
            parts.append("<p>Scores: mean ±standard error [95% interval, mean ± 1.96 se].</p>")
            parts += [f"<p class=\"note\">{e(n)}</p>" for n in _notes(summary)]
    skipped = _skipped(summary)
    parts.append("<h2>Skipped models</h2>")
    parts.append("<ul>" + "".join(f"<li>{e(line)}</li>" for line in skipped) + "</ul>" if skipped else "<p>None.</p>")
    parts += ["<h2>Coverage</h2>", f"<p>{e(_coverage(summary))}</p>"]
    failures = _failures(summary)
    parts.append("<h2>Failed samples</h2>")
    if failures:
        items = "".join(f"<li>{e(m)} · <code>{e(i)}</code>: {e(reason)}</li>" for m, i, reason in
                        failures[:MAX_FAILURES])
        parts.append(f"<ul>{items}</ul>")
    else:
        parts.append("<p>None.</p>")
    parts.append("<p>Cost is unknown (not 0) where neither litellm nor the registry prices a model.</p></body></html>")
    return "\n".join(parts)


def write_reports(run_dir: str | Path, summary: dict[str, Any]) -> tuple[Path, Path]:
    run_dir = Path(run_dir)
    md_path, html_path = run_dir / REPORT_MD, run_dir / REPORT_HTML
    write_redacted(md_path, markdown(summary))  # error texts come from providers, which may echo a key
    write_redacted(html_path, html_report(summary))
    return md_path, html_path
