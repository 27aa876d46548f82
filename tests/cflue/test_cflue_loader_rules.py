"""CFLUE loader rules the mutation run (group ``cflue_loader``) found unpinned: what a malformed file, record or
``choices`` string reads as, which records are kept, and which are reported with which reason and index.

Every input here is written for this file in the official record shape; none is a line of the authors' data."""

import hashlib
import json
import sys
from pathlib import Path

import pytest

from finchain_tasks.cflue.loader import (
    MULTI,
    SINGLE,
    TRUE_FALSE,
    CflueDataError,
    load_cflue,
    parse_choices,
    select,
    validate_record,
    validate_rows,
)

GOOD = {"名称": "基金从业资格", "task": SINGLE, "question": "下列属于货币市场工具的是（ ）。",
        "choices": "{'A': '股票', 'B': '短期国债', 'C': '公司债', 'D': '可转债'}", "answer": "B", "analysis": None}


def _dump(tmp_path, text: str, name: str = "data.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_kept_record_carries_every_field_as_read(tmp_path):
    row = {**GOOD, "名称": " 基金从业资格 ", "question": " 问题？ ", "analysis": " 解析。 "}
    data = load_cflue(_dump(tmp_path, json.dumps([GOOD, row], ensure_ascii=False)))
    record = data.records[1]
    assert (record.index, record.exam, record.question, record.analysis) == (1, "基金从业资格", "问题？", " 解析。 ")
    assert record.choices == {"A": "股票", "B": "短期国债", "C": "公司债", "D": "可转债"}
    assert data.invalid == [] and data.source == str(tmp_path / "data.json")


def _reason(changes: dict) -> str:
    with pytest.raises(ValueError) as err:
        validate_record({**GOOD, **changes}, 0)
    return str(err.value)


LONG = "字段" + "x" * 48
SIX = "{'A': '1', 'B': '2', 'C': '3', 'D': '4', 'E': '5', 'F': '6'}"


@pytest.mark.parametrize(("changes", "reason"), [
    # the choices string: what each malformed shape reads as
    ({"choices": "['A', 'B']"}, "choices is not a dict literal (it starts with '[')"),
    ({"choices": "  "}, "choices is not a dict literal (it starts with nothing)"),
    ({"choices": "x" * 20_000}, "choices is not a dict literal (it starts with 'xxxxxxxxxxxxxxxxxxxx')"),
    ({"choices": "x" * 20_001}, "choices string is longer than 20000 characters"),
    ({"choices": "{'A': 'x', 'B': 'y'}\x00"}, "choices holds a NUL character"),
    ({"choices": "{'A' 'x', 'B': 'y'}"}, "choices is not a Python dict literal (expected ':' after key 'Ax')"),
    ({"choices": "{'A': 'x' 'B': 'y'}"}, "choices is not a Python dict literal (expected ',' or '}', found ':')"),
    ({"choices": "{'A': 'x', 'B': 'y'} 1"}, "choices is not a Python dict literal (text after the closing brace)"),
    ({"choices": "{'A': 'x', 'B': 'y'}1"}, "choices is not a Python dict literal (text after the closing brace)"),
    ({"choices": "# note\n['A']"}, "choices is not a dict literal (it starts with '[')"),
    ({"choices": "{'A': 'x' " + "b" * 30 + "}"},
     "choices is not a Python dict literal (expected ',' or '}', found '" + "b" * 20 + "')"),
    # no literal where a string must be: an unclosed (prefixed) string, or something else
    ({"choices": "{'A': 'x', 'B': r'y}"}, "choices is not a Python dict literal (unclosed brace or string)"),
    ({"choices": "{'A': 'x', 'B': R'y}"}, "choices is not a Python dict literal (unclosed brace or string)"),
    ({"choices": "{'A': 'x', 'B': U\"y}"}, "choices is not a Python dict literal (unclosed brace or string)"),
    ({"choices": "{'A': 'x', 'B': ur'y'}"},
     "choices must map letters to plain strings (found a non-string or an expression)"),
    ({"choices": "{'A': 'x', 'B': X'y'}"},
     "choices must map letters to plain strings (found a non-string or an expression)"),
    ({"choices": "{'A': 'x', X'B': 'y'}"}, "choices is not a Python dict literal (a key is not a string)"),
    ({"choices": "{'A': 'x', 'A': 'y'}"}, "choices names the key 'A' twice"),
    ({"choices": "{'A': 'x', 'B': 'y',"}, "choices is not a Python dict literal (unclosed brace or string)"),
    ({"choices": "{'A': 'x', 'B': 'y"}, "choices is not a Python dict literal (unclosed brace or string)"),
    ({"choices": "{'A': 'x', B: 'y'}"}, "choices is not a Python dict literal (a key is not a string)"),
    ({"choices": "{'A': 'x', 'B': y}"},
     "choices must map letters to plain strings (found a non-string or an expression)"),
    ({"choices": "{'A': 'x', 'B': b'y'}"},
     "choices must map letters to plain strings (found a non-string or an expression)"),
    ({"choices": "{'A': 'x', 'B': '\\N{NOPE}'}"},
     "choices is not a Python dict literal (a string literal Python cannot read)"),
    ({"choices": None}, "choices must be a string holding a dict literal, not NoneType"),
    ({"choices": ["A", "B"]}, "choices must be a string holding a dict literal, not list"),
    # the options themselves
    ({"choices": {}}, "choices has 0 option(s); a question needs at least 2"),
    ({"choices": "{'A': 'x'}"}, "choices has 1 option(s); a question needs at least 2"),
    ({"choices": "{'A': 'x', 'AB': 'y'}"}, "choice key 'AB' is not a single upper-case letter"),
    ({"choices": "{'A': 'x', '': 'y'}"}, "choice key '' is not a single upper-case letter"),
    ({"choices": "{'A': 'x', '@': 'y'}"}, "choice key '@' is not a single upper-case letter"),
    ({"choices": "{'A': 'x', '[': 'y'}"}, "choice key '[' is not a single upper-case letter"),
    ({"choices": {"A": "x", 1: "y"}}, "choice key 1 is not a single upper-case letter"),
    ({"choices": {"A": "x", "B": 2}}, "choice B is not a string"),
    ({"choices": "{'A': 'x', 'B': '\\ud800'}"}, "choice B holds a lone surrogate (U+D800), which is not valid Unicode"),
    # the answer
    ({"answer": "E"}, "answer letter(s) E not among the choices ABCD"),
    ({"answer": "FE"}, "answer letter(s) EF not among the choices ABCD"),
    ({"answer": "１"}, "answer '１' is not option letters"),
    ({"answer": "Ａ"}, "answer 'Ａ' is not option letters"),
    ({"answer": " 、"}, "answer is empty"),
    ({"answer": None}, "answer must be a string of letters, not NoneType"),
    ({"answer": 1}, "answer must be a string of letters, not int"),
    ({"task": MULTI, "answer": "A B/C;D，E；F", "choices": SIX},
     "a 多项选择题 has 1-5 answer letters, got 'A B/C;D，E；F'"),
    ({"task": TRUE_FALSE, "choices": "{'A': '对', 'B': '错'}", "answer": "AB"},
     "a 判断题 has exactly one answer letter, got 'AB'"),
    ({"task": TRUE_FALSE, "choices": "{'A': '对', 'C': '错'}", "answer": "A"},
     "a 判断题 has exactly the options A and B (e.g. {'A': '对', 'B': '错'})"),
    # the other fields
    ({"task": "填空题"}, "unknown question type '填空题' (expected one of 单项选择题, 多项选择题, 判断题)"),
    ({"task": 3}, "field 'task' must be a non-empty string"),
    ({"名称": ""}, "field '名称' must be a non-empty string"),
    ({"名称": None}, "field '名称' must be a non-empty string"),
    ({"analysis": ["x"]}, "field 'analysis' must be a string or null"),
    ({"analysis": "\ud800"}, "field 'analysis' holds a lone surrogate (U+D800), which is not valid Unicode"),
    ({"question": "q\udfff"}, "field 'question' holds a lone surrogate (U+DFFF), which is not valid Unicode"),
    ({"extra": {"k\ud800": 1}}, "field 'extra' holds a lone surrogate (U+D800), which is not valid Unicode"),
    # a field's name is cut to 40 characters in a reason
    ({LONG + "\ud801": 1}, f"field name '{LONG[:40]}' holds a lone surrogate (U+D801), which is not valid Unicode"),
    ({LONG: "\ud801"}, f"field '{LONG[:40]}' holds a lone surrogate (U+D801), which is not valid Unicode"),
    ({LONG: json.loads("[" * 16 + "]" * 16)}, f"field '{LONG[:40]}' is nested more than 16 levels deep"),
    ({"\ud801": 1}, "field name '\\ud801' holds a lone surrogate (U+D801), which is not valid Unicode"),
    ({"extra": json.loads("[" * 16 + "]" * 16)}, "field 'extra' is nested more than 16 levels deep"),
    ({"extra": {"a": json.loads("[" * 15 + "]" * 15)}}, "field 'extra' is nested more than 16 levels deep"),
])
def test_each_malformed_record_reads_as_its_one_line_reason(changes, reason):
    assert _reason(changes) == reason


@pytest.mark.parametrize(("changes", "read"), [
    ({"choices": "{'A': 'x', 'B': r'y\\n'}"}, ({"A": "x", "B": "y\\n"}, "B")),
    ({"choices": "{'A': 'x', 'B': \"\"\"y\nz\"\"\"}"}, ({"A": "x", "B": "y\nz"}, "B")),
    ({"choices": "{'A': 'x', # a comment\n 'B': 'y' 'z', }"}, ({"A": "x", "B": "yz"}, "B")),
    ({"choices": "\n{'Z': 'x', 'B': U'y'}  ", "answer": "z"}, ({"B": "y", "Z": "x"}, "Z")),
    ({"task": MULTI, "answer": "E D C B A", "choices": SIX}, ({**parse_choices(SIX)}, "ABCDE")),
    ({"task": MULTI, "answer": "b;b"}, (parse_choices(GOOD["choices"]), "B")),
    ({"choices": "{'A':'x','B':'y''z'}"}, ({"A": "x", "B": "yz"}, "B")),  # no spaces, read by the token scan
    ({"choices": "# options\n{'A': 'x', 'B': 'y'}"}, ({"A": "x", "B": "y"}, "B")),
    ({"task": " 单项选择题 ", "answer": "c"}, (parse_choices(GOOD["choices"]), "C")),
    ({"extra": json.loads("[" * 15 + "]" * 15)}, (parse_choices(GOOD["choices"]), "B")),
])
def test_what_a_valid_record_reads_as(changes, read):
    record = validate_record({**GOOD, **changes}, 0)
    assert (record.choices, record.answer) == read
    assert list(record.choices) == sorted(record.choices) and record.task in (SINGLE, MULTI)


ROW = json.dumps(GOOD, ensure_ascii=False)
BOMB = "[" * 100_000 + "]" * 100_000  # past the JSON parser's stack: the list is then split element by element


@pytest.mark.parametrize(("name", "text", "invalid", "kept"), [
    ("bom.json", "\ufeff[" + ROW + "]", [], [0]),
    ("empty.json", "[]", [], []),
    ("lines.json", ROW + "\n" + ROW + "\n", [], [0, 1]),  # a .json that is JSONL is read as JSONL
    ("bad.ndjson", ROW + "\n\n{bad\n" + ROW + "\n", [(1, "line 3: not valid JSON: Expecting property name "
                                                          "enclosed in double quotes")], [0, 2]),
    # a JSONL file whose first record is a list: only its suffix keeps it from being read as one JSON list
    ("upper.JSONL", "[1]\n" + ROW + "\n", [(0, "line 1: record is a list, not a JSON object")], [1]),
    ("lower.jsonl", "[1]\n" + ROW + "\n", [(0, "line 1: record is a list, not a JSON object")], [1]),
    ("upper.NDJSON", "[1]\n" + ROW + "\n", [(0, "line 1: record is a list, not a JSON object")], [1]),
    ("lower.ndjson", "[1]\n" + ROW + "\n", [(0, "line 1: record is a list, not a JSON object")], [1]),
    ("numbers.jsonl", ROW + "\n" + "9" * 200 + "\n" + json.dumps({k: GOOD[k] for k in ("名称", "task", "question")}),
     [(1, "line 2: record is a number of 200 digits, not a JSON object"),
      (2, "line 3: missing field(s) choices, answer, analysis")], [0]),
    ("quotes.json", f"[{BOMB}, " + '"' + '\\"' * 20_000 + f'", {ROW}]',
     [(0, "nested too deeply to read (a JSON depth bomb)"), (1, "record is a str, not a JSON object")], [2]),
    ("split.json", f" [{ROW}, {BOMB}, , {{bad}}, {'9' * 200}, \"a,]\", {{\"x\": \"[{{\"}}, {ROW}]",
     [(1, "nested too deeply to read (a JSON depth bomb)"), (2, "not valid JSON: Expecting value"),
      (3, "not valid JSON: Expecting property name enclosed in double quotes"),
      (4, "record is a number of 200 digits, not a JSON object"), (5, "record is a str, not a JSON object"),
      (6, "missing field(s) 名称, task, question, choices, answer, analysis")], [0, 7]),
])
def test_which_records_a_file_keeps_and_which_it_reports(tmp_path, name, text, invalid, kept):
    data = load_cflue(_dump(tmp_path, text, name))
    assert data.invalid == invalid
    assert [r.index for r in data.records] == kept and all(r.question == GOOD["question"] for r in data.records)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("object.json", '{"records": []}', "expected a JSON list of records (or JSONL), found a dict"),
    ("string.json", '  "x"', "expected a JSON list of records (or JSONL), found a str"),
    ("broken.json", "[" + ROW + ",\n {]", "invalid JSON at line 2, column 3: Expecting property name enclosed in "
                                          "double quotes"),
    ("after.json", f"[{ROW}, {BOMB}] x", "invalid JSON: text after the closing ']'"),
    ("open.json", f"[{ROW}, {BOMB}", "invalid JSON: the list is never closed"),
    # a string that never closes after a bomb: everything after its quote is inside it (issue 40: a scan that
    # retried each escaped quote as a string's start took minutes on 20,000 of them)
    ("unclosed.json", f"[{ROW}, {BOMB},\n " + '"' + '\\"' * 20_000 + "]",
     "invalid JSON: a string opened on line 2 is never closed"),
    ("bare.json", f"[{ROW}, {BOMB}, " + '\\"' * 20_000 + "]",
     "invalid JSON: a string opened on line 1 is never closed"),
    ("blank.jsonl", "\n \n", "no records (expected a JSON list or JSONL)"),
    ("empty.json", "", "no records (expected a JSON list or JSONL)"),
])
def test_a_file_that_cannot_be_read_is_one_error_naming_it(tmp_path, name, text, message):
    path = _dump(tmp_path, text, name)
    with pytest.raises(CflueDataError) as err:
        load_cflue(path)
    assert str(err.value) == f"{path}: {message}"


