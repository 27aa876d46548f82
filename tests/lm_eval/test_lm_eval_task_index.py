"""The wrapper's task index: when every requested task is FinChain's, lm-eval indexes only our folder (its
own 14,000 YAML files cost about 8 s a run); any other request is indexed exactly as lm-eval would."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

import lm_eval.tasks  # noqa: E402

from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.cli import _index_only_ours  # noqa: E402

BUILT_IN = "arc_easy"
"""A task of lm-eval's own folder (``arc/arc_easy.yaml``)."""


def _args(**given) -> Namespace:
    return Namespace(**{"command": "run", "include_path": TASKS_DIR, **given})


def test_only_our_tasks_index_only_our_folder():
    assert (Path(lm_eval.tasks.__file__).parent / "arc" / "arc_easy.yaml").is_file()
    base = lm_eval.tasks.TaskManager
    with _index_only_ours(_args(tasks=["finchain", "cflue,finchain_authors"])):
        manager = lm_eval.tasks.TaskManager(include_path=TASKS_DIR)  # as lm-eval's run builds it
        assert isinstance(manager, base)
        names = set(manager.all_tasks)
    assert BUILT_IN not in names and {"finchain", "cflue", "finchain_authors", "finchain_easy"} <= names
    assert lm_eval.tasks.TaskManager is base  # put back after the run


@pytest.mark.parametrize("given", [
    {"tasks": ["finchain", BUILT_IN]},  # one of lm-eval's own
    {"tasks": ["finchain*"]},  # a pattern could match lm-eval's own names too
    {"tasks": ["finchain"], "include_path": "/somewhere/else"},  # the user's folder (after `install`)
    {"tasks": ["finchain"], "command": "ls"},
    {"tasks": None},
])
def test_any_other_request_is_indexed_as_lm_eval_would(given):
    base = lm_eval.tasks.TaskManager
    with _index_only_ours(_args(**given)):
        assert lm_eval.tasks.TaskManager is base


def test_the_class_is_put_back_when_the_run_fails():
    base = lm_eval.tasks.TaskManager
    with pytest.raises(RuntimeError), _index_only_ours(_args(tasks=["finchain"])):
        raise RuntimeError("the run failed")
    assert lm_eval.tasks.TaskManager is base
