"""``finchain score``: ChainEval over a JSONL file of predictions, with a summary table.

Every input line gives exactly one output line, in order, carrying the caller's own fields (its
``id`` and anything else) so scores join back: scored rows add the metrics, rows that cannot be
scored add ``line`` and ``error``. One bad line (not UTF-8, not JSON, nested too deep, a gold
value of the wrong type, text that is not valid Unicode) never costs the other rows their scores.

Rows stream through in blocks of :data:`BLOCK_ROWS`: read, scored, written, and only their summary kept, so memory
stays flat in the number of rows (the encoder's cache of vectors is the one thing that grows, up to its bound).
Lines are read with orjson when it is installed (about 3x the standard library), falling back to the standard
library for every line orjson refuses or might read differently, so a row reads the same either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from finchain_tasks.cli.main import app, console, friendly
from finchain_tasks.cli.ray_options import RayBlockRowsOpt, RayGpusOpt, RayOpt, RayWorkersOpt, ray_settings
from finchain_tasks.runs.score_file import (
    SUMMARY_KEYS,
    Tally,
    count_rows,
    param_overrides,
    read_blocks,
    score_rows,
    write_rows,
)


@app.command()
@friendly
def score(
    predictions: Path = typer.Argument(..., help="JSONL rows: gold (steps, solution or a FinChain id) + output."),
    output: Path = typer.Option(Path("scores.jsonl"), "--output", "-o", help="Where per-row scores go."),
    profile: str = typer.Option("paper", "--profile", "-p", help="ChainEval profile: paper or reference."),
    param: Optional[list[str]] = typer.Option(None, "--param", help="Override a parameter: name=value."),
    ray: Optional[str] = RayOpt,
    ray_workers: Optional[int] = RayWorkersOpt,
    ray_gpus_per_worker: float = RayGpusOpt,
    ray_block_rows: int = RayBlockRowsOpt,
) -> None:
    """Score model outputs with ChainEval; bad rows are reported and kept, never dropped."""
    from scorers.embeddings import shared_embedder
    from scorers.params import resolve

    params = resolve(profile, **param_overrides(param or []))
    if ray is not None:
        from finchain_tasks.scale.commands import score_on_ray

        _report(score_on_ray(predictions, output, params, param_overrides(param or []), ray_settings(
            ray, ray_workers, ray_gpus_per_worker, ray_block_rows), console), output)
        return
    total = count_rows(predictions)
    blocks = read_blocks(predictions)
    embedder = shared_embedder(params.embedding_model)
    tally = Tally()
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("scoring", total=total)
        scored = (tally.add(row) for block in blocks
                  for row in score_rows(block, params, embedder, lambda k: bar.advance(task, k)))
        write_rows(scored, output)
    _report(tally, output)


def _report(rows: Tally | list[dict], output: Path) -> None:
    tally = rows if isinstance(rows, Tally) else Tally.of(rows)
    _summary(tally)
    for line, error in tally.shown:
        console.print(f"[red]line {line}[/]: {escape(error)}", highlight=False)
    console.print(f"wrote {tally.rows} rows to {escape(str(output))} ({tally.errors} could not be scored)")
    if tally.errors:
        raise typer.Exit(code=1)


def _summary(tally: Tally) -> None:
    table = Table(title="ChainEval summary")
    for col in ("group", "n", *SUMMARY_KEYS):
        table.add_column(col, justify="right" if col != "group" else "left")
    for (kind, name), (n, *sums) in sorted(tally.groups.items(), key=lambda kv: (kv[0][0] != "all", kv[0])):
        table.add_row(escape(name or kind), str(int(n)), *(f"{v / n:.3f}" for v in sums))
    console.print(table)