def test_a_file_that_is_not_utf8_is_one_error_naming_it(tmp_path):
    path = tmp_path / "utf16.json"
    path.write_bytes("[]".encode("utf-16"))
    with pytest.raises(CflueDataError, match=r"utf16\.json: cannot read CFLUE file \('utf-8' codec can't decode"):
        load_cflue(path)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("bomb.jsonl", f"{ROW}\n{BOMB}\n{ROW}", "record 1: line 2: nested too deeply to read (a JSON depth bomb)"),
    ("bad.jsonl", f"{ROW}\n\n{{x\n", "record 1: line 3: not valid JSON: Expecting property name enclosed in "
                                     "double quotes"),
    ("int.json", f"[{ROW}, 5]", "record 1: record is a int, not a JSON object"),
])
def test_strict_stops_at_the_first_bad_record_naming_file_record_and_line(tmp_path, name, text, message):
    path = _dump(tmp_path, text, name)
    with pytest.raises(CflueDataError) as err:
        load_cflue(path, strict=True)
    assert str(err.value) == f"{path}: {message}"


ADVICE = ("download the CFLUE file (e.g. data/knowledge/knowledge.json of github.com/aliyun/cflue, or the ModelScope "
          "release tongyi_dianjin/CFLUE) and pass its local path, or set CFLUE_PATH")


