"""The house's layering, read from the source: every ``import`` in ``finchain_tasks/`` and ``scorers/``, at module
level or inside a function (a lazy import is still an arrow), as a graph of modules.

Rules (docs/layout in finchain_tasks/README.md):
- ``scorers`` imports no host and nothing of ``finchain_tasks``: it is the plain-data core both hosts call;
- the CLI is the top floor: nothing outside ``finchain_tasks/cli/`` imports it;
- no circle of imports between modules, but for the CLI's own command registration (inside ``cli/``).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("finchain_tasks", "scorers")
HOSTS = ("lm_eval", "inspect_ai")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(source: str, here: str, is_package: bool = False) -> set[str]:
    """Every module name an import in ``source`` names: ``from a import b`` names ``a.b`` when that is a module."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, here, is_package)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


@cache
def graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (the most specific module each import names)."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for target in imported(path.read_text(encoding="utf-8"), name, path.name == "__init__.py"):
            if target in known and target != name:
                targets.add(target)
        # `from pkg import mod` names both `pkg` and `pkg.mod`: keep only the submodule
        edges[name] = {t for t in targets if not any(o.startswith(t + ".") for o in targets)}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_scorers_import_no_host_and_nothing_of_finchain_tasks():
    offenders = []
    for name, path in modules().items():
        if not name.startswith("scorers"):
            continue
        for target in imported(path.read_text(encoding="utf-8"), name, path.name == "__init__.py"):
            if target.split(".")[0] in ("finchain_tasks", *HOSTS):
                offenders.append(f"{name} imports {target}")
    assert offenders == []


def test_nothing_below_the_cli_imports_it():
    upward = sorted(f"{name} imports {target}" for name, targets in graph().items() if not name.startswith(
        "finchain_tasks.cli") for target in targets if target.startswith("finchain_tasks.cli"))
    assert upward == []


def test_no_circle_of_imports_outside_the_cli_registration():
    circles = [c for c in cycles(graph()) if not all(m.startswith("finchain_tasks.cli") for m in c)]
    assert circles == []


# ---- the checks themselves catch what they are for (planted graphs and sources)
@pytest.mark.parametrize(("edges", "expected"), [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": set(), "c": {"d"}, "d": {"c"}}, [["c", "d"]]),
])
def test_cycles_finds_every_circle_and_no_other(edges, expected):
    assert cycles(edges) == expected


@pytest.mark.parametrize(("source", "here", "expected"), [
    ("import finchain_tasks.cli.main", "finchain_tasks.x", {"finchain_tasks.cli.main"}),
    ("def f():\n    from finchain_tasks.cli import score\n", "finchain_tasks.x",
     {"finchain_tasks.cli", "finchain_tasks.cli.score"}),
    ("from . import y", "finchain_tasks.runs.x", {"finchain_tasks.runs", "finchain_tasks.runs.y"}),
    ("from .. import z", "finchain_tasks.runs.x", {"finchain_tasks", "finchain_tasks.z"}),
    ("from .y import f", "finchain_tasks.runs", {"finchain_tasks.runs.y", "finchain_tasks.runs.y.f"}),
])
def test_imports_are_read_wherever_they_stand(source, here, expected):
    assert imported(source, here, is_package=here == "finchain_tasks.runs") == expected
