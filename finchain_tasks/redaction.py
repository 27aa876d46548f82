"""Which argument names hold secrets: one rule for every place that keeps keys out of files.

A name is secret-looking when one of its ``_``-separated words is a key, token, secret, password or
credential word (``api_key``, ``OPENAI_API_KEY``, ``access_token``, ``authorization``), or when it
starts with ``auth``. Whole words only, so ``max_tokens`` and ``top_k`` are ordinary parameters.
"""

from __future__ import annotations

import re

SECRET_NAME = re.compile(
    r"(?:^|_)(?:api_?key|apikey|key|secret|token|password|passwd|credentials?|authorization)(?:$|_)|^auth",
    re.IGNORECASE,
)


def is_secret_name(name: object) -> bool:
    """True for argument names whose values must never be written to a log, result or cache key."""
    return bool(SECRET_NAME.search(str(name)))
