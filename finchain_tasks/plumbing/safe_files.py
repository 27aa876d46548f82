"""Reading files that came from elsewhere (run directories, board sources, the authors' folder, CFLUE files,
registries) without hanging, wandering or tracing back.

Three guarantees, one place:

- **Regular files only.** :func:`open_regular` opens with ``O_NONBLOCK`` and checks what it opened
  (``fstat``): a FIFO, a device, a socket, or a link to one (``answers.jsonl`` -> ``/dev/zero``) is refused in
  one line instead of blocking forever or reading without end. Checking the opened descriptor, not the name,
  leaves no window to swap the file between the check and the read.
- **Never out of the folder it was given.** :func:`walk` lists the files under a folder without following a
  link out of it (nor into a folder inside it, so no loop): such links, and anything that is not a regular
  file, are returned as skipped, for the caller to list and go on.
- **One line for bad content.** :func:`load_json` turns invalid JSON, text that is not UTF-8 and nesting deep
  enough to exhaust the stack (``RecursionError``) into :class:`UnreadableFile`, a ``ValueError`` naming the file;
  :func:`expect` does the same for a field of the wrong type. ``friendly`` (the CLI) prints such errors as one
  line.
"""

from __future__ import annotations

import fnmatch
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, NamedTuple, Optional

MAX_BYTES = 1 << 30
"""No single file a reader takes from elsewhere is larger than this (1 GiB); a larger one is refused."""

STREAMED = 1 << 62
"""``max_bytes`` of a reader that streams its file a block at a time (``finchain score``, ``--ray`` blocks): it
never holds the file whole, so any size is fine."""


class UnreadableFile(ValueError):
    """A file from elsewhere that cannot be read as what it should be; the message is one line naming it
    (``PATH: reason``); ``reason`` alone is kept for a reader that names files its own way."""

    def __init__(self, path: str | os.PathLike, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = str(path), reason


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike, mode: str = "r", encoding: Optional[str] = "utf-8",
                 errors: Optional[str] = None, max_bytes: int = MAX_BYTES) -> IO:
    """``open(path, mode)`` for reading, refusing anything but a regular file (after links) without blocking;
    raises :class:`UnreadableFile` (one line naming the file) for one that is not."""
    if any(c in mode for c in "wax+"):
        raise ValueError(f"open_regular reads only, not mode {mode!r}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UnreadableFile(path, f"{exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile(path, f"{_kind(st.st_mode)}, not a regular file: refusing to read it")
        if st.st_size > max_bytes:
            raise UnreadableFile(path, f"{st.st_size:,} bytes, more than the {max_bytes:,} a reader takes")
        if "b" in mode:
            return os.fdopen(fd, "rb")
        return os.fdopen(fd, "r", encoding=encoding, errors=errors, newline=None)
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> bytes:
    with open_regular(path, "rb", max_bytes=max_bytes) as fh:
        return fh.read()


def read_text(path: str | os.PathLike, errors: Optional[str] = None, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of a regular file; not UTF-8 (with ``errors`` None) is one line naming the file."""
    data = read_bytes(path, max_bytes)
    try:
        return data.decode("utf-8", errors or "strict")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse_json(text: str | bytes, where: str) -> Any:
    """``json.loads`` whose failures (invalid JSON, nesting deep enough to exhaust the stack) are one line
    naming ``where``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableFile(where, f"not JSON ({exc.msg}: line {exc.lineno}, column {exc.colno})") \
            from None
    except RecursionError:
        raise UnreadableFile(where, "nested too deeply to be read") from None
    except UnicodeDecodeError as exc:
        raise UnreadableFile(where, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load_json(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON value of a regular file; every failure is :class:`UnreadableFile` naming the file."""
    return parse_json(read_text(path, max_bytes=max_bytes), str(path))


_TYPE_NAMES = {dict: "a mapping", list: "a list", str: "a string", int: "a whole number", float: "a number",
               bool: "true or false", type(None): "null"}


def expect(value: Any, types: type | tuple[type, ...], where: str, field: str) -> Any:
    """``value`` when it is of ``types`` (bool never counts as a number), else :class:`UnreadableFile`:
    ``<where>: <field>: expected a list, got a string``."""
    wanted = types if isinstance(types, tuple) else (types,)
    ok = isinstance(value, wanted) and not (isinstance(value, bool) and bool not in wanted)
    if not ok:
        names = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in wanted)
        got = _TYPE_NAMES.get(type(value), type(value).__name__)
        raise UnreadableFile(where, f"{field}: expected {names}, got {got}")
    return value


class Walk(NamedTuple):
    files: list[Path]
    skipped: list[tuple[Path, str]]
    """(path, why) of what was not followed or not read: links out of the folder, special files."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def walk(root: str | os.PathLike, patterns: Iterable[str] = ("*",), recurse: bool = True) -> Walk:
    """Regular files under ``root`` whose name matches one of ``patterns``, sorted, without following a link
    to a folder (in or out) and with links to files only when they stay inside ``root``; FIFOs, devices and
    sockets (or links to them) are skipped. What was skipped comes back with the reason, to be listed.
    ``recurse`` False: ``root`` itself only (a ``glob("*.jsonl")``), its sub-folders neither read nor listed."""
    base = Path(root)
    real_root = base.resolve()
    patterns = tuple(patterns)
    files: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for folder, dirs, names in os.walk(base, followlinks=False):
        here = Path(folder)
        for name in sorted(dirs) if recurse else ():
            if (here / name).is_symlink():
                skipped.append((here / name, "a link to a folder (not followed)"))
        for name in sorted(names):
            path = here / name
            if not any(fnmatch.fnmatch(name, p) for p in patterns):
                continue
            why = _why_not(path, real_root)
            if why:
                skipped.append((path, why))
            else:
                files.append(path)
        if not recurse:
            break
    return Walk(sorted(files), skipped)


def _why_not(path: Path, real_root: Path) -> str:
    try:
        link = path.is_symlink()
        target = path.resolve() if link else path
        st = os.stat(path)  # after links; never opens, so a FIFO cannot block here
    except (OSError, RuntimeError) as exc:  # a dangling link, a loop of links
        return f"unreadable ({getattr(exc, 'strerror', None) or exc})"
    if link and not _inside(target, real_root):
        return f"a link out of the folder (to {target})"
    if not stat.S_ISREG(st.st_mode):
        return _kind(st.st_mode)
    return ""


def check_own_file(path: str | os.PathLike) -> None:
    """Refuse (:class:`UnreadableFile`) a file this project keeps in a folder from elsewhere (a cache beside a
    run's logs) when it is a link or not a regular file: reading a FIFO would block, and writing would go
    through the link to wherever it points. Absent is fine (it will be written)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UnreadableFile(path, f"{exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise UnreadableFile(path, "a link, not a file this program wrote: move it aside")
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableFile(path, f"{_kind(st.st_mode)}, not a regular file: move it aside")


def skipped_lines(skipped: list[tuple[Path, str]], limit: int = 5) -> list[str]:
    """At most ``limit`` lines ``skipped PATH: why``, then one line with the count of the rest."""
    lines = [f"skipped {path}: {why}" for path, why in skipped[:limit]]
    if len(skipped) > limit:
        lines.append(f"skipped {len(skipped) - limit} more")
    return lines
