"""Read a built site's data files back (as the pages see them): ``data.js`` and the sample chunks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _assigned(text: str, marker: str = " = ") -> Any:
    """The JSON value of a one-line ``<target><marker><json>;`` script (the first marker ends the target)."""
    return json.loads(text.split(marker, 1)[1].rstrip().removesuffix(";"))


def payload(site: Path) -> dict[str, Any]:
    return _assigned((site / "data.js").read_text("utf-8"))


def sample_index(site: Path) -> dict[str, list[str]]:
    return _assigned((site / "samples" / "index.js").read_text("utf-8"))


def samples(site: Path) -> dict[str, Any]:
    """Every sample of every chunk the index names, merged (each id in exactly one chunk)."""
    out: dict[str, Any] = {}
    for chunk, ids in sample_index(site).items():
        data = _assigned((site / "samples" / f"{chunk}.js").read_text("utf-8"), f'["{chunk}"] = ')
        assert sorted(data) == sorted(ids) and not set(data) & set(out), chunk
        out.update(data)
    return out
