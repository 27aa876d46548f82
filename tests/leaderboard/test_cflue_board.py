"""An Inspect ``cflue`` run of a scripted model (mockllm) ingested into the ``cflue`` board: one row whose
accuracy and invalid rate are what the script makes them (counted here from the questions, not from the
scorer), with intervals that resample exams (CFLUE's clusters), and CFLUE's reported table beside it."""

from __future__ import annotations

import pytest

from finchain_tasks.cflue import SAMPLE_PATH, load_cflue, prompts
from finchain_tasks.leaderboard import stats
from finchain_tasks.leaderboard.board import load_board
from finchain_tasks.leaderboard.build import compute

pytestmark = pytest.mark.slow
RECORDS = load_cflue(SAMPLE_PATH).records
BY_PROMPT = {prompts.record_prompt(r): r for r in RECORDS}


def _kind(record) -> str:
    """The script: every tenth question unanswerable, every fourth wrong, the rest right."""
    return "invalid" if record.index % 10 == 9 else "wrong" if record.index % 4 == 3 else "right"


def _reply(record) -> str:
    kind = _kind(record)
    if kind == "invalid":
        return "我不知道。"
    if kind == "right":
        return f"答案：{record.answer}\n解析：略。"
    others = [c for c in sorted(record.choices) if c not in record.answer]
    return f"答案：{others[0] if others else record.answer[:-1]}\n解析：略。"


@pytest.fixture(scope="module")
def cflue_log_dir(tmp_path_factory):
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from finchain_tasks.inspect.cflue import cflue

    def answer(input, tools, tool_choice, config):
        output = ModelOutput.from_content("mockllm/model", _reply(BY_PROMPT[input[-1].text]))
        output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return output

    logs = tmp_path_factory.mktemp("cflue-logs")
    (log,) = inspect_eval(cflue(path=str(SAMPLE_PATH)), model=get_model("mockllm/model", custom_outputs=answer),
                          display="none", log_dir=str(logs))
    assert log.status == "success", log.error
    return logs


def test_a_cflue_run_is_one_row_with_the_scripts_accuracy_and_exam_clustered_intervals(cflue_log_dir):
    board = load_board("cflue")
    built = compute(board, sources=[cflue_log_dir])
    (row,) = built.payload["rows"]
    assert (row["model"], row["harness"], row["task"], row["n"]) == ("mockllm/model", "inspect", "cflue", 40)
    kinds = [_kind(r) for r in RECORDS]
    right, invalid = kinds.count("right"), kinds.count("invalid")
    # by hand: indexes 9, 19, 29, 39 unanswerable; 3, 7, 11, 15, 23, 27, 31, 35 wrong; 40 - 4 - 8 right
    assert (right, invalid) == (28, 4)
    accuracy = row["metrics"]["accuracy"]
    assert accuracy["mean"] == pytest.approx(right / 40)
    assert row["metrics"]["invalid_strict"]["mean"] == pytest.approx(invalid / 40)
    exams = [r.exam for r in RECORDS]
    assert accuracy["clusters"] == row["templates"] == len(set(exams)) == 15  # resampled by exam, not by question
    st = board.statistics
    by_hand = stats.cluster_interval([float(k == "right") for k in kinds], exams, st.confidence, st.resamples, st.seed)
    assert (accuracy["low"], accuracy["high"]) == pytest.approx((by_hand.low, by_hand.high))
    assert accuracy["low"] < right / 40 < accuracy["high"]
    assert row["tie_group"] == 1 and built.payload["cells"] == {"all": {}}  # no FinChain domain × level grid
    reported = built.payload["reported"]["rows"]
    assert len(reported) == 17 and all(r["status"] == "reported, not reproduced" for r in reported)


def test_a_cflue_row_and_its_release_line_carry_the_package_version(cflue_log_dir):
    """Issue 45: a CFLUE run records ``package_version`` (not ``finchain_tasks_version``); release rows lacked it."""
    import csv
    import io

    import finchain_tasks
    from finchain_tasks.leaderboard.table_csv import board_csv, csv_text

    built = compute(load_board("cflue"), sources=[cflue_log_dir])
    assert set(built.frame["finchain_tasks_version"]) == {finchain_tasks.__version__}
    (line,) = csv.DictReader(io.StringIO(csv_text(*board_csv(built.payload, built.board.metrics))))
    assert line["finchain_tasks_version"] == finchain_tasks.__version__ and line["task_version"]
