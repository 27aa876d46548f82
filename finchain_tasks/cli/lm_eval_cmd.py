"""``finchain paths lm-eval`` and ``finchain lm-eval install | uninstall``: lm-eval glue for scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from finchain_tasks.cli.main import app, console, friendly


def _group(name: str, help_text: str) -> typer.Typer:
    """The sub-command group ``name``, shared with other modules that register under it."""
    for info in app.registered_groups:
        if info.name == name and info.typer_instance is not None:
            return info.typer_instance
    group = typer.Typer(help=help_text, no_args_is_help=True)
    app.add_typer(group, name=name)
    return group


paths_app = _group("paths", "Print where installed pieces live (for scripts and --include_path).")
lm_eval_app = _group("lm-eval", "lm-evaluation-harness: make `lm_eval --tasks finchain` work without flags.")

TargetOpt = typer.Option(None, "--target", hidden=True, help="Another tasks folder (tests).")


@paths_app.command("lm-eval")
def paths_lm_eval() -> None:
    """The lm-eval task folder: lm_eval --include_path "$(finchain paths lm-eval)" --tasks finchain."""
    from finchain_tasks.lm_eval import TASKS_DIR

    typer.echo(TASKS_DIR)


@lm_eval_app.command("install")
@friendly
def install(target: Optional[Path] = TargetOpt) -> None:
    """Write small stub YAML files into lm-eval's tasks folder, so plain `lm_eval --tasks finchain` works."""
    from finchain_tasks.lm_eval.cli import install as do_install

    root, written = do_install(target)
    console.print(f"wrote {len(written)} stub file(s) and a manifest to {escape(str(root))}", highlight=False)
    for path in written:
        console.print(f"  {escape(str(path.relative_to(root)))}", highlight=False)
    console.print("undo with `finchain lm-eval uninstall`", highlight=False)


@lm_eval_app.command("uninstall")
@friendly
def uninstall(target: Optional[Path] = TargetOpt) -> None:
    """Remove exactly what `finchain lm-eval install` wrote."""
    from finchain_tasks.lm_eval.cli import uninstall as do_uninstall

    root, removed = do_uninstall(target)
    if not removed:
        console.print(f"nothing to remove: no FinChain install in {escape(str(root))}", highlight=False)
        return
    left = " (folder kept: it holds files that install did not write)" if root.exists() else ""
    console.print(f"removed {len(removed)} file(s) and the manifest from {escape(str(root))}{left}", highlight=False)


def inspect_task_names() -> list[str]:
    """Our Inspect tasks, read (never executed) from the entry point's imports: the ``@task`` functions of the
    modules ``finchain_tasks._registry`` imports. Works without Inspect installed, and is the list Inspect
    registers, because it is read from the file Inspect loads."""
    import ast
    import importlib.util

    def tree(module: str) -> ast.Module:
        spec = importlib.util.find_spec(module)
        return ast.parse(Path(str(spec.origin if spec else "")).read_text(encoding="utf-8"))

    def is_task(fn: ast.FunctionDef) -> bool:
        return any(isinstance(d, ast.Name) and d.id == "task" or isinstance(d, ast.Call)
                   and isinstance(d.func, ast.Name) and d.func.id == "task" for d in fn.decorator_list)

    imported = [(n.module, {a.name for a in n.names}) for n in tree("finchain_tasks._registry").body
                if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("finchain_tasks.")]
    return sorted(fn.name for module, names in imported for fn in tree(module).body
                  if isinstance(fn, ast.FunctionDef) and fn.name in names and is_task(fn))


def lm_eval_task_names() -> tuple[list[str], list[str]]:
    """(groups, tasks) of our lm-eval YAML folder, from each file's top-level ``group:`` / ``task:`` line."""
    import re

    from finchain_tasks.lm_eval import TASKS_DIR

    found: dict[str, set[str]] = {"group": set(), "task": set()}
    for path in sorted(Path(TASKS_DIR).rglob("*.yaml")):
        for kind, name in re.findall(r"^(group|task):[ \t]*([A-Za-z0-9_.-]+)[ \t]*$", path.read_text("utf-8"), re.M):
            found[kind].add(name)
    return sorted(found["group"]), sorted(found["task"])


@app.command("tasks")
def tasks() -> None:
    """Task names in both hosts: what `inspect eval` and `finchain-lm-eval --tasks` accept."""
    console.print("[bold]Inspect[/]  inspect eval NAME", highlight=False)
    for name in inspect_task_names():
        console.print(f"  finchain_tasks/{name}  (short: {name})", highlight=False)
    groups, leaves = lm_eval_task_names()
    console.print("[bold]lm-eval[/]  finchain-lm-eval --tasks NAME", highlight=False)
    console.print('         (or lm_eval --include_path "$(finchain paths lm-eval)" --tasks NAME)', highlight=False)
    for kind, names in (("group", groups), ("task", leaves)):
        for name in names:
            console.print(f"  {name}  ({kind})", highlight=False)
