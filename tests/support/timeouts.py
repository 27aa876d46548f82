"""One scale for every limit the suite sets against a hang.

A limit that guards against a hang must never fire on a machine that is merely busy (CI boxes and laptops often
run another build beside the tests). Every subprocess, server start-up and browser wait in the suite takes its
limit from :func:`limit`, so one variable, ``FINCHAIN_TEST_TIMEOUT_SCALE`` (default 1), stretches them all; the
base values are already generous (a hang costs minutes either way, a false failure costs a CI run).
"""

from __future__ import annotations

import os

SCALE_ENV = "FINCHAIN_TEST_TIMEOUT_SCALE"


def scale() -> float:
    """The factor from the environment: a positive number, else an error naming the variable (a typo must not
    silently leave the limits tight)."""
    raw = os.environ.get(SCALE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{SCALE_ENV}={raw!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{SCALE_ENV}={raw!r} must be a positive, finite number")
    return value


def limit(seconds: float) -> float:
    """``seconds`` stretched by the suite's timeout scale."""
    return seconds * scale()
