"""The contract every template satisfies, checked over many seeds with hypothesis."""

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from finchain_tasks.engine import LEVELS, Problem, all_templates
from finchain_tasks.engine.verify import verify

TEMPLATES = list(all_templates().values())
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@pytest.mark.parametrize("tpl", TEMPLATES, ids=[t.id for t in TEMPLATES])
# derandomized: the same 12 seeds per template on every run, so CI cannot fail on a seed no one has seen.
# Seeds from the whole range (the CI sweep in test_standard_sweep.py verifies seeds 0..39 of every template,
# so a few far seeds add what it lacks: the round trip and draws no low seed reaches); `finchain verify
# --seeds N` (and tests/templates/test_standard.py) sweep further seeds on purpose
@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=seeds)
@example(seed=1130)  # a half-cent tie in pe_comparables_price, found by a random run
def test_template_verifies_and_round_trips(tpl, seed):
    problem = tpl.generate(seed)
    report = verify(problem, regenerate=tpl)
    assert report.ok, f"{problem.id}: {report.failures}"
    row = json.loads(json.dumps(problem.to_dict()))
    assert Problem.from_dict(row) == problem
    assert row["solution"].splitlines()[-1].startswith("Final answer:")


def test_seed_changes_the_problem():
    for tpl in TEMPLATES:
        questions = {tpl.generate(s).question for s in range(8)}
        assert len(questions) > 1, f"{tpl.id} ignores its seed"


def test_every_topic_with_templates_has_the_five_levels():
    by_topic: dict[tuple[str, str], list[str]] = {}
    for t in TEMPLATES:
        by_topic.setdefault((t.domain, t.topic), []).append(t.level)
    for key, levels in by_topic.items():
        assert sorted(levels) == sorted(["easy", "easy", "intermediate", "intermediate", "advanced"]), key
        assert set(levels) <= set(LEVELS)


def test_every_advanced_template_names_the_concepts_it_combines():
    """TEMPLATES.md: an advanced template combines several concepts; its docstring's Concepts line says which."""
    thin = {t.id: t.concepts for t in TEMPLATES if t.level == "advanced" and len(set(t.concepts)) < 3}
    assert thin == {}, f"advanced templates naming fewer than three concepts: {thin}"


def test_concepts_are_read_from_the_docstring_line():
    from finchain_tasks.engine.registry import Template

    def body(b):
        """Asks something.

        Concepts: present value; growing perpetuity ;  tax shield.
        """

    tpl = Template("d", "t", "n", "advanced", body, 0)
    assert tpl.concepts == ("present value", "growing perpetuity", "tax shield")
    assert Template("d", "t", "n", "easy", lambda b: None, 0).concepts == ()
