"""The response cache (finchain_tasks/runs/cache.py): its key is canonical (the order in which a
request's fields were built never matters: a resumed run must hit the answers it paid for), leaves
out transport details and anything secret-looking, and is pinned to a digest computed here from a
hand-written canonical text; the store keeps answers, lists them, survives being set aside when
corrupt, and is found through the environment."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finchain_tasks.runs import cache as cache_mod
from finchain_tasks.runs.cache import (
    CACHE_ENV,
    ResponseCache,
    cache_from_env,
    corruption,
    forget,
    open_cache,
    request_key,
    request_material,
    set_aside_if_corrupt,
    task_version,
)

REQUEST = {"model": "openai/fake", "messages": [{"role": "user", "content": "2 + 2?"}], "max_tokens": 64,
           "temperature": 0.0}
# canonical JSON written out by hand: keys sorted at every level, ", " and ": " separators
CANONICAL = ('{"epoch": 1, "request": {"max_tokens": 64, "messages": [{"content": "2 + 2?", "role": "user"}], '
             '"model": "openai/fake", "temperature": 0.0}, "version": "1.0.0"}')


def test_the_key_is_the_sha256_of_the_canonical_request():
    assert request_key(REQUEST, epoch=1, version="1.0.0") == hashlib.sha256(CANONICAL.encode()).hexdigest()


def test_the_key_does_not_depend_on_field_order_at_any_level():
    reordered = {"temperature": 0.0, "max_tokens": 64, "messages": [{"content": "2 + 2?", "role": "user"}],
                 "model": "openai/fake"}
    assert list(reordered) != list(REQUEST)
    assert request_key(reordered, epoch=1, version="1.0.0") == request_key(REQUEST, epoch=1, version="1.0.0")


@given(st.permutations(list(REQUEST)), st.permutations(["role", "content"]))
def test_any_field_order_gives_the_same_key(order, inner):
    message = {k: REQUEST["messages"][0][k] for k in inner}
    shuffled = {k: ([message] if k == "messages" else REQUEST[k]) for k in order}
    assert request_key(shuffled, epoch=1, version="1.0.0") == hashlib.sha256(CANONICAL.encode()).hexdigest()


@pytest.mark.parametrize("name", ["api_key", "API_KEY", "apikey", "key", "secret", "client_secret", "token",
                                  "access_token", "password", "passwd", "credentials", "authorization",
                                  "auth", "auth_header", "aws_secret_access_key", "x_token_y"])
def test_secret_looking_fields_never_enter_the_key_or_the_store(name, tmp_path):
    leaked = {**REQUEST, name: "sk-live-DO-NOT-STORE"}
    assert request_key(leaked, epoch=1, version="1.0.0") == request_key(REQUEST, epoch=1, version="1.0.0")
    assert name not in request_material(leaked)
    store = ResponseCache(tmp_path / "c.sqlite")
    store.put("k", "openai/fake", leaked, "{}")
    (entry,) = store.entries()
    assert entry["request"] == request_material(REQUEST) == REQUEST
    store.close()
    assert b"sk-live-DO-NOT-STORE" not in b"".join(p.read_bytes() for p in tmp_path.iterdir())


@pytest.mark.parametrize("name", ["api_base", "base_url", "timeout", "num_retries", "extra_headers"])
def test_transport_fields_never_enter_the_key(name):
    assert request_key({**REQUEST, name: "x"}, epoch=1, version="1.0.0") == request_key(REQUEST, epoch=1,
                                                                                       version="1.0.0")


@pytest.mark.parametrize("name", ["keyword", "monkey", "top_k", "tokens", "max_tokens", "stop"])
def test_ordinary_fields_that_merely_look_alike_stay_in_the_key(name):
    assert request_key({**REQUEST, name: 7}, epoch=1, version="1.0.0") != request_key(REQUEST, epoch=1,
                                                                                     version="1.0.0")
    assert request_material({**REQUEST, name: 7})[name] == 7


def test_epoch_and_version_are_part_of_the_key():
    keys = {request_key(REQUEST, epoch=e, version=v) for e in (None, 0, 1) for v in ("1.0.0", "1.0.1")}
    assert len(keys) == 6
    # no version given: the installed task version is used
    assert request_key(REQUEST, epoch=1) == request_key(REQUEST, epoch=1, version=task_version())
    assert task_version() != "unknown"


def test_non_ascii_text_is_hashed_as_utf8_text():
    request = {"model": "m", "messages": [{"role": "user", "content": "净利润 €5"}]}
    text = '{"epoch": null, "request": {"messages": [{"content": "净利润 €5", "role": "user"}], "model": "m"}, ' \
           '"version": "v"}'
    assert request_key(request, version="v") == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_values_json_cannot_encode_are_hashed_by_their_text():
    class Opaque:
        def __str__(self) -> str:
            return "opaque"

    text = '{"epoch": null, "request": {"model": "m", "tool": "opaque"}, "version": "v"}'
    assert request_key({"model": "m", "tool": Opaque()}, version="v") == hashlib.sha256(text.encode()).hexdigest()


# --- the store ------------------------------------------------------------------------------------------

def test_put_get_entries_and_len(tmp_path):
    store = ResponseCache(tmp_path / "deep" / "dir" / "c.sqlite")  # parents are created
    assert store.get("nope") is None and len(store) == 0 and store.entries() == []
    store.put("k1", "openai/a", {**REQUEST, "api_key": "sk"}, '{"completion": "4"}')
    store.put("k2", "openai/b", {"model": "openai/b", "note": "净"}, '{"completion": "5"}')
    store.put("k1", "openai/a", REQUEST, '{"completion": "four"}')  # a later answer replaces
    assert store.get("k1") == '{"completion": "four"}' and store.get("k2") == '{"completion": "5"}'
    assert len(store) == 2
    entries = sorted(store.entries(), key=lambda e: e["key"])
    assert [(e["key"], e["model"], e["output"]) for e in entries] == [
        ("k1", "openai/a", '{"completion": "four"}'), ("k2", "openai/b", '{"completion": "5"}')]
    assert entries[0]["request"] == REQUEST and entries[1]["request"] == {"model": "openai/b", "note": "净"}
    assert all(isinstance(e["created"], float) and e["created"] > 1.6e9 for e in entries)
    store.close()
    # a second connection (another process of the run) sees what was committed
    again = ResponseCache(tmp_path / "deep" / "dir" / "c.sqlite")
    assert again.get("k2") == '{"completion": "5"}'
    raw = sqlite3.connect(str(tmp_path / "deep" / "dir" / "c.sqlite"))
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    stored = raw.execute("SELECT request FROM responses WHERE key = 'k2'").fetchone()[0]
    assert "净" in stored  # stored as text, not \\u escapes
    raw.close()
    again.close()


def test_open_cache_shares_one_object_per_path_and_forget_drops_it(tmp_path):
    path = str((tmp_path / "r.sqlite").resolve())
    first = open_cache(path)
    assert open_cache(path) is first
    first.put("k", "m", {}, "{}")
    forget(path)
    assert path not in cache_mod._OPEN
    second = open_cache(path)
    assert second is not first and second.get("k") == "{}"
    forget(tmp_path / "r.sqlite")
    forget(tmp_path / "never-opened.sqlite")  # nothing to do, no error


def test_a_symlinked_or_relative_spelling_shares_the_connection_and_forget_closes_it(tmp_path, monkeypatch):
    real = tmp_path / "real" / "r.sqlite"
    real.parent.mkdir()
    (tmp_path / "link").symlink_to(real.parent, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    first = open_cache(str(tmp_path / "link" / "r.sqlite"))
    assert open_cache("real/r.sqlite") is first and open_cache(real) is first
    forget(real)  # the path a run renames or replaces: the connection opened through the link is closed
    assert str(real.resolve()) not in cache_mod._OPEN and first not in cache_mod._OPEN.values()
    with pytest.raises(sqlite3.ProgrammingError):
        first.get("k")


def test_cache_from_env(tmp_path, monkeypatch):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert cache_from_env() is None
    monkeypatch.setenv(CACHE_ENV, "   ")
    assert cache_from_env() is None
    monkeypatch.setenv(CACHE_ENV, f" {tmp_path / 'env.sqlite'} ")
    found = cache_from_env()
    assert found is not None and found.path == (tmp_path / "env.sqlite").resolve()
    assert cache_from_env() is found
    forget(tmp_path / "env.sqlite")


def test_corruption_reasons(tmp_path):
    assert corruption(tmp_path / "absent.sqlite") is None
    good = ResponseCache(tmp_path / "good.sqlite")
    good.put("k", "m", {}, "{}")
    good.close()
    assert corruption(tmp_path / "good.sqlite") is None
    (tmp_path / "junk.sqlite").write_bytes(b"this is not a database" * 100)
    assert corruption(tmp_path / "junk.sqlite")  # SQLite's own message
    other = sqlite3.connect(str(tmp_path / "other.sqlite"))
    other.execute("CREATE TABLE responses (a TEXT, b TEXT)")
    other.close()
    assert corruption(tmp_path / "other.sqlite") == "not a response cache (table responses has columns a, b)"
    empty = sqlite3.connect(str(tmp_path / "empty.sqlite"))
    empty.execute("CREATE TABLE unrelated (x)")
    empty.close()
    assert corruption(tmp_path / "empty.sqlite") is None  # no responses table yet: the schema adds it


def test_a_corrupt_cache_is_set_aside_with_its_wal_files(tmp_path, monkeypatch):
    path = tmp_path / "responses.sqlite"
    assert set_aside_if_corrupt(path) is None
    monkeypatch.setattr(cache_mod.time, "strftime", lambda fmt: "20260101-000000")
    path.write_bytes(b"garbage" * 500)
    warning = set_aside_if_corrupt(path)
    assert warning is not None and "\n" not in warning
    assert warning.startswith(f"warning: the response cache {path} is unreadable (")
    assert warning.endswith("; set aside as responses.sqlite.corrupt-20260101-000000, continuing with a fresh "
                            "cache (answers it held are requested again)")
    # WAL side files travel with it (SQLite may drop them when it opens garbage: judge the move alone)
    monkeypatch.setattr(cache_mod, "corruption", lambda p: "database disk image is malformed")
    for name, data in (("responses.sqlite", b"db"), ("responses.sqlite-wal", b"w"), ("responses.sqlite-shm", b"s")):
        (tmp_path / name).write_bytes(data)
    assert "corrupt-20260101-000000-2" in set_aside_if_corrupt(path)
    path.write_bytes(b"db3")
    assert "corrupt-20260101-000000-3" in set_aside_if_corrupt(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "responses.sqlite.corrupt-20260101-000000", "responses.sqlite.corrupt-20260101-000000-2",
        "responses.sqlite.corrupt-20260101-000000-2-shm", "responses.sqlite.corrupt-20260101-000000-2-wal",
        "responses.sqlite.corrupt-20260101-000000-3"]
    assert (tmp_path / "responses.sqlite.corrupt-20260101-000000-2-wal").read_bytes() == b"w"
    assert (tmp_path / "responses.sqlite.corrupt-20260101-000000-2-shm").read_bytes() == b"s"
    monkeypatch.undo()
    fresh = ResponseCache(path)
    fresh.put("k", "m", {}, "{}")
    assert len(fresh) == 1
    fresh.close()


def test_setting_aside_closes_this_process_connection_first(tmp_path, monkeypatch):
    path = tmp_path / "responses.sqlite"
    open_cache(str(path.resolve())).put("k", "m", {}, "{}")
    monkeypatch.setattr(cache_mod, "corruption", lambda p: "bad " * 100)
    warning = set_aside_if_corrupt(path)
    assert str(path.resolve()) not in cache_mod._OPEN
    assert "(bad bad" in warning and "…)" in warning  # the reason shortened to one line


def test_one_line_shortens_long_reasons():
    assert cache_mod._one_line("a\n b\t c") == "a b c"
    assert cache_mod._one_line("x" * 120) == "x" * 120
    assert cache_mod._one_line("x" * 121) == "x" * 119 + "…"
    assert cache_mod._one_line("abcdef", limit=4) == "abc…"


def test_the_version_falls_back_to_unknown_when_versioning_fails(monkeypatch):
    import finchain_tasks.finchain.versioning as versioning

    def broken() -> str:
        raise RuntimeError("no metadata")

    monkeypatch.setattr(versioning, "task_version", broken)
    assert task_version() == "unknown"
    assert request_key(REQUEST, epoch=1) == request_key(REQUEST, epoch=1, version="unknown")


def test_stored_request_is_the_material_as_json(tmp_path):
    store = ResponseCache(tmp_path / "c.sqlite")
    store.put("k", "m", {"b": 1, "a": 2, "timeout": 5}, "{}")
    raw = store._db.execute("SELECT request FROM responses").fetchone()[0]
    assert json.loads(raw) == {"b": 1, "a": 2}
    store.close()


# --- what the first mutation run left alive (see tests/MUTANTS.md) -------------------------------------

def test_the_store_is_usable_from_another_thread(tmp_path):
    import threading

    store = ResponseCache(tmp_path / "c.sqlite")
    found: list = []
    worker = threading.Thread(target=lambda: (store.put("k", "m", {}, "{}"), found.append(store.get("k"))))
    worker.start()
    worker.join()
    assert found == ["{}"]
    store.close()


def test_a_request_value_json_cannot_encode_is_stored_as_its_text(tmp_path):
    class Opaque:
        def __str__(self) -> str:
            return "opaque"

    store = ResponseCache(tmp_path / "c.sqlite")
    store.put("k", "m", {"tool": Opaque()}, "{}")
    assert store.entries()[0]["request"] == {"tool": "opaque"}
    store.close()


def test_the_reason_is_sqlites_own_message(tmp_path):
    (tmp_path / "junk.sqlite").write_bytes(b"this is not a database" * 100)
    assert corruption(tmp_path / "junk.sqlite") == "file is not a database"


def test_a_failed_integrity_check_is_a_reason(tmp_path):
    """A damaged page that SQLite can still open: quick_check answers with its findings instead of "ok"."""
    path = tmp_path / "damaged.sqlite"
    db = sqlite3.connect(str(path))
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL, "
               "output TEXT NOT NULL, created REAL NOT NULL)")
    db.executemany("INSERT INTO responses VALUES (?, ?, ?, ?, ?)",
                   [(f"k{i:05d}", "m", "{}", "x" * 50, 1.0) for i in range(2000)])
    db.commit()
    db.close()
    data = bytearray(path.read_bytes())
    start = len(data) - 3 * 4096 + 200
    data[start:start + 400] = b"A" * 400
    path.write_bytes(bytes(data))
    reason = corruption(path)
    assert reason is not None and reason.startswith("integrity check: *** in database main ***")
    warning = set_aside_if_corrupt(path)
    assert warning is not None and "\n" not in warning
    assert "(integrity check: *** in database main *** On tree" in warning


def test_the_aside_name_carries_the_time_it_was_set_aside(tmp_path):
    import re

    path = tmp_path / "responses.sqlite"
    path.write_bytes(b"garbage" * 500)
    set_aside_if_corrupt(path)
    (aside,) = tmp_path.iterdir()
    assert re.fullmatch(r"responses\.sqlite\.corrupt-20\d{6}-\d{6}", aside.name), aside.name


def test_a_writer_waits_for_another_connection_to_finish_writing(tmp_path):
    """Processes of one run share the file: a put while another connection holds the write lock waits for
    it (up to 30 s) instead of failing at SQLite's default 5 s. The lock is held here for 6 s."""
    import threading
    import time

    path = tmp_path / "c.sqlite"
    store = ResponseCache(path)
    other = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(6.0, lambda: other.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    store.put("k", "m", {}, "{}")
    assert time.monotonic() - started >= 5.5 and store.get("k") == "{}"
    release.join()
    other.close()
    store.close()
