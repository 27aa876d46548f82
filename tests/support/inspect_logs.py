"""A small, real run directory for the summary's tests, written in milliseconds with no model and no server:
Inspect logs through inspect_ai's own log API (``EvalLog`` + ``write_eval_log``), an lm-eval output folder in
the shapes lm-eval writes (results JSON, samples JSONL, the run's ``status.json``), a manifest and a response
cache.

``INSPECT_LOGS``, ``LM_EVAL_FILES``, ``MANIFEST_DATA`` and ``CACHED`` describe everything :func:`build_run_dir`
writes, so a test can work out what the summary must say from them (by hand), never from the code it tests.
What the directory holds, one case per rule of ``finchain_tasks/runs/summary.py``:

- two registry models (``reg-a``, ``reg-b``) that share one litellm id; ``reg-b``'s name only in the model args;
- a superseded older log and a newer one of the same task (the newer must win), and a damaged log file;
- a ``started`` log of a killed run, in a sub-folder (the ``bench --ray`` layout), batched and CFLUE-shaped
  (``invalid`` in the score metadata, a plain-number score, a text score);
- a log of an older run without a registry name (found in the manifest by its Inspect model) and one of a
  model nobody knows (the bare name);
- samples with errors, duplicates (the same id as a number and as text, which only a JSON log keeps: the newer
  ``fin-a`` log is written as JSON), missing ones, an unscored one, with and without logged cost (one with two
  model usages of which one has no cost), with cached input tokens, domains and levels (one level numeric);
- lm-eval: a finished run with an older and a newer results file, a failed run, a run without ``rc``, a run
  without ``status.json`` whose newest results file has the older name, an empty folder and a stray file
  (both ignored).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

T0 = 1_796_000_000.0
"""The base modification time (seconds) of the files written: fixed, so which log is newer never depends on the
clock."""


@dataclass(frozen=True)
class Sample:
    """One logged sample. ``scores``: scorer name -> value (a dict of keys, a number or a text);
    ``usage``: one (input, output, cache read, cost) per model the sample called."""

    id: str | int
    epoch: int = 1
    scores: dict[str, Any] = field(default_factory=dict)
    invalid: Optional[dict[str, bool]] = None  # CFLUE: on the score named ``invalid_on``
    invalid_on: str = ""
    domain: Any = None
    level: Any = None
    usage: tuple[tuple[int, int, Optional[int], Optional[float]], ...] = ()
    error: Optional[str] = None


@dataclass(frozen=True)
class Log:
    """One Inspect log file (``file`` relative to the run's ``logs/``)."""

    file: str
    task: str
    task_id: str
    model: str
    created: str
    mtime: float
    samples: tuple[Sample, ...]
    status: str = "success"
    metadata: Optional[dict[str, Any]] = None
    model_args: dict[str, Any] = field(default_factory=dict)
    generate: dict[str, Any] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    sample_ids: Optional[list[Any]] = None
    epochs: Optional[int] = None
    limit: Optional[int] = None
    task_version: int | str = 0
    started_at: str = ""
    completed_at: str = ""


SHARED = "litellm/openai/shared"
"""The Inspect model name of both registry models (one litellm id)."""

A_NEW = Log(
    file="2026-12-01T10-00-00+00-00_finchain_fin-a.json", task="finchain_tasks/finchain", task_id="fin-a",
    model=SHARED, created="2026-12-01T10:00:00+00:00", mtime=T0 + 100,
    metadata={"finchain_model": "reg-a", "finchain_task_set": "finchain", "chaineval": {"profile": "paper"},
              "task_version": "2.1", "seeds": [1, 2], "fresh_seeds": False, "sample_order": "stratified",
              "extract_mode": "final"},
    model_args={"finchain_model": "reg-a"}, generate={"max_tokens": 512, "top_p": 0.9},
    plan={"max_tokens": 1000, "temperature": 0.7, "top_p": 0.95},
    sample_ids=["p1", "p2", 3, "p4", "p5", "p6"], limit=6, task_version=7,
    started_at="2026-12-01T10:00:00+00:00", completed_at="2026-12-01T10:01:02.123456+00:00",
    samples=(
        Sample("p1", scores={"chaineval": {"chaineval": 0.8, "fac": 1.0, "step_f1": 0.5, "parse_ok": True,
                                           "label": "ok"}},
               domain="corporate_finance", level="easy", usage=((100, 50, 20, 0.002),)),
        Sample("p2", scores={"chaineval": {"chaineval": 0.4, "fac": 0, "step_f1": 0.25, "first_error_step": 2}},
               domain="banking", level="hard", usage=((200, 80, None, 0.001), (10, 5, None, 0.0005))),
        Sample(3, scores={"chaineval": {"chaineval": 0.6, "fac": 1, "step_f1": 0.75}}, domain="banking",
               level="easy", usage=((50, 30, None, 0.0015),)),
        Sample("3", scores={"chaineval": {"chaineval": 0.6, "fac": 1, "step_f1": 0.75}}, domain="banking",
               level="easy", usage=((50, 30, None, 0.0015),)),  # the same id as text: counted, and reported
        Sample("p4", scores={"chaineval": {"chaineval": 0.0}}, domain="banking", level="easy",
               usage=((40, 0, None, 0.0001),), error="RuntimeError: boom\nTraceback (most recent call last): ..."),
        Sample("p6", domain="banking", level="easy"),  # neither scored nor failed; p5 is missing
    ),
)
A_OLD = Log(
    file="2026-12-01T09-30-00+00-00_finchain_fin-a.eval", task="finchain_tasks/finchain", task_id="fin-a",
    model=SHARED, created="2026-12-01T09:30:00+00:00", mtime=T0,
    metadata={"finchain_model": "reg-a", "finchain_task_set": "finchain"}, sample_ids=["p1"],
    samples=(Sample("p1", scores={"chaineval": {"chaineval": 0.1}}, usage=((1, 1, None, 9.0),)),),
)
B = Log(
    file="2026-12-01T08-00-00+00-00_finchain_fin-b.eval", task="finchain_tasks/finchain", task_id="fin-b",
    model=SHARED, created="2026-12-01T08:00:00+00:00", mtime=T0 + 50,
    metadata={"finchain_task_set": "finchain", "chaineval": {"profile": "reference"}},
    model_args={"finchain_model": "reg-b"}, sample_ids=["x", "y"], epochs=2, task_version=3,
    samples=(
        Sample("x", 1, scores={"chaineval": {"chaineval": 1.0}}, level=1, usage=((10, 5, None, None),)),
        Sample("x", 2, scores={"chaineval": {"chaineval": 0.5}}, domain="banking", level=1,
               usage=((10, 5, None, 0.01),)),
        Sample("y", 1, level=2, error="RetryError(<Future at 0xdeadbeef state=finished raised RateLimitError>)"),
    ),
)
A_CFLUE = Log(
    file="bench-ray-1/2026-12-01T11-00-00+00-00_cflue-knowledge_cflue-a.eval", task="finchain_tasks/cflue_knowledge",
    task_id="cflue-a", model=SHARED, created="2026-12-01T11:00:00+00:00", mtime=T0 + 10, status="started",
    metadata={"finchain_model": "reg-a", "finchain_task_set": "cflue"}, generate={"batch": True},
    sample_ids=["c1", "c2", "c3"],
    samples=(
        Sample("c1", scores={"cflue/note": "A", "cflue/accuracy": 1.0}, invalid={"strict": True, "robust": False},
               invalid_on="cflue/accuracy", usage=((1000, 200, None, 0.5),)),
        Sample("c2", scores={"cflue/accuracy": 0}, invalid={"strict": False, "robust": False},
               invalid_on="cflue/accuracy", usage=((3000, 600, 500, 0.5),)),
    ),
)
LEGACY = Log(
    file="2026-11-01T07-00-00+00-00_finchain-smoke_smoke-l.eval", task="finchain_tasks/finchain_smoke",
    task_id="smoke-l", model="litellm/openai/legacy", created="2026-11-01T07:00:00+00:00", mtime=T0 + 20,
    samples=(Sample("q1", scores={"chaineval": {"chaineval": 0.3}, "match": 1},  # a scorer name without a package
                    usage=((1000, 100, None, 0.25), (500, 0, None, None))),),
)
UNKNOWN = Log(  # a task loaded from a file has no package in its name
    file="2026-12-01T06-00-00+00-00_finchain_fin-u.eval", task="finchain", task_id="fin-u",
    model="litellm/no-such-model", created="2026-12-01T06:00:00+00:00", mtime=T0 + 30,
    samples=(Sample("u1", scores={"chaineval": {"chaineval": 0.9}}),),
)
INSPECT_LOGS = (A_OLD, A_NEW, B, A_CFLUE, LEGACY, UNKNOWN)
DAMAGED = "2026-12-01T12-00-00+00-00_finchain_broken.eval"
"""A log file that is not a zip (a killed writer, a damaged copy): the summary must skip it."""

REG_A = {"name": "reg-a", "display_name": "Model A", "inspect_model": SHARED, "category": "general",
         "price": {"input": 2.0, "output": 8.0, "source": "test list price"},
         "batch_price": {"input": 1.0, "output": 4.0, "source": "test batch"}}
REG_B = {"name": "reg-b", "display_name": "Model B", "inspect_model": SHARED, "category": "reasoning",
         "price": None, "batch_price": None}
LEGACY_RECORD = {"name": "legacy", "display_name": "Legacy", "inspect_model": "litellm/openai/legacy",
                 "category": "local", "price": {"input": 1.0, "output": 3.0}, "batch_price": None}
MANIFEST_DATA = {
    # reg-b first: a lookup by the shared Inspect model finds reg-a (the last), so reg-b's log is only found
    # as reg-b through the name in its model args
    "models": [REG_B, REG_A, LEGACY_RECORD],
    "sessions": [
        {"wall_s": 10.2504, "skipped": [{"model": "old", "reason": "gone"}], "warnings": ["old warning"]},
        {"started": "2026-12-01T09:00:00+00:00"},  # a killed session: no wall time
        {"wall_s": 2.5, "skipped": [{"model": "nokey", "reason": "NOKEY_API_KEY not set"}],
         "warnings": ["registry: x is deprecated"]},
    ],
}
CACHED = 2
"""Responses written to the run's cache."""

OLD_STAMP, NEW_STAMP = "2026-12-01T09-00-00", "2026-12-01T11-00-00"
_A_DIR = "lm_eval/reg-a/finchain/openai__shared"
_C_DIR = "lm_eval/reg-a/cflue/openai__shared"
C_STAMP = "2026-12-01T23-00-00"
_RUN = {"chaineval": {"profile": "paper"}, "task_version": "2.1", "seeds": [1, 2], "fresh_seeds": True,
        "sample_order": "stratified"}
LM_EVAL_FILES: dict[str, Any] = {
    # two older results files of the same folder, one with its own samples: the newest one wins
    f"{_A_DIR}/results_2026-12-01T08-00-00.json": {"n-samples": {"finchain_banking_easy": {"effective": 8}}},
    f"{_A_DIR}/results_{OLD_STAMP}.json": {"n-samples": {"finchain_banking_easy": {"effective": 9}},
                                          "total_evaluation_time_seconds": "1.0"},
    f"{_A_DIR}/samples_finchain_banking_easy_{OLD_STAMP}.jsonl": [
        {"doc_id": 0, "doc": {"id": "old", "domain": "banking", "level": "easy"}, "metrics": ["chaineval"],
         "chaineval": 0.0}],
    f"{_A_DIR}/results_{NEW_STAMP}.json": {
        "results": {"finchain_banking_easy": {"chaineval,none": 0.375}},
        "configs": {"finchain_banking_easy": {"metadata": {"finchain_run": _RUN},
                                              "generation_kwargs": {"max_gen_toks": 256, "temperature": 0.0,
                                                                    "top_p": 1.0}},
                    "finchain_banking_hard": {"metadata": {"finchain_run": {"task_version": "9"}},
                                              "generation_kwargs": {"max_gen_toks": 1}}},
        "config": {"limit": 5},
        "n-samples": {"finchain_banking_easy": {"original": 10, "effective": 2},
                      "finchain_banking_hard": {"original": 10, "effective": 1}, "finchain_x": {"original": 3}},
        "total_evaluation_time_seconds": "12.34567"},
    f"{_A_DIR}/samples_finchain_banking_easy_{NEW_STAMP}.jsonl": [
        {"doc_id": 0, "doc": {"id": "b-e-1", "domain": "banking", "level": "easy"},
         "metrics": ["chaineval", "fac", "n_gold_steps", "n_pred_steps", "absent"], "chaineval": 0.5, "fac": 1,
         "n_gold_steps": 3, "n_pred_steps": 2},
        None,  # a blank line
        {"doc_id": 7, "doc": {"domain": "banking", "level": "easy"}, "metrics": ["chaineval", "fac", "label"],
         "chaineval": 0.25, "fac": 0, "label": "text"}],
    f"{_A_DIR}/samples_finchain_banking_hard_{NEW_STAMP}.jsonl": [
        {"doc_id": 0, "doc": {"id": "b-h-1", "domain": "banking", "level": "hard"}, "metrics": ["chaineval", "fac"],
         "chaineval": 0.75, "fac": 1}],
    "lm_eval/reg-a/finchain/status.json": {"rc": 0, "error": None, "wall_s": 99.5, "limit": 3},
    "lm_eval/reg-b/finchain/status.json": {"rc": 2, "error": "CUDA out of memory", "wall_s": 5.5, "limit": None},
    "lm_eval/ghost/finchain/status.json": {"wall_s": 1.25},  # no rc: an older status file
    "lm_eval/reg-a/README.txt": "not a task-set folder",
    # no status.json (a folder copied without it); the newer file by time has the older name
    f"{_C_DIR}/results_2026-12-02T00-00-00.json": {"n-samples": {"cflue_knowledge": {"effective": 99}},
                                                  "config": {"limit": 1}},
    f"{_C_DIR}/results_{C_STAMP}.json": {
        "n-samples": {"cflue_knowledge": {"original": 40, "effective": 2}}, "config": {"limit": 2},
        "configs": {"cflue_knowledge": {"generation_kwargs": {"max_gen_toks": 8}}}},
    f"{_C_DIR}/samples_cflue_knowledge_{C_STAMP}.jsonl": [
        {"doc_id": 0, "doc": {"id": "k1"}, "metrics": ["acc"], "acc": 1.0},
        {"doc_id": 1, "doc": {"id": "k2"}, "metrics": ["acc"], "acc": 0.0},
        {"doc_id": 2, "doc": {"id": "k3"}, "acc": 1.0}],  # no metrics listed: no scores
}
LM_EVAL_MTIMES = {f"{_A_DIR}/results_{NEW_STAMP}.json": T0 + 100, f"{_C_DIR}/results_{C_STAMP}.json": T0 + 200}
"""Modification times of the files that must be the newest; every other file is older (T0 + its index)."""
EMPTY_LM_EVAL_DIR = "lm_eval/reg-b/cflue"
"""A folder with neither status nor results (a run killed before lm-eval wrote anything): not listed."""


def _eval_log(spec: Log) -> Any:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSample, EvalSpec, EvalStats
    from inspect_ai.model import GenerateConfig, ModelUsage
    from inspect_ai.scorer import Score

    def sample(s: Sample) -> Any:
        scores = {name: Score(value=value, metadata={"invalid": s.invalid} if name == s.invalid_on else None)
                  for name, value in s.scores.items()}
        usage = {f"model-{i}": ModelUsage(input_tokens=i_in, output_tokens=out, total_tokens=i_in + out,
                                          input_tokens_cache_read=cached, total_cost=cost)
                 for i, (i_in, out, cached, cost) in enumerate(s.usage)}
        metadata = {k: v for k, v in (("domain", s.domain), ("level", s.level)) if v is not None}
        return EvalSample(id=s.id, epoch=s.epoch, input="question", target="answer", scores=scores or None,
                          metadata=metadata, model_usage=usage, error=_error(s.error) if s.error else None)

    eval_spec = EvalSpec(
        created=spec.created, task=spec.task, task_id=spec.task_id, task_version=spec.task_version,
        dataset=EvalDataset(name=spec.task, samples=len(spec.sample_ids or []), sample_ids=spec.sample_ids),
        model=spec.model, model_generate_config=GenerateConfig(**spec.generate), model_args=spec.model_args,
        config=EvalConfig(limit=spec.limit, epochs=spec.epochs), metadata=spec.metadata)
    return EvalLog(status=spec.status, eval=eval_spec, plan=EvalPlan(config=GenerateConfig(**spec.plan)),
                   stats=EvalStats(started_at=spec.started_at, completed_at=spec.completed_at),
                   samples=[sample(s) for s in spec.samples])


def _error(message: str) -> Any:
    from inspect_ai.log import EvalError

    return EvalError(message=message, traceback=message, traceback_ansi=message)


def _write(path: Path, content: Any, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, list):
        path.write_text("".join("\n" if row is None else json.dumps(row) + "\n" for row in content), encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    os.utime(path, (mtime, mtime))


def build_run_dir(run_dir: Path) -> Path:
    """Write everything the module describes into ``run_dir`` (created); returns it."""
    from inspect_ai.log import write_eval_log

    from finchain_tasks.runs import CACHE, LOGS, MANIFEST
    from finchain_tasks.runs.cache import ResponseCache

    logs = run_dir / LOGS
    for spec in INSPECT_LOGS:
        path = logs / spec.file
        path.parent.mkdir(parents=True, exist_ok=True)
        write_eval_log(_eval_log(spec), str(path))
        os.utime(path, (spec.mtime, spec.mtime))
    (logs / DAMAGED).write_bytes(b"PK\x03\x04 not a whole zip")
    os.utime(logs / DAMAGED, (T0 + 500, T0 + 500))
    for i, (rel, content) in enumerate(LM_EVAL_FILES.items()):
        _write(run_dir / rel, content, LM_EVAL_MTIMES.get(rel, T0 + i))
    (run_dir / EMPTY_LM_EVAL_DIR).mkdir(parents=True)
    _write(run_dir / MANIFEST, MANIFEST_DATA, T0)
    cache = ResponseCache(run_dir / CACHE)
    for i in range(CACHED):
        cache.put(f"key-{i}", SHARED, {"messages": [{"role": "user", "content": f"q{i}"}]}, json.dumps({"i": i}))
    cache.close()
    return run_dir
