"""``finchain_bon`` in lm-eval: repeats + the selecting filter, in process with a scripted model."""

from __future__ import annotations

import json
from collections import Counter

import pytest

pytest.importorskip("lm_eval")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

import finchain_tasks.lm_eval.models  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.bon_build import REPEATS, TASK  # noqa: E402
from finchain_tasks.lm_eval.build import differences  # noqa: E402
from finchain_tasks.lm_eval.scoring import gold_row  # noqa: E402
from scorers.prm.pool import value_keys  # noqa: E402


class EveryFourthGold(finchain_tasks.lm_eval.models.FinChainOracle):
    """Per document, the k-th of its 16 candidates is the gold when k % 4 == 3, else one shared wrong answer
    with no checkable arithmetic (calc: no verdict, R = 0.5)."""

    def __init__(self):
        super().__init__("gold")
        self.calls = Counter()

    def reply(self, doc: dict) -> str:
        k = self.calls[doc["id"]]
        self.calls[doc["id"]] += 1
        if k % 4 == 3:
            return super().reply(doc)
        return "Step 1: A guess = 7\nFinal answer: 7"


def test_generated_yaml_is_in_sync():
    assert "bon/finchain_bon.yaml" not in differences()


def test_finchain_bon_reports_every_selector():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False,
                          metadata={"finchain_domain": "personal_finance", "finchain_level": "easy",
                                    "finchain_prm": "calc", "finchain_seeds": 1})
    model = EveryFourthGold()
    out = simple_evaluate(model=model, tasks=[TASK], task_manager=manager, limit=2, log_samples=True,
                          bootstrap_iters=0)
    results = out["results"][TASK]
    assert all(n == REPEATS for n in model.calls.values()) and len(model.calls) == 2
    # 12 × "7" (R 0.5 each, 6.0 in all) against 4 × gold (R 1.0, 4.0): both votes take "7", the PRM the gold
    assert results["majority,bon"] == 0.0 and results["weighted_vote,bon"] == 0.0
    assert results["prm_best,bon"] == 1.0 and results["pass_at_n,bon"] == 1.0
    assert results["oracle_chaineval,bon"] == 1.0 and results["ce_prm_best,bon"] == pytest.approx(1.0)
    assert {f"{k},bon" for k in value_keys(True)} <= set(results)
    [sample, _] = out["samples"][TASK]
    record = json.loads(sample["filtered_resps"][0])
    assert record["n"] == REPEATS and record["prm"] == "calc" and record["selected"]["prm_best"] == 3
    assert record["candidates"][3]["correct"] and str(gold_row(sample["doc"])["id"]).startswith("finchain/")


def test_bad_spec_fails_before_any_request():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False,
                          metadata={"finchain_domain": "personal_finance", "finchain_level": "easy",
                                    "finchain_prm": "hf:/no/such/prm"})
    model = EveryFourthGold()
    with pytest.raises(Exception, match="no such path"):
        simple_evaluate(model=model, tasks=[TASK], task_manager=manager, limit=1, bootstrap_iters=0)
    assert not model.calls
