"""``finchain leaderboard build <board> -o site/`` and ``finchain leaderboard publish <board> --to DIR|hf:repo``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from finchain_tasks.cli.main import app, console, friendly

leaderboard_app = typer.Typer(help="Leaderboards from run logs: a static site and a data release.",
                              no_args_is_help=True)
app.add_typer(leaderboard_app, name="leaderboard")

SourceOpt = typer.Option(None, "--source", "-s", help="A run directory, Inspect log folder or lm-eval output "
                         "(repeatable); replaces the board's `sources`.")
RegistryOpt = typer.Option(None, "--registry", "-r", help="A registry YAML file (default: the shipped one).")
ModelsOpt = typer.Option(None, "--models", help="Comma-separated registry names, or `all`; replaces the board's "
                         "model selection.")


def _compute(board_name: str, source: Optional[list[Path]], registry: Optional[Path], models: Optional[str]):
    from finchain_tasks.leaderboard.board import load_board
    from finchain_tasks.leaderboard.build import compute

    board = load_board(board_name)
    names = [m.strip() for m in models.split(",") if m.strip()] if models else None
    return compute(board, sources=source or None, registry_path=str(registry) if registry else None, models=names)


def _summary(built) -> None:
    rows = built.payload["rows"]
    console.print(f"{len(rows)} reproduced row(s), {len(built.payload['reported']['rows'])} reported row(s), "
                  f"{len(built.samples)} sample(s)", highlight=False)
    if built.payload["skipped_models"]:
        console.print(f"not on this board: {escape(', '.join(built.payload['skipped_models']))}", highlight=False)


@leaderboard_app.command("build")
@friendly
def build(board: str = typer.Argument(..., help="A board name (leaderboards/<name>.yaml) or a YAML file."),
          out: Path = typer.Option(Path("site"), "--out", "-o", help="The folder to write the site into."),
          source: Optional[list[Path]] = SourceOpt, registry: Optional[Path] = RegistryOpt,
          models: Optional[str] = ModelsOpt) -> None:
    """Write the board's static site (works from file:// and any static host)."""
    from finchain_tasks.leaderboard.site import size_summary, write_site

    built = _compute(board, source, registry, models)
    index = write_site(out, built.board, built.payload, built.samples)
    _summary(built)
    console.print(escape(size_summary(out)), highlight=False)
    console.print(f"site: {escape(str(index))}", highlight=False)


@leaderboard_app.command("publish")
@friendly
def publish(board: str = typer.Argument(..., help="A board name (leaderboards/<name>.yaml) or a YAML file."),
            to: str = typer.Option(..., "--to", help="A folder, or hf:<owner>/<name> for a Hugging Face dataset."),
            source: Optional[list[Path]] = SourceOpt, registry: Optional[Path] = RegistryOpt,
            models: Optional[str] = ModelsOpt,
            include_raw: bool = typer.Option(False, "--include-raw", help="Also copy the raw logs and the "
                                             "per-sample `source` column (local file names).")) -> None:
    """Write the site and a versioned data release (CSV, JSON, Parquet, LaTeX), or upload the release to HF."""
    from finchain_tasks.leaderboard.publish import publish as do_publish

    built = _compute(board, source, registry, models)
    where = do_publish(built, to, include_raw=include_raw, sources=tuple(source or built.board.source_paths()))
    _summary(built)
    console.print(f"release: {escape(where)}", highlight=False)
