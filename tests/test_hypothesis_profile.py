"""The README's test command runs every property test derandomized (a fresh clone must pass every time)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]


def test_make_test_selects_the_derandomized_profile():
    recipe = re.search(r"^test:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M).group(1)
    pytest_line = next(line for line in recipe.splitlines() if "pytest" in line)
    assert "HYPOTHESIS_PROFILE=ci" in pytest_line
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.print_blob


def test_a_decorated_test_inherits_the_profile_it_runs_under():
    seen = []

    @settings(parent=settings.get_profile("ci"), max_examples=5)
    @given(st.integers())
    def draw(x):
        seen.append(x)

    draw()
    first, seen[:] = list(seen), []
    draw()
    assert seen == first  # derandomized: the same examples on every call
