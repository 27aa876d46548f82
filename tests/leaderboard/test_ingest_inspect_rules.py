"""What one Inspect ``.eval`` log puts in the per-sample table (issue 39): every column a user sees, read back
through :func:`ingest.inspect_rows` from logs this file writes with Inspect's own log API in milliseconds (no
model, no server, no subprocess). One table-driven test per rule: the header's facts and their fallbacks, each
field of a sample, samples paired by id and epoch, a sample with nothing logged, the question and prompt of a
chat input, a failed sample, an unreadable log, a killed run's log, and how a log is read (header first).

Each test calls ``inspect_rows`` itself (only the writing of the shared log is module-scoped): mutmut credits
a function to the tests that ran it, and a module-scoped fixture's call is credited to its first test only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from finchain_tasks.leaderboard import ingest

pytest.importorskip("inspect_ai")

from inspect_ai.log import (  # noqa: E402
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalPlan,
    EvalSample,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import (  # noqa: E402
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import Score  # noqa: E402

HEADER: dict[str, Any] = {
    "created": "2026-12-01T10:00:00+00:00", "task": "finchain_tasks/finchain", "task_version": 7,
    "model": "litellm/openai/served", "model_args": {"finchain_model": "args-m"},
    "packages": {"inspect_ai": "0.3.999", "pydantic": "2.0"},
    "metadata": {"finchain_model": "reg-m", "finchain_task_set": "fin-set", "chaineval": {"profile": "paper"},
                 "cflue_profile": "cflue-p", "task_version": "2.1", "fresh_seeds": True,
                 "finchain_tasks_version": "3.1.0", "package_version": "0.0.1"},
}
"""A FinChain log's header with every fact and every fallback set (the first choice must win)."""
RECORD = {"display_name": "Model M", "category": "reasoning", "params_b": 7.0, "open_weights": True}
GOLD = {"steps": [{"text": "rate = 5%"}, {"description": "interest = 100 * 5%"}], "answer_text": "$5.00",
        "answer": 5.0}
CHAT_INPUT = [ChatMessageSystem(content="Answer in steps."), ChatMessageUser(content="Earlier turn"),
              ChatMessageAssistant(content="ok"), ChatMessageUser(content="What is the interest?")]


def _usage(i_in: int, out: int, cached: int | None, cost: float | None) -> ModelUsage:
    return ModelUsage(input_tokens=i_in, output_tokens=out, total_tokens=i_in + out, input_tokens_cache_read=cached,
                      total_cost=cost)


def _sample(sid: str | int, epoch: int = 1, **fields: Any) -> EvalSample:
    return EvalSample(id=sid, epoch=epoch, **{"input": "plain question", "target": "12 shares", **fields})


def _score(value: Any, answer: str | None = None, **meta: Any) -> Score:
    return Score(value=value, answer=answer, metadata=meta or None)


def _write(folder: Path, samples: list[EvalSample], name: str = "log.eval", status: str = "success",
           epochs: int = 1, sample_ids: Any = "of the samples", **header: Any) -> Path:
    """Write one log: ``HEADER`` with ``header``'s keys replacing its own, ``samples`` as given, and the
    dataset's ids those of ``samples`` unless given (None: an older log's header without them)."""
    spec = {**HEADER, **header}
    ids = list(dict.fromkeys(s.id for s in samples)) if sample_ids == "of the samples" else sample_ids
    eval_spec = EvalSpec(**{k: v for k, v in spec.items() if k != "packages"}, task_id="t1",
                         dataset=EvalDataset(name="finchain", samples=len(samples), sample_ids=ids),
                         config=EvalConfig(epochs=epochs))
    eval_spec.packages = spec["packages"]
    path = folder / name
    write_eval_log(EvalLog(status=status, eval=eval_spec, plan=EvalPlan(), stats=EvalStats(),
                           samples=samples or None), str(path))
    return path


FULL = _sample(
    "s1", input=CHAT_INPUT, messages=[*CHAT_INPUT[:3]], target="ignored: the gold has a text",
    metadata={"domain": "corporate_finance", "topic": "loans", "template": "simple_interest", "level": "easy",
              "seed": 11, "exam": "cpa", "sub_task": "calc", "gold": GOLD},
    scores={"chaineval": _score({"chaineval": 0.5, "fac": 1}, "$5.00", first_error_step=2, n_gold_steps=3,
                                n_pred_steps=4, alignment=[[0, 0], [1, None]])},
    model_usage={"m": _usage(100, 20, 10, 0.002)}, total_time=1.5,
    output=ModelOutput.from_content("served", "Step 1 ... The interest is $5.00."))
