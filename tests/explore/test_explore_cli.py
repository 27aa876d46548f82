"""The command around the app: a missing extra is one line; a Space export writes a runnable app."""

from __future__ import annotations

import ast

from tests.test_extras import _one_error_line, blocker_dir, run_blocked  # noqa: F401 (the fixture)


def test_explore_without_gradio_names_the_explore_extra(blocker_dir):  # noqa: F811
    done = run_blocked(blocker_dir, "gradio", "explore", "--port", "7999")
    _one_error_line(done, "this needs gradio, which is not installed: pip install 'finchain-tasks[explore]'")


def test_export_space_writes_an_app_that_builds_the_explorer(tmp_path):
    from finchain_tasks.explore.space import write_space

    written = write_space(tmp_path / "space")
    names = sorted(p.name for p in written)
    assert names == ["README.md", "app.py", "requirements.txt"]
    app = (tmp_path / "space" / "app.py").read_text()
    calls = {n.func.id for n in ast.walk(ast.parse(app)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert "build_app" in calls and "sdk: gradio" in (tmp_path / "space" / "README.md").read_text()
    write_space(tmp_path / "space")  # its own files are replaced
    (tmp_path / "space" / "app.py").write_text("print('mine')\n")
    try:
        write_space(tmp_path / "space")
    except ValueError as exc:
        assert "was not written by finchain" in str(exc)
    else:
        raise AssertionError("a user's app.py was overwritten")
