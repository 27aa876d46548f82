"""The wheel as users get it (issue 31): built from this checkout, installed into a fresh virtual environment, its
console scripts run from a folder that is not the checkout.

A normal (non-editable) install lost everything that lived outside the package: ``finchain leaderboard build
paper26`` said "no board" because the board YAML files sat in the top-level ``leaderboards/`` folder. To keep this
test to seconds, the fresh environment has no pip and no dependencies of its own: the test's interpreter installs
the wheel into it (``pip --python``, no deps) and a ``.pth`` line lends it this environment's site-packages (torch,
Inspect, lm-eval). A ``.pth`` file named there is not processed, so this environment's editable install of the
package (which points at a checkout) stays out: the package is imported from the wheel, and the test checks that.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support.timeouts import limit

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SKIP = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", "finchain-runs", "site",
                              ".hypothesis", ".pytest_cache", "mutants", "node_modules")


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=limit(timeout))
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(args)} failed ({done.returncode}):\n{out[-4000:]}"
    assert "Traceback" not in out, out[-4000:]
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """(the fresh environment's bin folder, an environment for its commands, a scratch working folder)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=SKIP, symlinks=True)  # the build writes build/ and egg-info: not here
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir", "-v",
                  "-w", str(tmp / "dist"), str(src)], tmp, env)
    (tmp / "build.log").write_text(built, encoding="utf-8")  # the backend's own output: its warnings
    (wheel,) = (tmp / "dist").glob("finchain_tasks-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=limit(120))
    py = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q", str(wheel)],
         tmp, env)
    site = Path(subprocess.check_output([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                        text=True).strip())
    (site / "zz_lent_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    # inspect-ai's own console script, as its install would write it for this interpreter (it is lent, not installed)
    inspect = venv / "bin" / "inspect"
    script = f"#!{py}\nimport sys\nfrom inspect_ai._cli.main import main\nsys.exit(main())\n"
    inspect.write_text(script, encoding="utf-8")
    inspect.chmod(0o755)
    work = tmp / "work"
    work.mkdir()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return venv / "bin", env, work


def test_the_package_is_imported_from_the_wheel_with_its_data(installed):
    bin_dir, env, work = installed
    out = _run([str(bin_dir / "python"), "-c", "import finchain_tasks, scorers; print(finchain_tasks.__file__); "
                "print(scorers.__file__)"], work, env)
    assert all(str(bin_dir.parent) in line for line in out.strip().splitlines()), out
    listing = _run([str(bin_dir / "finchain"), "list", "--domain", "personal_finance"], work, env)
    assert "personal_finance/" in listing


def test_the_build_does_not_warn_and_the_licence_is_an_spdx_expression(installed):
    """Issue 45: a TOML table ``license = {text = ...}`` makes setuptools warn that it will stop accepting it."""
    import zipfile

    bin_dir, _, _ = installed
    log = (bin_dir.parents[1] / "build.log").read_text(encoding="utf-8")
    assert "Deprecat" not in log and "adding license file 'LICENSE'" in log, log[-3000:]
    (wheel,) = (bin_dir.parents[1] / "dist").glob("finchain_tasks-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        meta = next(archive.read(n).decode() for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: MIT" in meta.splitlines()


def test_inspect_eval_and_the_leaderboard_run_from_the_wheel(installed):
    bin_dir, env, work = installed
    _run([str(bin_dir / "inspect"), "eval", "finchain", "--model", "mockllm/model", "--limit", "1", "--no-score",
          "--log-dir", "logs", "--display", "plain"], work, env)
    assert list((work / "logs").glob("*.eval"))


def test_the_readmes_first_run_works_as_written_in_a_fresh_folder(installed, tmp_path):
    """Issue 45: the README's two lines after an install, verbatim, in a folder with no ``leaderboards/``: the
    shipped ``local`` board reads ``./finchain-runs`` (before, it looked for ``leaderboards/../finchain-runs``).

    The first line is ``finchain eval`` with no model: the real local model (llama.cpp serving Gemma 3 270M) end to
    end, so the run directory it writes is checked here too (the only test that starts the local model for it)."""
    from finchain_tasks.models.local import LOCAL_MODEL_NOTE
    from finchain_tasks.runs import MANIFEST, REPORT_HTML, REPORT_MD, SUMMARY
    from tests.test_readme_commands import block, commands

    bin_dir, env, _ = installed
    env = {k: v for k, v in env.items() if k not in ("INSPECT_DISABLE_MODEL_API", "FINCHAIN_LOCAL_API_BASE")}
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")  # Inspect's sample buffer, away from the user's
    lines = commands(block("The first run after an install"))
    assert [c.split()[:3] for c in lines] == [["finchain", "eval", "--limit"], ["finchain", "leaderboard", "build"]]
    limit = int(lines[0].split()[3])
    for command in lines:
        out = _run(["bash", "-c", command], tmp_path, env, timeout=600)
    assert str(bin_dir.parent) in shutil.which("finchain", path=env["PATH"])  # the wheel's script ran them
    assert "1 reproduced row(s)" in out and (tmp_path / "site" / "index.html").is_file()
    assert not (tmp_path / "leaderboards").exists()
    (run_dir,) = (tmp_path / "finchain-runs").iterdir()
    (row,) = json.loads((run_dir / SUMMARY).read_text())["results"]
    assert (row["model"], row["category"], row["requested"], row["completed"]) == ("local-gemma3-270m", "local",
                                                                                    limit, limit)
    assert row["output_tokens"] > 0 and row["cost_usd"] is None  # a local model has no price: unknown, not 0
    assert "not a meaningful baseline" in (run_dir / REPORT_MD).read_text()
    assert html.escape(LOCAL_MODEL_NOTE) in (run_dir / REPORT_HTML).read_text()
    manifest = json.loads((run_dir / MANIFEST).read_text())
    assert manifest["sessions"][-1]["ok"] is True and list((run_dir / "logs").glob("*.eval"))


def test_finchain_lm_eval_finds_its_tasks_in_the_wheel(installed):
    bin_dir, env, work = installed
    out = _run([str(bin_dir / "finchain-lm-eval"), "validate", "--tasks", "finchain_personal_finance_easy"], work,
               env)
    assert "All tasks found and valid" in out
