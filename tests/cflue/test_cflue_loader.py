"""CFLUE loader: the shipped sample, every malformed fixture, hub-id handling, and prompts."""

import ast
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchain_tasks.cflue import prompts
from finchain_tasks.cflue.loader import (
    MULTI,
    SAMPLE_PATH,
    SINGLE,
    TRUE_FALSE,
    CflueDataError,
    load_cflue,
    parse_choices,
    record_id,
    select,
    validate_record,
)
from tests.support.timeouts import limit

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = {"名称": "证券从业资格", "task": SINGLE, "question": "目前我国A股市场实行的交易制度是（ ）。",
        "choices": "{'A': 'T+0', 'B': 'T+1', 'C': 'T+2', 'D': 'T+3'}", "answer": "B", "analysis": "T+1。"}


def _write(tmp_path, rows, name="data.json"):
    path = tmp_path / name
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


def test_sample_loads_clean_with_all_types_and_several_exams():
    data = load_cflue(SAMPLE_PATH)
    assert data.invalid == []
    assert len(data.records) >= 36
    types = {r.task for r in data.records}
    assert types == {SINGLE, MULTI, TRUE_FALSE}
    assert len({r.exam for r in data.records}) >= 8
    assert any(r.analysis is None for r in data.records)
    assert any(len(r.answer) >= 3 for r in data.records if r.task == MULTI)
    assert all(r.choices == {"A": "对", "B": "错"} for r in data.records if r.task == TRUE_FALSE)
    assert len({r.id for r in data.records}) == len(data.records)


def test_record_fields_metadata_and_stable_id():
    record = load_cflue(SAMPLE_PATH).records[0]
    assert record.id == record_id(0, record.question)
    assert record.id.startswith("cflue/0-") and len(record.id.split("-")[-1]) == 8
    assert record.metadata()["exam"] == record.exam
    assert record.metadata()["type"] == record.task
    assert record.metadata()["type_slug"] in {"single_choice", "multiple_choice", "true_false"}
    assert record.valid_letters == "".join(sorted(record.choices))
    assert record_id(0, "甲") != record_id(0, "乙") and record_id(0, "甲") == record_id(0, "甲")


def test_env_var_supplies_the_path(monkeypatch):
    monkeypatch.setenv("CFLUE_PATH", str(SAMPLE_PATH))
    assert len(load_cflue().records) == len(load_cflue(SAMPLE_PATH).records)


def test_no_source_at_all_says_how_to_give_one(monkeypatch):
    monkeypatch.delenv("CFLUE_PATH", raising=False)
    with pytest.raises(CflueDataError, match="CFLUE_PATH"):
        load_cflue()


def test_jsonl_is_accepted_and_equivalent(tmp_path):
    rows = json.loads(SAMPLE_PATH.read_text(encoding="utf-8"))
    path = tmp_path / "knowledge.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    assert load_cflue(path).records == load_cflue(SAMPLE_PATH).records


@pytest.mark.parametrize(("fixture", "index", "reason"), [
    ("choices_not_dict.json", 1, "not a dict literal"),
    ("answer_not_in_choices.json", 1, "not among the choices"),
    ("unknown_type.json", 1, "unknown question type '填空题'"),
    ("missing_field.json", 2, "missing field(s) answer"),
    ("choices_code.json", 1, "not a dict literal"),
])
def test_invalid_records_are_reported_and_strict_raises(fixture, index, reason):
    data = load_cflue(FIXTURES / fixture)
    assert [i for i, _ in data.invalid][0] == index
    assert reason in data.invalid[0][1]
    assert len(data.records) >= 1  # the good record before it is kept
    with pytest.raises(CflueDataError) as info:
        load_cflue(FIXTURES / fixture, strict=True)
    assert fixture in str(info.value) and f"record {index}" in str(info.value) and reason in str(info.value)


def test_jsonl_invalid_record_names_its_line(tmp_path):
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(GOOD, ensure_ascii=False) + "\n\n" + json.dumps({**GOOD, "answer": "Q"}) + "\n",
                    encoding="utf-8")
    data = load_cflue(path)
    assert data.invalid == [(1, "line 3: answer letter(s) Q not among the choices ABCD")]
    with pytest.raises(CflueDataError, match=r"dev\.jsonl: record 1: line 3: answer letter"):
        load_cflue(path, strict=True)


