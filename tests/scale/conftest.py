"""One local Ray cluster for every test of this folder, started once per test session (it costs seconds)."""

from __future__ import annotations

import logging
import sys
import time

import pytest


@pytest.fixture(scope="session")
def ray_cluster():
    """``ray.init`` with two CPUs, so a ``--ray`` command in the test process runs two worker actors on it."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    t0 = time.monotonic()
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    print(f"\nlocal Ray cluster started in {time.monotonic() - t0:.1f}s", file=sys.stderr)
    yield ray
    ray.shutdown()
