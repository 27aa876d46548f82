"""``finchain reproduce finchain-v1 --authors DIR``: the paper's first version re-scored from the
authors' own generations, beside their per-sample and published numbers (see
:mod:`finchain_tasks.reproduce.compare` and docs/reproducing-finchain.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from finchain_tasks.cli.main import app, console, err_console, friendly
from finchain_tasks.reproduce.authors import AUTHORS_ENV


@app.command()
@friendly
def reproduce(
    target: str = typer.Argument("finchain-v1", help="What to reproduce: finchain-v1."),
    authors: Optional[Path] = typer.Option(None, "--authors", help=f"Authors' repository (default ${AUTHORS_ENV})."),
    out_dir: Path = typer.Option(Path("reproduce"), "--out-dir", "-o", help="Where reproduce.md and .csv go."),
    profile: Optional[list[str]] = typer.Option(None, "--profile", "-p",
                                                help="Profiles (default reference, paper); v1 = the authors' eval.py."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N rows of each model."),
    fac_only: bool = typer.Option(False, "--fac-only", help="Only final-answer agreement (no embeddings, seconds): "
                                  "every disagreement to fac_disagreements.csv/.md."),
) -> None:
    """Score the authors' generation files and compare with their per-sample and published means."""
    from finchain_tasks.plumbing.safe_files import skipped_lines
    from finchain_tasks.reproduce.authors import authors_dir
    from finchain_tasks.reproduce.compare import (
        TABLE_COLUMNS,
        check_profiles,
        step_score_line,
        table_rows,
        write_report,
    )
    from finchain_tasks.reproduce.compare import reproduce as run

    if target != "finchain-v1":
        raise ValueError(f"unknown target {target!r}: expected finchain-v1")
    root = authors_dir(authors, "--authors DIR")
    skipped: list = []  # what a walk of the authors' folder passed over: a link out of it, a FIFO, a device
    if fac_only:
        from finchain_tasks.reproduce.fac import fac_only as run_fac

        summaries = run_fac(root, out_dir, limit, skipped)
        for line in skipped_lines(skipped):
            err_console.print(line, markup=False, highlight=False, soft_wrap=True)
        for model, s in summaries.items():
            console.print(f"{escape(model)}: fac agrees on {s['agree']}/{s['n']} ({s['share']:.2%}); "
                          f"{s['share_without_bugs']:.2%} where their rule is not wrong by construction",
                          highlight=False, soft_wrap=True)
        console.print(f"wrote {escape(str(out_dir / 'fac_disagreements.csv'))} and .md")
        return
    comparisons = run(root, check_profiles(tuple(profile or ("reference", "paper"))), limit, skipped=skipped)
    for line in skipped_lines(skipped):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    for c in comparisons:
        table = Table(title=f"{c.model}: {c.n} samples vs {c.their_file or 'no per-sample file'}")
        for col in TABLE_COLUMNS:
            table.add_column(col, justify="left" if col in ("metric", "profile") else "right")
        for row in table_rows(c):
            table.add_row(*row)
        console.print(table)
        console.print(escape("Step score, AUC right vs wrong final answer: " + step_score_line(c)), highlight=False)
        for d in c.disagreements[:5]:
            console.print(f"  {escape(d['key'])}: ours {d['ours_fac']:.0f} theirs {d['their_fac']}: "
                          f"{escape(d['reason'])}", highlight=False)
    md, csv_path = write_report(comparisons, out_dir)
    console.print(f"wrote {escape(str(md))} and {escape(str(csv_path))}")
