"""Every template has at least one hand check that reads its inputs from the question text.

A check that takes its inputs from ``p.params`` cannot see a question that shows a value different
from the one used; one that parses ``p.question`` can. This scans the hand-check files (their source,
not their behaviour): each registered template must be named by a test function that reads
``.question``. A new template without such a check fails here with its id.
"""

from __future__ import annotations

import ast
from pathlib import Path

from finchain_tasks.engine import all_templates

HERE = Path(__file__).parent


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _reads_question(fn: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "question" for n in ast.walk(fn))


def templates_checked_from_the_question() -> set[str]:
    """Template names (the last part of an id) named in a test function, or its decorators, that reads .question."""
    found: set[str] = set()
    for path in HERE.glob("test_*.py"):
        for fn in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test") and _reads_question(fn):
                text = _strings(fn) | set().union(*(_strings(d) for d in fn.decorator_list))
                found |= {part for s in text for part in s.split("/")}
    return found


def test_every_template_has_a_hand_check_that_parses_its_question():
    checked = templates_checked_from_the_question()
    missing = sorted(t.id for t in all_templates().values() if t.id.rsplit("/", 1)[-1] not in checked)
    assert missing == [], f"templates without a hand check that reads the question: {missing}"


def test_the_scan_sees_a_check_that_only_reads_params():
    """The scanner itself: a function reading only p.params does not count, one reading p.question does."""
    only_params = ast.parse('def test_a():\n    p = get("d/t/alpha").generate(0)\n    assert p.params["x"]\n')
    reads = ast.parse('def test_b():\n    p = get("d/t/beta").generate(0)\n    assert "1" in p.question\n')
    assert not _reads_question(only_params.body[0]) and _reads_question(reads.body[0])
