"""``finchain list | show | generate | verify``: the dataset side of the CLI."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.markup import escape
from rich.padding import Padding
from rich.progress import Progress
from rich.table import Table

from finchain_tasks.cli.main import app, console, friendly
from finchain_tasks.engine import get, select
from finchain_tasks.engine.standard import (
    BALANCE_LIMIT,
    SENSITIVITY_LIMIT,
    VACUOUS_LIMIT,
    VARIETY_DRAWS,
    VARIETY_MIN,
    Figures,
    check_fresh_process,
    depth_failures,
    same_question_failures,
    survey,
)
from finchain_tasks.engine.verify import check_stored_text, failure
from finchain_tasks.engine.verify import verify as verify_problem
from finchain_tasks.finchain.generate import (
    CANONICAL_SEEDS,
    check_size,
    iter_problems,
    read_problems,
    seed_list,
    to_hf_dataset,
    write_jsonl,
)
from finchain_tasks.plumbing.jsonl import jsonl_records

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
    """List templates with their level, step count and, for advanced ones, the concepts they combine."""
    chosen = _select(domain, topic, level, None)
    title = f"{len(chosen)} FinChain templates"
    rows = [(t.id, t.level, len(t.generate(0).steps), t.summary, "; ".join(t.concepts)) for t in chosen]
    combines = any(r[4] for r in rows)
    if console.width >= max(len(r[0]) for r in rows) + LIST_ASKS_WIDTH:
        table = Table(title=title)
        table.add_column("template id", no_wrap=True)  # an id is copied into `finchain show`: never cut it
        for col in ("level", "steps", "asks") + (("combines",) if combines else ()):
            table.add_column(col)
        for tid, lvl, steps, summary, concepts in rows:
            table.add_row(tid, lvl, str(steps), escape(summary), *((escape(concepts),) if combines else ()))
        console.print(table)
        return
    console.print(f"[bold]{title}[/]")  # narrow terminal: the whole id on one line, what it asks below it
    for tid, lvl, steps, summary, concepts in rows:
        console.print(tid, highlight=False, markup=False, no_wrap=True, overflow="ignore", crop=False)
        console.print(Padding(f"{lvl}, {steps} steps: {escape(summary)}", (0, 0, 0, 4)), highlight=False)
        if concepts:
            console.print(Padding(f"combines: {escape(concepts)}", (0, 0, 0, 4)), highlight=False)


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
    authors: Optional[Path] = typer.Option(None, "--authors", help="Convert the FinChain authors' test set "
                                           "(their repository's data/testset) instead of generating."),
) -> None:
    """Generate problems (canonical seeds 0-9 by default) to JSONL, Parquet or a datasets folder."""
    if fmt not in ("jsonl", "parquet", "hf"):
        raise ValueError(f"--format must be jsonl, parquet or hf, got {fmt!r}")
    if authors is not None:
        from finchain_tasks.reproduce.authors import authors_problems

        rows, chosen = authors_problems(authors), []
    else:
        chosen = _select(domain, topic, level, template)
        seed_values = seed_list(seeds, start_seed, fresh, len(chosen))
        check_size(len(chosen), len(seed_values))
        rows = [p.to_dict() for p in iter_problems(chosen, seed_values)]
    if fmt == "jsonl":
        write_jsonl(rows, output)
    elif fmt == "parquet":
        from finchain_tasks.plumbing.output import output_file

        with output_file(output, "wb") as fh:
            to_hf_dataset(rows).to_parquet(fh)
    else:
        to_hf_dataset(rows).save_to_disk(str(output))
    levels = Counter(r["level"] for r in rows)
    source = f"{len(chosen)} templates" if chosen else "the authors' test set"
    console.print(f"wrote {len(rows)} problems from {source} to {output} "
                  f"({', '.join(f'{k}: {v}' for k, v in sorted(levels.items()))})")


@app.command()
@friendly
def verify(
    domain: Optional[list[str]] = DomainOpt, topic: Optional[list[str]] = TopicOpt,
    level: Optional[list[str]] = LevelOpt, template: Optional[list[str]] = TemplateOpt,
    seeds: int = typer.Option(1_000, "--seeds", "-n", help="Seeds per template; the variety rule draws "
                              "max(N, 1,000) seeds."),
    report: bool = typer.Option(False, "--report", help="Also print per template the figures behind "
                                "each rule (how close it sits to a limit)."),
    file: Optional[Path] = typer.Option(None, "--file", help="Verify the problems in a JSONL file instead "
                                        "(per-problem rules; nothing from the file is executed)."),
    every: bool = typer.Option(False, "--all", help="Print every failure line, not the first of each "
                               "(template, rule) with a count of the rest."),
) -> None:
    """Check every template against the template standard (TEMPLATES.md section 6) over many seeds."""
    if file is not None:
        _verify_file(file, every)
        return
    if seeds < 1:
        raise ValueError(f"--seeds must be at least 1, got {seeds}")
    chosen = _select(domain, topic, level, template)
    draws = max(seeds, VARIETY_DRAWS)
    surveys = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"verifying {len(chosen)} templates", total=len(chosen) * draws)
        for tpl in chosen:
            surveys.append(survey(tpl, seeds, lambda n: progress.advance(task, n)))
    failures = [line for figures in surveys for line in figures.failures]
    failures += same_question_failures(surveys)
    failures += depth_failures(chosen)
    failures += check_fresh_process(chosen)
    if report:
        console.print(_report_table(surveys))
        console.print(REPORT_LEGEND.format(balance=BALANCE_LIMIT, variety=VARIETY_MIN, sens=SENSITIVITY_LIMIT,
                                           vacuous=VACUOUS_LIMIT), highlight=False)
    _print_failures(failures, every)
    failing = len({line.split(",", 1)[0] for line in failures})
    if failures:
        console.print(f"[bold red]{len(failures)} failures[/] in {failing} of {len(chosen)} templates "
                      f"({seeds} seeds each, variety over {draws})")
        raise typer.Exit(code=1)
    console.print(f"[bold green]all {len(chosen)} templates meet every rule[/] ({seeds} seeds each, "
                  f"variety over {draws})")


def _verify_file(file: Path, every: bool = False) -> None:
    """Per-problem rules on stored records: formulas are walked, never executed."""
    problems = list(read_problems(file))
    rows = [row for _, row in jsonl_records(file)]  # read_problems has checked every line
    failures, failing = [], 0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("verifying", total=len(problems))
        for problem, row in zip(problems, rows):
            found = verify_problem(problem).failures
            found += [failure(problem, "text", f) for f in check_stored_text(problem, row)]
            failures += found
            failing += bool(found)
            progress.advance(task)
    _print_failures(failures, every)
    if failures:
        console.print(f"[bold red]{len(failures)} failures[/] in {failing} of {len(problems)} problems")
        raise typer.Exit(code=1)
    console.print(f"[bold green]all {len(problems)} problems verified[/]")


def _print_failures(failures: list[str], every: bool = False, groups: int = 200) -> None:
    """The first failure of each (template, rule), then how many more of the same kind there were."""
    if every:
        for line in failures:
            console.print(f"[red]FAIL[/] {escape(line)}", highlight=False, soft_wrap=True)
        return
    by_kind: dict[tuple[str, str], list[str]] = {}
    for line in failures:
        template_id, _, rest = line.partition(", seed ")
        rule = rest.partition(", rule ")[2].partition(":")[0]
        by_kind.setdefault((template_id, rule), []).append(line)
    for k, ((template_id, rule), lines) in enumerate(by_kind.items()):
        if k == groups:
            console.print(f"... and {len(by_kind) - groups} more (template, rule) pairs failing")
            break
        console.print(f"[red]FAIL[/] {escape(lines[0])}", highlight=False, soft_wrap=True)
        if len(lines) > 1:
            console.print(f"     ... and {len(lines) - 1} more seeds failing rule {rule} in {template_id}",
                          highlight=False, soft_wrap=True)


REPORT_LEGEND = (
    "lv: Easy/Intermediate/Advanced. top: share of the commonest categorical answer (limit {balance:.0%}). "
    "dist: distinct problems, names and wording aside (min {variety:.0%}). floor: declared |answer| floor ('-': none). "
    "sens: largest % change of the answer per 1% change of an input (limit {sens:g} without a floor). "
    "redo: share of draws b.require rejected. "
    "fail: failure lines. vacuous %: per step, the share of draws in which it repeats an input or the previous step "
    "(limit {vacuous:.0%})."
)


def _report_table(surveys: list[Figures]) -> Table:
    """One row per template, 80 columns wide: the figure behind each rule (limits in the caption)."""
    table = Table(title="Template standard: figures per template", box=box.SIMPLE_HEAD, padding=(0, 1),
                  pad_edge=False, collapse_padding=True, title_justify="left")
    table.add_column("template", min_width=14, ratio=3, overflow="fold")
    table.add_column("lv", no_wrap=True)
    for name in ("top", "dist", "min|ans|", "floor", "sens", "redo", "fail"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("vacuous %", min_width=10, ratio=2, overflow="fold")
    for f in surveys:
        top = f"{next(iter(f.options.values())):.0%}" if f.options else "-"
        smallest = "-" if f.min_answer is None else f"{f.min_answer:.3g}"
        floor = f"{f.floor:g}" if f.floor else "-"
        sens = "-" if f.sensitivity is None else f"{f.sensitivity:.0f}"
        vacuous = " ".join(f"{v * 100:.0f}" for v in f.vacuous)
        table.add_row(f.template_id.rsplit("/", 1)[-1], f.level[0].upper(), top, f"{f.distinct:.1%}", smallest,
                      floor, sens, f"{f.redraw_rate:.0%}", str(len(f.failures)), vacuous)
    return table
