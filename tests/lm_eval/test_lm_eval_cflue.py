"""CFLUE through lm-eval: the ``cflue`` group and its per-type leaves, run with ``simple_evaluate``
(the ``finchain-oracle`` backend and scripted fakes in this file), plus the real commands against
a fake OpenAI-compatible server. The sample is the project's own 40 questions in the CFLUE schema."""

from __future__ import annotations

import json
import logging
import subprocess
from collections import Counter

import pytest

pytest.importorskip("lm_eval")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402
from support.fake_openai import FakeOpenAI  # noqa: E402
from support.lm_eval_helpers import VENV_BIN, cli_env, read_run  # noqa: E402

import finchain_tasks.lm_eval.models  # noqa: E402,F401  (registers finchain-oracle)
from finchain_tasks.cflue import SAMPLE_PATH, CflueDataError, load_cflue, prompts  # noqa: E402
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.cflue_build import GROUP, leaves  # noqa: E402
from scorers.cflue.metrics import weighted_f1  # noqa: E402
from tests.support.timeouts import limit

RECORDS = load_cflue(SAMPLE_PATH).records
BY_SLUG = {slug: [r for r in RECORDS if r.type_slug == slug] for slug in leaves().values()}


def _manager(**metadata) -> TaskManager:
    return TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata={"cflue_path": str(SAMPLE_PATH),
                                                                              **metadata})


class ScriptedLM(LM):
    """Answers request k of a document with ``script(doc)[k]``: k counts the repeats of Best-of-N."""

    def __init__(self, script) -> None:
        super().__init__()
        self.script, self.seen = script, Counter()

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        out = []
        for req in requests:
            k = self.seen[req.doc["id"]]
            self.seen[req.doc["id"]] += 1
            out.append(self.script(req.doc)[k])
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError


def test_group_and_leaves_are_indexed_one_leaf_per_question_type():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False)
    assert GROUP in manager.all_groups and set(leaves()) <= set(manager.all_subtasks)
    assert sorted(len(BY_SLUG[s]) for s in leaves().values()) == sorted(
        Counter(r.type_slug for r in RECORDS).values())


def test_gold_letters_score_one_and_the_run_records_extraction_and_analysis():
    pytest.importorskip("jieba")
    meta = {"cflue_extract": "robust", "cflue_analysis": True}
    out = simple_evaluate(model="finchain-oracle", model_args="mode=gold", tasks=[GROUP], task_manager=_manager(**meta),
                          log_samples=True)
    results = out["results"]
    for name in (GROUP, *leaves()):
        row = results[name]
        assert row["accuracy,none"] == 1.0 and row["weighted_f1,none"] == 1.0, name
        assert row["invalid_rate,none"] == 0.0 and isinstance(row["accuracy_stderr,none"], float), name
    assert results[GROUP]["sample_len"] == len(RECORDS)
    for name, slug in leaves().items():
        assert out["n-samples"][name]["effective"] == len(BY_SLUG[slug])
        run = out["configs"][name]["metadata"]["cflue_run"]
        assert run["extract_mode"] == "robust" and run["prompt_variant"] == "zero_shot" and run["is_sample"]
        assert run["analysis_metrics"] is True and run["n_invalid"] == 0 and run["best_of_n"]["n"] == 1
        # the oracle repeats the reference analysis: unigram BLEU and ROUGE-L are exactly 1
        assert results[name]["bleu_1,none"] == pytest.approx(1.0), name
        assert results[name]["rouge_l,none"] == pytest.approx(1.0), name
    sample = out["samples"]["cflue_single_choice"][0]
    assert json.loads(sample["filtered_resps"][0])["pred"] == sample["doc"]["answer"]


def test_always_answering_a_scores_the_share_of_gold_a():
    out = simple_evaluate(model=ScriptedLM(lambda doc: ["答案：A"]), tasks=[GROUP], task_manager=_manager())
    results = out["results"]
    for name, slug in leaves().items():
        golds = [r.answer for r in BY_SLUG[slug]]
        assert results[name]["accuracy,none"] == pytest.approx(golds.count("A") / len(golds)), name
        # one F1 over the whole leaf (a per-document mean of F1 would be a different number)
        assert results[name]["weighted_f1,none"] == pytest.approx(weighted_f1(golds, ["A"] * len(golds))), name
    share = sum(r.answer == "A" for r in RECORDS) / len(RECORDS)
    assert results[GROUP]["accuracy,none"] == pytest.approx(share)
    assert 0 < share < 1


VOTES = [  # (the three sampled responses, the documented winner)
    (["答案：B", "答案：A", "答案：A"], "A"),          # plain majority
    (["答案：B", "答案：A", "我不知道"], "B"),           # tie A/B: the answer that appeared first wins
    (["我不知道", "无法判断", "答案：A"], "A"),          # one valid answer beats any number of invalid ones
    (["我不知道", "无法判断", "？"], "X"),               # all invalid: the first response, invalid
]


