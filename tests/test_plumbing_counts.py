"""The one rule for a count read from another writer's file (finchain_tasks/plumbing/counts.py): the ingest of
both hosts' logs and the run summary read counts through it, so its edges are pinned here once."""

from __future__ import annotations

import pytest

from finchain_tasks.plumbing.counts import MAX_COUNT, whole_count


@pytest.mark.parametrize("value, count", [
    (0, 0), (3, 3), (3.0, 3), (MAX_COUNT, MAX_COUNT), (float(MAX_COUNT), MAX_COUNT),
    (MAX_COUNT + 1, None), (1e300, None), (-1, None), (-0.0, 0), (2.5, None),
    (float("nan"), None), (float("inf"), None), (float("-inf"), None),
    (True, None), (False, None), ("3", None), (None, None), ([3], None),
])
def test_a_count_is_a_whole_number_from_0_to_max_count_written_as_an_int_or_a_float(value, count):
    assert whole_count(value) == count
