"""Model-backed signals through litellm against a real local OpenAI-compatible server: the dry run
counts every call before any is made, every call is cached (a rerun sends nothing), a judge that
answers off-format and a rollout that times out leave the step unknown with the reason."""

from __future__ import annotations

import json

import pytest

from finchain_tasks.prm.labeling import Models, read_items, run_labels
from tests.support.fake_openai import FakeOpenAI, delay

ROWS = [
    {"id": "t1", "question": "What is (2 + 2) × 3?",
     "output": "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12", "gold_answer": 12,
     "knowledge": ["sum", "product"]},
    {"id": "t2", "question": "Empty", "output": "", "gold_answer": 1, "knowledge": ["x"]},
]
ROLLOUTS = 3
CALLS_PER_STEP = ROLLOUTS + 1 + 2  # rollouts, qualitative, procedural + factual
EXPECTED_CALLS = 2 * CALLS_PER_STEP + 1  # two steps of t1, one concept call; t2 has no steps: no calls
MADE_CALLS = EXPECTED_CALLS - 2  # step 2's judge answers off-format: its two accuracy calls are never made


def reply(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    if prompt.endswith("Continue:"):
        return "Step 3: 4 × 3 = 12\nFinal answer: 12" if "4 × 3" in prompt else "Final answer: 13"
    if "'Score:" in prompt:
        return "Score: 0.9" if "Judge only step 1" in prompt else "This step looks fine to me!"
    if "'Verdict:" in prompt:
        return "Verdict: correct"
    return "Used: 2"


@pytest.fixture
def jsonl(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    path = tmp_path / "cands.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def test_dry_run_counts_then_real_run_calls_then_cache_answers(jsonl, tmp_path):
    items = read_items(jsonl)
    out, cache = tmp_path / "labels.jsonl", tmp_path / "calls.sqlite"
    with FakeOpenAI(reply=reply) as server:
        models = Models("openai/fake", "openai/fake", server.base_url, rollouts=ROLLOUTS)
        plan = run_labels(items, out, "fused", models, cache, dry_run=True)
        assert plan["usage"]["planned"] == EXPECTED_CALLS and not server.requests and not out.exists()
        assert plan["usage"]["planned_completion_tokens"] == 2 * (ROLLOUTS * 512 + 3 * 16) + 32
        first = run_labels(items, out, "fused", models, cache)
        assert len(server.requests) == MADE_CALLS == first["usage"]["calls"]
        second = run_labels(items, out, "fused", models, cache)
        assert len(server.requests) == MADE_CALLS and second["usage"]["cached"] == MADE_CALLS
        assert second["usage"]["calls"] == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["t1", "t2"]
    t1 = rows[0]
    # step 1: rollouts from '2 + 2 = 4' say 13 (0/3), judge 0.9, accuracy 1 + 1: fused above 0.5
    assert t1["step_scores"][0]["importance"] == 0.0 and t1["step_labels"][0] == 1
    assert t1["step_labels"][1] is None
    assert t1["reasons"] == {"step 2": "qualitative judge answered off-format: 'This step looks fine to me!'"}
    # r_out = 1 (12), r_cover = 1/2 ('product' of sum, product): 1 + 1.5 × 0.5 = 1.75 ≥ 1.25
    assert t1["traj_scores"] == {"r_out": 1.0, "r_cover": 0.5, "r_traj": 1.75, "eta": 1.5} and t1["traj_label"] == 1
    assert rows[1]["reasons"] == {"trace": "trace has no steps"}
    summary = json.loads((tmp_path / "labels.jsonl.summary.json").read_text())
    assert summary["steps_unknown"] == 1 and summary["traj_unknown"] == 1


def test_rollout_timeout_is_an_unknown_step(jsonl, tmp_path):
    items = read_items(jsonl)[:1]
    with FakeOpenAI(reply=reply, rule=lambda body: delay(5) if body["messages"][-1]["content"].endswith(
            "Continue:") else None) as server:
        models = Models("openai/fake", "openai/fake", server.base_url, rollouts=1)
        from finchain_tasks.prm import labeling

        signals, usage = labeling.fused_signals(models, labeling.CallCache(tmp_path / "c.sqlite"))
        signals.importance.llm.timeout = 0.5
        from scorers.prm.labels import label_items

        [lab] = label_items(items, "fused", signals)
    assert lab.step_labels == [None, None]
    assert lab.reasons["step 1"] == "rollout timed out after 0.5s" and usage.failed == 2


def test_malformed_jsonl_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\n{not json\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not JSON"):
        read_items(bad)


@pytest.mark.slow
def test_run_directories_of_both_hosts_are_read(tmp_path):
    """An Inspect log and an lm-eval samples file, each with one FinChain candidate: the problem id brings
    the gold trace, so the exact recipe can label them."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ModelOutput

    from finchain_tasks.engine.registry import all_templates
    from scorers.prm.labels import label_items

    problem = next(iter(all_templates().values())).generate(0)
    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="finchain", dataset=EvalDataset(),
                    model="mockllm/model", config=EvalConfig())
    sample = EvalSample(id=problem.id, epoch=1, input=problem.question, target=problem.solution,
                        output=ModelOutput.from_content("mockllm/model", problem.solution))
    write_eval_log(EvalLog(eval=spec, samples=[sample]), str(tmp_path / "logs" / "a.eval"))
    folder = tmp_path / "lm_eval" / "m" / "finchain"
    folder.mkdir(parents=True)
    doc = {"id": problem.id, "question": problem.question}
    (folder / "samples_finchain_2026.jsonl").write_text(json.dumps({"doc": doc, "resps": [[problem.solution]]}))
    items = read_items(tmp_path)
    assert len(items) == 2 and all(i.gold is not None and i.meta["problem_id"] == problem.id for i in items)
    labels = label_items(items, "exact")
    assert all(lab.step_labels == [1] * len(problem.steps) and lab.traj_label == 1 for lab in labels)
    with pytest.raises(ValueError, match="no Inspect logs and no lm-eval samples"):
        (tmp_path / "empty").mkdir()
        read_items(tmp_path / "empty")


def test_an_interrupted_job_resumes_from_its_cache(jsonl, tmp_path):
    """The server dies after 5 answers (every later call fails): those steps are unknown, the 5 answers are
    on disk; the rerun against a working server sends only the calls that were never answered."""
    items = read_items(jsonl)
    out, cache = tmp_path / "labels.jsonl", tmp_path / "calls.sqlite"
    from tests.support.fake_openai import server_error

    with FakeOpenAI(reply=reply, rule=lambda body: None) as server:
        models = Models("openai/fake", "openai/fake", server.base_url, rollouts=ROLLOUTS)
        server.rule = lambda body: server_error(500) if len([r for r in server.requests if r.answered]) >= 5 else None
        broken = run_labels(items, out, "fused", models, cache)
        assert broken["usage"]["calls"] == 5 and broken["steps_unknown"] == 2
        server.rule = None
        sent_before = len(server.requests)
        resumed = run_labels(items, out, "fused", models, cache)
    assert resumed["usage"]["cached"] == 5 and resumed["usage"]["calls"] == MADE_CALLS - 5
    assert len(server.requests) - sent_before == MADE_CALLS - 5
    assert resumed["usage"]["prompt_tokens"] > 0
