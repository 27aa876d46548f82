"""``finchain list | show | generate | verify``: the dataset side of the CLI."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.padding import Padding
from rich.progress import Progress
from rich.table import Table

from finchain_tasks.cli.main import app, console, friendly
from finchain_tasks.engine import get, select
from finchain_tasks.engine.verify import verify as verify_problem
from finchain_tasks.generate import CANONICAL_SEEDS, iter_problems, read_problems, seed_list, to_hf_dataset, write_jsonl

DomainOpt = typer.Option(None, "--domain", "-d", help="Domain id (repeatable), e.g. investment_analysis.")
TopicOpt = typer.Option(None, "--topic", "-t", help="Topic id (repeatable), e.g. compound_interest.")
LevelOpt = typer.Option(None, "--level", "-l", help="easy, intermediate or advanced (repeatable).")
TemplateOpt = typer.Option(None, "--template", help="Template name or domain/topic/name (repeatable).")


def _select(domain, topic, level, template):
    chosen = select(domain or (), topic or (), level or (), template or ())
    if not chosen:
        raise ValueError("no template matches these filters")
    return chosen


@app.command("list")
@friendly
def list_templates(
    domain: Optional[list[str]] = DomainOpt, topic: Optional[list[str]] = TopicOpt,
    level: Optional[list[str]] = LevelOpt,
) -> None:
    """List templates with their level and step count."""
    chosen = _select(domain, topic, level, None)
    title = f"{len(chosen)} FinChain templates"
    rows = [(t.id, t.level, len(t.generate(0).steps), t.summary) for t in chosen]
    if console.width >= max(len(r[0]) for r in rows) + LIST_ASKS_WIDTH:
        table = Table(title=title)
        table.add_column("template id", no_wrap=True)  # an id is copied into `finchain show`: never cut it
        for col in ("level", "steps", "asks"):
            table.add_column(col)
        for tid, lvl, steps, summary in rows:
            table.add_row(tid, lvl, str(steps), escape(summary))
        console.print(table)
        return
    console.print(f"[bold]{title}[/]")  # narrow terminal: the whole id on one line, what it asks below it
    for tid, lvl, steps, summary in rows:
        console.print(tid, highlight=False, markup=False, no_wrap=True, overflow="ignore", crop=False)
        console.print(Padding(f"{lvl}, {steps} steps: {escape(summary)}", (0, 0, 0, 4)), highlight=False)


LIST_ASKS_WIDTH = 60
"""Columns the level, steps and asks need beside the longest id before ``finchain list`` uses a table."""


@app.command()
@friendly
def show(problem_id: str = typer.Argument(..., help="finchain/<domain>/<topic>/<template>/<seed>")) -> None:
    """Show one problem: the question and its gold step trace."""
    parts = problem_id.removeprefix("finchain/").strip("/").split("/")
    if len(parts) != 4 or not parts[3].isdigit():
        raise ValueError(f"expected finchain/<domain>/<topic>/<template>/<seed>, got {problem_id!r}")
    problem = get("/".join(parts[:3])).generate(int(parts[3]))
    console.print(f"[bold]{problem.id}[/]  ({problem.level}, {len(problem.steps)} steps)\n")
    console.print(escape(problem.question), "\n")
    console.print(escape(problem.solution), highlight=False)


@app.command()
@friendly
def generate(
    domain: Optional[list[str]] = DomainOpt, topic: Optional[list[str]] = TopicOpt,
    level: Optional[list[str]] = LevelOpt, template: Optional[list[str]] = TemplateOpt,
    seeds: int = typer.Option(len(CANONICAL_SEEDS), "--seeds", "-n", help="Seeds per template."),
    start_seed: int = typer.Option(0, "--start-seed", help="First seed (consecutive seeds follow)."),
    fresh: bool = typer.Option(False, "--fresh", help="Draw unseen seeds outside the canonical range."),
    output: Path = typer.Option(Path("finchain.jsonl"), "--output", "-o", help="Output file or folder."),
    fmt: str = typer.Option("jsonl", "--format", "-f", help="jsonl, parquet, or hf (a datasets folder)."),
) -> None:
    """Generate problems (canonical seeds 0-9 by default) to JSONL, Parquet or a datasets folder."""
    if fmt not in ("jsonl", "parquet", "hf"):
        raise ValueError(f"--format must be jsonl, parquet or hf, got {fmt!r}")
    chosen = _select(domain, topic, level, template)
    rows = [p.to_dict() for p in iter_problems(chosen, seed_list(seeds, start_seed, fresh))]
    if fmt == "jsonl":
        write_jsonl(rows, output)
    elif fmt == "parquet":
        output.parent.mkdir(parents=True, exist_ok=True)
        to_hf_dataset(rows).to_parquet(str(output))
    else:
        to_hf_dataset(rows).save_to_disk(str(output))
    levels = Counter(r["level"] for r in rows)
    console.print(f"wrote {len(rows)} problems from {len(chosen)} templates to {output} "
                  f"({', '.join(f'{k}: {v}' for k, v in sorted(levels.items()))})")


@app.command()
@friendly
def verify(
    domain: Optional[list[str]] = DomainOpt, topic: Optional[list[str]] = TopicOpt,
    level: Optional[list[str]] = LevelOpt, template: Optional[list[str]] = TemplateOpt,
    seeds: int = typer.Option(200, "--seeds", "-n", help="Seeds per template."),
    file: Optional[Path] = typer.Option(None, "--file", help="Verify the problems in a JSONL file instead."),
) -> None:
    """Run every template × many seeds (or a file's records) through the verifier."""
    if file is not None:
        problems = list(read_problems(file))
        checks = [(p, None) for p in problems]
    else:
        chosen = _select(domain, topic, level, template)
        checks = [(t.generate(s), t) for t in chosen for s in seed_list(seeds)]
    failures, failing = [], 0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("verifying", total=len(checks))
        for problem, tpl in checks:
            report = verify_problem(problem, regenerate=tpl)
            failures.extend(f"{report.problem_id}: {f}" for f in report.failures)
            failing += not report.ok
            progress.advance(task)
    for line in failures[:50]:
        console.print(f"[red]FAIL[/] {escape(line)}", highlight=False)
    if failures:
        console.print(f"[bold red]{len(failures)} failures[/] in {failing} of {len(checks)} problems")
        raise typer.Exit(code=1)
    console.print(f"[bold green]all {len(checks)} problems verified[/]")
