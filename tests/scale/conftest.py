"""One local Ray cluster for the tests of this folder (it costs seconds to start), stopped when a worker leaves the
folder: its background processes (GCS, raylet) would otherwise take CPU from every later test of the session."""

from __future__ import annotations

import logging
import sys
import time

import pytest

from finchain_tasks.scale.ray_map import start_local


@pytest.fixture(scope="package")
def ray_cluster():
    """``ray.init`` with two CPUs, so a ``--ray`` command in the test process runs two worker actors on it."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    t0 = time.monotonic()
    # the product's local start: it starts again when Ray's fixed 30 s node start-up wait runs out on a busy machine
    start_local(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    print(f"\nlocal Ray cluster started in {time.monotonic() - t0:.1f}s", file=sys.stderr)
    yield ray
    ray.shutdown()
