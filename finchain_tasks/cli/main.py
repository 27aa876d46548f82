"""The ``finchain`` command. Subcommands live in sibling modules and register here."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console

import finchain_tasks

app = typer.Typer(
    name="finchain",
    help="Verifiable financial reasoning benchmarks: generate FinChain problems, verify them, score model outputs.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable)


def friendly(fn: F) -> F:
    """Turn expected errors (bad arguments, unreadable files) into one red line and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except (ValueError, OSError, RuntimeError) as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(code=2) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        console.print(f"finchain-tasks {finchain_tasks.__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """FinChain: 12 domains, 58 topics, verifiable step-by-step gold solutions."""


def run() -> None:  # pragma: no cover - console entry
    app(prog_name="finchain")


from finchain_tasks.cli import dataset, lm_eval_cmd, models_cmd, runs_cmd, score  # noqa: E402,F401  (registers subcommands)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
