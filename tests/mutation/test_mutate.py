"""``make mutate``'s bookkeeping: which test files recheck a survivor, and how a recheck's verdict counts. The
recheck exists because mutmut credits a module-scoped fixture's calls to the first test that built it, so a
survivor can be one the rest of that file kills."""

from __future__ import annotations

import json

from tests.mutation.mutate import _covering_files, _tally

STATS = {"tests_by_mangled_function_name": {
    "pkg.mod.x_render": ["tests/a.py::test_one", "tests/a.py::test_two[x]", "tests/b.py::test_three"],
    "pkg.mod.xǁBoxǁopen": ["tests/c.py::TestBox::test_open"],
}}


def test_a_survivor_is_rechecked_with_every_file_holding_a_test_of_its_function():
    assert _covering_files(STATS, "pkg.mod.x_render__mutmut_12") == ["tests/a.py", "tests/b.py"]
    assert _covering_files(STATS, "pkg.mod.xǁBoxǁopen__mutmut_3") == ["tests/c.py"]


def test_a_function_no_test_called_has_no_file_to_recheck_with():
    assert _covering_files(STATS, "pkg.mod.x_other__mutmut_1") == []
    assert _covering_files({}, "pkg.mod.x_render__mutmut_1") == []


def _build(tmp_path, codes, rechecked=None):
    meta = tmp_path / "mutants" / "pkg" / "mod.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    if rechecked is not None:
        (tmp_path / "recheck.json").write_text(json.dumps(rechecked))
    return _tally(tmp_path, ["pkg/mod.py"])["pkg/mod.py"]


def test_a_survivor_killed_on_recheck_counts_as_killed_and_is_reported_as_such(tmp_path):
    codes = {"m1": 1, "m2": 0, "m3": 0, "m4": 33, "m5": None, "m6": -24}
    count = _build(tmp_path, codes, {"m2": "killed", "m3": "survived"})
    assert (count["killed"], count["on recheck"], count["survived"], count["no tests"], count["not checked"]) == (
        3, 1, 1, 1, 1)
    assert count["_names"] == ["m3"]


def test_without_a_recheck_mutmuts_verdicts_stand(tmp_path):
    count = _build(tmp_path, {"m1": 1, "m2": 0})
    assert (count["killed"], count["survived"], count["on recheck"]) == (1, 1, 0)