def test_jsonl_record_with_a_line_separator_in_its_text_stays_one_record(tmp_path):
    """U+2028, NEL and form feed are text inside a JSON string (json.dumps leaves them raw): not line ends."""
    odd = {**GOOD, "question": GOOD["question"] + "\u2028第二行\x85\x0c"}
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(odd, ensure_ascii=False) + "\n" + json.dumps(GOOD, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    data = load_cflue(path)
    assert data.invalid == [] and len(data.records) == 2
    assert "\u2028第二行" in data.records[0].question


def test_bad_json_names_file_and_line():
    with pytest.raises(CflueDataError, match=r"bad_json\.json: invalid JSON at line \d+"):
        load_cflue(FIXTURES / "bad_json.json")


def test_jsonl_bad_line_is_one_invalid_record_naming_its_line():
    data = load_cflue(FIXTURES / "bad_line.jsonl")
    assert len(data.records) == 2  # the lines around it still load
    assert [i for i, _ in data.invalid] == [1] and data.invalid[0][1].startswith("line 2: not valid JSON")
    with pytest.raises(CflueDataError, match=r"bad_line\.jsonl: record 1: line 2: not valid JSON"):
        load_cflue(FIXTURES / "bad_line.jsonl", strict=True)


def test_code_in_choices_is_never_executed(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    data = load_cflue(FIXTURES / "choices_code.json")
    assert [i for i, _ in data.invalid] == [1, 2]
    assert "expression" in data.invalid[1][1]
    assert not (tmp_path / "cflue_pwned_marker").exists()
    assert not (tmp_path / "cflue_pwned_marker2").exists()
    assert "pwned" not in capfd.readouterr().out


def test_the_code_fixture_is_a_live_payload(tmp_path, monkeypatch):
    """Guard for the test above: evaluating the payload really would leave the marker file."""
    monkeypatch.chdir(tmp_path)
    payload = json.loads((FIXTURES / "choices_code.json").read_text(encoding="utf-8"))[2]["choices"]
    eval(payload)  # deliberately, in a temporary directory, to prove the fixture bites
    assert (tmp_path / "cflue_pwned_marker2").read_text() == "pwned"


def test_missing_file_is_one_clear_error(tmp_path):
    with pytest.raises(CflueDataError, match="knowledge.json: CFLUE file not found"):
        load_cflue(tmp_path / "knowledge.json")
    with pytest.raises(CflueDataError, match="not a file"):
        load_cflue(tmp_path)


def test_hub_id_offline_says_to_download(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CflueDataError, match="tongyi_dianjin/CFLUE.*offline.*download.*local path"):
        load_cflue("tongyi_dianjin/CFLUE")


def test_hub_rows_go_through_the_same_validation(monkeypatch, tmp_path):
    datasets = pytest.importorskip("datasets")
    monkeypatch.chdir(tmp_path)
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    calls = []

    def fake_load_dataset(name, split=None):  # stands in for the network, not for the loader
        calls.append((name, split))
        return {"train": [GOOD, {**GOOD, "answer": "Z"}]}

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    data = load_cflue("someone/cflue-copy")
    assert calls == [("someone/cflue-copy", None)]
    assert len(data.records) == 1 and data.invalid[0][0] == 1 and data.source == "someone/cflue-copy"

    def failing(name, split=None):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(datasets, "load_dataset", failing)
    with pytest.raises(CflueDataError, match="ConnectionError.*download the CFLUE file"):
        load_cflue("someone/cflue-copy")


@pytest.mark.parametrize(("changes", "reason"), [
    ({"answer": "AB"}, "exactly one answer letter"),
    ({"task": MULTI, "answer": "ABCDEF",
      "choices": "{'A': '1', 'B': '2', 'C': '3', 'D': '4', 'E': '5', 'F': '6'}"}, "1-5 answer letters"),
    ({"task": TRUE_FALSE, "choices": "{'A': '对', 'B': '错', 'C': '不确定'}", "answer": "A"}, "options A and B"),
    ({"answer": ""}, "answer is empty"),
    ({"answer": 1}, "answer must be a string"),
    ({"answer": "B1"}, "not option letters"),
    ({"question": "  "}, "'question' must be a non-empty string"),
    ({"analysis": 3}, "'analysis' must be a string or null"),
    ({"choices": "{'A': 'x'}"}, "at least 2"),
    ({"choices": "{'a': 'x', 'b': 'y'}", "answer": "a"}, "not a single upper-case letter"),
    ({"choices": "{'A': 1, 'B': 2}"}, "plain strings"),
    ({"choices": "{'A': 'x', 'B': 'y'"}, "not a Python dict literal"),
    ({"choices": "{'A': 'x', " + "'B': 'y', " * 3000 + "}"}, "longer than"),
    ({"choices": 42}, "must be a string"),
])
def test_record_rules(changes, reason):
    with pytest.raises(ValueError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        validate_record({**GOOD, **changes}, 0)


def test_answers_are_normalised_and_real_dicts_accepted():
    record = validate_record({**GOOD, "task": MULTI, "answer": "d, a、b"}, 0)
    assert record.answer == "ABD"
    record = validate_record({**GOOD, "choices": {"B": "T+1", "A": "T+0"}, "analysis": " "}, 3)
    assert list(record.choices) == ["A", "B"] and record.analysis is None and record.index == 3
    true_false = {**GOOD, "task": TRUE_FALSE, "choices": "{'A': '对', 'B': '错'}", "answer": "b"}
    assert validate_record(true_false, 0).answer == "B"


def test_parse_choices_keeps_the_text():
    assert parse_choices("{'A': '股票', 'B': \"债券's\"}") == {"A": "股票", "B": "债券's"}


def test_non_object_rows_and_non_list_files(tmp_path):
    data = load_cflue(_write(tmp_path, [GOOD, [1, 2], "x"]))
    assert [i for i, _ in data.invalid] == [1, 2] and "not a JSON object" in data.invalid[0][1]
    path = tmp_path / "obj.json"
    path.write_text('{"records": []}', encoding="utf-8")
    with pytest.raises(CflueDataError, match="obj.json: expected a JSON list of records"):
        load_cflue(path)


def test_select_by_type_and_exam():
    records = load_cflue(SAMPLE_PATH).records
    tf = select(records, types=["true_false"])
    assert tf and all(r.task == TRUE_FALSE for r in tf)
    assert select(records, types=[TRUE_FALSE]) == tf
    both = select(records, types=[SINGLE], exams=["基金从业资格"])
    assert both and all(r.task == SINGLE and r.exam == "基金从业资格" for r in both)
    with pytest.raises(ValueError, match="unknown question type"):
        select(records, types=["essay"])


def test_prompts_follow_the_official_shape():
    records = load_cflue(SAMPLE_PATH).records
    single = next(r for r in records if r.task == SINGLE)
    multi = next(r for r in records if r.task == MULTI)
    tf = next(r for r in records if r.task == TRUE_FALSE)
    text = prompts.record_prompt(single)
    assert single.question in text and "A. " in text and single.exam in text
    assert "只返回一个选项字母" in text and text.index("答案：") < text.index("解析：")
    assert "可能有多个正确选项" in prompts.record_prompt(multi)
    assert "只返回一个选项字母" in prompts.record_prompt(tf) and "A. 对\nB. 错" in prompts.record_prompt(tf)
    cot = prompts.record_prompt(single, cot=True)
    assert cot.index("解析：") < cot.index("答案：<")
    messages = prompts.chat_messages(multi)
    assert [m["role"] for m in messages] == ["system", "user"] and messages[0]["content"] == prompts.SYSTEM_PROMPT


# ------------------------------------------------------------------------------------------ hostile records
DEPTH_BOMBS = {
    "not not": "not " * 4000 + "1",
    "minus": "-" * 19_000 + "1",
    "tilde": "~" * 19_000 + "1",
    "parentheses": "(" * 9000 + ")" * 9000,
    "nested list value": "{'A': " + "[" * 6000 + "]" * 6000 + ", 'B': 'y'}",
    "nested dict value": "{'A': " + "{'A': " * 3000 + "'x'" + "}" * 3000 + ", 'B': 'y'}",
    "lambda": "{'A': (lambda: 1)(), 'B': 'y'}",
    "f-string": "{'A': f'{__import__(\"os\").getcwd()}', 'B': 'y'}",
    "bytes": "{'A': b'x', 'B': 'y'}",
    "arithmetic after": "{'A': 'x', 'B': 'y'} | {'C': 'z'}",
    "duplicate key": "{'A': 'x', 'A': 'y', 'B': 'z'}",
}


@pytest.mark.parametrize("case", sorted(DEPTH_BOMBS))
def test_hostile_choices_are_one_invalid_record_and_the_load_goes_on(tmp_path, case):
    path = _write(tmp_path, [GOOD, {**GOOD, "choices": DEPTH_BOMBS[case]}, GOOD])
    data = load_cflue(path)
    assert len(data.records) == 2 and [i for i, _ in data.invalid] == [1]
    assert "choices" in data.invalid[0][1] and len(data.invalid[0][1]) < 200
    with pytest.raises(CflueDataError) as err:
        load_cflue(path, strict=True)
    assert str(err.value).startswith(f"{path}: record 1: ")


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(("name", "second"), [
    ("deep list element", _deep(100_000)),
    ("deep field", json.dumps(GOOD, ensure_ascii=False)[:-1] + ', "extra": ' + _deep(100_000) + "}"),
    ("deep but parseable field", json.dumps({**GOOD, "question": json.loads(_deep(200))}, ensure_ascii=False)),
    ("giant integer element", "9" * 100_000),
    ("giant integer answer", json.dumps(GOOD).replace('"answer": "B"', '"answer": ' + "7" * 100_000)),
    ("giant negative integer", json.dumps(GOOD).replace('"answer": "B"', '"answer": -' + "7" * 5000)),
])
@pytest.mark.parametrize("layout", ["json", "jsonl"])
def test_depth_bombs_and_giant_numbers_in_the_file_are_rejected_per_record(tmp_path, name, second, layout):
    good = json.dumps(GOOD, ensure_ascii=False)
    if layout == "json":
        text = f"[{good},\n {second},\n {good}]"
    else:
        text = f"{good}\n{second}\n{good}\n"
    path = tmp_path / f"dev.{layout}"
    path.write_text(text, encoding="utf-8")
    data = load_cflue(path)
    assert len(data.records) == 2 and [i for i, _ in data.invalid] == [1], data.invalid
    reason = data.invalid[0][1]
    assert len(reason) < 200 and ("deep" in reason or "digits" in reason or "string" in reason), reason
    if layout == "jsonl":
        assert reason.startswith("line 2: ")
    assert [r.index for r in data.records] == [0, 2]  # indexes stay those of the file


def test_a_json_list_split_by_hand_keeps_strings_with_brackets_and_escapes(tmp_path):
    """The fallback reader counts brackets outside strings only: a question full of brackets, quotes and
    escapes beside a depth bomb loads exactly as json.loads reads it."""
    tricky = {**GOOD, "question": 'x ] } [ { , \\" \\\\ "]" 中文', "analysis": "a\\\\\"]"}
    path = tmp_path / "dev.json"
    path.write_text("[" + json.dumps(tricky, ensure_ascii=False) + ", " + _deep(50_000) + ", "
                    + json.dumps(GOOD) + "]", encoding="utf-8")
    data = load_cflue(path)
    assert [r.question for r in data.records] == [tricky["question"], GOOD["question"]]
    assert data.records[0].analysis == tricky["analysis"] and [i for i, _ in data.invalid] == [1]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parse_choices_never_raises_anything_but_value_error(text):
    try:
        parse_choices(text)
    except ValueError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from("ABCDEF"), st.text(max_size=30), min_size=2, max_size=6))
def test_parse_choices_reads_back_what_python_writes(choices):
    """repr() of a dict is Python's own writer of the literal: the scan must read every such string back."""
    assert parse_choices(repr(choices)) == dict(sorted(choices.items()))


@pytest.mark.slow
def test_inspect_eval_cflue_names_the_dropped_records_in_one_warning_not_a_traceback(tmp_path):
    """`inspect eval cflue` on a file with two hostile records among good ones runs the good ones and says
    how many were dropped and why; a file with nothing valid ends in one line, not a traceback."""
    import os
    import subprocess
    import sys

    from inspect_ai.log import list_eval_logs, read_eval_log

    repo = Path(__file__).resolve().parents[2]
    (tmp_path / "hostile.json").write_text(
        "[" + json.dumps(GOOD) + ", " + json.dumps({**GOOD, "choices": "not " * 4000 + "1"}) + ", "
        + _deep(100_000) + ", " + json.dumps(GOOD) + "]", encoding="utf-8")
    (tmp_path / "all_bad.json").write_text(json.dumps([{**GOOD, "choices": "-" * 19_000 + "1"}]), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(repo), "COLUMNS": "200"}
    inspect = [str(Path(sys.executable).parent / "inspect"), "eval", "cflue", "--model", "mockllm/model"]

    def run(path: str) -> subprocess.CompletedProcess:
        return subprocess.run([*inspect, "-T", f"path={path}", "--log-dir", "logs"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=limit(600))

    done = run("hostile.json")
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0 and "Traceback" not in out, out[-3000:]
    assert "CFLUE: 2 invalid record(s) in hostile.json were not loaded: record 1: choices is not a dict " \
           "literal (it starts with 'not'); record 2: nested too deeply to read" in out
    (log,) = [read_eval_log(i.name) for i in list_eval_logs(str(tmp_path / "logs"))]
    assert log.status == "success" and len(log.samples) == 2
    done = run("all_bad.json")
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0 and "Traceback" not in out, out[-3000:]
    assert "cflue: all_bad.json: no valid question (1 invalid record(s) dropped; record 0: choices is not a " \
           "dict literal (it starts with '-'))" in out


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=list("{}'\":, ABab\\\n#fbrut()[]-~0123"), max_size=60))
def test_what_the_scan_accepts_python_reads_the_same_way(text):
    """Differential check against ast.literal_eval on strings built from the characters that matter (braces,
    quotes, prefixes, escapes, comments): the scan accepts only dict literals, and reads them as Python does."""
    try:
        choices = parse_choices(text)
    except ValueError:
        return
    assert choices == dict(sorted(ast.literal_eval(text.strip()).items()))


