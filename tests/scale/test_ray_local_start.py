"""Starting a local Ray cluster on a busy machine: Ray gives its new node a fixed 30 s to register, and on a loaded
machine that wait runs out though nothing is wrong. The local start tries again after exactly that error, and
after no other. Ray itself is replaced by a recording stand-in: what is under test is the retry rule."""

from __future__ import annotations

import sys
import types

import pytest

from finchain_tasks.scale.ray_map import LOCAL_START_ATTEMPTS, start_local

SLOW = Exception("The current node timed out during startup. This could happen because some of the raylet failed")


def _fake_ray(monkeypatch, outcomes):
    calls = []
    module = types.ModuleType("ray")

    def init(**kwargs):
        calls.append(("init", kwargs))
        outcome = outcomes.pop(0) if outcomes else None
        if outcome is not None:
            raise outcome

    module.init = init
    module.shutdown = lambda: calls.append(("shutdown", None))
    monkeypatch.setitem(sys.modules, "ray", module)
    return calls


@pytest.mark.parametrize(("failures", "inits"), [(0, 1), (1, 2), (LOCAL_START_ATTEMPTS - 1, LOCAL_START_ATTEMPTS)])
def test_a_node_that_was_slow_to_register_is_started_again(monkeypatch, failures, inits):
    calls = _fake_ray(monkeypatch, [SLOW] * failures)
    start_local(num_cpus=2)
    assert [c[0] for c in calls].count("init") == inits
    assert [c[0] for c in calls].count("shutdown") == failures  # each half-started cluster is shut down first
    assert all(kw == {"num_cpus": 2} for name, kw in calls if name == "init")


def test_the_tries_are_bounded_and_the_last_error_is_raised(monkeypatch):
    calls = _fake_ray(monkeypatch, [SLOW] * (LOCAL_START_ATTEMPTS + 1))
    with pytest.raises(Exception, match="timed out during startup"):
        start_local()
    assert [c[0] for c in calls].count("init") == LOCAL_START_ATTEMPTS


@pytest.mark.parametrize("error", [RuntimeError("Address already in use"), ValueError("num_cpus must be positive"),
                                   Exception("timed out")])
def test_any_other_start_up_error_is_raised_at_once(monkeypatch, error):
    calls = _fake_ray(monkeypatch, [error])
    with pytest.raises(type(error)):
        start_local()
    assert [c[0] for c in calls] == ["init"]
