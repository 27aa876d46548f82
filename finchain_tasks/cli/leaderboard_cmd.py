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
AlignOpt = typer.Option(True, "--lm-eval-alignment/--no-lm-eval-alignment", help="Recompute the step alignment "
                        "lm-eval does not log, for the sample viewer (one ChainEval pass per lm-eval sample).")
AuthorsOpt = typer.Option(None, "--authors", help="The FinChain authors' repository, for a board whose reported "
                          "source is per sample (finchain_v1); default $FINCHAIN_AUTHORS_DIR.")
NonEmptyOpt = typer.Option(False, "--allow-nonempty", help="Write into a non-empty folder this command did not "
                           "write (nothing of it is removed; files of the same name are replaced).")


def _claim(out: Path, allow: bool) -> bool:
    """Whether to write into ``out`` though it holds files the project did not write: refused, unless the
    option says so or an interactive user agrees."""
    import sys

    from finchain_tasks.leaderboard.site import SiteFolderError, claim_folder

    try:
        claim_folder(out, allow)
        return allow
    except SiteFolderError:
        if not sys.stdin.isatty():
            raise
        if typer.confirm(f"{out} holds files `finchain leaderboard` did not write. Write the site into it anyway "
                         "(nothing of it is removed; files of the same name are replaced)?", default=False):
            return True
        raise


def _compute(board_name: str, source: Optional[list[Path]], registry: Optional[Path], models: Optional[str],
             realign: bool = True, authors: Optional[Path] = None):
    from finchain_tasks.leaderboard.board import load_board
    from finchain_tasks.leaderboard.build import compute

    board = load_board(board_name)
    names = [m.strip() for m in models.split(",") if m.strip()] if models else None
    return compute(board, sources=source or None, registry_path=str(registry) if registry else None, models=names,
                   realign=realign, authors=authors)


def _summary(built) -> None:
    rows = built.payload["rows"]
    per_sample = sum(len(b["rows"]) for b in built.payload.get("reported_samples") or [])
    console.print(f"{len(rows)} reproduced row(s), {len(built.payload['reported']['rows'])} reported row(s), "
                  + (f"{per_sample} reported per-sample row(s), " if per_sample else "")
                  + f"{len(built.samples)} sample(s)", highlight=False)
    if built.payload["skipped_models"]:
        console.print(f"not on this board: {escape(', '.join(built.payload['skipped_models']))}", highlight=False)
    lm = built.frame[built.frame["harness"] == "lm-eval"] if len(built.frame) else built.frame
    if len(lm) and (lm["task"] == "finchain").any():
        console.print(f"lm-eval: step alignment recomputed for {int(lm['alignment'].notna().sum())} of {len(lm)} "
                      "sample(s) (lm-eval logs none; --no-lm-eval-alignment skips it)", highlight=False)
    skipped = built.payload.get("skipped_files") or []
    if skipped:
        console.print(f"[yellow]skipped {len(skipped)} unreadable file(s); built from the rest:[/yellow]")
        for item in skipped:
            console.print(f"  {escape(item['path'])}: {escape(item['reason'])}", highlight=False, soft_wrap=True)


@leaderboard_app.command("build")
@friendly
def build(board: str = typer.Argument(..., help="A board name (leaderboards/<name>.yaml) or a YAML file."),
          out: Path = typer.Option(Path("site"), "--out", "-o", help="The folder to write the site into."),
          source: Optional[list[Path]] = SourceOpt, registry: Optional[Path] = RegistryOpt,
          models: Optional[str] = ModelsOpt, allow_nonempty: bool = NonEmptyOpt,
          lm_eval_alignment: bool = AlignOpt, authors: Optional[Path] = AuthorsOpt) -> None:
    """Write the board's static site (works from file:// and any static host)."""
    from finchain_tasks.leaderboard.site import size_summary, write_site

    allow = _claim(out, allow_nonempty)  # before the build: a refused folder costs no work
    built = _compute(board, source, registry, models, lm_eval_alignment, authors)
    index = write_site(out, built.board, built.payload, built.samples, allow_foreign=allow)
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
                                             "per-sample `source` column (local file names)."),
            include_restricted: bool = typer.Option(False, "--include-restricted-text", help="Also publish the "
                                                    "question and gold text of tasks whose licence forbids "
                                                    "redistributing it (CFLUE: CC BY-NC-SA 4.0); the release then "
                                                    "carries that licence."),
            allow_nonempty: bool = NonEmptyOpt, lm_eval_alignment: bool = AlignOpt,
            authors: Optional[Path] = AuthorsOpt) -> None:
    """Write the site and a versioned data release (CSV, JSON, Parquet, LaTeX), or upload the release to HF."""
    from finchain_tasks.leaderboard.publish import publish as do_publish

    allow = False if to.startswith("hf:") else _claim(Path(to), allow_nonempty)
    built = _compute(board, source, registry, models, lm_eval_alignment, authors)
    where, withheld = do_publish(built, to, include_raw=include_raw,
                                 sources=tuple(source or built.board.source_paths()),
                                 include_restricted=include_restricted, allow_foreign=allow)
    _summary(built)
    line = withheld.line()
    if line:
        console.print(escape(line), highlight=False)
    console.print(f"release: {escape(where)}", highlight=False)
