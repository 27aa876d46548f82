"""CFLUE application through lm-eval: the ``cflue_application`` group and its per-task leaves, run with
``simple_evaluate`` and the project's ``finchain-oracle`` (gold output: 100 on every computed metric;
a non-answer: 0), the shared summary code, and the bench's mapping of a registry task set."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")
pytest.importorskip("jieba")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

import finchain_tasks.lm_eval.models  # noqa: E402,F401  (registers finchain-oracle)
from finchain_tasks.cflue.application import load_application  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.build import render  # noqa: E402
from finchain_tasks.lm_eval.cflue_application import LEAF_METRICS  # noqa: E402
from finchain_tasks.lm_eval.cflue_application_build import FOLDER, GROUP, leaves  # noqa: E402
from finchain_tasks.runs.engine import TaskPlan  # noqa: E402
from finchain_tasks.runs.lm_eval_harness import lm_eval_task  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "cflue" / "fixtures"
RECORDS_PATH = str(FIXTURES / "application_records.json")
RECORDS = load_application(RECORDS_PATH).records
COUNTS = Counter(r.task_slug for r in RECORDS)


def _manager(**metadata) -> TaskManager:
    return TaskManager(include_path=TASKS_DIR, include_defaults=False,
                       metadata={"cflue_app_path": RECORDS_PATH, **metadata})


def test_group_and_one_leaf_per_task_are_indexed_and_in_sync_with_the_generator():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False)
    assert GROUP in manager.all_groups and set(leaves()) <= set(manager.all_subtasks)
    assert set(leaves().values()) == set(LEAF_METRICS)
    wanted = {p: t for p, t in render().items() if p.startswith(f"{FOLDER}/")}
    shipped = {p.relative_to(TASKS_DIR).as_posix(): p.read_text("utf-8") for p in (Path(TASKS_DIR) / FOLDER).glob("*")}
    assert shipped == wanted, "run python -m finchain_tasks.lm_eval.build"


def test_the_oracle_echoing_the_gold_output_scores_100_and_missing_models_are_nan():
    out = simple_evaluate(model="finchain-oracle", model_args="mode=gold", tasks=[GROUP], task_manager=_manager(),
                          log_samples=True)
    results = out["results"]
    for name, slug in leaves().items():
        assert out["n-samples"][name]["effective"] == COUNTS[slug], name
        for metric in LEAF_METRICS[slug]:
            value = results[name][f"{metric},none"]
            if metric.startswith(("comet", "bertscore")):
                assert math.isnan(value), (name, metric)  # not computed: NaN, never 0
            else:
                assert value == pytest.approx(100.0), (name, metric)
        run = out["configs"][name]["metadata"]["cflue_app_run"]
        assert run["n_selected"] == COUNTS[slug] and run["n_invalid"] == 0 and run["comet_model"] is None
    sample = out["samples"]["cflue_application_extraction"][0]
    assert sample["doc"]["benchmark"] == "cflue_application" and sample["resps"][0][0] == sample["doc"]["reference"]


def test_a_non_answer_scores_zero():
    out = simple_evaluate(model="finchain-oracle", model_args="mode=wrong",
                          tasks=["cflue_application_classification", "cflue_application_reading_comprehension"],
                          task_manager=_manager())
    assert out["results"]["cflue_application_classification"]["accuracy,none"] == 0.0
    assert out["results"]["cflue_application_reading_comprehension"]["rouge_l,none"] == 0.0


def test_sub_task_selection_and_one_direction_leaves_the_other_nan():
    out = simple_evaluate(model="finchain-oracle", model_args="mode=gold", tasks=["cflue_application_translation"],
                          task_manager=_manager(cflue_app_sub_tasks="金融英中翻译"))
    row = out["results"]["cflue_application_translation"]
    assert out["n-samples"]["cflue_application_translation"]["effective"] == 2
    assert row["bleu_en2zh,none"] == pytest.approx(100.0) and math.isnan(row["bleu_zh2en,none"])


def test_the_prompt_is_history_then_instruction_and_input():
    from finchain_tasks.lm_eval.cflue_application import doc_of

    record = next(r for r in RECORDS if r.history)
    doc = doc_of(record)
    assert doc["prompt"].startswith(f"问：{record.history[0][0]}\n答：{record.history[0][1]}\n\n")
    assert doc["prompt"].endswith(record.instruction + "\n" + record.input)
    assert json.loads(doc["output"]) == record.output


def test_bench_task_sets_map_to_leaves_and_metadata():
    tasks, meta = lm_eval_task(TaskPlan("app", "cflue_application", {"path": RECORDS_PATH}))
    assert tasks == [GROUP] and meta == {"cflue_app_path": RECORDS_PATH}
    tasks, meta = lm_eval_task(TaskPlan("app", "cflue_application", {"task": "translation,extraction",
                                                                    "sub_task": ["金融英中翻译"]}))
    assert tasks == ["cflue_application_translation", "cflue_application_extraction"]
    assert meta == {"cflue_app_sub_tasks": ["金融英中翻译"]}
    with pytest.raises(ValueError, match="CFLUE application tasks"):
        lm_eval_task(TaskPlan("app", "cflue_application", {"task": "poetry"}))
