"""``finchain lm-eval install`` / ``uninstall``: stubs that lm-eval indexes, removed without a trace."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from lm_eval.tasks import TaskManager  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from finchain_tasks.cli.main import app  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.build import TOP, layout  # noqa: E402
from finchain_tasks.lm_eval.cli import INSTALL_DIR, install, installed, lm_eval_tasks_dir, uninstall  # noqa: E402


def _snapshot(root: Path) -> dict[str, str]:
    """Every file (sha256) and folder under ``root``: equal snapshots mean a byte-identical tree."""
    tree = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        tree[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return tree


def test_stubs_are_indexed_and_load_and_uninstall_restores_the_folder(tmp_path):
    (tmp_path / "someone_else").mkdir()
    (tmp_path / "someone_else" / "task.yaml").write_text("task: someone_else\n")
    before = _snapshot(tmp_path)
    root, written = install(tmp_path)
    assert root == tmp_path / INSTALL_DIR and installed(tmp_path)
    assert len(written) == len(list(Path(TASKS_DIR).rglob("*.yaml")))
    manager = TaskManager(include_path=str(tmp_path), include_defaults=False)
    lay = layout()
    assert {TOP, *lay.domains, *lay.views} <= set(manager.all_groups)
    assert set(lay.leaves) <= set(manager.all_subtasks)
    leaf = next(iter(lay.leaves))
    assert len(manager.load([leaf])["tasks"][leaf].eval_docs) > 0  # the stub resolves to the real task
    install(tmp_path)  # installing again replaces our own install
    _, removed = uninstall(tmp_path)
    assert len(removed) == len(written)
    assert _snapshot(tmp_path) == before and not installed(tmp_path)


def test_install_leaves_a_folder_it_did_not_write_alone(tmp_path):
    (tmp_path / INSTALL_DIR).mkdir()
    with pytest.raises(RuntimeError, match="not written by"):
        install(tmp_path)
    assert uninstall(tmp_path)[1] == []


def test_cli_round_trip_in_lm_evals_own_folder_is_byte_identical():
    target = lm_eval_tasks_dir()
    if installed(target):
        pytest.skip("FinChain is installed into lm-eval here; not touching a user's install")
    before = _snapshot(target)
    runner = CliRunner()
    try:
        result = runner.invoke(app, ["lm-eval", "install"])
        assert result.exit_code == 0, result.output
        assert str(target / INSTALL_DIR) in result.output.replace("\n", "") and installed(target)
    finally:
        result = runner.invoke(app, ["lm-eval", "uninstall"])
    assert result.exit_code == 0 and "removed" in result.output
    assert _snapshot(target) == before
    assert "nothing to remove" in runner.invoke(app, ["lm-eval", "uninstall"]).output
