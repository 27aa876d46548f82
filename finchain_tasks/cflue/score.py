"""Score CFLUE outputs from a file, under a profile: what ``finchain cflue-score`` runs (host-free).

Rows come from a JSON list or JSONL file, in any of these shapes (one file may mix them):

- a knowledge question with the model's answer: the record's fields (``answer``, ``choices``, ``analysis``, and
  ``task`` for the type) plus ``model_response`` (the authors' result files) or ``response``;
- an application record with the answer: ``task``, ``sub_task``, ``output`` plus ``response`` / ``predict`` /
  ``model_response``;
- the authors' application submission: ``{"outputs": [{"__raw": {"task", "sub_task", "output"}, "response"}]}``;
- ``{"id" | "index", "response"}`` joined with ``--data`` (a CFLUE knowledge or application file) by the record id
  (``cflue/<index>-<hash>``, ``cflue-app/...``) or the index.

Every input row gives one output row, in order, with the row's own fields plus its scores, or ``error`` saying
why it could not be scored; no bad row costs the others their scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scorers.cflue.reference import check_profile

RESPONSE_KEYS = ("response", "model_response", "predict")
KNOWLEDGE_TYPES = ("单项选择题", "多项选择题", "判断题")


def read_rows(path: Path) -> list[Any]:
    """Rows of a JSON list or JSONL file; the authors' ``{"outputs": [...]}`` wrapper is unwrapped. A line that is
    not JSON is kept as an error row (a ValueError in its place)."""
    from finchain_tasks.plumbing.jsonl import jsonl_lines
    from finchain_tasks.plumbing.safe_files import parse_json, read_text

    text = read_text(path).removeprefix("\ufeff")  # a regular file only: a FIFO or a device is refused at once
    if text.lstrip().startswith("["):
        rows = parse_json(text, str(path))
        rows = rows if isinstance(rows, list) else [rows]
    else:
        rows = []
        for lineno, line in jsonl_lines(text):  # at \n only: U+2028 in an answer does not tear its row
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except (json.JSONDecodeError, RecursionError) as exc:
                    rows.append(ValueError(f"line {lineno}: not JSON ({getattr(exc, 'msg', 'nested too deeply')})"))
    out: list[Any] = []
    for row in rows:
        if isinstance(row, Mapping) and isinstance(row.get("outputs"), list):
            out.extend(_unwrap(o) for o in row["outputs"])
        else:
            out.append(row)
    return out


def _unwrap(output: Any) -> Any:
    if isinstance(output, Mapping) and isinstance(output.get("__raw"), Mapping):
        return {**output["__raw"], **{k: v for k, v in output.items() if k != "__raw"}}
    return output


def _response(row: Mapping) -> str:
    for key in RESPONSE_KEYS:
        if key in row:
            value = row[key]
            return "" if value is None else str(value)
    raise ValueError(f"no model answer: expected one of {', '.join(RESPONSE_KEYS)}")


def _index(data: Iterable[Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for record in data or []:
        out[record.id] = record
        out[str(record.index)] = record
    return out


def _joined(row: Mapping, lookup: Mapping[str, Any]) -> Mapping:
    """The row with the gold fields of its ``--data`` record when it carries none of its own."""
    if "answer" in row or "output" in row:
        return row
    key = str(row.get("id", row.get("index", "")))
    record = lookup.get(key)
    if record is None:
        raise ValueError(f"no gold: the row has no answer/output and {key!r} is not an id or index of --data")
    if hasattr(record, "choices"):
        return {**row, "task": record.task, "answer": record.answer, "choices": record.choices,
                "analysis": record.analysis}
    return {**row, "task": record.task, "sub_task": record.sub_task, "output": record.output}


def score_knowledge(row: Mapping, profile: str, extract: str | None) -> dict[str, Any]:
    from finchain_tasks.cflue import hosts
    from finchain_tasks.cflue.loader import normalize_answer, parse_choices
    from scorers.cflue.extract import extract_answer

    choices = parse_choices(row["choices"]) if row.get("choices") is not None else None
    mode = hosts.resolve_extract(extract, profile)
    response = _response(row)
    if profile == "reference":
        gold = str(row["answer"])
        pred = extract_answer(response, mode)
    else:
        task = row.get("task") if row.get("task") in KNOWLEDGE_TYPES else "多项选择题"
        gold = normalize_answer(row["answer"], task, choices or dict.fromkeys("ABCDEF", ""))
        pred = extract_answer(response, mode, choices=choices)
    return {"kind": "knowledge", "gold": gold, "pred": pred, "correct": float(pred == gold), "extract_mode": mode}


def score_application(row: Mapping, profile: str) -> dict[str, Any]:
    from scorers.cflue.application import TASKS, record_scores

    slug = TASKS.get(row["task"], row["task"])
    return {"kind": "application", "task_slug": slug, **record_scores(slug, row.get("sub_task") or "", row["output"],
                                                                      _response(row), profile)}


def score_rows(rows: list[Any], profile: str, *, extract: str | None = None, data: Iterable[Any] | None = None
               ) -> list[dict[str, Any]]:
    """One output row per input row: its fields plus ``profile`` and its scores, or ``error``."""
    profile = check_profile(profile)
    lookup = _index(data)
    out = []
    for number, row in enumerate(rows, 1):
        try:
            if isinstance(row, Exception):
                raise row
            if not isinstance(row, Mapping):
                raise ValueError("a row must be a JSON object")
            full = _joined(row, lookup)
            scores = score_knowledge(full, profile, extract) if "answer" in full else score_application(full, profile)
            out.append({**row, "profile": profile, **scores})
        except (ValueError, KeyError, TypeError) as exc:
            fields = dict(row) if isinstance(row, Mapping) else {}
            out.append({**fields, "row": number, "profile": profile, "error": f"{type(exc).__name__}: {exc}"})
    return out


def summary(scored: list[dict[str, Any]], rows: list[Any], profile: str, *, analysis: bool = False) -> dict[str, Any]:
    """Knowledge accuracy / weighted F1 / invalid rate (and with ``analysis`` BLEU/ROUGE of the analysis), and the
    application summary, on the CFLUE table's 0–100 scale, named by profile."""
    from scorers.cflue import metrics
    from scorers.cflue.application import AppOutcome, summarize

    out: dict[str, Any] = {"profile": profile, "rows": len(scored), "errors": sum("error" in r for r in scored)}
    knowledge = [r for r in scored if r.get("kind") == "knowledge"]
    if knowledge:
        golds, preds = [r["gold"] for r in knowledge], [r["pred"] for r in knowledge]
        out["knowledge"] = {"n": len(knowledge), "accuracy": 100 * metrics.accuracy(golds, preds),
                            "weighted_f1": 100 * metrics.weighted_f1(golds, preds),
                            "invalid_rate": 100 * metrics.invalid_rate(preds)}
        if analysis:
            out["knowledge"]["analysis"] = _analysis(knowledge, profile)
    apps = [r for r in scored if r.get("kind") == "application"]
    if apps:
        outcomes = [AppOutcome(r["task_slug"], r.get("sub_task") or "", r["output"], _response(r), "") for r in apps]
        out["application"] = summarize(outcomes, profile=profile)
    return out


def _analysis(knowledge: list[dict[str, Any]], profile: str) -> dict[str, Any]:
    from scorers.cflue import metrics, reference

    pairs = [(r.get("analysis") or None, _response(r)) for r in knowledge]
    if profile == "reference":
        return reference.knowledge_analysis(pairs)
    result = metrics.analysis_metrics(pairs)
    return {k: (100 * v if k in metrics.ANALYSIS_KEYS else v) for k, v in result.items()}
