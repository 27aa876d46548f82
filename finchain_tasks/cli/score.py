"""``finchain score``: ChainEval over a JSONL file of predictions, with a summary table."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

import finchain_tasks
from finchain_tasks.cli.main import app, console, friendly
from finchain_tasks.generate import write_jsonl

SUMMARY_KEYS = ("chaineval", "fac", "step_f1", "parse_ok")


def _load_rows(path: Path) -> list[tuple[int, Any]]:
    if not path.exists():
        raise OSError(f"{path}: no such file")
    rows = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                try:
                    rows.append((lineno, json.loads(line)))
                except json.JSONDecodeError as exc:
                    rows.append((lineno, RuntimeError(f"not JSON ({exc.msg})")))
    return rows


def _gold_and_output(row: Any):
    """(gold, output) for a row, regenerating gold from a FinChain id when the row has none."""
    from scorers.rows import RowError, gold_of, output_of

    if isinstance(row, Exception):
        raise RowError(str(row))
    if not isinstance(row, dict):
        raise RowError("a row must be a JSON object")
    output = output_of(row)
    if "steps" not in row and "solution" not in row and str(row.get("id", "")).startswith("finchain/"):
        from finchain_tasks.engine import get

        parts = row["id"].split("/")
        if len(parts) != 5 or not parts[4].isdigit():
            raise RowError(f"id {row['id']!r} is not finchain/<domain>/<topic>/<template>/<seed>")
        problem = get("/".join(parts[1:4])).generate(int(parts[4]))
        return problem.gold(), output, problem.metadata()
    return gold_of(row), output, row


@app.command()
@friendly
def score(
    predictions: Path = typer.Argument(..., help="JSONL rows: gold (steps, solution or a FinChain id) + output."),
    output: Path = typer.Option(Path("scores.jsonl"), "--output", "-o", help="Where per-row scores go."),
    profile: str = typer.Option("paper", "--profile", "-p", help="ChainEval profile: paper or reference."),
    param: Optional[list[str]] = typer.Option(None, "--param", help="Override a parameter: name=value."),
) -> None:
    """Score model outputs with ChainEval; bad rows are reported and kept, never dropped."""
    from scorers.chaineval import score_batch
    from scorers.embeddings import shared_embedder
    from scorers.params import resolve
    from scorers.rows import RowError

    params = resolve(profile, **_overrides(param or []))
    rows, good, out_rows = _load_rows(predictions), [], []
    for lineno, row in rows:
        try:
            good.append((len(out_rows), *_gold_and_output(row)))
            out_rows.append(None)
        except (RowError, ValueError) as exc:
            out_rows.append({"line": lineno, "id": _id(row), "error": str(exc)})
    embedder = shared_embedder(params.embedding_model)
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("scoring", total=len(good))
        results = score_batch([g[1] for g in good], [g[2] for g in good], params, embedder,
                              progress=lambda k: bar.advance(task, k))
    meta = {"profile": params.profile, "params": params.to_dict(), **embedder.info,
            "finchain_tasks_version": finchain_tasks.__version__}
    for (slot, _, _, row), result in zip(good, results):
        out_rows[slot] = {"id": row.get("id"), "domain": row.get("domain"), "level": row.get("level"),
                          **result.scores(), "alignment": result.alignment, "chaineval_meta": meta}
    write_jsonl(out_rows, output)
    _summary([r for r in out_rows if "error" not in r])
    errors = [r for r in out_rows if "error" in r]
    for r in errors[:20]:
        console.print(f"[red]line {r['line']}[/]: {escape(r['error'])}", highlight=False)
    console.print(f"wrote {len(out_rows)} rows to {output} ({len(errors)} could not be scored)")
    if errors:
        raise typer.Exit(code=1)


def _id(row: Any) -> Any:
    return row.get("id") if isinstance(row, dict) else None


def _overrides(pairs: list[str]) -> dict[str, Any]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--param takes name=value, got {pair!r}")
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def _summary(rows: list[dict]) -> None:
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[("all", "")].append(r)
        if r.get("domain"):
            groups[("domain", r["domain"])].append(r)
        if r.get("level"):
            groups[("level", r["level"])].append(r)
    table = Table(title="ChainEval summary")
    for col in ("group", "n", *SUMMARY_KEYS):
        table.add_column(col, justify="right" if col != "group" else "left")
    for (kind, name), members in sorted(groups.items(), key=lambda kv: (kv[0][0] != "all", kv[0])):
        means = [sum(m[k] for m in members) / len(members) for k in SUMMARY_KEYS]
        table.add_row(name or kind, str(len(members)), *(f"{v:.3f}" for v in means))
    console.print(table)
