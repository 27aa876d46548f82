"""``cflue_bon`` through lm-eval's own evaluator against the fake OpenAI-compatible server: a mixed batch of
four questions whose 16 candidates are scripted so every selector's figure is known by hand."""

from __future__ import annotations

import json
import random
import threading
import zlib
from collections import Counter

import pytest

pytest.importorskip("lm_eval")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402
from support.fake_openai import FakeOpenAI  # noqa: E402

from finchain_tasks.cflue import SAMPLE_PATH, load_cflue  # noqa: E402
from finchain_tasks.cflue.prompts import record_prompt  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.bon_build import CFLUE_REPEATS, CFLUE_TASK  # noqa: E402
from finchain_tasks.lm_eval.build import differences  # noqa: E402
from scorers.prm.pool import value_keys  # noqa: E402

N = CFLUE_REPEATS
RECORDS = load_cflue(SAMPLE_PATH).records[:4]  # limit=4 takes the first four questions of the file


def _manager(**metadata) -> TaskManager:
    return TaskManager(include_path=TASKS_DIR, include_defaults=False,
                       metadata={"cflue_path": str(SAMPLE_PATH), **metadata})


def _candidate(q: int, k: int, gold: str, wrong: str) -> str:
    """The k-th of 16 answers to question q (calc: '2 + 2 = 4' checks, R 1; '2 + 2 = 5' fails, R 0; no
    arithmetic: no verdict, R 0.5):

    q0: gold with checked arithmetic when k % 4 == 3, else the wrong letter with no arithmetic
    q1: gold with checked arithmetic when k % 4 == 3, else the wrong letter with failing arithmetic
    q2: always gold, no arithmetic
    q3: the wrong letter with failing arithmetic for k < 10, else no readable answer"""
    if q in (0, 1) and k % 4 == 3:
        return f"解析：2 + 2 = 4\n答案：{gold}"
    if q == 0:
        return f"答案：{wrong}\n解析：见教材。"
    if q == 1 or (q == 3 and k < 10):
        return f"解析：2 + 2 = 5\n答案：{wrong}"
    return f"答案：{gold}\n解析：见教材。" if q == 2 else "不知道。"


class Script:
    """The fake server's reply: which question the last user message asks, and how often it was asked."""

    def __init__(self):
        self.asked, self.lock = Counter(), threading.Lock()

    def __call__(self, body) -> str:
        user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
        q = next(i for i, r in enumerate(RECORDS) if record_prompt(r) == user)
        with self.lock:
            k = self.asked[q]
            self.asked[q] += 1
        r = RECORDS[q]
        return _candidate(q, k, r.answer, next(x for x in r.valid_letters if x != r.answer))


def _random_pick_correct(q: int) -> bool:
    """The random selector's pick, from its documented seed (crc32 of "<cluster>|<id>": the exam, the question id)."""
    rid = RECORDS[q].id
    k = random.Random(zlib.crc32(f"exam:{RECORDS[q].exam}|{rid}".encode())).randrange(N)
    return {0: k % 4 == 3, 1: k % 4 == 3, 2: True, 3: False}[q]


def test_generated_yaml_is_in_sync():
    assert "bon/cflue_bon.yaml" not in differences()


def test_cflue_bon_against_the_fake_server_reports_every_selector():
    script = Script()
    with FakeOpenAI(reply=script) as server:
        model_args = f"base_url={server.base_url}/chat/completions,model=fake,tokenizer_backend=None," \
                     "tokenized_requests=False"
        out = simple_evaluate(model="local-chat-completions", model_args=model_args, tasks=[CFLUE_TASK],
                              task_manager=_manager(cflue_prm="calc"), apply_chat_template=True, limit=4,
                              log_samples=True, bootstrap_iters=0)
    assert len(server.requests) == 4 * N and set(script.asked.values()) == {N}
    assert server.requests[0].body["temperature"] == 0.7
    res = out["results"][CFLUE_TASK]
    # per question (q0, q1, q2, q3), by hand from the script:
    #   majority: 12 × wrong, 12 × wrong, 16 × gold, 10 × wrong (6 unreadable never vote) -> 0, 0, 1, 0
    #   weighted vote: gold 4 × 1.0 vs wrong 12 × 0.5 = 6 -> wrong; 4 vs 12 × 0 -> gold; gold; wrong -> 0, 1, 1, 0
    #   PRM best: the first R = 1.0 is gold (k = 3); again (k = 3); all R 0.5, the first (k = 0) is gold;
    #   R 0 for k < 10 and 0.5 after, the first 0.5 (k = 10) unreadable -> 1, 1, 1, 0
    #   pass@N: 1, 1, 1, 0; the ChainEval oracle has no ChainEval (CFLUE) and keeps candidate 0: 0, 0, 1, 0
    assert res["majority,bon"] == pytest.approx(1 / 4) and res["weighted_vote,bon"] == pytest.approx(2 / 4)
    assert res["prm_best,bon"] == pytest.approx(3 / 4) and res["pass_at_n,bon"] == pytest.approx(3 / 4)
    assert res["oracle_chaineval,bon"] == pytest.approx(1 / 4)
    assert res["random,bon"] == pytest.approx(sum(_random_pick_correct(q) for q in range(4)) / 4)
    assert {f"{k},bon" for k in value_keys(False)} <= set(res) and "ce_prm_best,bon" not in res
    samples = sorted(out["samples"][CFLUE_TASK], key=lambda s: s["doc_id"])
    records = [json.loads(s["filtered_resps"][0]) for s in samples]
    assert [r["selected"]["prm_best"] for r in records] == [3, 3, 0, 10]
    first = records[0]
    assert first["n"] == N and first["prm"] == "calc" and first["cluster"] == f"exam:{RECORDS[0].exam}"
    assert first["question"] == record_prompt(RECORDS[0])  # what the PRM read: the prompt, options included
    assert [c["correct"] for c in first["candidates"]] == [k % 4 == 3 for k in range(N)]  # candidates in order
    assert records[3]["candidates"][12]["key"] is None and records[3]["candidates"][12]["answer"] == "X"
    run = out["configs"][CFLUE_TASK]["metadata"]["cflue_run"]
    assert run["best_of_n"]["n"] == N and run["best_of_n"]["prm"] == "calc" and run["is_sample"]


def test_n_and_a_bad_spec_come_from_the_metadata_before_any_request():
    task = _manager(cflue_n=4, cflue_temperature=0.3).load([CFLUE_TASK])["tasks"][CFLUE_TASK]
    assert task.config.repeats == 4 and task.config.generation_kwargs["temperature"] == 0.3
    with FakeOpenAI(reply="答案：A") as server:
        model_args = f"base_url={server.base_url}/chat/completions,model=fake,tokenizer_backend=None"
        with pytest.raises(Exception, match="no such path"):
            simple_evaluate(model="local-chat-completions", model_args=model_args, tasks=[CFLUE_TASK],
                            task_manager=_manager(cflue_prm="hf:/no/such/prm"), limit=1, bootstrap_iters=0)
        assert not server.requests
