"""Counts read from files someone else wrote (an Inspect log, an lm-eval results or samples file): one rule for
what counts as a count, so that one bad figure is a missing value and never costs the line or file it sits in."""

from __future__ import annotations

import math
from typing import Any, Optional

MAX_COUNT = 2 ** 53
"""The largest whole number a float holds exactly: above it, a logged 'count' is noise, and an integer column
could not take it."""


def whole_count(value: Any) -> Optional[int]:
    """A logged count as an int: a whole number from 0 to :data:`MAX_COUNT`, written as an int or a float (JSON
    writers differ). Anything else (text, a flag, NaN, an infinity, 1.5, a negative) is no count: None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or not 0 <= value <= MAX_COUNT or value != int(value):
        return None
    return int(value)