@pytest.fixture
def online(monkeypatch, tmp_path):
    """No offline switch set, run from an empty folder (so ``owner/name`` is no local path)."""
    monkeypatch.chdir(tmp_path)
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


class _Hub:
    """Stands in for the ``datasets`` package (the network), not for the loader: answers one dataset."""

    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def load_dataset(self, name, split=None):
        self.calls.append((name, split))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_hub_dataset_of_one_split_is_read_and_split_is_passed_on(online):
    hub = _Hub({"test": [GOOD, {**GOOD, "answer": "Z"}]})
    online.setitem(sys.modules, "datasets", hub)
    data = load_cflue("some-one/cflue.v2", split="test")
    assert hub.calls == [("some-one/cflue.v2", "test")] and data.source == "some-one/cflue.v2"
    assert [r.index for r in data.records] == [0]
    assert data.invalid == [(1, "answer letter(s) Z not among the choices ABCD")]
    hub.answer = [GOOD]  # a dataset loaded with a split is a list of rows already
    assert len(load_cflue("some-one/cflue.v2").records) == 1
    hub.answer = [GOOD, {**GOOD, "answer": "Z"}]
    with pytest.raises(CflueDataError) as err:
        load_cflue("some-one/cflue.v2", strict=True)
    assert str(err.value) == "some-one/cflue.v2: record 1: answer letter(s) Z not among the choices ABCD"