@pytest.mark.parametrize("text", [
    "{'A': 'x'" + " " * 19_000 + "!",            # a long run of spaces where the closing brace should be
    "{'A': 'x'," + " " * 19_000 + "!",
    "{" + "'A' : 'x' , " * 1_500 + "!",
    "{'A': '" + "\\\\" * 9_000 + "!",
])
def test_near_miss_choices_are_refused_in_linear_time(text):
    """Strings that almost match the fast path's pattern must fail fast (a pattern with two adjacent
    whitespace runs took over a second on the first one: quadratic backtracking)."""
    import time

    start = time.perf_counter()
    with pytest.raises(ValueError):
        parse_choices(text)
    assert time.perf_counter() - start < 0.3


# ------------------------------------------------------------------------------------------ issue 33, item 7
@pytest.mark.parametrize("choices", ["{'A': 'x\x00', 'B': 'y'}", "{'A': 'x', 'B': 'y'\x00}", "\x00"])
def test_a_nul_in_choices_is_one_invalid_record_not_the_end_of_the_load(tmp_path, choices):
    """Python's parser raises SyntaxError (not ValueError) on a NUL: it used to end the whole load."""
    data = load_cflue(_write(tmp_path, [GOOD, {**GOOD, "choices": choices}, GOOD]))
    assert len(data.records) == 2 and [i for i, _ in data.invalid] == [1]
    assert "NUL" in data.invalid[0][1] or "not a dict literal" in data.invalid[0][1]


