"""CFLUE application records (the five financial NLP tasks): loader, selection and what both hosts share.

The public record format (``data/application/application.json`` of aliyun/cflue holds 125 samples, the
full 16k+ set is distributed separately) is a JSON list (or JSONL) of::

    {"task": "金融文本分类", "sub_task": "ESG分类", "instruction": "<the full prompt>", "input": "",
     "output": "经济绩效", "history": []}

``output`` is a string, or for extraction a list of objects (``{"role", "argument"}`` or named fields
such as the causal ``reason_type`` ...). Records are read by the knowledge loader's machinery
(:func:`finchain_tasks.cflue.loader.read_rows`: JSON list or JSONL, depth bombs and giant numbers become
reasons) and validated here: a bad record is reported with the file and its index, the load goes on, and
nothing in a record is ever evaluated as code. No CFLUE record ships with the package (CC BY-NC-SA 4.0):
pass the file's path, or set ``$CFLUE_APPLICATION_PATH``.

Importing is cheap (stdlib and the host-free core only).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from finchain_tasks.cflue.hosts import _stamp
from finchain_tasks.cflue.loader import CflueDataError, checked_object, read_rows
from scorers.cflue.application import DIRECTIONS, EXTRACTION, TASKS, TRANSLATION

logger = logging.getLogger("finchain_tasks.cflue")

ENV_VAR = "CFLUE_APPLICATION_PATH"
TASK_VERSION = "1.1.0"
"""Bump when prompts or metrics change what a CFLUE application score means."""
REQUIRED_FIELDS = ("task", "sub_task", "instruction", "output")
"""``input`` (default "") and ``history`` (default []) may be absent; the other four may not."""
MAX_NEW_TOKENS = 1024
"""Enough for a summary or a term explanation; classification answers stop far earlier."""
MAX_REPORTED_INVALID = 50
_SLUGS = {slug: name for name, slug in TASKS.items()}


@dataclass(frozen=True)
class ApplicationRecord:
    """One validated application record. ``output`` is a string, or for extraction a list of string maps."""

    id: str
    index: int
    task: str
    sub_task: str
    instruction: str
    input: str
    output: Any
    history: list[tuple[str, str]] = field(default_factory=list)

    @property
    def task_slug(self) -> str:
        return TASKS[self.task]

    @property
    def prompt(self) -> str:
        """The user message: the instruction (the full official prompt), then ``input`` when there is one."""
        return f"{self.instruction}\n{self.input}" if self.input else self.instruction

    @property
    def source(self) -> str:
        """The text to translate (for COMET): the part of the instruction between the source-language
        header ("英文：" / "中文：") and the target one; "" for other tasks."""
        if self.task_slug != TRANSLATION:
            return ""
        match = _SOURCE.search(self.prompt)
        return match.group(1).strip() if match else self.input.strip()

    def metadata(self) -> dict[str, Any]:
        return {"task": self.task, "task_slug": self.task_slug, "sub_task": self.sub_task, "index": self.index}


_SOURCE = re.compile(r"(?:英文|中文)\s*[:：]\s*(.*?)\s*(?:英文|中文)\s*[:：]\s*$", re.S)


class ApplicationData(NamedTuple):
    records: list[ApplicationRecord]
    invalid: list[tuple[int, str]]
    source: str


def record_id(index: int, instruction: str) -> str:
    """``cflue_app/<index>-<8 hex of sha256(instruction)>``: an edited or reordered file shows."""
    return f"cflue_app/{index}-{hashlib.sha256(instruction.encode('utf-8')).hexdigest()[:8]}"


def _string(row: Mapping, key: str, *, required: bool = True) -> str:
    value = row.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string, not {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"field {key!r} must be a non-empty string")
    return value


def _scalar(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"{where} must be text, not {type(value).__name__}")


def _output(value: Any, task: str) -> Any:
    """A string (non-empty except for extraction, where "" means nothing to extract), or for extraction a
    list of objects whose keys are strings and values text."""
    if isinstance(value, str):
        if not value.strip() and TASKS[task] != EXTRACTION:
            raise ValueError("field 'output' is empty")
        return value
    if not isinstance(value, list) or TASKS[task] != EXTRACTION:
        allowed = "a string or a list of objects" if TASKS[task] == EXTRACTION else "a string"
        raise ValueError(f"field 'output' must be {allowed} for {task}, not {type(value).__name__}")
    items = []
    for i, obj in enumerate(value):
        if not isinstance(obj, Mapping) or not obj:
            raise ValueError(f"output item {i} must be a non-empty object (e.g. {{'role': ..., 'argument': ...}})")
        items.append({_scalar(k, f"output item {i} key"): _scalar(v, f"output item {i} value {k!r}")
                      for k, v in obj.items()})
    return items


def _history(value: Any) -> list[tuple[str, str]]:
    """``[[user, assistant], ...]`` (the instruction-tuning convention); absent or null: none."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"field 'history' must be a list of [question, answer] pairs, not {type(value).__name__}")
    turns = []
    for i, turn in enumerate(value):
        if not (isinstance(turn, list) and len(turn) == 2 and all(isinstance(t, str) for t in turn)):
            raise ValueError(f"history turn {i} must be a [question, answer] pair of strings")
        turns.append((turn[0], turn[1]))
    return turns