def test_validate_rows_reports_by_default_and_raises_only_when_strict():
    data = validate_rows([{**GOOD, "answer": "Z"}, GOOD], "rows")
    assert data.invalid == [(0, "answer letter(s) Z not among the choices ABCD")] and len(data.records) == 1
    with pytest.raises(CflueDataError, match=r"^rows: record 0: answer letter\(s\) Z"):
        validate_rows([{**GOOD, "answer": "Z"}, GOOD], "rows", strict=True)


def test_a_hub_dataset_of_several_splits_asks_for_one(online):
    online.setitem(sys.modules, "datasets", _Hub({"dev": [GOOD], "test": [GOOD]}))
    with pytest.raises(CflueDataError) as err:
        load_cflue("someone/cflue")
    assert str(err.value) == "someone/cflue: choose a split with split=... (available: dev, test)"


def test_a_failing_hub_and_a_missing_datasets_package_each_say_what_to_do(online):
    online.setitem(sys.modules, "datasets", _Hub(ConnectionError("no route")))
    with pytest.raises(CflueDataError) as err:
        load_cflue("someone/cflue")
    assert str(err.value) == ("someone/cflue: not a local file, and loading it as a hub dataset failed "
                              f"(ConnectionError: no route): {ADVICE}")
    online.setitem(sys.modules, "datasets", None)  # import datasets then raises ImportError
    with pytest.raises(CflueDataError) as err:
        load_cflue("someone/cflue")
    assert str(err.value) == f"someone/cflue: not a local file, and `datasets` is not installed: {ADVICE}"


