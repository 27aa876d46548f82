"""A mutation pass for the rules mutmut does not reach: rules written as literals.

Why: mutmut rewrites operators, numbers and strings wholesale (``"a|b"`` becomes ``"XXa|bXX"``), so a
test that checks a regex matched *something* kills it, while the rule a user sees (which alternatives
the regex admits, which synonyms a set holds, that a name is escaped, where a threshold sits) stays
unpinned. This pass makes the one-literal changes a careless edit would make:

- ``regex-alt``: one alternative of an alternation deleted (in a pattern passed to ``re.compile`` or
  another ``re`` function, or a module constant passed there);
- ``regex-class``: one item (a character, an escape or a range) of a character class deleted;
- ``drop-item``: one item dropped from a literal set, tuple or dict of constants (synonyms, separators);
- ``no-escape``: an ``escape``/``quote`` call (``html.escape``, ``markupsafe.escape``, ``quote``...)
  replaced by its argument;
- ``shift``: a numeric threshold (an UPPER_CASE module constant or a number compared with) moved one
  step up and one step down (1 for integers, one unit of the last written decimal for decimals, a factor
  of 10 for numbers written with an exponent);
- ``flip``: ``>=``/``>`` and ``<=``/``<`` swapped at each comparison with a constant.

Each mutant is one edit of the module's text (the rest of the file stays byte for byte), and a mutant
that does not compile (or a regex that no longer does) is not made. ``run_module`` runs a group's fast
tests against each mutant in a copy of the checkout, writing the mutant in place there and restoring
the original in a ``finally`` block; nothing is ever written in the checkout itself. A line holding
``pragma: no mutate`` is left alone, as mutmut does.

Usage: ``python tests/mutation/literals.py FILE [FILE ...] --tests TEST [TEST ...]`` (``make mutate``
runs it for every group, beside mutmut).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

RE_FUNCS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
"""The ``re`` functions whose first argument is a pattern."""
ESCAPE_FUNCS = {"escape", "quote", "quote_plus", "quoteattr", "escape_latex", "latex_escape", "tex"}
"""Calls whose removal lets text through unescaped (``tex``: the leaderboard's LaTeX escaper, publish.py); a
name bound to one of them (``e = html.escape``) counts too, and so do the calls inside an f-string."""
FLIPS = {ast.GtE: (">=", ">"), ast.Gt: (">", ">="), ast.LtE: ("<=", "<"), ast.Lt: ("<", "<=")}
SKIP_NAMES = {"__all__", "__slots__"}
"""Module-level collections that are not rules."""


@dataclass(frozen=True)
class Mutant:
    """One edit of a module: the bytes ``[start, end)`` of its UTF-8 text replaced by ``new``."""

    operator: str
    line: int
    description: str
    start: int
    end: int
    new: str

    def apply(self, source: str) -> str:
        raw = source.encode("utf-8")
        return (raw[: self.start] + self.new.encode("utf-8") + raw[self.end:]).decode("utf-8")

    def label(self) -> str:
        return f"line {self.line}: {self.operator}: {self.description}"


# ----------------------------------------------------------------------------------------------- regexes

def _class_end(pattern: str, i: int) -> int:
    """Index just past the character class that opens at ``pattern[i] == '['``."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


_CODE_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|N\{[^}]*\})")
"""An escape that names one character by its code (``\\u4e00``): one item, not a backslash and some digits."""


def _char_len(pattern: str, j: int) -> int:
    """The length of the one character written at ``j``: a code escape, another escape, or a plain character."""
    if pattern[j] != "\\":
        return 1
    code = _CODE_ESCAPE.match(pattern, j)
    return len(code.group()) if code else 2


def _class_items(pattern: str, i: int, end: int) -> list[tuple[int, int]]:
    """The spans of a class's items (a character, an escape, a range ``a-z``) between ``[`` and ``]``."""
    j = i + 1
    if pattern[j] == "^":
        j += 1
    items: list[tuple[int, int]] = []
    while j < end - 1:
        start = j
        j += _char_len(pattern, j)
        if j < end - 2 and pattern[j] == "-":  # a range: the item runs to the end of its upper bound
            j += 1
            j += _char_len(pattern, j)
        items.append((start, j))
    return items