def validate_record(row: Any, index: int) -> ApplicationRecord:
    """One raw record -> :class:`ApplicationRecord`, or ValueError saying what is wrong with it."""
    checked_object(row, REQUIRED_FIELDS)
    task = _string(row, "task").strip()
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r} (expected one of {', '.join(TASKS)})")
    sub_task = _string(row, "sub_task").strip()
    if TASKS[task] == TRANSLATION and sub_task not in DIRECTIONS:
        raise ValueError(f"unknown translation sub-task {sub_task!r} (expected one of {', '.join(DIRECTIONS)})")
    instruction = _string(row, "instruction")
    return ApplicationRecord(id=record_id(index, instruction), index=index, task=task, sub_task=sub_task,
                             instruction=instruction, input=_string(row, "input", required=False),
                             output=_output(row["output"], task), history=_history(row.get("history")))


def validate_rows(rows: Iterable[Any], source: str, *, strict: bool = False,
                  lines: Sequence[int] | None = None) -> ApplicationData:
    """Validate raw rows; ``lines`` gives JSONL line numbers for the messages."""
    records: list[ApplicationRecord] = []
    invalid: list[tuple[int, str]] = []
    for index, row in enumerate(rows):
        try:
            records.append(validate_record(row, index))
        except ValueError as exc:
            reason = f"line {lines[index]}: {exc}" if lines is not None else str(exc)
            if strict:
                raise CflueDataError(f"{source}: record {index}: {reason}") from None
            invalid.append((index, reason))
    return ApplicationData(records, invalid, source)


def load_application(source: str | os.PathLike | None = None, *, strict: bool = False) -> ApplicationData:
    """Load and validate CFLUE application records from a local JSON list / JSONL file (default:
    ``$CFLUE_APPLICATION_PATH``). Invalid records are listed as ``(index, reason)``; ``strict`` raises."""
    if source is None or not str(source).strip():
        source = os.environ.get(ENV_VAR, "").strip() or None
    if source is None:
        raise CflueDataError(f"no CFLUE application data given: pass a path or set {ENV_VAR} (the records are "
                             "not shipped; see finchain_tasks/cflue/README.md)")
    path = Path(source).expanduser()
    if not path.is_file():
        what = "not a file (pass the JSON/JSONL file itself)" if path.exists() else "CFLUE application file not found"
        raise CflueDataError(f"{path}: {what}")
    rows, lines = read_rows(path)
    return validate_rows(rows, str(path), strict=strict, lines=lines)


def task_names(tasks: Iterable[str] | None) -> set[str] | None:
    """Chinese task names from names or slugs; ValueError on an unknown one."""
    if tasks is None:
        return None
    wanted = {_SLUGS.get(t, t) for t in tasks}
    unknown = sorted(wanted - set(TASKS))
    if unknown:
        raise ValueError(f"unknown CFLUE application task(s) {unknown}; known: {[*TASKS.values(), *TASKS]}")
    return wanted


def select(records: Iterable[ApplicationRecord], *, tasks: Iterable[str] | None = None,
           sub_tasks: Iterable[str] | None = None) -> list[ApplicationRecord]:
    """Records of the given tasks (Chinese name or slug) and sub-tasks; None keeps all."""
    wanted_tasks = task_names(tasks)
    wanted_subs = set(sub_tasks) if sub_tasks is not None else None
    return [r for r in records if (wanted_tasks is None or r.task in wanted_tasks)
            and (wanted_subs is None or r.sub_task in wanted_subs)]


# ---------------------------------------------------------------------------------- shared by the hosts
class Source(NamedTuple):
    records: list[ApplicationRecord]
    info: dict[str, Any]


@lru_cache(maxsize=8)
def _load(source: str, stamp: tuple[int, int] | None) -> ApplicationData:
    """One load (and one warning about invalid records) per file version and process: lm-eval builds one
    leaf per task from the same file."""
    data = load_application(source)
    if data.invalid:
        shown = "; ".join(f"record {i}: {reason}" for i, reason in data.invalid[:10])
        more = f" (and {len(data.invalid) - 10} more)" if len(data.invalid) > 10 else ""
        logger.warning("CFLUE application: %d invalid record(s) in %s were not loaded: %s%s",
                       len(data.invalid), data.source, shown, more)
    return data


