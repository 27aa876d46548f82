"""Where ``-o PATH`` writes: atomically to a regular file, through to anything else.

A regular file (or a path that does not exist yet) is written to a ``.partial`` file beside it and
renamed into place, so a failure leaves the previous file whole. Anything else is written *through*,
in place: a device (``-o /dev/null``, ``-o /dev/stdout``), a FIFO, a socket. Renaming over those would
replace the system's file with a regular one (as root, ``/dev/null`` itself). A symbolic link is
followed: the file it points to is replaced atomically when it is a regular file (the link stays), and
written through otherwise. Every ``-o`` writer of the CLI goes through :func:`output_file`
(``finchain generate``, ``finchain score``, ``finchain prm label``).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["output_file", "writes_through"]


def writes_through(path: str | os.PathLike) -> bool:
    """Whether ``path`` (links followed) exists and is not a regular file: a device, FIFO or socket."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return not stat.S_ISREG(st.st_mode)


@contextmanager
def output_file(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """An open file for writing ``path`` (see the module docstring); the error names the path."""
    path = Path(path)
    binary = "b" in mode
    kwargs: dict[str, Any] = {} if binary else {"encoding": encoding}
    if stat.S_ISDIR(_mode(path)):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    if writes_through(path):
        with open(path, "wb" if binary else "w", **kwargs) as fh:
            yield fh
        return
    target = Path(os.path.realpath(path))  # a link to a regular file: replace the file, keep the link
    tmp = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb" if binary else "w", **kwargs) as fh:
            yield fh
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _mode(path: Path) -> int:
    try:
        return os.stat(path).st_mode
    except OSError:
        return 0
