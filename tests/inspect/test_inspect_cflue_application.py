"""The cflue_application Inspect task in process: an echo solver that answers every record with its gold
output scores 100 on every metric it computes, mockllm's fixed text scores 0 where a score can be 0,
COMET/BERTScore are left out (never 0) and named in the metadata, and selection and history work."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import solver

from finchain_tasks.cflue.application import load_application, reference_text
from finchain_tasks.inspect.cflue import CflueTaskError
from finchain_tasks.inspect.cflue_application import SCORER, cflue_application
from scorers.cflue.application import TABLE_COLUMNS

pytest.importorskip("jieba")

FIXTURES = Path(__file__).resolve().parents[1] / "cflue" / "fixtures"
RECORDS_PATH = str(FIXTURES / "application_records.json")
RECORDS = load_application(RECORDS_PATH).records


@solver
def echo_gold():
    """A fake model that answers with the record's gold output (the sample target)."""

    async def solve(state, generate):
        state.output = ModelOutput.from_content("mockllm/model", state.target.text)
        return state

    return solve


def _metrics(task, tmp_path, model="mockllm/model") -> dict[str, float]:
    log = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success", log.error
    (score,) = log.results.scores
    assert score.name == SCORER
    return {key: m.value for key, m in score.metrics.items()}


def test_echoing_the_gold_output_scores_100_on_every_computed_metric(tmp_path):
    metrics = _metrics(task_with(cflue_application(path=RECORDS_PATH), solver=echo_gold()), tmp_path)
    scores = {k: v for k, v in metrics.items() if not k.endswith("/n")}
    assert scores and all(v == pytest.approx(100.0) for v in scores.values()), scores
    for name in ("classification/accuracy", "translation/bleu_en2zh", "translation/bleu_zh2en", "extraction/f1",
                 "reading_comprehension/rouge_l", "generation/rouge_l", "金融事件因果关系抽取/f1", "金融英中翻译/bleu",
                 "average_of_computed"):
        assert name in scores, name
    assert {r.sub_task for r in RECORDS} <= {k.split("/")[0] for k in metrics}
    # not computed without a COMET checkpoint or BERTScore model: left out, never 0
    assert not [k for k in metrics if "comet" in k.lower() or "bertscore" in k or k == "average"]
    assert metrics["extraction/n"] == sum(r.task_slug == "extraction" for r in RECORDS)


def test_a_fixed_wrong_reply_scores_zero_where_it_shares_nothing(tmp_path):
    def reply(input, tools, tool_choice, config):
        output = ModelOutput.from_content("mockllm/model", "我不知道")
        output.usage = ModelUsage(input_tokens=5, output_tokens=5, total_tokens=10)
        return output

    model = get_model("mockllm/model", custom_outputs=reply)
    metrics = _metrics(cflue_application(path=RECORDS_PATH, task="classification,extraction"), tmp_path, model)
    assert metrics["classification/accuracy"] == 0.0
    # the one extraction record whose gold is empty: an answer is wrong there too
    assert metrics["extraction/f1"] == 0.0
    assert metrics["Fin_TC ACC"] == 0.0 and "translation/bleu_en2zh" not in metrics


def test_not_computed_metrics_are_named_in_the_task_metadata():
    meta = cflue_application(path=RECORDS_PATH).metadata
    assert any(k.startswith("comet") for k in meta["not_computed"])
    assert any(k.startswith("bertscore") for k in meta["not_computed"])
    assert meta["n_selected"] == len(RECORDS) and meta["n_invalid"] == 0 and meta["comet_model"] is None


def test_the_instruction_is_the_user_message_and_history_comes_first():
    samples = list(cflue_application(path=RECORDS_PATH).dataset)
    plain = samples[0]
    assert plain.input == RECORDS[0].instruction and plain.target == RECORDS[0].output
    chat = next(s for s, r in zip(samples, RECORDS) if r.history)
    record = next(r for r in RECORDS if r.history)
    assert [type(m) for m in chat.input] == [ChatMessageUser, ChatMessageAssistant, ChatMessageUser]
    assert chat.input[-1].text == record.prompt and chat.input[1].text == record.history[0][1]
    roles = next(s for s, r in zip(samples, RECORDS) if isinstance(r.output, list))
    assert roles.target == reference_text(roles.metadata["output"])


def test_selection_by_task_and_sub_task():
    translation = list(cflue_application(path=RECORDS_PATH, task="translation").dataset)
    assert {s.metadata["task_slug"] for s in translation} == {"translation"} and len(translation) == 4
    one = list(cflue_application(path=RECORDS_PATH, sub_task=["金融英中翻译"]).dataset)
    assert {s.metadata["sub_task"] for s in one} == {"金融英中翻译"}


def test_data_errors_are_one_plain_message(tmp_path, monkeypatch):
    monkeypatch.delenv("CFLUE_APPLICATION_PATH", raising=False)
    with pytest.raises(CflueTaskError, match="CFLUE_APPLICATION_PATH"):
        cflue_application()
    with pytest.raises(CflueTaskError, match="unknown CFLUE application task"):
        cflue_application(path=RECORDS_PATH, task="poetry")
    with pytest.raises(CflueTaskError, match="COMET checkpoint not found"):
        cflue_application(path=RECORDS_PATH, comet=str(tmp_path / "missing.ckpt"))


def test_the_table_columns_are_reported_under_their_published_names(tmp_path):
    metrics = _metrics(task_with(cflue_application(path=RECORDS_PATH), solver=echo_gold()), tmp_path)
    bleu_and_rouge = [c for c, *_ in TABLE_COLUMNS if "COMET" not in c]
    assert all(metrics[c] == pytest.approx(100.0) for c in bleu_and_rouge)
