"""Hostile payloads for the "files from elsewhere never run code" tests (issue 32): each, if it ever ran,
would write a marker file, so a test asserts the marker is absent after handing the payload to the code
under test (and, where it can, that the same payload does write it when run on purpose: the payload is live).
"""

from __future__ import annotations

import pickle
from pathlib import Path

__all__ = ["marker_source", "pickle_payload"]


def marker_source(marker: Path) -> str:
    """Python source that writes ``marker`` when imported or executed."""
    return f"__import__('builtins').open({str(marker)!r}, 'w').write('ran')\n"


class _Payload:
    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (marker_source(Path(self.marker)),))


def pickle_payload(marker: Path) -> bytes:
    """A pickle that runs :func:`marker_source` when loaded (``pickle.loads`` / ``torch.load`` without
    ``weights_only``)."""
    return pickle.dumps({"weights": _Payload(marker)})
