"""CFLUE application loader: the project's fixtures (every task and output shape), every kind of bad
record (reported with file and index, the load goes on), nothing evaluated, selection, and the public
125-record sample when its path is given."""

import json
import os
from pathlib import Path

import pytest

from finchain_tasks.cflue import CflueDataError
from finchain_tasks.cflue.application import (
    ENV_VAR,
    load_application,
    load_source,
    record_id,
    reference_text,
    select,
    validate_record,
)

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = FIXTURES / "application_records.json"
SAMPLE_ENV = "CFLUE_APPLICATION_SAMPLE"
"""Path of the authors' 125 public samples (data/application/application.json of github.com/aliyun/cflue)."""


def test_fixtures_cover_every_task_and_output_shape():
    data = load_application(RECORDS)
    assert data.invalid == [] and len(data.records) == 20
    assert {r.task_slug for r in data.records} == {"classification", "translation", "extraction",
                                                  "reading_comprehension", "generation"}
    extraction = [r.output for r in data.records if r.task_slug == "extraction"]
    assert any(isinstance(o, list) and set(o[0]) == {"role", "argument"} for o in extraction)
    assert any(isinstance(o, list) and "reason_type" in o[0] for o in extraction)
    assert any(isinstance(o, str) and o.startswith("{") for o in extraction)      # JSON object as text
    assert any(isinstance(o, str) and ": " in o and "\n" in o for o in extraction)  # key: value lines
    assert "" in extraction                                                         # nothing to extract
    assert {r.sub_task for r in data.records if r.task_slug == "translation"} == {"金融中英翻译", "金融英中翻译"}
    with_history = [r for r in data.records if r.history]
    assert len(with_history) == 1 and with_history[0].input and with_history[0].prompt.endswith(with_history[0].input)
    assert len({r.id for r in data.records}) == len(data.records)


def test_record_id_source_text_and_reference_text():
    records = load_application(RECORDS).records
    first = records[0]
    assert first.id == record_id(0, first.instruction) and first.id.startswith("cflue_app/0-")
    zh2en = next(r for r in records if r.sub_task == "金融中英翻译")
    assert zh2en.source == "央行宣布下调存款准备金率零点五个百分点。"
    en2zh = next(r for r in records if r.sub_task == "金融英中翻译")
    assert en2zh.source == "The company's net profit rose sharply last quarter."
    assert first.source == ""
    roles = next(r for r in records if isinstance(r.output, list) and "role" in r.output[0])
    assert reference_text(roles.output).splitlines()[0] == "股票简称: 甲公司"


def test_bad_records_are_reported_with_their_index_and_the_rest_loads():
    data = load_application(FIXTURES / "application_bad.json")
    assert [r.index for r in data.records] == [0, 11]
    reasons = dict(data.invalid)
    assert sorted(reasons) == list(range(1, 11))
    assert "missing field(s) output" in reasons[1]
    assert "unknown task '金融算命'" in reasons[2]
    assert "unknown translation sub-task" in reasons[3]
    assert "must be a string for 金融文本分类" in reasons[4]
    assert "output item 0" in reasons[5]
    assert "history turn 0" in reasons[6]
    assert "'instruction' must be a non-empty string" in reasons[7]
    assert "'output' is empty" in reasons[8]
    assert "not a JSON object" in reasons[9]
    assert "'input' must be a string" in reasons[10]


def test_strict_names_the_file_and_the_record():
    path = FIXTURES / "application_bad.json"
    with pytest.raises(CflueDataError, match=rf"{path.name}: record 1: missing field"):
        load_application(path, strict=True)


def test_an_unreadable_jsonl_line_is_one_invalid_record_with_its_line():
    data = load_application(FIXTURES / "application_bad_line.jsonl")
    assert len(data.records) == 2
    ((index, reason),) = data.invalid
    assert index == 1 and reason.startswith("line 2: not valid JSON")


def test_nothing_in_a_record_is_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    code = f"__import__('os').system('touch {marker}')"
    row = {"task": "金融文本抽取", "sub_task": "金融事件抽取", "instruction": code, "input": "", "output": code,
           "history": []}
    record = validate_record(row, 0)
    assert record.output == code and not marker.exists()


def test_hostile_shapes_are_reasons_not_crashes(tmp_path):
    path = tmp_path / "hostile.json"
    good = json.loads(RECORDS.read_text(encoding="utf-8"))[0]
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text(f'[{json.dumps(good, ensure_ascii=False)}, {{"task": {deep}}}, {{"output": 1{"0" * 200}}}]',
                    encoding="utf-8")
    data = load_application(path)
    assert len(data.records) == 1 and [i for i, _ in data.invalid] == [1, 2]


def test_path_from_the_environment_and_clear_errors(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(RECORDS))
    assert len(load_application().records) == 20
    monkeypatch.delenv(ENV_VAR)
    with pytest.raises(CflueDataError, match=ENV_VAR):
        load_application()
    with pytest.raises(CflueDataError, match="not found"):
        load_application(tmp_path / "missing.json")
    with pytest.raises(CflueDataError, match="not a file"):
        load_application(tmp_path)


def test_selection_by_slug_chinese_name_and_sub_task():
    records = load_application(RECORDS).records
    assert {r.task for r in select(records, tasks=["translation"])} == {"金融翻译"}
    assert select(records, tasks=["金融翻译"]) == select(records, tasks=["translation"])
    assert [r.sub_task for r in select(records, sub_tasks=["金融英中翻译"])] == ["金融英中翻译"] * 2
    with pytest.raises(ValueError, match="unknown CFLUE application task"):
        select(records, tasks=["poetry"])


def test_load_source_reports_what_it_selected_and_refuses_an_empty_selection():
    source = load_source(str(RECORDS), tasks=["extraction"])
    assert source.info["n_valid"] == 20 and source.info["n_selected"] == 6 and source.info["n_invalid"] == 0
    bad = load_source(str(FIXTURES / "application_bad.json"))
    assert bad.info["n_invalid"] == 10 and bad.info["invalid"][0]["index"] == 1
    with pytest.raises(CflueDataError, match="no record matches"):
        load_source(str(RECORDS), sub_tasks=["不存在的子任务"])


@pytest.mark.skipif(not os.environ.get(SAMPLE_ENV) or not Path(os.environ.get(SAMPLE_ENV, "")).is_file(),
                    reason=f"the CFLUE public application sample is not here: set {SAMPLE_ENV} to the path of "
                           "data/application/application.json from github.com/aliyun/cflue (125 records, "
                           "CC BY-NC-SA 4.0, not shipped)")
def test_the_public_125_record_sample_loads_completely():
    data = load_application(os.environ[SAMPLE_ENV])
    assert data.invalid == [] and len(data.records) == 125
    assert len({r.task for r in data.records}) == 5 and len({r.sub_task for r in data.records}) == 25
    assert sum(isinstance(r.output, list) for r in data.records) == 10
