"""A Hugging Face Space that runs the explorer: the Space's ``app.py`` builds the same app as
``finchain explore`` (Spaces run ``app.py`` with Gradio and serve it themselves)."""

from __future__ import annotations

from pathlib import Path

import finchain_tasks

APP = '''"""FinChain explorer as a Hugging Face Space (written by `finchain explore --export-space`)."""
import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from finchain_tasks.explore.app import build_app
from finchain_tasks.explore.views import CSS

demo = build_app()

if __name__ == "__main__":
    demo.queue(default_concurrency_limit=4).launch(css=CSS)
'''

README = """---
title: FinChain explorer
sdk: gradio
app_file: app.py
pinned: false
---

A FinChain problem, a model's reasoning and ChainEval's verdict side by side. Paste an output, or set a
provider key as a Space secret to ask a hosted model. Built with finchain-tasks {version}.
"""


def write_space(folder: Path) -> list[Path]:
    """Write ``app.py``, ``requirements.txt`` and ``README.md`` (the Space card) into ``folder``; files that
    exist are replaced only when they are ones this function wrote (same first line)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"app.py": APP, "requirements.txt": f"finchain-tasks[explore]=={finchain_tasks.__version__}\\n",
             "README.md": README.format(version=finchain_tasks.__version__)}
    written = []
    for name, text in files.items():
        path = folder / name
        if path.exists() and path.read_text("utf-8", errors="replace").splitlines()[:1] != text.splitlines()[:1]:
            raise ValueError(f"{path} exists and was not written by finchain: move it or pick another folder")
        path.write_text(text, "utf-8")
        written.append(path)
    return written