def _regex_parts(pattern: str) -> tuple[list[tuple[int, list[int], int]], list[tuple[int, int]]]:
    """The alternation levels of a pattern, as ``(start, bar positions, end)`` (a group's body, or the whole
    pattern with ``start`` -1), and the spans of its character classes."""
    stack: list[list[int]] = [[-1]]  # per open group: its start, then the positions of its bars
    groups: list[tuple[int, list[int], int]] = []
    classes: list[tuple[int, int]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = _class_end(pattern, i)
            classes.append((i, end))
            i = end
            continue
        if c == "(":
            j = i + 1
            if pattern.startswith("?", j):  # (?:  (?P<n>  (?=  (?<=  (?i) ...: the body starts after the head
                m = _GROUP_HEAD.match(pattern, j)
                j = m.end() if m else j + 1
            stack.append([j - 1])
            i = j
            continue
        if c == "|":
            stack[-1].append(i)
        elif c == ")" and len(stack) > 1:
            bars = stack.pop()
            groups.append((bars[0], bars[1:], i))
        i += 1
    groups.append((stack[0][0], stack[0][1:], len(pattern)))
    return sorted(groups), classes


_GROUP_HEAD = re.compile(r"\?(?:P<\w+>|<[=!]|[:=!>]|[aiLmsux-]+:|[aiLmsux]+\))")


def regex_edits(pattern: str) -> list[tuple[str, str]]:
    """``(operator, mutated pattern)`` for each alternative and each class item deleted, in order."""
    out: list[tuple[str, str]] = []
    groups, classes = _regex_parts(pattern)
    for start, bars, end in groups:
        edges = [start, *bars, end]
        for k in range(len(edges) - 1 if bars else 0):
            lo, hi = edges[k] + 1, edges[k + 1]
            # the alternative and the bar after it (or, for the last one, the bar before it)
            cut = (lo, hi + 1) if k < len(edges) - 2 else (lo - 1, hi)
            out.append(("regex-alt", pattern[: cut[0]] + pattern[cut[1]:]))
    for start, end in classes:
        items = _class_items(pattern, start, end)
        for lo, hi in items if len(items) > 1 else ():
            out.append(("regex-class", pattern[:lo] + pattern[hi:]))
    return out


# ----------------------------------------------------------------------------------------------- the walk

class _Finder:
    """Walks one module's tree and collects its mutants."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.raw = source.encode("utf-8")
        self.line_starts = [0]
        for line in self.raw.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.lines = source.splitlines()
        self.tree = ast.parse(source)
        self.mutants: list[Mutant] = []
        self.constants = self._module_constants()
        self.escapers = ESCAPE_FUNCS | self._escape_aliases()

    # positions
    def start(self, node: ast.AST) -> int:
        return self.line_starts[node.lineno - 1] + node.col_offset

    def end(self, node: ast.AST) -> int:
        return self.line_starts[node.end_lineno - 1] + node.end_col_offset

    def text(self, node: ast.AST) -> str:
        return self.raw[self.start(node): self.end(node)].decode("utf-8")

    def skipped(self, node: ast.AST) -> bool:
        return "pragma: no mutate" in self.lines[node.lineno - 1]

    def add(self, operator: str, node: ast.AST, description: str, start: int, end: int, new: str) -> None:
        if self.skipped(node):
            return
        mutant = Mutant(operator, node.lineno, description, start, end, new)
        try:
            compile(mutant.apply(self.source), "<mutant>", "exec")
        except SyntaxError:
            return
        self.mutants.append(mutant)

    def _module_constants(self) -> dict[str, ast.Constant]:
        """Module-level ``NAME = <str>`` assignments (a pattern may be named once and compiled elsewhere)."""
        out: dict[str, ast.Constant] = {}
        for stmt in self.tree.body:
            target = value = None
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                out[target.id] = value
        return out

    def _escape_aliases(self) -> set[str]:
        """Names bound to an escape function anywhere in the module (``e = html.escape``)."""
        out: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                name = value.attr if isinstance(value, ast.Attribute) else value.id \
                    if isinstance(value, ast.Name) else None
                if name in ESCAPE_FUNCS:
                    out.add(node.targets[0].id)
        return out

    def placed(self, node: ast.AST) -> bool:
        """Whether ``node``'s recorded position spans its own text (inside an f-string, Python before 3.12 can
        place a node wrongly: such a node is left alone rather than edited at the wrong place)."""
        try:
            parsed = ast.parse(self.text(node).strip(), mode="eval").body
        except (SyntaxError, UnicodeDecodeError, ValueError):
            return False
        return ast.dump(parsed) == ast.dump(node)

    # operators
    def regex(self, node: ast.Constant) -> None:
        pattern = node.value
        seen = {pattern}
        for operator, new in regex_edits(pattern):
            if new in seen:
                continue
            seen.add(new)
            try:
                re.compile(new)
            except re.error:
                continue
            self.add(operator, node, f"{pattern!r} -> {new!r}", self.start(node), self.end(node), repr(new))

    @staticmethod
    def _record(node: ast.AST) -> bool:
        """A constant, or a literal tuple of constants (a row such as ``("billion", 1e9)``)."""
        if isinstance(node, ast.Tuple):
            return all(isinstance(e, ast.Constant) for e in node.elts)
        return isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value is not None

    def synonyms(self, node: ast.AST) -> list[ast.AST] | None:
        """The items of a literal set, tuple or dict of synonyms (constants or rows of constants, at least
        one a string: a tuple of numbers only is a shape or a range, not a rule), else None."""
        if not isinstance(node, (ast.Set, ast.Tuple, ast.Dict)):
            return None
        items = node.keys if isinstance(node, ast.Dict) else node.elts
        if len(items) < 2 or not all(self._record(k) for k in items):
            return None
        flat = [e for k in items for e in (k.elts if isinstance(k, ast.Tuple) else [k])]
        return items if any(isinstance(e.value, str) for e in flat) else None

    def collection(self, node: ast.Set | ast.Tuple | ast.Dict) -> None:
        items = self.synonyms(node)
        if items is None:
            return
        ends = node.values if isinstance(node, ast.Dict) else node.elts
        for k, item in enumerate(items):
            shown = self.text(item)
            if isinstance(node, ast.Tuple) and len(items) == 2:  # keep a one-item tuple a tuple
                rest = self.text(items[1 - k])
                self.add("drop-item", item, f"drop {shown}", self.start(node), self.end(node), f"({rest},)")
                continue
            if k < len(items) - 1:
                lo, hi = self.start(item), self.start(items[k + 1])
            else:
                lo, hi = self.end(ends[k - 1]), self.end(ends[k])
            self.add("drop-item", item, f"drop {shown}", lo, hi, "")

    def escape(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in self.escapers and node.args and not isinstance(node.args[0], ast.Starred):
            arg = self.text(node.args[0])
            self.add("no-escape", node, f"{self.text(func)}({arg}) -> {arg}", self.start(node), self.end(node),
                     f"({arg})")

    def shift(self, node: ast.Constant) -> None:
        value = node.value
        written = self.text(node)
        if isinstance(value, int):
            steps = [repr(value + 1), repr(value - 1)]
        elif "e" in written.lower() or "." not in written:
            steps = [repr(value * 10), repr(value / 10)]
        else:
            decimals = len(written.split(".")[1].rstrip("jJ"))
            unit = 10.0 ** -max(decimals, 1)
            steps = [f"{value + unit:.{max(decimals, 1)}f}", f"{value - unit:.{max(decimals, 1)}f}"]
        for new in steps:
            if new.startswith("-"):
                new = f"({new})"
            self.add("shift", node, f"{written} -> {new}", self.start(node), self.end(node), new)

    def flip(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for k, op in enumerate(node.ops):
            if type(op) not in FLIPS or not (self._constant(operands[k]) or self._constant(operands[k + 1])):
                continue
            lo, hi = self.end(operands[k]), self.start(operands[k + 1])
            gap = self.raw[lo:hi].decode("utf-8")
            old, new = FLIPS[type(op)]
            at = gap.find(old)
            if at < 0:
                continue
            pos = lo + len(gap[:at].encode("utf-8"))
            self.add("flip", node, f"{old} -> {new}", pos, pos + len(old), new)

    @staticmethod
    def _constant(node: ast.AST) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return isinstance(node, ast.Name) and node.id.isupper()

    @staticmethod
    def _number(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool)

    def _patterns(self) -> set[int]:
        """The string constants used as patterns: a ``re`` function's first argument, or the module
        constant named there."""
        out: set[int] = set()
        for node in ast.walk(self.tree):
            func = getattr(node, "func", None)
            if not (isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and node.args
                    and isinstance(func.value, ast.Name) and func.value.id in ("re", "regex")
                    and func.attr in RE_FUNCS):
                continue
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in self.constants:
                first = self.constants[first.id]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.add(id(first))
        return out

    def _thresholds(self) -> set[int]:
        """The numbers that are thresholds: UPPER_CASE module constants, and numbers compared with."""
        out: set[int] = set()
        for stmt in self.tree.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
                if isinstance(stmt, ast.AnnAssign) else []
            if targets and all(isinstance(t, ast.Name) and t.id.isupper() for t in targets) \
                    and self._number(stmt.value):
                out.add(id(stmt.value))
        for node in ast.walk(self.tree):
            for operand in (node.left, *node.comparators) if isinstance(node, ast.Compare) else ():
                if isinstance(operand, ast.UnaryOp) and self._number(operand.operand):
                    operand = operand.operand
                if self._number(operand):
                    out.add(id(operand))
        return out

    def _left_alone(self) -> set[int]:
        """Nodes no operator touches: ``__all__``-like lists, the rows of a synonym table (the table's
        items are dropped whole), and everything inside an f-string (whose inner positions are unreliable; its
        escape calls are reached by :meth:`run` alone, each one's position checked)."""
        out = {id(stmt.value) for stmt in self.tree.body if isinstance(stmt, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id in SKIP_NAMES for t in stmt.targets)}
        for node in ast.walk(self.tree):
            out |= {id(row) for row in self.synonyms(node) or ()}
            if isinstance(node, ast.JoinedStr):
                out |= {id(sub) for sub in ast.walk(node)}
        return out

    def run(self) -> list[Mutant]:
        patterns, thresholds, left_alone = self._patterns(), self._thresholds(), self._left_alone()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.JoinedStr) and not self.skipped(node):
                # an escape call inside an f-string (``f"<h1>{html.escape(title)}</h1>"``) is the rule of an
                # HTML writer: edited when its position is sure, nothing else inside the f-string is
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and self.placed(call) and self.placed(call.args[0] if call.args
                                                                                        else call):
                        self.escape(call)
            if id(node) in left_alone:
                continue
            if id(node) in patterns:
                self.regex(node)
            if id(node) in thresholds:
                self.shift(node)
            if isinstance(node, (ast.Set, ast.Tuple, ast.Dict)):
                self.collection(node)
            if isinstance(node, ast.Call):
                self.escape(node)
            if isinstance(node, ast.Compare):
                self.flip(node)
        self.mutants.sort(key=lambda m: m.start)  # stable: each node's mutants in the order made
        return self.mutants


