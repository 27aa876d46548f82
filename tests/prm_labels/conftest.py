"""Synthetic FinChain candidates shared by the label and training tests."""

from __future__ import annotations

import pytest

from finchain_tasks.engine.registry import all_templates
from finchain_tasks.prm.labeling import item_from_problem
from finchain_tasks.prm.wrong_step_traces import inject_error


def first_template_per_domain() -> list:
    """One template per domain (the first in registry order): a fixed, spread-out sample."""
    seen: dict[str, object] = {}
    for tpl in all_templates().values():
        seen.setdefault(tpl.domain, tpl)
    return list(seen.values())


def synthetic_pool(templates, seeds=(0,)):
    """For every problem: the gold trace, and one candidate per injectable step; with the wrong steps."""
    items, wrong = [], []
    for tpl in templates:
        for seed in seeds:
            problem = tpl.generate(seed)
            items.append(item_from_problem(problem, None, "gold"))
            wrong.append(frozenset())
            for k in range(len(problem.steps)):
                inj = inject_error(problem, k)
                if inj is not None:
                    items.append(item_from_problem(problem, inj.output, f"err{k}"))
                    wrong.append(inj.wrong)
    return items, wrong


@pytest.fixture(scope="session")
def domain_pool():
    return synthetic_pool(first_template_per_domain())
