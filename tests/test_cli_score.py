"""``finchain score`` on hostile and incomplete input: every line gives one output line, in order,
the caller's fields travel with the scores, and no bad line costs the good ones their scores."""

import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.engine import all_templates

runner = CliRunner()
PROBLEM = next(iter(all_templates().values())).generate(0)


class Outcome:
    def __init__(self, result):
        self.exit_code = result.exit_code
        self.output = " ".join(result.output.split())


def invoke(*args) -> Outcome:
    return Outcome(runner.invoke(app, [str(a) for a in args], catch_exceptions=False))


def _structured(**changes) -> dict:
    row = {**PROBLEM.to_dict(), "output": PROBLEM.solution}
    row.update(changes)
    return row


def _write(path, lines: list[bytes]) -> None:
    path.write_bytes(b"\n".join(lines) + b"\n")


def _rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_rows_given_by_problem_id_keep_the_id_and_every_caller_field(tmp_path):
    pred = tmp_path / "pred.jsonl"
    _write(pred, [json.dumps({"id": PROBLEM.id, "response": PROBLEM.solution, "model": "m-1", "run": 3,
                              "tags": ["a", "b"]}).encode()])
    out = tmp_path / "scores.jsonl"
    result = invoke("score", pred, "-o", out)
    assert result.exit_code == 0, result.output
    [row] = _rows(out)
    assert row["id"] == PROBLEM.id and row["model"] == "m-1" and row["run"] == 3 and row["tags"] == ["a", "b"]
    assert row["domain"] == PROBLEM.domain and row["level"] == PROBLEM.level
    assert row["chaineval"] == 1.0 and row["fac"] == 1.0


def test_bad_rows_are_error_rows_and_good_rows_are_written(tmp_path):
    good = json.dumps(_structured(id="good", model="m")).encode()
    steps = PROBLEM.to_dict()["steps"]
    bad_rows = {
        "list value": _structured(id="list", steps=[{**steps[0], "value": [1, 2]}] + steps[1:]),
        "dict answer": _structured(id="dict", answer={"x": 1}),
        "huge int": _structured(id="huge", answer=10 ** 400),
        "surrogate": _structured(id="surrogate", output="Step 1: \ud800 = 5"),
    }
    lines = [b"\xef\xbb\xbf" + good]                                         # line 1: a BOM, then a good row
    lines += [json.dumps(r).encode() for r in bad_rows.values()]            # lines 2-5
    lines += [json.dumps(_structured(id="inf")).encode().replace(           # line 6: gold answer Infinity
        f'"answer": {json.dumps(PROBLEM.answer)}'.encode(), b'"answer": Infinity')]
    lines += [b'{"id": "latin1", "output": "caf\xe9"}']                     # line 7: not UTF-8
    lines += [b"[" * 100_000 + b"]" * 100_000]                               # line 8: nested too deep
    lines += [b'{"id": "digits", "answer": ' + b"9" * 100_000 + b"}"]       # line 9: a 100k-digit number
    lines += [good.replace(b'"good"', b'"good-2"')]                          # line 10
    pred = tmp_path / "pred.jsonl"
    _write(pred, lines)
    out = tmp_path / "scores.jsonl"
    result = invoke("score", pred, "-o", out)
    assert result.exit_code == 1 and "Traceback" not in result.output
    rows = _rows(out)
    assert len(rows) == 10
    assert [r.get("id") for r in rows[:6]] == ["good", "list", "dict", "huge", "surrogate", "inf"]
    for k in (0, 9):
        assert "error" not in rows[k] and rows[k]["chaineval"] == 1.0 and rows[k]["model"] == "m"
    assert "steps[0].value" in rows[1]["error"] and "list" in rows[1]["error"]
    assert "'answer'" in rows[2]["error"] and "dict" in rows[2]["error"]
    assert "too large" in rows[3]["error"]
    assert "lone surrogate" in rows[4]["error"] and rows[4]["line"] == 5
    assert "finite" in rows[5]["error"] and "chaineval" not in rows[5]
    for k, why in ((6, "not UTF-8"), (7, "nested too deeply"), (8, "not JSON")):
        assert rows[k]["line"] == k + 1 and rows[k]["error"].startswith(f"{pred}:{k + 1}: "), rows[k]
        assert why in rows[k]["error"], rows[k]
    assert "8 could not be scored" in result.output


@pytest.mark.parametrize("param, message", [
    ("step_tol=abc", "step_tol must be a number"),
    ("mask_numbers=yes", "mask_numbers must be true or false"),
    ("step_tol=Infinity", "step_tol must be a finite number"),
    ("match_threshold=2", "match_threshold must lie in [0, 1]"),
    ("tie_rule=sometimes", "tie_rule must be 'skip' or 'pair'"),
    ("no_such=1", "unknown ChainEval parameter"),
    ("step_tol", "--param takes name=value"),
])
def test_param_values_are_validated_with_one_line(tmp_path, param, message):
    pred = tmp_path / "pred.jsonl"
    _write(pred, [json.dumps(_structured()).encode()])
    result = invoke("score", pred, "-o", tmp_path / "out.jsonl", "--param", param)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out.jsonl").exists()


def test_a_failed_write_leaves_no_partial_file(tmp_path):
    pred = tmp_path / "pred.jsonl"
    _write(pred, [json.dumps(_structured()).encode()])
    target = tmp_path / "taken"
    target.mkdir()  # a directory where the output file should go: the final rename fails
    result = invoke("score", pred, "-o", target)
    assert result.exit_code == 2 and f"cannot write {target}" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pred.jsonl", "taken"]


def test_a_lone_surrogate_in_a_caller_field_is_written_escaped(tmp_path):
    pred = tmp_path / "pred.jsonl"
    _write(pred, [json.dumps(_structured(id="s", note="bad \ud800 text")).encode()])
    out = tmp_path / "scores.jsonl"
    assert invoke("score", pred, "-o", out).exit_code == 0
    [row] = _rows(out)
    assert row["note"] == "bad \ud800 text" and row["chaineval"] == 1.0
