"""``finchain score`` streams rows in blocks and reads and writes them with orjson where installed (issue 44, item
3): neither changes a score nor a row. orjson reads every line exactly as the standard library does (or leaves it
to the standard library), a row is written back to the same JSON value, and scoring a file in blocks of two rows
writes the very file (and prints the very summary) that scoring it in one block does."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.engine import all_templates
from finchain_tasks.runs import score_file as score_cmd

pytestmark = pytest.mark.skipif(score_cmd.orjson is None, reason="orjson is not installed")

SCALARS = (st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | st.floats(allow_nan=True)
           | st.text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


def _read(raw: bytes):
    return score_cmd._parse_line(raw, score_cmd.Path("rows.jsonl"), 1)


@settings(max_examples=300)
@given(VALUES, st.booleans())
def test_a_line_reads_as_the_standard_library_reads_it(value, ascii_only):
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    assert repr(_read(raw)) == repr(json.loads(raw))  # repr: 1 is not 1.0, -0.0 is not 0.0


@pytest.mark.parametrize("raw", [
    b'{"id": 123456789012345678901234567890}',  # an int beyond 64 bits: orjson would read a float
    b'{"x": 1e999}', b'{"x": NaN, "y": -Infinity}',  # json reads what orjson refuses
    b'{"text": "\\ud800"}',  # a lone surrogate escape
    b'{"a": 1, "a": 2}', b'[1.0, -0.0, 1e16, 0.1, 5e-324]', b'"\\u00e9"', b' {"pad": true} \r\n',
])
def test_edge_lines_read_as_the_standard_library_reads_them(raw):
    assert repr(_read(raw)) == repr(json.loads(raw))


@pytest.mark.parametrize("raw,message", [
    (b'{"x": 1', "not JSON (Expecting ',' delimiter)"), (b'\xff{}', "not UTF-8 (byte 1)"),
    (b"[" * 100_000 + b"]" * 100_000, "not JSON (nested too deeply)"),
])
def test_a_bad_line_keeps_the_standard_library_s_message(raw, message):
    with pytest.raises(score_cmd.LineError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _read(raw)


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=6), VALUES, max_size=5))
def test_a_row_is_written_back_as_the_json_value_it_was(row):
    parsed = _read(json.dumps(row).encode())
    line = score_cmd._encode(parsed)
    assert repr(json.loads(line)) == repr(json.loads(json.dumps(parsed, ensure_ascii=False)))


def test_a_row_json_read_keeps_nan_and_big_integers_when_written():
    row = _read(b'{"x": NaN, "n": 123456789012345678901234567890}')
    assert isinstance(row, score_cmd.JsonRow)
    assert json.loads(score_cmd._encode(row), parse_constant=str) == {"x": "NaN", "n": 123456789012345678901234567890}


def test_scoring_in_blocks_of_two_writes_the_file_one_block_writes(tmp_path, monkeypatch):
    problems = [t.generate(1) for t in list(all_templates().values())[:5]]
    lines = [json.dumps({**p.to_dict(), "output": p.solution.replace("Step 2", "Step 2: we think")})
             for p in problems]
    lines[2:2] = ["not json", json.dumps({"id": "x", "output": "no gold"}), json.dumps({"id": "y", "x": float("nan")})]
    src = tmp_path / "rows.jsonl"
    src.write_text("\n".join(lines) + "\n", "utf-8")
    runner, outputs = CliRunner(), []
    for block in (1000, 2):
        monkeypatch.setattr(score_cmd, "BLOCK_ROWS", block)
        result = runner.invoke(app, ["score", str(src), "-o", str(tmp_path / f"out{block}.jsonl")])
        # the report with its line breaks removed: the console wraps the output's path where its width ends, and the
        # two paths differ in length
        report = "".join(result.output.split())
        outputs.append(((tmp_path / f"out{block}.jsonl").read_bytes(), report.replace(f"out{block}", "")))
    assert outputs[0] == outputs[1]
    assert len(outputs[0][0].splitlines()) == len(lines)

