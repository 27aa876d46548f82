"""The one parser of PRM spec strings, shared by the Inspect task, the lm-eval task and the CLI.

``calc`` | ``judge:<registry model>`` | ``hf:<path or hub id>[:dual|:release|:qwen]``

Parsing checks everything that can be checked without a request: the backend is known, a
``judge`` names a model, an ``hf`` target that looks like a path exists (a hub id is
``name`` or ``org/name``). Every failure is one ``ValueError`` line that says what to write instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BACKENDS", "HF_MODES", "PRMSpec", "parse_spec"]

BACKENDS = ("calc", "judge", "hf")
HF_MODES = ("dual", "release", "qwen")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(?:/[\w.-]+)?")
_USAGE = "write calc, judge:<registry model> or hf:<path or hub id>[:dual|:release|:qwen]"


@dataclass(frozen=True, slots=True)
class PRMSpec:
    """A parsed spec: the backend, its target (model name, path or hub id) and the ``hf`` mode the user named
    (empty when none: only then may a checkpoint's own ``prm_config.json`` choose it)."""

    backend: str
    target: str = ""
    mode: str = ""

    def __str__(self) -> str:
        return ":".join(p for p in (self.backend, self.target, self.mode) if p)


def _looks_like_path(target: str) -> bool:
    return target.startswith(("/", "./", "../", "~", "\\")) or target.count("/") > 1 or Path(target).exists()


def _hf(rest: str, spec: str) -> PRMSpec:
    target, mode = rest, ""  # not named: the checkpoint's prm_config.json, else dual (see FinPRM.from_pretrained)
    head, sep, tail = rest.rpartition(":")
    if sep and tail in HF_MODES:
        target, mode = head, tail
    if not target:
        raise ValueError(f"PRM spec {spec!r} names no model: {_USAGE}")
    if _looks_like_path(target):
        path = Path(target).expanduser()
        if not path.exists():
            raise ValueError(f"PRM spec {spec!r}: no such path {str(path)!r}")
        return PRMSpec("hf", str(path), mode)
    if not _HUB_ID.fullmatch(target):
        raise ValueError(f"PRM spec {spec!r}: {target!r} is neither an existing path nor a hub id (org/name)")
    return PRMSpec("hf", target, mode)


def parse_spec(spec: str | PRMSpec) -> PRMSpec:
    """A :class:`PRMSpec`, or one clear ``ValueError`` line before anything is loaded or requested."""
    if isinstance(spec, PRMSpec):
        return spec
    text = (spec or "").strip()
    backend, _, rest = text.partition(":")
    if backend == "calc":
        if rest:
            raise ValueError(f"PRM spec {spec!r}: calc takes no argument")
        return PRMSpec("calc")
    if backend == "judge":
        if not rest.strip():
            raise ValueError(f"PRM spec {spec!r} names no judge model: write judge:<registry model>")
        return PRMSpec("judge", rest.strip())
    if backend == "hf":
        return _hf(rest.strip(), spec)
    raise ValueError(f"unknown PRM backend {backend!r} in {spec!r}: {_USAGE}")