def test_best_of_n_keeps_the_majority_answer_of_the_repeats():
    docs = BY_SLUG["true_false"]
    scripts = {r.id: VOTES[i][0] if i < len(VOTES) else [f"答案：{r.answer}"] * 3 for i, r in enumerate(docs)}
    expected = {r.id: VOTES[i][1] if i < len(VOTES) else r.answer for i, r in enumerate(docs)}
    lm = ScriptedLM(lambda doc: scripts[doc["id"]])
    out = simple_evaluate(model=lm, tasks=["cflue_true_false"], task_manager=_manager(cflue_n=3), log_samples=True)
    assert set(lm.seen.values()) == {3} and len(lm.seen) == len(docs)
    picked = {s["doc"]["id"]: json.loads(s["filtered_resps"][0]) for s in out["samples"]["cflue_true_false"]}
    assert {qid: p["pred"] for qid, p in picked.items()} == expected
    assert picked[docs[1].id]["chosen"] == 0 and picked[docs[2].id]["answers"] == ["X", "X", "A"]
    correct = sum(expected[r.id] == r.answer for r in docs)
    assert out["results"]["cflue_true_false"]["accuracy,none"] == pytest.approx(correct / len(docs))
    config = out["configs"]["cflue_true_false"]
    assert config["repeats"] == 3 and config["generation_kwargs"]["do_sample"] is True
    assert config["generation_kwargs"]["temperature"] == 0.7
    assert config["metadata"]["cflue_run"]["best_of_n"] == {"n": 3, "selector": "majority_vote"}


def test_cot_prompt_default_source_and_chat_messages(monkeypatch):
    monkeypatch.delenv("CFLUE_PATH", raising=False)
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata={"cflue_prompt": "cot"})
    task = manager.load(["cflue_multiple_choice"])["tasks"]["cflue_multiple_choice"]
    assert task.config.generation_kwargs["max_gen_toks"] == prompts.COT_MAX_NEW_TOKENS
    assert task.config.metadata["cflue_run"]["is_sample"] is True
    docs, records = list(task.eval_docs), BY_SLUG["multiple_choice"]
    assert [d["id"] for d in docs] == [r.id for r in records]
    chat = json.loads(task.fewshot_context(docs[0], 0, apply_chat_template=True, chat_template=_as_json))
    assert chat == prompts.chat_messages(records[0], cot=True)


def _as_json(messages, add_generation_prompt=True) -> str:
    return json.dumps(messages)


@pytest.mark.parametrize("meta", [{"cflue_prompt": "few_shot"}, {"cflue_extract": "loose"}, {"cflue_n": 0}])
def test_bad_options_are_refused_when_the_task_loads(meta):
    with pytest.raises(ValueError, match="CFLUE"):
        _manager(**meta).load(["cflue_true_false"])


def test_a_bad_path_gives_the_loader_error(tmp_path):
    with pytest.raises(CflueDataError, match="CFLUE file not found"):
        _manager(cflue_path=str(tmp_path / "missing.json")).load(["cflue_true_false"])
    broken = tmp_path / "broken.json"
    broken.write_text('[{"名称": "x",', encoding="utf-8")
    with pytest.raises(CflueDataError, match="invalid JSON at line 1"):
        _manager(cflue_path=str(broken)).load(["cflue_true_false"])


def test_invalid_records_are_reported_not_dropped_silently(tmp_path, caplog):
    rows = json.loads(SAMPLE_PATH.read_text("utf-8"))
    rows += [{**rows[0], "answer": "E"}, {**rows[0], "choices": "__import__('os')"}]
    path = tmp_path / "with_bad.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="finchain_tasks.cflue"):
        task = _manager(cflue_path=str(path)).load(["cflue_single_choice"])["tasks"]["cflue_single_choice"]
    run = task.config.metadata["cflue_run"]
    assert run["n_invalid"] == 2 and [i["index"] for i in run["invalid"]] == [len(rows) - 2, len(rows) - 1]
    assert "not among the choices" in run["invalid"][0]["reason"] and run["is_sample"] is False
    assert "2 invalid record(s)" in caplog.text
    assert len(task.eval_docs) == len(BY_SLUG["single_choice"])


def _gold_letters(body) -> str:
    """The fake server's reply: the gold answer of the question in the last user message."""
    user = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"][-1]
    return next(f"答案：{r.answer}\n解析：{r.analysis or ''}" for r in RECORDS if prompts.record_prompt(r) == user)


@pytest.mark.slow
def test_lm_eval_command_from_a_downloaded_copy(tmp_path):
    data = tmp_path / "knowledge.json"
    data.write_text(SAMPLE_PATH.read_text("utf-8"), encoding="utf-8")
    with FakeOpenAI(reply=_gold_letters) as server:
        model_args = (f"base_url={server.base_url}/chat/completions,model=fake,"
                      "tokenizer_backend=None,tokenized_requests=False")
        proc = subprocess.run(
            [str(VENV_BIN / "lm_eval"), "--include_path", TASKS_DIR, "--tasks", GROUP, "--model",
             "local-chat-completions", "--model_args", model_args, "--apply_chat_template", "--limit", "2",
             "--metadata", json.dumps({"cflue_path": str(data), "cflue_extract": "robust"}),
             "--output_path", str(tmp_path / "out"), "--log_samples"],
            capture_output=True, text=True, env=cli_env(), timeout=limit(600))
    assert proc.returncode == 0, proc.stderr[-4000:]
    results, samples = read_run(tmp_path / "out")
    assert set(samples) == set(leaves()) and results["results"][GROUP]["accuracy,none"] == 1.0
    run = results["configs"]["cflue_true_false"]["metadata"]["cflue_run"]
    assert run["source"] == str(data) and run["extract_mode"] == "robust" and run["is_sample"] is False
    assert server.requests[0].body["messages"][0] == {"role": "system", "content": prompts.SYSTEM_PROMPT}


@pytest.mark.slow
def test_wrapper_prints_the_loader_error_without_a_traceback(tmp_path):
    proc = subprocess.run([str(VENV_BIN / "finchain-lm-eval"), "--tasks", GROUP, "--model", "finchain-oracle",
                           "--metadata", json.dumps({"cflue_path": str(tmp_path / "missing.json")})],
                          capture_output=True, text=True, env=cli_env(), timeout=limit(600))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "finchain-lm-eval: error:" in proc.stderr and "CFLUE file not found" in proc.stderr