SAMPLES = [
    FULL,
    _sample("s1", 2, scores={"chaineval": _score({"chaineval": 0.75}, "$6.00")},
            output=ModelOutput.from_content("served", "second epoch")),
    _sample(2, error=EvalError(message="RuntimeError: boom", traceback="tb", traceback_ansi="tb")),
    _sample("bare", 2),  # epoch 1 of "bare" and epoch 2 of sample 2 are missing: a killed run
]


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    return _write(tmp_path_factory.mktemp("logs"), SAMPLES, status="started", epochs=2)


def _rows(path: Path, record: dict | None = RECORD) -> dict[tuple[str, int], dict]:
    return {(r["sample_id"], r["epoch"]): r for r in ingest.inspect_rows(path, record, "run/logs/")}


# -- the header ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("column, value", [
    ("model", "reg-m"), ("display_name", "Model M"), ("category", "reasoning"), ("params_b", 7.0),
    ("harness", "inspect"), ("harness_version", "0.3.999"), ("finchain_tasks_version", "3.1.0"),
    ("task", "finchain"), ("task_set", "fin-set"), ("task_version", "2.1"), ("profile", "paper"), ("fresh", True),
    ("date", "2026-12-01T10:00:00+00:00"), ("source", "run/logs/log.eval"),
])
def test_rule_each_fact_of_the_header_and_the_record_reaches_every_row_of_the_log(log, column, value):
    rows = _rows(log)
    assert [r[column] for r in rows.values()] == [value] * 4


@pytest.mark.parametrize("header, record, facts", [
    # the model: the registry name in the metadata, else in the model args, else Inspect's model
    ({"metadata": {}}, None, {"model": "args-m"}),
    ({"metadata": {}, "model_args": {}}, None, {"model": "litellm/openai/served"}),
    # the package version: FinChain's key, else CFLUE's; neither: missing
    ({"metadata": {"package_version": "0.9"}}, None, {"finchain_tasks_version": "0.9"}),
    ({"metadata": {}}, None, {"finchain_tasks_version": None, "task_set": None}),
    # the task: the name without its package, a task loaded from a file has none
    ({"task": "finchain"}, None, {"task": "finchain"}),
    ({"task": "finchain_tasks/cflue_knowledge"}, None, {"task": "cflue_knowledge"}),
    # the task version: the task's own metadata, else Inspect's, as text
    ({"metadata": {}}, None, {"task_version": "7"}),
    # the profile: ChainEval's, else CFLUE's; a ChainEval entry that is not an object is ignored
    ({"metadata": {"cflue_profile": "strict"}}, None, {"profile": "strict"}),
    ({"metadata": {"chaineval": "paper", "cflue_profile": "strict"}}, None, {"profile": "strict"}),
    ({"metadata": {"chaineval": {"other": 1}, "cflue_profile": "strict"}}, None, {"profile": "strict"}),
    ({"metadata": {}}, None, {"profile": None}),
    # fresh seeds only when the run says so
    ({"metadata": {"fresh_seeds": False}}, None, {"fresh": False}),
    ({"metadata": {}}, None, {"fresh": False}),
    # Inspect's version only from its own package entry
    ({"packages": {"pydantic": "2.0"}}, None, {"harness_version": None}),
    ({"packages": {}}, None, {"harness_version": None}),
    # without a record of the model the names and size are missing
    ({}, None, {"display_name": None, "category": None, "params_b": None, "model": "reg-m"}),
    ({}, {"display_name": "Shown"}, {"display_name": "Shown", "category": None, "params_b": None}),
])
def test_rule_a_header_fact_falls_back_in_order_and_missing_stays_missing(tmp_path, header, record, facts):
    (row,) = ingest.inspect_rows(_write(tmp_path, [_sample("s1")], **header), record)
    assert {k: row[k] for k in facts} == facts


# -- each sample -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("column, value", [
    ("sample_id", "s1"), ("epoch", 1), ("domain", "corporate_finance"), ("topic", "loans"),
    ("template", "simple_interest"), ("level", "easy"), ("seed", 11), ("exam", "cpa"), ("sub_task", "calc"),
    ("chaineval", 0.5), ("fac", 1.0), ("first_error_step", 2), ("n_gold_steps", 3), ("n_pred_steps", 4),
    ("input_tokens", 110), ("output_tokens", 20), ("cost", 0.002), ("latency_s", 1.5),
    ("question", "What is the interest?"),                    # the last user message of a chat input
    ("prompt", "[system]\nAnswer in steps.\n\n[user]\nEarlier turn"),  # what was sent before the first reply
    ("gold_steps", ["rate = 5%", "interest = 100 * 5%"]), ("gold_answer", "$5.00"),
    ("output", "Step 1 ... The interest is $5.00."), ("answer", "$5.00"), ("alignment", [[0, 0], [1, None]]),
    ("error", None),
])
def test_rule_each_field_of_a_sample_reaches_its_column(log, column, value):
    assert _rows(log)["s1", 1][column] == value


