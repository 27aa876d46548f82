"""lm-eval's response cache (a SqliteDict of pickles) never lives in the run directory and is never opened
when someone else owns it (issue 32.2): a cache file whose values would write a marker file stays unread."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from finchain_tasks.runs import LM_EVAL_CACHE
from finchain_tasks.runs import lm_eval_harness as harness
from tests.support.payloads import pickle_payload

sqlitedict = pytest.importorskip("sqlitedict")


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv(harness.CACHE_DIR_ENV, raising=False)  # the suite's own setting (tests/conftest.py)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _plant(db, marker) -> None:
    """A SqliteDict as lm-eval writes it, one value replaced by a payload (raw, as an attacker writes it)."""
    import sqlite3

    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlitedict.SqliteDict(str(db), autocommit=True) as d:
        d["k"] = "an answer"
    with sqlite3.connect(db) as con:
        con.execute("UPDATE unnamed SET value = ? WHERE key = 'k'", (pickle_payload(marker),))


def test_the_cache_is_in_the_users_cache_dir_never_in_the_run_dir(tmp_path, cache_home):
    from finchain_tasks.models.registry import load_registry

    registry = tmp_path / "r.yaml"
    registry.write_text("version: 1\nmodels:\n  - {name: m, display_name: M, litellm_model: openai/m, "
                        "category: general, open_weights: false, api_base: 'http://127.0.0.1:1/v1'}\n",
                        encoding="utf-8")
    run_dir = tmp_path / "run"
    spec = load_registry(registry).model("m")
    plan = SimpleNamespace(name="ts", task="finchain", args={"seeds": 1})
    options = SimpleNamespace(max_connections=1, max_retries=1, timeout=None, limit=None)
    cmd = harness.command(spec, plan, run_dir, "http://127.0.0.1:1/v1", options)
    prefix = cmd[cmd.index("--use_cache") + 1]
    assert prefix.startswith(str(cache_home / "finchain-tasks" / "lm_eval")) and str(run_dir) not in prefix
    other = harness.cache_prefix(tmp_path / "elsewhere" / "run", "m")
    assert str(other) != prefix  # keyed by run: two run directories never share a cache


def test_a_cache_owned_by_someone_else_is_refused_and_never_unpickled(tmp_path, cache_home):
    if os.getuid() != 0:
        pytest.skip("needs root to give a file to another user")
    marker = tmp_path / "ran"
    run_dir = tmp_path / "run"
    prefix = harness.cache_prefix(run_dir, "m")
    db = prefix.with_name("responses_rank0.db")
    _plant(db, marker)
    os.chown(db, 65534, 65534)
    with pytest.raises(ValueError, match=r"owned by uid 65534, not you.*holds pickles.*refusing to open it"):
        harness.check_cache_owner(run_dir, "m")
    assert harness.cached_answers(run_dir, "m") == 1  # counting rows reads no value
    assert not marker.exists()
    os.chown(db, 0, 0)
    db.parent.chmod(0o777)
    with pytest.raises(ValueError, match="may be written by other users"):
        harness.check_cache_owner(run_dir, "m")
    with sqlitedict.SqliteDict(str(db)) as d:  # the control: reading it as lm-eval does runs the payload
        d["k"]
    assert marker.exists()


def test_a_link_in_place_of_the_cache_is_refused(tmp_path, cache_home):
    marker = tmp_path / "ran"
    elsewhere = tmp_path / "theirs.db"
    _plant(elsewhere, marker)
    prefix = harness.cache_prefix(tmp_path / "run", "m")
    prefix.parent.mkdir(parents=True)
    prefix.with_name("responses_rank0.db").symlink_to(elsewhere)
    with pytest.raises(ValueError, match="is a link"):
        harness.check_cache_owner(tmp_path / "run", "m")
    assert not marker.exists()


def test_a_legacy_cache_in_the_run_dir_is_named_and_left_closed(tmp_path, cache_home):
    """An old run directory (or one from elsewhere) with lm_eval_cache/: a warning names it; nothing opens it."""
    marker = tmp_path / "ran"
    run_dir = tmp_path / "run"
    assert harness.legacy_cache_warning(run_dir) == ""
    _plant(run_dir / LM_EVAL_CACHE / "m" / "responses_rank0.db", marker)
    assert "lm_eval_cache (lm-eval's pickle cache" in harness.legacy_cache_warning(run_dir)
    assert harness.cached_answers(run_dir, "m") is None  # the progress count reads the user's cache, not this
    assert not marker.exists()


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602, 0o646], ids=oct)
def test_rule_a_cache_file_others_may_write_is_refused_and_never_unpickled(tmp_path, cache_home, mode):
    """Issue 40.4: the file itself, not only its folder (another user could replace its pickles)."""
    marker = tmp_path / "ran"
    run_dir = tmp_path / "run"
    db = harness.cache_prefix(run_dir, "m").with_name("responses_rank0.db")
    _plant(db, marker)
    db.chmod(mode)
    with pytest.raises(ValueError, match=r"responses_rank0.db may be written by other users.*refusing to open"):
        harness.check_cache_owner(run_dir, "m")
    db.chmod(0o600)
    harness.check_cache_owner(run_dir, "m")  # the owner's own private file passes
    assert not marker.exists()


def test_every_folder_the_cache_creates_is_private(tmp_path, cache_home):
    old = os.umask(0o022)
    try:
        prefix = harness.check_cache_owner(tmp_path / "run", "m")
    finally:
        os.umask(old)
    created = [p for p in prefix.parents if str(p).startswith(str(cache_home)) and p != cache_home.parent]
    assert cache_home in created and len(created) >= 4
    assert {oct(p.stat().st_mode & 0o777) for p in created} == {oct(0o700)}
