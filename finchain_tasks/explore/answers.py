"""The answer a permalink reopens: in the URL when it is short, else in a small local store keyed by hash.

A short answer travels in the link itself (``answer=``: the UTF-8 text, zlib-compressed, base64url), so
the link works on any machine that runs the explorer. A long one would make a link browsers and chat
apps cut, so it is written once to ``$XDG_CACHE_HOME/finchain-tasks/explore/answers/<key>.txt`` (folder
0700) and the link carries only ``answer_key=<key>``, the first 32 hex digits of the text's SHA-256:
such a link reopens the verdict on the machine that made it. A key is read only if it is 32 hex digits
(no path can be named), from a regular file of bounded size; a link's answer is decompressed to at most
the explorer's own paste limit (no zip bomb)."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import stat
import zlib
from pathlib import Path

from finchain_tasks.explore.verdict import MAX_OUTPUT_CHARS

MAX_URL_CHARS = 1500
"""An answer whose encoded form is at most this long goes in the link (links stay under about 2,000
characters, which every browser and chat app keeps whole)."""
MAX_BYTES = 4 * MAX_OUTPUT_CHARS
"""UTF-8 bytes of the longest answer the explorer scores."""
KEY = re.compile(r"[0-9a-f]{32}")


def store_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "finchain-tasks" / "explore" / "answers"


def to_query(text: str) -> dict[str, str]:
    """The query parameters that carry ``text``: ``answer`` when short, else ``answer_key`` (text stored)."""
    if not text:
        return {}
    encoded = base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).decode().rstrip("=")
    if len(encoded) <= MAX_URL_CHARS:
        return {"answer": encoded}
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    folder = store_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{key}.txt"
    if not path.is_file():
        tmp = path.with_name(f"{key}.{os.getpid()}.partial")
        tmp.write_text(text, "utf-8")
        tmp.replace(path)
    return {"answer_key": key}


def from_query(query: dict[str, str]) -> str:
    """The answer a permalink's query carries ("" when none); a bad or missing one is a one-line error."""
    if query.get("answer"):
        return _decode(query["answer"])
    key = query.get("answer_key") or ""
    if not key:
        return ""
    if not KEY.fullmatch(key):
        raise ValueError("this link's answer_key is not one the explorer writes (32 hex digits)")
    path = store_dir() / f"{key}.txt"
    try:
        info = path.lstat()
    except OSError:
        raise ValueError("this link's answer was stored on another machine (or the cache was cleared): "
                         "paste the answer again") from None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
        raise ValueError(f"{path}: not a stored answer (not a regular file, or too large)")
    return path.read_text("utf-8", errors="replace")


def _decode(encoded: str) -> str:
    bad = ValueError("this link's answer is damaged (cut short or edited): paste the answer again")
    try:
        packed = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        unpack = zlib.decompressobj()
        data = unpack.decompress(packed, MAX_BYTES)
        if unpack.unconsumed_tail or not unpack.eof:
            raise bad
        return data.decode("utf-8")
    except (ValueError, zlib.error, UnicodeDecodeError):
        raise bad from None