@pytest.mark.parametrize("value", ["1", "true", " YES ", "On"])
@pytest.mark.parametrize("var", ["HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"])
def test_either_offline_switch_stops_a_hub_load_before_it_starts(online, var, value):
    hub = _Hub([GOOD])
    online.setitem(sys.modules, "datasets", hub)
    online.setenv(var, value)
    with pytest.raises(CflueDataError) as err:
        load_cflue("someone/cflue")
    assert str(err.value) == f"someone/cflue: not a local file, and hub datasets cannot be fetched offline: {ADVICE}"
    assert hub.calls == []


@pytest.mark.parametrize("value", ["0", "", "false", "no"])
def test_an_offline_switch_set_to_no_leaves_the_hub_open(online, value):
    hub = _Hub([GOOD])
    online.setitem(sys.modules, "datasets", hub)
    online.setenv("HF_HUB_OFFLINE", value)
    assert len(load_cflue("someone/cflue").records) == 1 and hub.calls == [("someone/cflue", None)]


@pytest.mark.parametrize("source", ["someone/cflue.json", "someone/cflue.JSONL", "someone/c.ndjson", "a/b/c",
                                    "/abs/cflue", "-x/cflue", "someone/", "cflue"])
def test_what_is_not_a_hub_id_is_a_missing_file(online, source):
    hub = _Hub([GOOD])
    online.setitem(sys.modules, "datasets", hub)
    with pytest.raises(CflueDataError) as err:
        load_cflue(source)
    assert str(err.value) == (f"{Path(source)}: CFLUE file not found (pass an existing JSON/JSONL file or set "
                              "CFLUE_PATH)")
    assert hub.calls == []