def load_source(path: str | os.PathLike | None = None, *, tasks: Iterable[str] | None = None,
                sub_tasks: Iterable[str] | None = None) -> Source:
    """Load, validate and select; CflueDataError when the file is unusable or nothing is selected."""
    source = str(path).strip() if path is not None and str(path).strip() else os.environ.get(ENV_VAR, "").strip()
    if not source:
        load_application(None)  # raises the "no data given" error
    data = _load(source, _stamp(source))
    tasks, sub_tasks = (list(tasks) if tasks else None), (list(sub_tasks) if sub_tasks else None)
    try:
        records = select(data.records, tasks=tasks, sub_tasks=sub_tasks)
    except ValueError as exc:
        raise CflueDataError(str(exc)) from None
    if not data.records:
        first = f"; record {data.invalid[0][0]}: {data.invalid[0][1]}" if data.invalid else ""
        raise CflueDataError(f"{data.source}: no valid record ({len(data.invalid)} invalid record(s) dropped{first})")
    if not records:
        present = sorted({r.sub_task for r in data.records})
        raise CflueDataError(f"{data.source}: no record matches tasks={tasks} sub_tasks={sub_tasks} "
                             f"({len(data.records)} valid records; sub-tasks present: {', '.join(present)})")
    info = {"source": data.source, "n_valid": len(data.records), "n_selected": len(records), "tasks": tasks,
            "sub_tasks": sub_tasks, "n_invalid": len(data.invalid),
            "invalid": [{"index": i, "reason": r} for i, r in data.invalid[:MAX_REPORTED_INVALID]],
            "invalid_truncated": len(data.invalid) > MAX_REPORTED_INVALID}
    return Source(records, info)


def run_info(source: Source, comet: str | None, bertscore: str | None, profile: str = "default") -> dict[str, Any]:
    """What a result must carry to be read correctly: data source, task version, profile, optional metric models."""
    import finchain_tasks

    return {"package_version": finchain_tasks.__version__, "task_version": TASK_VERSION, "profile": profile,
            "cflue_profile": profile,
            "comet_model": comet or None, "bertscore_model": bertscore or None, **source.info}


def reference_text(output: Any) -> str:
    """The gold output as a model would write it: the string itself, or ``key: value`` lines for a list."""
    if isinstance(output, str):
        return output
    lines = []
    for obj in output:
        pairs = [(obj["role"], obj["argument"])] if set(obj) == {"role", "argument"} else list(obj.items())
        lines += [f"{k}: {v}" for k, v in pairs if str(v).strip()]
    return "\n".join(lines)


def history_text(record: ApplicationRecord) -> str:
    """Earlier turns as plain text, for a host that sends one prompt (lm-eval): "问：…\\n答：…" pairs."""
    return "".join(f"问：{q}\n答：{a}\n\n" for q, a in record.history)


__all__ = ["ENV_VAR", "TASK_VERSION", "ApplicationData", "ApplicationRecord", "Source", "history_text",
           "load_application", "load_source", "record_id", "reference_text", "run_info", "select", "task_names",
           "validate_record", "validate_rows"]


def check_metric_models(comet: str | None, bertscore: str | None) -> None:
    """Refuse, before any request is sent, a COMET checkpoint that is not there or a metric whose package is
    not installed (the models themselves load when the metrics are computed)."""
    from importlib.util import find_spec

    if comet and not Path(comet).expanduser().exists():
        raise CflueDataError(f"COMET checkpoint not found: {comet} (omit it and COMET is reported as not computed)")
    if comet and find_spec("comet") is None:
        raise CflueDataError("COMET needs the unbabel-comet package: pip install unbabel-comet")
    if bertscore and find_spec("bert_score") is None:
        raise CflueDataError("BERTScore needs the bert-score package: pip install bert-score")


@lru_cache(maxsize=4)
def metric_models(comet: str | None, bertscore: str | None) -> tuple[Any, Any]:
    """``(COMET scorer or None, BERTScore scorer or None)`` from the user's checkpoint / model. Loaded once
    per process, when metrics are first computed; a missing package or checkpoint is one clear error."""
    from scorers.cflue.application import bertscore_scorer, comet_scorer

    if comet and not Path(comet).expanduser().exists():
        raise CflueDataError(f"COMET checkpoint not found: {comet} (omit it and COMET is reported as not computed)")
    return (comet_scorer(str(Path(comet).expanduser())) if comet else None,
            bertscore_scorer(bertscore) if bertscore else None)
