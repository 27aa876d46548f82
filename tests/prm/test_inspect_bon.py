"""Best-of-N in Inspect with mockllm: ``finchain -T samples=4 -T prm=calc`` and ``cflue``; every selector reported."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from finchain_tasks.engine import all_templates  # noqa: E402
from finchain_tasks.finchain.sampling import template_id_of  # noqa: E402
from finchain_tasks.inspect.bon import SCORER  # noqa: E402
from finchain_tasks.inspect.tasks import finchain  # noqa: E402
from scorers.prm.pool import value_keys  # noqa: E402

WRONG = "Step 1: 2 + 2 = 5\nFinal answer: 5"          # calc: BAD step, R = 0
GARBLED = "I am not sure what to do here"               # no arithmetic, no answer: R = 0.5 (neutral)


def _mock(reply):
    """mockllm whose answer depends on the question and the candidate's seed (its index in the pool)."""
    seeds = []

    def answer(input, tools, tool_choice, config):
        seeds.append((config.seed, config.temperature))
        out = ModelOutput.from_content("mockllm/model", reply(input[-1].text, config.seed))
        out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return out

    return get_model("mockllm/model", custom_outputs=answer), seeds


def _metrics(log) -> dict[str, float]:
    return {s.name: s.metrics["mean"].value for s in log.results.scores}


def test_finchain_best_of_4_with_calc_reports_every_selector(tmp_path):
    template = next(iter(all_templates().values()))
    task = finchain(template=template.name, seeds=2, samples=4, prm="calc")
    gold = {s.input: s.target for s in task.dataset}
    first = list(task.dataset)[0].input

    def reply(question, seed):
        if question != first:
            return gold[question]                      # problem 2: four gold answers
        return [WRONG, WRONG, gold[question], GARBLED][seed]   # problem 1: a wrong bloc of 2, one gold

    model, seeds = _mock(reply)
    log = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success"
    assert sorted(seeds) == [(k, 0.7) for k in (0, 0, 1, 1, 2, 2, 3, 3)]
    metrics = _metrics(log)
    assert set(metrics) == set(value_keys(True))
    # problem 1: majority takes the "5" bloc (wrong); the PRM-weighted vote and PRM best take the gold (R 1 vs 0)
    assert metrics["majority"] == 0.5 and metrics["ce_majority"] == pytest.approx(0.5)
    assert metrics["weighted_vote"] == metrics["prm_best"] == metrics["pass_at_n"] == 1.0
    assert metrics["oracle_chaineval"] == 1.0 and metrics["ce_prm_best"] == pytest.approx(1.0)
    assert metrics["random"] in (0.5, 1.0)
    assert log.eval.metadata["best_of_n"]["samples"] == 4 and log.eval.metadata["best_of_n"]["prm"] == "calc"
    by_input = {s.input: s for s in log.samples}
    score = by_input[first].scores[SCORER]
    record = score.metadata["bon"]
    assert [c["reward"] for c in record["candidates"]] == [0.0, 0.0, 1.0, 0.5]
    assert record["selected"]["prm_best"] == 2 and record["selected"]["majority"] == 0
    assert (record["agg"], record["zeta"], record["prm"]) == ("min", 1.0, "calc")
    assert record["cluster"] == template_id_of(str(by_input[first].id))
    assert "PRM pick (candidate 3)" in score.explanation and score.answer == record["candidates"][2]["answer"]

    # `finchain prm label` on the run labels every candidate of every pool, not only each sample's pick
    from finchain_tasks.prm.labeling import read_items

    items = read_items(tmp_path)
    texts = sorted(c["text"] for s in log.samples for c in s.scores[SCORER].metadata["bon"]["candidates"])
    assert len(items) == 8 and sorted(i.output for i in items) == texts
    assert len({i.id for i in items}) == 8

    # `finchain bon` reads the pools back from the Inspect log, PRM scores included
    from finchain_tasks.prm.runs import CACHE_FILE, load_pools

    pools, prms = load_pools(tmp_path)
    assert prms == {"calc"} and len(pools) == 2 and (tmp_path / CACHE_FILE).is_file()
    by_rewards = sorted([c.reward for c in p.candidates] for p in pools)
    assert by_rewards == [[0.0, 0.0, 1.0, 0.5], [1.0, 1.0, 1.0, 1.0]]

    # `finchain bon --prm`: the log's candidates re-scored by another PRM (a tiny release-layout checkpoint),
    # each candidate read with the question the run's PRM read; the generating model is not involved
    pytest.importorskip("torch")
    from finchain_tasks.prm.runs import Rescore
    from scorers.prm.base import prm_input
    from scorers.prm.tiny import tiny_prm

    ckpt = tmp_path / "ckpt"
    tiny = tiny_prm("release", seed=3, save_to=ckpt)
    rescore = Rescore(f"hf:{ckpt}:release", agg="mean")
    pools, prms = load_pools(tmp_path, rescore=rescore)
    assert prms == {f"hf:{ckpt}:release"} and rescore.original == {"calc"} and rescore.scored == 8
    tiny.agg = "mean"
    expected = sorted([s.reward for s in tiny.score_batch([prm_input(sample.input, c["text"]) for c in
                                                           sample.scores[SCORER].metadata["bon"]["candidates"]])]
                      for sample in log.samples)
    got = sorted([c.reward for c in p.candidates] for p in pools)
    assert got == [pytest.approx(e, abs=1e-5) for e in expected]


def test_bad_prm_spec_fails_when_the_task_is_built():
    with pytest.raises(ValueError, match="unknown PRM backend 'nope'"):
        finchain(template=next(iter(all_templates().values())).name, seeds=1, samples=2, prm="nope")
    with pytest.raises(ValueError, match="needs temperature > 0"):
        finchain(seeds=1, samples=2, temperature=0)


def test_cflue_best_of_2(tmp_path):
    from finchain_tasks.cflue import hosts
    from finchain_tasks.inspect.cflue import cflue

    task = cflue(type="true_false", samples=2, prm="calc")
    gold = {s.input: s.target for s in task.dataset}
    model, _ = _mock(lambda q, seed: f"答案：{gold[q]}" if seed == 0 else "我不知道")
    log = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success"
    metrics = _metrics(log)
    assert set(metrics) == set(value_keys(False))
    assert metrics["pass_at_n"] == metrics["majority"] == metrics["oracle_chaineval"] == 1.0
    record = log.samples[0].scores[SCORER].metadata["bon"]
    assert record["candidates"][1]["answer"] == hosts.INVALID and record["candidates"][1]["key"] is None
