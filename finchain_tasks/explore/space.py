"""A Hugging Face Space that runs the explorer: the Space's ``app.py`` builds the same app as
``finchain explore`` (Spaces run ``app.py`` with Gradio and serve it themselves).

finchain-tasks is on no package index, so the Space installs the package the user exports: a wheel copied
into the Space folder (built from this checkout, or one the user names), or a ``git+https://`` URL the user
gives. A Space installs ``requirements.txt`` before its own files are in place, so with a wheel the file
lists the wheel's dependencies and ``app.py`` installs the wheel itself (``--no-deps``) on first start."""

from __future__ import annotations

import email.parser
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import finchain_tasks

HEADER = '"""FinChain explorer as a Hugging Face Space (written by `finchain explore --export-space`)."""'
APP = HEADER + '''
import os
import subprocess
import sys

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
WHEEL = {wheel!r}
"""The finchain-tasks wheel exported beside this file ("": requirements.txt installs the package)."""

try:
    import finchain_tasks  # noqa: F401
except ImportError:
    if not WHEEL:
        raise
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--no-deps", os.path.join(here, WHEEL)])

from finchain_tasks.explore.app import build_app  # noqa: E402
from finchain_tasks.explore.views import CSS  # noqa: E402

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
provider key as a Space secret to ask a hosted model (anyone who reaches the Space can then spend it).
Built with finchain-tasks {version} ({source}).
"""
REQUIREMENTS_HEADER = "# finchain explorer Space (written by `finchain explore --export-space`)\n"
EXTRA = "explore"
NAME = "finchain-tasks"


def write_space(folder: Path, source: str | None = None) -> list[Path]:
    """Write ``app.py``, ``requirements.txt``, ``README.md`` (the Space card) and, unless ``source`` is a git
    URL, the package's wheel into ``folder``. ``source``: a ``.whl`` file, a ``git+https://`` URL, or None to
    build the wheel from the checkout this package runs from. Files that exist are replaced only when they
    are ones this function wrote."""
    source = (source or "").strip()
    if source.startswith("git+"):
        if not re.fullmatch(r"git\+https://[^\s;\"'\\]+", source):
            raise ValueError(f"--space-from {source[:120]!r}: a git URL is git+https://host/owner/repo[@ref]")
        requirements, wheel, note = f"{NAME}[{EXTRA}] @ {source}\n", "", source
    else:
        built = _wheel_of(source)
        requirements, wheel, note = _requirements_of(built), built.name, f"wheel {built.name}"
    files = {"app.py": APP.format(wheel=wheel), "requirements.txt": REQUIREMENTS_HEADER + requirements,
             "README.md": README.format(version=_version(wheel) or finchain_tasks.__version__, source=note)}
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = folder / name
        if path.exists() and not _ours(path, text):
            raise ValueError(f"{path} exists and was not written by finchain: move it or pick another folder")
    written = []
    for stale in folder.glob("finchain_tasks-*.whl"):
        if stale.name != wheel:
            stale.unlink()
    if wheel:
        shutil.copyfile(built, folder / wheel)
        written.append(folder / wheel)
    for name, text in files.items():
        (folder / name).write_text(text, "utf-8")
        written.append(folder / name)
    return sorted(written)


def _ours(path: Path, text: str) -> bool:
    """Whether ``path`` is a file an export wrote: same first line, or an earlier export's requirements
    (one pinned line, which this replaces). A link, a FIFO or a device never is: it is not read (a FIFO would
    block) nor written through."""
    from finchain_tasks.plumbing.safe_files import UnreadableFile, read_text

    if path.is_symlink():
        return False
    try:
        first = read_text(path, errors="replace").splitlines()[:1]
    except UnreadableFile:
        return False
    return first == text.splitlines()[:1] or (path.name == "requirements.txt" and bool(first)
                                              and first[0].startswith(f"{NAME}[{EXTRA}]=="))


def _wheel_of(source: str) -> Path:
    """The wheel to export: the one named, or one built from this checkout into a temporary folder."""
    if source:
        path = Path(source).expanduser()
        if path.suffix != ".whl" or not path.name.startswith("finchain_tasks-") or not path.is_file():
            raise ValueError(f"--space-from {source[:120]!r}: give a finchain_tasks-*.whl file or a git+https:// URL")
        return path
    root = Path(finchain_tasks.__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        raise ValueError("this finchain-tasks is installed, not a checkout: export with --space-from "
                         "finchain_tasks-*.whl (the wheel you installed) or --space-from git+https://...")
    return build_wheel(root, Path(tempfile.mkdtemp(prefix="finchain-space-")))


def build_wheel(root: Path, out: Path) -> Path:
    """``pip wheel`` of the checkout at ``root``, from a copy (the build writes ``build/`` and egg-info)."""
    src = out / "src"
    shutil.copytree(root, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", "mutants",
        "finchain-runs", "site", "node_modules"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(src)], capture_output=True, text=True)
    wheels = sorted(out.glob("finchain_tasks-*.whl"))
    if done.returncode != 0 or not wheels:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel written"]
        raise ValueError(f"building the wheel from {root} failed: {tail[0]}")
    shutil.rmtree(src, ignore_errors=True)
    return wheels[-1]


def _requirements_of(wheel: Path) -> str:
    """The wheel's own dependencies with the explore extra's, one valid requirement a line."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as z:
        meta = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        if meta is None:
            raise ValueError(f"{wheel}: no METADATA in this wheel")
        headers = email.parser.Parser().parsestr(z.read(meta).decode("utf-8"))
    lines = []
    for spec in headers.get_all("Requires-Dist") or []:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate({"extra": EXTRA}):
            req.marker = None
            if req.name != NAME:
                lines.append(str(req))
    return "".join(f"{line}\n" for line in dict.fromkeys(lines))


def _version(wheel_name: str) -> str:
    parts = wheel_name.split("-")
    return parts[1] if wheel_name and len(parts) > 2 else ""
