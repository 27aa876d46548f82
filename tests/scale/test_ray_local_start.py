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


def test_rule_ray_node_module_waits_as_long_as_asked_while_the_cluster_starts_and_only_then():
    """Ray's node module gives its node a hard-coded 30 s; during a local start its clock runs wait/30 times
    slower, so that wait lasts the asked seconds; the other time functions are the real ones, and the module's
    own clock comes back after the start, also after an error."""
    import time

    from ray._private import node

    from finchain_tasks.scale.ray_map import patient_node_start

    with patient_node_start(120.0):
        assert node.time is not time
        seen, real = node.time.monotonic(), time.monotonic()
        # 30 s of Ray's clock are 120 s of real time: its clock reads a quarter of the real one (the two reads are
        # microseconds apart; a stretch of 3 or 5 would be off by minutes on any machine up for one)
        assert abs(seen * 4 - real) < 1.0
        assert node.time.time is time.time and node.time.sleep is time.sleep
    assert node.time is time
    with pytest.raises(RuntimeError), patient_node_start(90.0):
        raise RuntimeError("start failed")
    assert node.time is time
    with patient_node_start(30.0):  # Ray's own wait: nothing to stretch
        assert node.time is time


@pytest.mark.parametrize(("raw", "wait"), [("", 120.0), ("30", 30.0), ("45.5", 45.5), (" 600 ", 600.0)])
def test_rule_the_node_wait_comes_from_the_environment(monkeypatch, raw, wait):
    from finchain_tasks.scale.ray_map import RAY_NODE_WAIT_ENV, node_wait_s

    monkeypatch.setenv(RAY_NODE_WAIT_ENV, raw)
    assert node_wait_s() == wait


@pytest.mark.parametrize("raw", ["abc", "29.9", "0", "-5", "nan", "inf"])
def test_rule_a_node_wait_below_rays_own_or_not_a_number_is_one_line(monkeypatch, raw):
    from finchain_tasks.scale.ray_map import RAY_NODE_WAIT_ENV, node_wait_s

    monkeypatch.setenv(RAY_NODE_WAIT_ENV, raw)
    with pytest.raises(ValueError, match=RAY_NODE_WAIT_ENV):
        node_wait_s()
