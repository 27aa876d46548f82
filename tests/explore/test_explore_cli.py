"""The command around the app: a missing extra is one line; a Space export writes a runnable app."""

from __future__ import annotations

import ast

import pytest

from tests.test_extras import _one_error_line, blocker_dir, run_blocked  # noqa: F401 (the fixture)


def test_explore_without_gradio_names_the_explore_extra(blocker_dir):  # noqa: F811
    done = run_blocked(blocker_dir, "gradio", "explore", "--port", "7999")
    _one_error_line(done, "this needs gradio, which is not installed: pip install 'finchain-tasks[explore]'")


def _requirements(folder) -> list:
    """Every requirement line, parsed as pip parses it (a bad line raises)."""
    from packaging.requirements import Requirement

    text = (folder / "requirements.txt").read_text()
    assert "\\n" not in text and text.endswith("\n")
    return [Requirement(line) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _app_calls_and_wheel(folder) -> tuple[set, str]:
    tree = ast.parse((folder / "app.py").read_text())
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    wheel = next(n.value.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "WHEEL")
    return calls, wheel


def test_export_space_from_a_git_url_installs_the_package_from_it(tmp_path):
    from finchain_tasks.explore.space import write_space

    url = "git+https://github.com/example/finchain-tasks@v0.1.0"
    written = write_space(tmp_path / "space", url)
    assert sorted(p.name for p in written) == ["README.md", "app.py", "requirements.txt"]
    (req,) = _requirements(tmp_path / "space")
    assert req.name == "finchain-tasks" and req.extras == {"explore"} and req.url == url
    calls, wheel = _app_calls_and_wheel(tmp_path / "space")
    assert "build_app" in calls and wheel == "" and "sdk: gradio" in (tmp_path / "space" / "README.md").read_text()
    write_space(tmp_path / "space", url)  # its own files are replaced, an earlier export's pinned line too
    (tmp_path / "space" / "requirements.txt").write_text("finchain-tasks[explore]==0.1.0\\n")
    write_space(tmp_path / "space", url)
    assert _requirements(tmp_path / "space")[0].url == url
    (tmp_path / "space" / "app.py").write_text("print('mine')\n")
    with pytest.raises(ValueError, match="was not written by finchain"):
        write_space(tmp_path / "space", url)
    for bad in ("git+https://x/y; rm -rf /", "git+ssh://x/y", "./not-a-wheel.txt", str(tmp_path / "missing.whl")):
        with pytest.raises(ValueError, match="--space-from"):
            write_space(tmp_path / "other", bad)


@pytest.mark.slow
def test_export_space_builds_the_wheel_into_the_space_and_lists_its_dependencies(tmp_path):
    """No pin of a version that is on no index: the Space holds the wheel, requirements.txt its dependencies."""
    import zipfile

    from finchain_tasks.explore.space import write_space

    written = write_space(tmp_path / "space")
    (wheel,) = [p for p in written if p.suffix == ".whl"]
    names = {r.name for r in _requirements(tmp_path / "space")}
    assert {"gradio", "litellm", "numpy", "sentence-transformers"} <= names and "finchain-tasks" not in names
    assert "torch" not in names  # another extra's dependency stays out
    calls, named = _app_calls_and_wheel(tmp_path / "space")
    assert named == wheel.name and "build_app" in calls
    assert "finchain_tasks/explore/app.py" in zipfile.ZipFile(wheel).namelist()
    again = write_space(tmp_path / "space2", str(wheel))  # a wheel the user names is copied as it is
    assert (tmp_path / "space2" / wheel.name).read_bytes() == wheel.read_bytes() and len(again) == 4
