"""The lm-eval task package: shipped YAML, indexing, and the contract every leaf must meet.

The contract runs each leaf through lm-eval's own machinery (TaskManager -> ConfigurableTask ->
build_all_requests -> apply_filters -> process_results), so the scoring filter is exercised as lm-eval
calls it, not through a re-implementation.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("lm_eval")

from lm_eval.tasks import TaskManager  # noqa: E402

from finchain_tasks.engine import all_templates  # noqa: E402
from finchain_tasks.finchain import prompts  # noqa: E402
from finchain_tasks.finchain.generate import CANONICAL_SEEDS, FRESH_SEED_FLOOR  # noqa: E402
from finchain_tasks.finchain.versioning import task_version  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.build import FILTER_NAME, TOP, differences, layout  # noqa: E402
from finchain_tasks.lm_eval.cli import check_overlaps  # noqa: E402
from scorers.chaineval import METRIC_KEYS  # noqa: E402

DOC_FIELDS = {"id", "question", "solution", "steps", "answer", "domain", "topic", "level", "template", "seed",
              "n_steps", "answer_type", "system", "prompt", "response_prefix", "chaineval_params", "prompt_variant"}


@pytest.fixture(scope="module")
def manager() -> TaskManager:
    return TaskManager(include_path=TASKS_DIR, include_defaults=False)


def test_shipped_yaml_is_what_build_writes_now():
    stale = differences()
    assert not stale, f"task YAML out of date ({stale}): run python -m finchain_tasks.lm_eval.build"


def test_layout_covers_every_template_and_nothing_else():
    lay = layout()
    present = {(t.domain, t.level) for t in all_templates().values()}
    assert set(lay.leaves.values()) == present
    assert sorted(n for leaves in lay.domains.values() for n in leaves) == sorted(lay.leaves)
    assert sorted(n for leaves in lay.views.values() for n in leaves) == sorted(lay.leaves)
    assert lay.members(TOP) == set(lay.leaves)


def test_task_manager_indexes_every_leaf_and_group(manager):
    lay = layout()
    assert set(lay.leaves) <= set(manager.all_subtasks)
    assert {TOP, *lay.domains, *lay.views} <= set(manager.all_groups)


def test_leaves_carry_version_metrics_and_generation_settings(manager):
    name = next(iter(layout().leaves))
    task = manager.load([name])["tasks"][name]
    assert task.VERSION == task_version()
    assert list(task.aggregation()) == list(METRIC_KEYS)
    hib = task.higher_is_better()
    assert hib["chaineval"] is True and hib["fac"] is True and hib["no_error"] is True and hib["err_2"] is None
    gen = task.config.generation_kwargs
    assert gen["max_gen_toks"] == prompts.MAX_NEW_TOKENS and gen["do_sample"] is False
    assert gen["until"] == list(prompts.STOP_SEQUENCES)


def _score_through_task(task, indices: list[int], reply) -> list[dict]:
    """Feed ``reply(doc)`` to lm-eval's instances of ``task`` and return process_results per doc."""
    task.build_all_requests(samples=indices, rank=0, world_size=1)
    for inst in task.instances:
        inst.resps = [reply(inst.doc)]
        inst.filtered_resps = {}
    task.apply_filters()
    return [task.process_results(inst.doc, [inst.filtered_resps[FILTER_NAME]]) for inst in task.instances]


def _first_and_last(docs) -> list[int]:
    """Two documents of different templates (docs are template-major): embedding on CPU is what
    costs here, and every template's gold trace is already checked by the scorer's own tests."""
    return [0, len(docs) - 1]


def test_every_leaf_meets_the_contract(manager):
    lay = layout()
    loaded = manager.load(list(lay.leaves))["tasks"]
    for name, (domain, level) in lay.leaves.items():
        task = loaded[name]
        docs = list(task.eval_docs)
        n_templates = sum(1 for t in all_templates().values() if (t.domain, t.level) == (domain, level))
        assert len(docs) == n_templates * len(CANONICAL_SEEDS), name
        assert DOC_FIELDS <= set(docs[0]) and {d["level"] for d in docs} == {level}, name
        for doc in docs:
            chat = json.loads(task.fewshot_context(doc, 0, apply_chat_template=True, chat_template=_as_json))
            assert chat == prompts.chat_messages(doc["question"]), doc["id"]
        picked = _first_and_last(docs)
        for scores in _score_through_task(task, picked, lambda doc: doc["solution"]):
            assert scores["chaineval"] == pytest.approx(1.0) and scores["fac"] == 1.0, (name, scores)
            assert list(scores) == list(METRIC_KEYS) and scores["no_error"] == 1.0
        for scores in _score_through_task(task, picked, lambda doc: ""):
            assert scores["chaineval"] == 0.0 and scores["fac"] == 0.0 and scores["parse_ok"] == 0.0, name


def _as_json(messages, add_generation_prompt=True) -> str:
    return json.dumps(messages)


def test_completion_variant_primes_step_one_and_scores_the_continuation():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata={"finchain_prompt": "completion"})
    names = list(layout().leaves)
    for name, task in manager.load(names)["tasks"].items():
        docs = list(task.eval_docs)
        text = task.fewshot_context(docs[0], 0)
        assert text == prompts.completion_prompt(docs[0]["question"]) and text.endswith("Step 1:"), name
        picked = [len(docs) // 2]
        continuation = lambda doc: doc["solution"].removeprefix(doc["response_prefix"])  # noqa: E731
        for scores in _score_through_task(task, picked, continuation):
            assert scores["chaineval"] == pytest.approx(1.0) and scores["fac"] == 1.0, name


def test_metadata_chooses_seeds_and_profile():
    name = next(iter(layout().leaves))
    meta = {"finchain_seeds": 2, "finchain_start_seed": 5, "finchain_profile": "reference"}
    task = TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata=meta).load([name])["tasks"][name]
    docs = list(task.eval_docs)
    assert {d["seed"] for d in docs} == {5, 6}
    assert {json.loads(d["chaineval_params"])["profile"] for d in docs} == {"reference"}
    run = task.config.metadata["finchain_run"]
    assert run["chaineval"]["profile"] == "reference" and run["seeds"] == {"count": 2, "start": 5}
    fresh = TaskManager(include_path=TASKS_DIR, include_defaults=False,
                        metadata={"finchain_seeds": 1, "finchain_fresh": "true"}).load([name])["tasks"][name]
    assert all(d["seed"] >= FRESH_SEED_FLOOR for d in fresh.eval_docs)


def test_unknown_profile_is_refused_when_the_task_loads():
    name = next(iter(layout().leaves))
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata={"finchain_profile": "nope"})
    with pytest.raises(ValueError, match="unknown ChainEval profile"):
        manager.load([name])


def test_overlapping_requests_get_a_plain_message():
    lay = layout()
    first_view, first_domain = next(iter(lay.views)), next(iter(lay.domains))
    for pair in ([TOP, first_view], [first_domain, TOP], [first_domain, lay.domains[first_domain][0]]):
        with pytest.raises(ValueError, match="overlap"):
            check_overlaps(pair)
    check_overlaps([*lay.views])  # the views are disjoint
    check_overlaps([*lay.domains, "gsm8k"])  # domains are disjoint; other tasks are not ours