def mutants_of(source: str) -> list[Mutant]:
    """Every literal mutant of a module's source, in the order of the text; distinct mutated texts only."""
    seen: set[str] = set()
    out = []
    for mutant in _Finder(source).run():
        text = mutant.apply(source)
        if text != source and text not in seen:
            seen.add(text)
            out.append(mutant)
    return out


# ----------------------------------------------------------------------------------------------- the run

def _purge(root: Path) -> None:
    """Forget every module loaded from the copy, so the next import reads the mutated file."""
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and Path(path).resolve().is_relative_to(root):
            del sys.modules[name]


def _child(root: Path, args: list[str], imported: Path | None = None) -> int:
    import pytest

    sys.dont_write_bytecode = True
    _purge(root)
    with open(os.devnull, "w") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        code = int(pytest.main(args))
    if imported is not None:
        imported.write_text("\n".join(sorted(_outside(root))), "utf-8")
    return code


def _outside(root: Path) -> set[str]:
    """The modules loaded now from outside the copy (a module without a file counts as outside)."""
    out = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path or not Path(path).resolve().is_relative_to(root):
            out.add(name)
    return out


def _import_what_the_tests_import(root: Path, listed: Path) -> None:
    """Import here, before the next fork, what the baseline run imported from outside the project (scipy.stats
    that a function imports when first called, a provider registry...): collecting the tests loads only what the
    test modules import at their top, and each child would otherwise import the rest again, seconds per mutant.
    Nothing of the project is imported here (each child imports it afresh); a module that fails is skipped."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in listed.read_text("utf-8").split():
            if name in sys.modules or name.startswith(("tests", "__")):
                continue
            try:
                importlib.import_module(name)
            except BaseException:  # noqa: BLE001 - a module that cannot be loaded alone is left to the child
                continue
    _purge(root)  # in case one of them imported the project


def _run_forked(root: Path, args: list[str], timeout: float,
                imported: Path | None = None) -> tuple[int | None, float]:
    """Exit code of the tests in a forked child (None: it ran past ``timeout``), and the time it took. With
    ``imported``, the child lists there the modules from outside the copy that were loaded when it finished."""
    began = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        code = 1
        try:
            code = _child(root, args, imported)
        finally:
            os._exit(code)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), time.monotonic() - began
            if time.monotonic() - began > timeout:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None, time.monotonic() - began
            time.sleep(0.05)
    except BaseException:  # stopped (SIGTERM, Ctrl-C): the child goes too, not left running on its own
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise


def _preload(args: list[str]) -> None:
    """Collect the tests once in this process, output discarded: what they import from outside the project
    (torch, transformers, Inspect...) is then loaded before the fork, and each child imports only the project
    again (``_purge``), as mutmut does; seconds per mutant instead of tens on a loaded machine."""
    import pytest

    saved = os.dup(1), os.dup(2)
    try:
        with open(os.devnull, "w") as sink:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            pytest.main([*args, "--collect-only"])
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)


def _drop_bytecode(path: Path) -> None:
    """A mutant of the same size written in the same second would otherwise load the stale ``.pyc``."""
    for pyc in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        pyc.unlink(missing_ok=True)


@dataclass
class ModuleResult:
    module: str
    killed: int
    total: int
    survivors: list[Mutant]
    seconds: float

    def line(self) -> str:
        rate = 100.0 * self.killed / self.total if self.total else 0.0
        return f"{self.module}: {self.killed}/{self.total} literal mutants killed ({rate:.1f}%), {self.seconds:.0f} s"


def run_module(root: Path, rel: str, tests: list[str], pytest_args: list[str],
               log=lambda line: print(line, file=sys.stderr, flush=True)) -> ModuleResult:
    """Run ``tests`` (from the copy ``root``) against each literal mutant of ``root/rel``; the copy's file is
    restored in a ``finally`` block whatever happens."""
    import pytest  # noqa: F401  (imported once in the parent, so each child only imports the project)

    path = root / rel
    original = path.read_text("utf-8")
    mutants = mutants_of(original)
    args = [*pytest_args, "-x", *tests]
    os.chdir(root)
    sys.path.insert(0, str(root))
    began = time.monotonic()
    _preload(args)
    listed = root / ".literals-imported.txt"
    baseline, spent = _run_forked(root, args, timeout=3600, imported=listed)
    if baseline != 0:
        raise SystemExit(f"{rel}: the tests fail without a mutant (exit {baseline}); fix them first")
    if listed.is_file():
        _import_what_the_tests_import(root, listed)
        listed.unlink()
    timeout = 3 * spent + 30
    killed, survivors = 0, []
    # a SIGTERM (``kill``, a CI cancel) must still run the ``finally`` below, which restores the file
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for n, mutant in enumerate(mutants, 1):
            path.write_text(mutant.apply(original), "utf-8")
            _drop_bytecode(path)
            code, _ = _run_forked(root, args, timeout)
            dead = code != 0  # a failure, an error, or a hang (None)
            killed += dead
            if not dead:
                survivors.append(mutant)
            state = "SURVIVED" if not dead else "killed (timed out)" if code is None else "killed"
            log(f"  [{n}/{len(mutants)}] {state} {mutant.label()}")
    finally:
        path.write_text(original, "utf-8")
        _drop_bytecode(path)
    return ModuleResult(rel, killed, len(mutants), survivors, time.monotonic() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="modules to mutate, relative to --root")
    parser.add_argument("--tests", nargs="+", required=True)
    parser.add_argument("--root", type=Path, required=True, help="a copy of the checkout (never the checkout)")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument("--pytest-args", type=json.loads, default=["-q", "-p", "no:cacheprovider", "-m", "not slow"],
                        help="pytest's arguments besides the tests, as a JSON list")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    for rel in args.files:
        if args.list:
            for mutant in mutants_of((root / rel).read_text("utf-8")):
                print(f"{rel} {mutant.label()}")
            continue
        result = run_module(root, rel, args.tests, args.pytest_args)
        print(result.line())
        for mutant in result.survivors:
            print(f"    survived: {mutant.label()}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