@pytest.mark.parametrize(("changes", "where"), [
    ({"question": "债券\ud800"}, "field 'question'"),
    ({"analysis": "\udfff"}, "field 'analysis'"),
    ({"名称": "证券\ud83d"}, "field '名称'"),
    ({"choices": "{'A': '\\ud800', 'B': 'y'}"}, "choice A"),   # an escape inside the literal decodes to one
    ({"choices": {"A": "x", "B": "\ud800"}}, "field 'choices'"),
])
def test_lone_surrogates_fail_validation_with_a_one_line_reason(tmp_path, changes, where):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([GOOD, {**GOOD, **changes}]), encoding="utf-8")  # ASCII escapes: \ud800 in the file
    data = load_cflue(path)
    assert len(data.records) == 1 and [i for i, _ in data.invalid] == [1]
    assert where in data.invalid[0][1] and "lone surrogate" in data.invalid[0][1]


def test_long_comment_runs_inside_the_braces_are_read_like_python():
    """Runs of comment lines inside the braces (up to the 20,000-character limit) took Python's tokenize over half
    a second per record, growing quadratically, so the loader scans with anchored regexes; it must still read
    them as Python does: skipped between tokens, and an unclosed brace after them is one reason. (Its time per
    character is measured by benchmarks/cflue_choices_bench.py, not asserted here.)"""
    run = " \n#" * 3000  # 9,000 characters: two runs stay under the 20,000 limit
    assert parse_choices("{" + run + "\n'A': 'x', 'B': 'y'}") == {"A": "x", "B": "y"}
    assert parse_choices("{'A': 'x'," + run + "\n'B': 'y'" + run + "\n}") == {"A": "x", "B": "y"}
    with pytest.raises(ValueError, match=r"^choices is not a Python dict literal \(unclosed brace or string\)$"):
        parse_choices("{" + run)