@pytest.mark.parametrize("column, value", [
    ("domain", None), ("topic", None), ("template", None), ("level", None), ("seed", None), ("exam", None),
    ("sub_task", None), ("chaineval", "absent"), ("first_error_step", None), ("n_gold_steps", None),
    ("n_pred_steps", None), ("input_tokens", None), ("output_tokens", None), ("cost", None), ("latency_s", None),
    ("question", "plain question"), ("prompt", "plain question"),  # a text input is both
    ("gold_steps", []), ("gold_answer", "12 shares"),              # no gold: the one-line target
    ("output", ""), ("answer", None), ("alignment", None), ("error", None),
])
def test_rule_a_sample_with_nothing_logged_has_its_columns_missing_never_zero(log, column, value):
    assert _rows(log)["bare", 2].get(column, "absent") == value


@pytest.mark.parametrize("column, value", [
    ("error", "RuntimeError: boom"), ("chaineval", "absent"), ("answer", None), ("output", ""),
    ("sample_id", "2"),  # a numeric id as text, so it lines up with the other host's rows
])
def test_rule_a_failed_sample_keeps_its_error_and_has_no_scores(log, column, value):
    assert _rows(log)["2", 1].get(column, "absent") == value


def test_rule_samples_are_paired_by_id_and_epoch_and_a_killed_runs_missing_ones_are_left_out(log):
    got = [(r["sample_id"], r["epoch"], r.get("chaineval"), r["answer"], r["output"])
           for r in ingest.inspect_rows(log)]
    assert got == [("s1", 1, 0.5, "$5.00", "Step 1 ... The interest is $5.00."),
                   ("s1", 2, 0.75, "$6.00", "second epoch"), ("2", 1, None, None, ""), ("bare", 2, None, None, "")]


@pytest.mark.parametrize("fields, question, prompt", [
    ({"input": "Q?"}, "Q?", "Q?"),                                       # a text input, nothing sent logged
    ({"input": "Q?", "messages": [ChatMessageUser(content="Sent Q?")]}, "Q?", "[user]\nSent Q?"),
    ({"input": [ChatMessageUser(content="A"), ChatMessageUser(content="B")]}, "B", None),  # no messages: no prompt
    ({"input": [ChatMessageSystem(content="S")], "messages": [ChatMessageSystem(content="S")]}, "", "[system]\nS"),
    ({"input": [ChatMessageUser(content="A")],
      "messages": [ChatMessageAssistant(content="early"), ChatMessageUser(content="A")]}, "A", None),
])
def test_rule_the_question_is_the_text_else_the_last_user_message_and_the_prompt_what_was_sent_first(
        tmp_path, fields, question, prompt):
    (row,) = ingest.inspect_rows(_write(tmp_path, [_sample("s1", **fields)]))
    assert (row["question"], row["prompt"]) == (question, prompt)


# -- reading a log ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("content, kind", [
    (b"PK\x03\x04 not a whole zip", "ValueError"), (b"", "ValueError"), (b'{"not": "a log"}', "ValueError"),
    (None, "FileNotFoundError"),
])
def test_rule_an_unreadable_log_is_one_line_naming_the_file_and_the_exception_type(tmp_path, content, kind):
    path = tmp_path / "broken.eval"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ingest.IngestError) as raised:
        list(ingest.inspect_rows(path))
    assert str(raised.value) == f"broken.eval: not a readable Inspect log ({kind})"


def test_rule_a_log_is_read_header_first_and_its_samples_one_at_a_time(log, monkeypatch):
    """A long log never sits whole in memory: ingest asks Inspect for the header alone, then streams."""
    import inspect_ai.log

    asked: list[Any] = []
    real = inspect_ai.log.read_eval_log

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("header_only", "not given"))
        return real(*args, **kwargs)

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", spy)
    assert len(list(ingest.inspect_rows(log))) == 4
    assert asked == [True]


@pytest.mark.parametrize("name", ["older.eval", "2026-12-01T10-00-00+00-00_finchain_older.json"])
@pytest.mark.parametrize("samples, got", [
    ([_sample("a", scores={"chaineval": _score({"chaineval": 0.5})}), _sample("a", 2), _sample(3)],
     [("3", 1, None), ("a", 1, 0.5), ("a", 2, None)]),
    ([], []),
])
def test_rule_a_log_without_its_sample_ids_is_read_whole_not_refused(tmp_path, name, samples, got):
    """Inspect streams a log's samples by the ids in its header; an older log has none, and its samples are
    still all there."""
    path = _write(tmp_path, samples, name, epochs=2, sample_ids=None)
    assert sorted((r["sample_id"], r["epoch"], r.get("chaineval")) for r in ingest.inspect_rows(path)) == got
