"""CI's sweep of the template standard (TEMPLATES.md section 6) over every template.

`finchain verify` runs the same rules at 1,000 seeds (what a new template must pass before review);
CI runs them at the seed count it can afford, ``FINCHAIN_CI_SEEDS`` (default 40) for the
per-problem rules, vacuous steps and near zero, while variety and balance always use 1,000 draws.
"""

from __future__ import annotations

import os

import pytest

from finchain_tasks.engine import all_templates
from finchain_tasks.engine.realism import same_questions
from finchain_tasks.engine.standard import QUESTION_SEEDS, check_fresh_process, depth_failures, survey

TEMPLATES = list(all_templates().values())
CI_SEEDS = int(os.environ.get("FINCHAIN_CI_SEEDS", "40"))


@pytest.mark.parametrize("tpl", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_template_meets_the_standard(tpl):
    figures = survey(tpl, CI_SEEDS)
    assert not figures.failures, "\n".join(figures.failures[:10])


def test_every_template_is_deterministic_in_a_fresh_process():
    assert check_fresh_process(TEMPLATES, seeds=3) == []


def test_no_two_templates_ask_the_same_question():
    """Rule "same question" over every template, on the questions `finchain verify` compares."""
    questions = {t.id: [t.generate(s).question for s in range(QUESTION_SEEDS)] for t in TEMPLATES}
    assert same_questions(questions) == []


def test_every_advanced_template_is_at_least_as_deep_as_its_domains_median_intermediate():
    assert depth_failures(TEMPLATES) == []
