"""JSON Lines split the JSONL way: at ``\\n`` only.

``str.splitlines()`` also splits at U+2028, U+2029, NEL (U+0085), form feed, vertical tab and the
FS/GS/RS controls (U+001C-U+001E). ``json.dumps(..., ensure_ascii=False)``, which lm-eval and this
project write with, escapes ``\\n`` and ``\\r`` but leaves those raw inside strings, so a model answer
holding one would tear its record in two and fail the whole file (issue 33.1). Every JSONL reader of
files a model's text reaches goes through :func:`jsonl_lines`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["jsonl_lines", "read_jsonl"]


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every non-blank JSONL line of ``text``, split at ``\\n`` only (a trailing
    ``\\r`` of a CRLF file is dropped)."""
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            yield lineno, line


def read_jsonl(path: str | Path, error: type[Exception] = ValueError) -> list[Any]:
    """Every record of a JSONL file; a line that is not JSON raises ``error`` naming the file and line."""
    rows = []
    from finchain_tasks.plumbing.safe_files import read_text

    for lineno, line in jsonl_lines(read_text(path)):  # a regular file only: a FIFO or device never blocks
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise error(f"{path}:{lineno}: not JSON ({exc.msg})") from None
        except RecursionError:
            raise error(f"{path}:{lineno}: nested too deeply to be read") from None
    return rows
