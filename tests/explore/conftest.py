"""Shared pieces of the explorer tests: a problem with enough steps, its gold text, a wrong variant."""

from __future__ import annotations

import re

import pytest

from finchain_tasks.engine import all_templates


def problem_with_steps(minimum: int = 3, domain: str = ""):
    """A fixed problem with at least ``minimum`` gold steps (the first such template, seed 0)."""
    for t in all_templates().values():
        if domain and t.domain != domain:
            continue
        problem = t.generate(0)
        if len(problem.steps) >= minimum and problem.answer_type == "number":
            return problem
    raise AssertionError("no template has enough steps")


def wrong_at(solution: str, step: int) -> str:
    """The gold solution with step ``step``'s result tripled (the later steps left as they are)."""
    lines = solution.splitlines()
    line = lines[step - 1]
    cut = line.rindex("=")
    head, tail = line[:cut + 1], line[cut + 1:]
    m = re.search(r"\d[\d,]*(?:\.\d+)?", tail)
    value = float(m.group(0).replace(",", "")) * 3 + 7
    lines[step - 1] = head + tail[:m.start()] + f"{value:,.2f}" + tail[m.end():]
    return "\n".join(lines)


@pytest.fixture(scope="session")
def problem():
    return problem_with_steps()