def test_a_folder_is_refused_and_the_env_var_is_read_stripped(tmp_path, monkeypatch):
    with pytest.raises(CflueDataError) as err:
        load_cflue(tmp_path)
    assert str(err.value) == f"{tmp_path}: not a file (pass the JSON/JSONL file itself)"
    path = _dump(tmp_path, json.dumps([GOOD], ensure_ascii=False))
    monkeypatch.setenv("CFLUE_PATH", f"  {path}\n")
    assert load_cflue().source == str(path)
    for unset in (lambda: monkeypatch.setenv("CFLUE_PATH", "  "), lambda: monkeypatch.delenv("CFLUE_PATH")):
        unset()
        with pytest.raises(CflueDataError) as err:
            load_cflue()
        assert str(err.value) == ("no CFLUE data given: pass a path or set CFLUE_PATH "
                                  "(see finchain_tasks/cflue/README.md)")


def test_a_record_s_id_metadata_and_dict_are_what_reports_show():
    record = validate_record({**GOOD, "task": MULTI, "answer": "CB", "analysis": "解析"}, 7)
    assert record.id == "cflue/7-" + hashlib.sha256(GOOD["question"].encode("utf-8")).hexdigest()[:8]
    assert record.metadata() == {"exam": "基金从业资格", "type": MULTI, "type_slug": "multiple_choice", "index": 7,
                                 "valid_letters": "ABCD", "has_analysis": True}
    assert record.to_dict() == {"id": record.id, "index": 7, "exam": "基金从业资格", "task": MULTI,
                                "question": GOOD["question"], "choices": parse_choices(GOOD["choices"]),
                                "answer": "BC", "analysis": "解析"}
    assert validate_record(GOOD, 0).metadata()["has_analysis"] is False
    true_false = {**GOOD, "task": TRUE_FALSE, "choices": "{'B': '错', 'A': '对'}"}
    assert validate_record(true_false, 0).type_slug == "true_false"


def _records():
    return [validate_record({**GOOD, "名称": exam, "task": task, "choices": "{'A': '对', 'B': '错'}"}, i)
            for i, (exam, task) in enumerate([("甲", SINGLE), ("乙", MULTI), ("甲", TRUE_FALSE), ("乙", SINGLE)])]


@pytest.mark.parametrize(("types", "exams", "kept"), [
    (None, None, [0, 1, 2, 3]),
    (["single_choice"], None, [0, 3]),
    ([MULTI, "true_false"], None, [1, 2]),
    (None, ["乙"], [1, 3]),
    (["single_choice"], ["甲"], [0]),
    ([], None, []),
    (None, [], []),
])
def test_select_keeps_the_records_of_the_given_types_and_exams(types, exams, kept):
    assert [r.index for r in select(_records(), types=types, exams=exams)] == kept


def test_select_names_an_unknown_type_and_the_known_ones():
    with pytest.raises(ValueError) as err:
        select(_records(), types=["single_choice", "essay", "填空题"])
    assert str(err.value) == ("unknown question type(s) ['essay', '填空题']; known: ['单项选择题', '多项选择题', "
                              "'判断题', 'single_choice', 'multiple_choice', 'true_false']")


@pytest.mark.parametrize(("number", "reason"), [
    ("7", None), ("-" + "7" * 100, None), ("7" * 100, None),
    ("7" * 101, "field 'extra' holds a number of 101 digits"),
    ("-" + "7" * 101, "field 'extra' holds a number of 101 digits"),
])
def test_numbers_up_to_100_digits_are_read_and_longer_ones_refuse_their_record(tmp_path, number, reason):
    """A number in a field the loader does not use is harmless; one past MAX_INT_DIGITS is refused unconverted."""
    text = "[" + ROW[:-1] + f', "extra": [{number}]' + "}]"
    data = load_cflue(_dump(tmp_path, text))
    assert data.invalid == ([] if reason is None else [(0, reason)])
    assert len(data.records) == (1 if reason is None else 0)


def test_a_long_field_name_is_cut_to_40_characters_in_the_reason(tmp_path):
    text = "[" + ROW[:-1] + f', "{LONG}": ' + "7" * 101 + "}]"
    assert load_cflue(_dump(tmp_path, text)).invalid == [(0, f"field '{LONG[:40]}' holds a number of 101 digits")]
