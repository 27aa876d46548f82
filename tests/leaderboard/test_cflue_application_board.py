"""CFLUE application runs on the ``cflue_application`` board: an Inspect run of a scripted model (mockllm) and
an lm-eval samples file (in the format the lm-eval leaves write) give per-record values that are what the
script makes them, counted here from the records, with intervals that resample sub-tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finchain_tasks.leaderboard.board import load_board
from finchain_tasks.leaderboard.build import compute

pytestmark = pytest.mark.slow
pytest.importorskip("jieba")

RECORDS_PATH = Path(__file__).parents[1] / "cflue" / "fixtures" / "application_records.json"
TASKS = ("classification", "extraction", "reading_comprehension", "generation")
"""Translation is left out: a sentence BLEU of a short echo is not exactly 1 (no 4-grams), so not by hand."""
METRIC = {"classification": "accuracy", "extraction": "f1", "reading_comprehension": "rouge_l", "generation": "rouge_l"}


def _records():
    from finchain_tasks.cflue.application import load_application

    return [r for r in load_application(RECORDS_PATH).records if r.task_slug in TASKS]


def _reply(record) -> str:
    """The script: the gold output for even-indexed records, nothing for the others."""
    from finchain_tasks.cflue.application import reference_text

    return reference_text(record.output) if record.index % 2 == 0 else ""


def _expected(records) -> dict[str, float]:
    """Per metric, the share of its records that were echoed (an echo scores 1, an empty reply 0)."""
    out = {}
    for metric in set(METRIC.values()):
        mine = [r for r in records if METRIC[r.task_slug] == metric]
        out[metric] = sum(r.index % 2 == 0 for r in mine) / len(mine)
    return out


@pytest.fixture(scope="module")
def app_log_dir(tmp_path_factory):
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from finchain_tasks.inspect.cflue_application import cflue_application

    by_prompt = {r.prompt: r for r in _records()}

    def answer(input, tools, tool_choice, config):
        output = ModelOutput.from_content("mockllm/model", _reply(by_prompt[input[-1].text]))
        output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return output

    logs = tmp_path_factory.mktemp("app-logs")
    task = cflue_application(path=str(RECORDS_PATH), task=list(TASKS))
    (log,) = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=answer), display="none",
                          log_dir=str(logs))
    assert log.status == "success", log.error
    return logs


def test_an_inspect_application_run_is_one_row_with_the_scripts_values(app_log_dir):
    records = _records()
    built = compute(load_board("cflue_application"), sources=[app_log_dir])
    (row,) = built.payload["rows"]
    assert (row["harness"], row["task"], row["n"]) == ("inspect", "cflue_application", len(records))
    expected = _expected(records)
    # by hand from the fixture: classification is records 0-3 (0, 2 echoed), extraction 8-13 (8, 10, 12),
    # reading comprehension and generation 14-19 (14, 16, 18)
    assert expected == {"accuracy": 2 / 4, "f1": 3 / 6, "rouge_l": 3 / 6}
    for metric, value in expected.items():
        assert row["metrics"][metric]["mean"] == pytest.approx(value), metric
        sub_tasks = {r.sub_task for r in records if METRIC[r.task_slug] == metric}
        assert row["metrics"][metric]["clusters"] == len(sub_tasks), metric  # resampled by sub-task
    assert row["metrics"]["sentence_bleu"]["mean"] is None  # no translation record: no value, not 0
    assert row["templates"] == len({r.sub_task for r in records})


def test_lm_eval_application_samples_give_the_same_values(tmp_path):
    """lm-eval's leaves log the corpus-metric row (task, sub-task, gold JSON, prediction, ...) under each metric
    key; ingest turns it into the record's value as Inspect computes it."""
    from finchain_tasks.lm_eval.cflue_application import doc_of, process_results

    records = _records()
    stamp = "2026-01-01T00-00-00.000000"
    folder = tmp_path / "lm-out" / "fake"
    folder.mkdir(parents=True)
    (folder / f"results_{stamp}.json").write_text(json.dumps({"config": {"model_args": "model=fake"}}), "utf-8")
    for slug in TASKS:
        lines = []
        for k, r in enumerate(r for r in records if r.task_slug == slug):
            doc = doc_of(r)
            lines.append(json.dumps({"doc_id": k, "doc": doc, "resps": [[_reply(r)]],
                                     **process_results(doc, [_reply(r)])}, ensure_ascii=False))
        (folder / f"samples_cflue_application_{slug}_{stamp}.jsonl").write_text("\n".join(lines), "utf-8")
    built = compute(load_board("cflue_application"), sources=[tmp_path / "lm-out"])
    (row,) = built.payload["rows"]
    assert (row["model"], row["harness"], row["task"], row["n"]) == ("fake", "lm-eval", "cflue_application",
                                                                     len(records))
    for metric, value in _expected(records).items():
        assert row["metrics"][metric]["mean"] == pytest.approx(value), metric
