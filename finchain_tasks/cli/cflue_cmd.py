"""``finchain cflue-score``: score CFLUE outputs from a file under a profile (``default`` or ``reference``).

The scoring lives in :mod:`finchain_tasks.cflue.score`; this module only reads the options, writes the rows and
prints the summary, every figure labelled with its profile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from finchain_tasks.cli.main import app, console, friendly


@app.command("cflue-score")
@friendly
def cflue_score(
    predictions: Path = typer.Argument(..., help="JSON list or JSONL of CFLUE records with the model's answers."),
    output: Path = typer.Option(Path("cflue_scores.jsonl"), "--output", "-o", help="Where per-row scores go."),
    profile: str = typer.Option("default", "--profile", "-p",
                                help="default (read as a reader would; or 'paper') or reference (the authors')."),
    data: Optional[Path] = typer.Option(None, "--data", help="CFLUE knowledge or application file to join by id."),
    extract: Optional[str] = typer.Option(None, "--extract", help="Knowledge extraction (default: the profile's)."),
    analysis: bool = typer.Option(False, "--analysis", help="Also BLEU/ROUGE of the knowledge analysis."),
) -> None:
    """Score CFLUE outputs (knowledge and application) under a profile; bad rows are reported, never dropped."""
    from finchain_tasks.cflue.score import read_rows, score_rows, summary
    from finchain_tasks.runs.score_file import write_rows
    from scorers.cflue.reference import check_profile

    profile = check_profile(profile)
    rows = read_rows(predictions)
    records = _records(data) if data else None
    scored = score_rows(rows, profile, extract=extract, data=records)
    write_rows(scored, output)
    result = summary(scored, rows, profile, analysis=analysis)
    _print(result)
    for row in [r for r in scored if "error" in r][:20]:
        console.print(f"[red]row {row['row']}[/]: {escape(row['error'])}", highlight=False)
    console.print(f"wrote {len(scored)} rows to {escape(str(output))} ({result['errors']} could not be scored); "
                  f"profile [bold]{profile}[/]" + ("" if profile == "reference" else
                                                   ": NOT comparable with the CFLUE paper's figures"))
    if result["errors"]:
        raise typer.Exit(code=1)


def _records(path: Path):
    from finchain_tasks.cflue.application import load_application
    from finchain_tasks.cflue.loader import CflueDataError, load_cflue
    from finchain_tasks.plumbing.safe_files import read_text

    head = read_text(path, errors="replace")[:4000]  # a regular file only: a FIFO is refused, never blocks
    if '"sub_task"' in head:
        return load_application(path).records
    try:
        return load_cflue(path).records
    except CflueDataError:
        return load_application(path).records


def _print(result: dict) -> None:
    table = Table(title=f"CFLUE scores, profile {result['profile']}")
    for col in ("part", "metric", "value"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for key, value in (result.get("knowledge") or {}).items():
        if isinstance(value, dict):
            for k, v in value.items():
                table.add_row("knowledge analysis", k, _fmt(v))
        else:
            table.add_row("knowledge", key, _fmt(value))
    application = result.get("application") or {}
    for column, value in (application.get("table") or {}).items():
        table.add_row("application", column, _fmt(value))
    for task, values in (application.get("by_task") or {}).items():
        for key, value in values.items():
            table.add_row(f"application {task}", key, _fmt(value))
    console.print(table)


def _fmt(value) -> str:
    return f"{value:.2f}" if isinstance(value, float) else escape(json.dumps(value, ensure_ascii=False))
