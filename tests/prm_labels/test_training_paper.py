"""Issue 25, PRM training as the paper has it: the step loss averaged per trace (by hand), held-out AUCs on
whole templates, ``--base tiny`` labelled a plumbing check, and the GRPO settings of the paper's objective."""

from __future__ import annotations

import json
import math

import pytest

torch = pytest.importorskip("torch")

from scorers.prm.reward import PAPER_GRPO, paper_grpo_kwargs  # noqa: E402
from scorers.prm.training import examples_from_labels, group_of, step_loss  # noqa: E402


def _bce(z: float, y: int) -> float:
    p = 1 / (1 + math.exp(-z))
    return -(y * math.log(p) + (1 - y) * math.log(1 - p))


def test_step_loss_averages_each_trace_then_the_traces():
    # trace 0: one step (logit 2, label 0); trace 1: three steps (logit 0, label 1; one unknown in between)
    logits = torch.tensor([2.0, 0.0, 5.0, 0.0, 0.0])
    labels = [0, 1, None, 1, 1]
    trace_of = [0, 1, 1, 1, 1]
    one, three = _bce(2.0, 0), _bce(0.0, 1)
    per_trace = (one + three) / 2  # the paper: trace 1's three known steps average to one term
    per_step = (one + 3 * three) / 4  # every known step of the batch alike: trace 1 weighs three times
    assert float(step_loss(logits, labels, trace_of)) == pytest.approx(per_trace, rel=1e-6)
    assert float(step_loss(logits, labels, trace_of, average="step")) == pytest.approx(per_step, rel=1e-6)
    release = torch.stack([torch.zeros(5), logits], dim=1)  # 2-class logits: softmax of (0, z) = sigmoid(z)
    assert float(step_loss(release, labels, trace_of, mode="release")) == pytest.approx(per_trace, rel=1e-6)
    assert float(step_loss(logits, [None] * 5, trace_of)) == 0.0
    with pytest.raises(ValueError, match="step_average"):
        step_loss(logits, labels, trace_of, average="token")


def test_held_out_groups_are_templates():
    assert group_of({"id": "x", "meta": {"template": "d/t/tpl"}}) == "d/t/tpl"
    assert group_of({"id": "finchain/d/t/tpl/7"}) == "d/t/tpl"  # the FinChain id names the template
    assert group_of({"id": "c1", "meta": {"problem_id": "finchain/d/t/tpl/3"}}) == "d/t/tpl"
    assert group_of({"id": "cflue-9"}) == "cflue-9"


def _labels(tmp_path, templates: int = 10, seeds: int = 3):
    rows = []
    for t in range(templates):
        for s in range(seeds):
            good = (t + s) % 2 == 0
            rows.append({"id": f"finchain/d/topic/tpl{t}/{s}", "question": "Q", "final_answer": "1",
                         "steps": ["cash flow good", "ratio good" if good else "tax ratio bad"],
                         "step_labels": [1, int(good)], "traj_label": int(good)})
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_the_split_keeps_whole_templates_apart(tmp_path):
    # run_train's summary (held_out, plumbing_check, the TINY_NOTE printed first) is checked end to end by
    # tests/prm_labels/test_cli_prm.py::test_label_train_select, which trains anyway
    from finchain_tasks.prm.train_job import TINY_NOTE, split_by_group

    assert "plumbing check" in TINY_NOTE
    examples = examples_from_labels([json.loads(x) for x in _labels(tmp_path).read_text().splitlines()])
    train_set, eval_set = split_by_group(examples, 0.2)
    assert len({e.group for e in eval_set}) == 2 and len({e.group for e in train_set}) == 8
    assert not {e.group for e in train_set} & {e.group for e in eval_set}  # no template on both sides


def test_grpo_settings_name_the_papers_objective():
    # TRL's own defaults (beta 0.0, loss_type "dapo") and a two-step run of these settings are checked in
    # tests/prm_labels/test_reward.py::test_grpo_trainer_logs_both_rewards, which imports TRL anyway
    kwargs = paper_grpo_kwargs(delta=0.5)
    assert kwargs == {**PAPER_GRPO, "reward_weights": [1.0, 0.5]}
    assert (kwargs["loss_type"], kwargs["beta"] > 0, kwargs["scale_rewards"]) == ("grpo", True, "group")
