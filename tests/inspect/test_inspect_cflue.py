"""The cflue Inspect task, its scorer, metrics and majority-vote reducer, in process with mockllm
(and the real ``inspect`` command for the documented runs). Data: the project's 40-question sample."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from finchain_tasks.cflue import SAMPLE_PATH, CflueDataError, load_cflue, prompts
from finchain_tasks.inspect.cflue import SCORER, cflue
from scorers.cflue.metrics import weighted_f1
from tests.support.timeouts import limit

RECORDS = load_cflue(SAMPLE_PATH).records
GOLD = {prompts.record_prompt(r): r for r in RECORDS}
INSPECT = str(Path(sys.executable).parent / "inspect")


def _mock(reply, calls: Counter | None = None):
    """mockllm answering ``reply(record, k)`` for the k-th call (0-based) about a question."""
    calls = Counter() if calls is None else calls

    def answer(input, tools, tool_choice, config):
        record = GOLD[input[-1].text]
        output = ModelOutput.from_content("mockllm/model", reply(record, calls[record.id]))
        calls[record.id] += 1
        output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)  # no tiktoken download
        return output

    return get_model("mockllm/model", custom_outputs=answer)


def _run(task, model, tmp_path, **kwargs):
    log = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path), **kwargs)[0]
    assert log.status == "success", log.error
    (score,) = log.results.scores
    return log, score


def _metric(score, name: str, group: str | None = None) -> float:
    found = [m.value for key, m in score.metrics.items() if (m.name == name or key == name) and m.group == group]
    assert len(found) == 1, (name, group, list(score.metrics))
    return found[0]


def test_default_task_is_the_sample_with_the_official_prompt(monkeypatch):
    monkeypatch.delenv("CFLUE_PATH", raising=False)
    task = cflue()
    samples = list(task.dataset)
    assert [s.id for s in samples] == [r.id for r in RECORDS]
    assert [s.input for s in samples] == [prompts.record_prompt(r) for r in RECORDS]
    assert [s.target for s in samples] == [r.answer for r in RECORDS]
    assert samples[0].metadata["choices"] == RECORDS[0].choices and samples[0].metadata["type_slug"]
    meta = task.metadata
    assert meta["is_sample"] is True and meta["extract_mode"] == "robust" and meta["prompt_variant"] == "zero_shot"
    assert meta["profile"] == "default"  # the reader's profile reads robustly; profile=reference is the authors' rule
    assert task.epochs == 1 and len(task.epochs_reducer) == 1  # the vote, for --epochs N as well


def test_selection_and_cot_parameters():
    tf_mc = cflue(path=str(SAMPLE_PATH), type="true_false,multiple_choice", prompt="cot")
    wanted = [r for r in RECORDS if r.type_slug in ("true_false", "multiple_choice")]
    assert [s.input for s in tf_mc.dataset] == [prompts.record_prompt(r, cot=True) for r in wanted]
    assert tf_mc.config.max_tokens == prompts.COT_MAX_NEW_TOKENS
    exam = RECORDS[0].exam
    assert {s.metadata["exam"] for s in cflue(exam=[exam]).dataset} == {exam}
    bon = cflue(n=4)
    assert bon.epochs == 4 and bon.config.temperature == 0.7 and bon.metadata["best_of_n"]["n"] == 4


@pytest.mark.parametrize("bad", [dict(prompt="few_shot"), dict(extract="loose"), dict(n=0)])
def test_bad_options_fail_before_any_sample_runs(bad):
    with pytest.raises(ValueError, match="CFLUE"):
        cflue(**bad)


def test_a_bad_path_or_selection_gives_the_loader_error(tmp_path):
    with pytest.raises(CflueDataError, match="CFLUE file not found"):
        cflue(path=str(tmp_path / "missing.json"))
    with pytest.raises(CflueDataError, match="unknown question type"):
        cflue(type="essay")


def test_invalid_records_are_warned_and_recorded(tmp_path, caplog):
    rows = json.loads(SAMPLE_PATH.read_text("utf-8")) + [{"名称": "x", "task": "填空题"}]
    path = tmp_path / "with_bad.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="finchain_tasks.cflue"):
        task = cflue(path=str(path))
    assert len(task.dataset) == len(RECORDS)
    assert task.metadata["n_invalid"] == 1 and task.metadata["invalid"][0]["index"] == len(rows) - 1
    assert "1 invalid record(s)" in caplog.text and "missing field" in caplog.text


def test_gold_letters_score_one_and_the_log_records_the_extraction_mode(tmp_path):
    pytest.importorskip("jieba")
    log, score = _run(cflue(path=str(SAMPLE_PATH), extract="robust", analysis=True),
                      _mock(lambda r, k: f"答案：{r.answer}\n解析：{r.analysis or ''}"), tmp_path)
    assert score.scorer == SCORER
    assert _metric(score, "accuracy") == 1.0 and _metric(score, "weighted_f1") == 1.0
    assert _metric(score, "invalid_rate") == 0.0 and _metric(score, "stderr") == 0.0
    for slug in {r.type_slug for r in RECORDS}:
        assert _metric(score, slug, "type") == 1.0
    assert log.eval.metadata["extract_mode"] == "robust"
    assert log.eval.task == _logged_name("cflue", _here_sees_egg_info())
    first = log.samples[0].messages
    assert [m.role for m in first[:2]] == ["system", "user"] and first[0].text == prompts.SYSTEM_PROMPT
    assert log.results.headline.metric == "accuracy"
    # the reply repeats the reference analysis: unigram BLEU and ROUGE-L are exactly 1
    assert _metric(score, "bleu_1", "analysis") == pytest.approx(1.0)
    assert _metric(score, "rouge_l", "analysis") == pytest.approx(1.0)
    assert all(s.scores[SCORER].metadata["extract_mode"] == "robust" for s in log.samples)


def test_always_answering_a_scores_the_share_of_gold_a(tmp_path):
    _, score = _run(cflue(path=str(SAMPLE_PATH)), _mock(lambda r, k: "答案：A"), tmp_path)
    golds = [r.answer for r in RECORDS]
    assert _metric(score, "accuracy") == pytest.approx(golds.count("A") / len(golds))
    assert _metric(score, "weighted_f1") == pytest.approx(weighted_f1(golds, ["A"] * len(golds)))
    for slug in {r.type_slug for r in RECORDS}:
        typed = [r.answer for r in RECORDS if r.type_slug == slug]
        assert _metric(score, slug, "type") == pytest.approx(typed.count("A") / len(typed))
        assert _metric(score, f"{slug}_weighted_f1", "type_f1") == pytest.approx(weighted_f1(typed, ["A"] * len(typed)))


VOTES = [  # (the three sampled responses in epoch order, the documented winner)
    (["答案：B", "答案：A", "答案：A"], "A"),          # plain majority
    (["答案：B", "答案：A", "我不知道"], "B"),           # tie A/B: the earliest epoch's answer wins
    (["我不知道", "无法判断", "答案：A"], "A"),          # one valid answer beats any number of invalid ones
    (["我不知道", "无法判断", "？"], "X"),               # all invalid: epoch 1, invalid
]


def test_best_of_n_epochs_keep_the_majority_answer(tmp_path):
    docs = [r for r in RECORDS if r.type_slug == "true_false"]
    scripts = {r.id: VOTES[i][0] if i < len(VOTES) else [f"答案：{r.answer}"] * 3 for i, r in enumerate(docs)}
    expected = {r.id: VOTES[i][1] if i < len(VOTES) else r.answer for i, r in enumerate(docs)}
    calls = Counter()
    # one sample at a time: the k-th call about a question is its epoch k+1 (epochs run in order)
    log, score = _run(cflue(path=str(SAMPLE_PATH), type="true_false", n=3),
                      _mock(lambda r, k: scripts[r.id][k], calls), tmp_path, max_samples=1)
    assert set(calls.values()) == {3} and log.eval.config.epochs == 3
    assert log.eval.config.epochs_reducer == ["majority_vote"]
    (reduction,) = log.reductions
    assert reduction.reducer == "majority_vote"
    voted = {s.sample_id: s for s in reduction.samples}
    assert {sid: s.answer for sid, s in voted.items()} == expected
    assert voted[docs[2].id].metadata["votes"] == ["X", "X", "A"]
    correct = sum(expected[r.id] == r.answer for r in docs)
    assert _metric(score, "accuracy") == pytest.approx(correct / len(docs))
    golds = [r.answer for r in docs]
    assert _metric(score, "weighted_f1") == pytest.approx(weighted_f1(golds, [expected[r.id] for r in docs]))


_WHICH_METADATA = "import importlib.metadata as m; print(str(getattr(m.distribution('finchain_tasks'), '_path', '')))"


def _sees_egg_info(cwd: Path | None = None) -> bool:
    """True when the metadata Python finds for finchain_tasks is a ``finchain_tasks.egg-info`` folder: a stale
    one that ``pip install -e`` left in a source checkout (``make`` deletes it) and that precedes the installed
    metadata on ``sys.path``. Asked of a fresh interpreter with the environment the inspect command gets."""
    out = subprocess.run([sys.executable, "-c", _WHICH_METADATA], cwd=cwd, capture_output=True, text=True,
                         timeout=limit(300))
    return out.stdout.strip().endswith(".egg-info")


def _here_sees_egg_info() -> bool:
    """The same question asked of this process (whose sys.path holds the checkout, as pytest sets it)."""
    import importlib.metadata

    return str(getattr(importlib.metadata.distribution("finchain_tasks"), "_path", "")).endswith(".egg-info")


def _logged_name(task: str, egg_info: bool) -> str:
    """The task name Inspect logs: ``finchain_tasks/<task>`` for an installed package; where a stale egg-info
    hides the install, Inspect sees a bare module and logs ``<task>``. Which one depends on the checkout, not
    on this package, so the test expects what the metadata on the path implies."""
    return task if egg_info else f"finchain_tasks/{task}"


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The inspect command, offline; mockllm counts tokens with tiktoken, whose o200k_base file
    litellm ships under tiktoken's cache name (as in test_inspect_cli)."""
    env = dict(os.environ)
    spec = importlib.util.find_spec("litellm")
    if spec and spec.origin:
        env.setdefault("TIKTOKEN_CACHE_DIR", str(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"))
    return subprocess.run([INSPECT, *args, "--display", "plain"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=limit(600))


@pytest.mark.slow
def test_inspect_command_from_a_downloaded_copy_and_a_bad_path(tmp_path):
    from inspect_ai.log import list_eval_logs, read_eval_log

    data = tmp_path / "knowledge.json"
    data.write_text(SAMPLE_PATH.read_text("utf-8"), encoding="utf-8")
    ok = _cli(["eval", "cflue", "--model", "mockllm/model", "-T", f"path={data}", "-T", "type=true_false",
               "-T", "extract=robust", "--limit", "2", "--log-dir", str(tmp_path / "logs")], tmp_path)
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-3000:]
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0].name)
    assert log.status == "success", log.error
    assert log.eval.task == _logged_name("cflue", _sees_egg_info(tmp_path)) and log.eval.metadata["source"] == str(data)
    assert log.eval.metadata["extract_mode"] == "robust" and len(log.samples) == 2
    bad = _cli(["eval", "cflue", "--model", "mockllm/model", "-T", f"path={tmp_path / 'missing.json'}"], tmp_path)
    assert bad.returncode != 0 and "Traceback" not in bad.stdout + bad.stderr
    assert "CFLUE file not found" in " ".join((bad.stdout + bad.stderr).split())
