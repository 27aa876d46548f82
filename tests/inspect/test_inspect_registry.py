"""Inspect's entry point: cheap to import, registers task, scorer, provider and the guarded short name."""

import json
import subprocess
import sys

import pytest

from tests.support.timeouts import limit

HEAVY = ("torch", "sentence_transformers", "numba", "litellm", "lm_eval")

PROBE = f"""
import json, sys
import finchain_tasks._registry
from importlib.metadata import entry_points
from inspect_ai._util.registry import registry_info, registry_lookup
task = registry_lookup("task", "finchain_tasks/finchain")
print(json.dumps({{
    "heavy": [m for m in {HEAVY!r} if m in sys.modules],
    "entry_point": [ep.value for ep in entry_points(group="inspect_ai") if ep.name == "finchain_tasks"],
    "short_is_full": registry_lookup("task", "finchain") is task and task is not None,
    "task_name": registry_info(task).name,
    "scorer": registry_lookup("scorer", "finchain_tasks/chaineval") is not None,
}}))
"""


@pytest.mark.slow
def test_registry_import_is_cheap_and_registers_everything(tmp_path):
    """A fresh interpreter, outside the checkout (as Inspect imports it for every user on every run)."""
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True,
                          timeout=limit(300))
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["heavy"] == []
    assert found["entry_point"] == ["finchain_tasks._registry"]
    assert found["short_is_full"] and found["task_name"] == "finchain_tasks/finchain"
    assert found["scorer"]
    assert "could not register" not in proc.stderr


def test_short_name_guard_never_takes_a_name_another_package_owns():
    from finchain_tasks.inspect.alias import _register

    def key(kind, name):
        return f"{kind}:{name}"

    def ours():
        pass

    def theirs():
        pass

    table = {key("task", "finchain_tasks/finchain"): ours, key("task", "finchain"): theirs}
    lookup = lambda kind, name: table.get(key(kind, name))  # noqa: E731
    assert not _register(table, key, lookup, "finchain", "finchain_tasks/finchain")
    assert table[key("task", "finchain")] is theirs


def test_short_name_guard_backs_out_when_lookup_does_not_see_it():
    from finchain_tasks.inspect.alias import _register

    def key(kind, name):
        return f"{kind}:{name}"

    def ours():
        pass

    table = {key("task", "finchain_tasks/finchain"): ours}
    assert not _register(table, key, lambda kind, name: None, "finchain", "finchain_tasks/finchain")
    assert key("task", "finchain") not in table


def test_in_process_the_short_and_full_names_are_one_task():
    from inspect_ai._util.registry import registry_lookup

    import finchain_tasks._registry  # noqa: F401
    from finchain_tasks.inspect.tasks import finchain

    assert registry_lookup("task", "finchain") is finchain
    assert registry_lookup("task", "finchain_tasks/finchain") is finchain
