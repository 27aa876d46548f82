"""CFLUE loader rules the mutation run (group ``cflue_loader``) found unpinned: what a malformed file, record or
``choices`` string reads as, which records are kept, and which are reported with which reason and index.

Every input here is written for this file in the official record shape; none is a line of the authors' data."""

import json

import pytest

from finchain_tasks.cflue.loader import (
    MULTI,
    SINGLE,
    TRUE_FALSE,
    CflueDataError,
    load_cflue,
    parse_choices,
    validate_record,
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
