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

__all__ = ["jsonl_lines", "jsonl_records", "read_jsonl"]


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every non-blank JSONL line of ``text``, split at ``\\n`` only (a trailing
    ``\\r`` of a CRLF file is dropped)."""
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            yield lineno, line


def jsonl_records(path: str | Path, error: type[Exception] = ValueError, name: str | None = None,
                  ) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line of a JSONL file from elsewhere: a regular file only (a
    FIFO or a device is refused at once, never blocks), split at ``\\n`` only. A file that cannot be read, a line
    that is not JSON, one nested too deeply or holding an integer too long to convert raises ``error`` in one line
    naming ``name`` (else the path) and the line. The one JSONL read loop of the project's readers."""
    from finchain_tasks.plumbing.safe_files import UnreadableFile, read_text

    shown = str(path) if name is None else name
    try:
        text = read_text(path)
    except UnreadableFile as exc:
        raise error(f"{shown}: {exc.reason}") from None
    for lineno, line in jsonl_lines(text):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{shown}:{lineno}: not JSON ({exc.msg})") from None
        except RecursionError:
            raise error(f"{shown}:{lineno}: nested too deeply to be read") from None
        except ValueError as exc:  # an integer longer than Python's conversion limit
            raise error(f"{shown}:{lineno}: not JSON ({str(exc).split(';')[0]})") from None
        yield lineno, value


def read_jsonl(path: str | Path, error: type[Exception] = ValueError) -> list[Any]:
    """Every record of a JSONL file (:func:`jsonl_records` without the line numbers)."""
    return [value for _, value in jsonl_records(path, error)]
