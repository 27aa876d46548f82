"""ChainEval inside lm-eval: one batched scoring call per task, then per-document numbers.

lm-eval's ``process_results`` sees one document at a time, but ChainEval is fast only in batches
(one embedding pass and one alignment call for many outputs). A filter is the one hook that sees
every response of a task together with its documents, so :class:`ChainEvalFilter` scores them all
with one ``score_batch`` call. What it hands on is what a filter should: the filtered answer (the
final answer ChainEval read, which the samples log shows as ``filtered_resps``), as a
:class:`ScoredAnswer`, a ``str`` that also carries the metrics. :func:`process_results` returns
those, so the samples log lists them as numbers and lm-eval's ``mean`` aggregation and stderr apply.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from lm_eval.api.filter import Filter

from scorers.chaineval import METRIC_KEYS, score_batch
from scorers.params import ChainEvalParams
from scorers.rows import gold_of


class ScoredAnswer(str):
    """The final answer ChainEval read from a reply (what the samples log shows), carrying the
    reply's ChainEval metrics to :func:`process_results` as an attribute. A ``str`` subclass: JSON
    writes it as the plain answer text, and it pickles (lm-eval gathers samples across ranks)."""

    metrics: dict[str, float]

    def __new__(cls, text: str = "", metrics: dict[str, float] | None = None) -> ScoredAnswer:
        obj = super().__new__(cls, text)
        obj.metrics = dict(metrics or {})
        return obj


class ChainEvalFilter(Filter):
    """Score the first response of every instance against its document's gold steps."""

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[ScoredAnswer]:
        outputs = [reply_text(r, doc) for r, doc in zip(resps, docs)]
        results: list[ScoredAnswer | None] = [None] * len(outputs)
        by_params: dict[str, list[int]] = defaultdict(list)
        for k, doc in enumerate(docs):
            by_params[doc["chaineval_params"]].append(k)
        for params_json, idx in by_params.items():
            params = ChainEvalParams(**json.loads(params_json))
            scored = score_batch([gold_of(gold_row(docs[k])) for k in idx], [outputs[k] for k in idx], params)
            for k, res in zip(idx, scored):
                results[k] = ScoredAnswer(res.final_answer, res.metrics())
        return results  # type: ignore[return-value]


def reply_text(resps: Sequence[str] | str | None, doc: dict) -> str:
    """The model's answer as the scorer should read it: the first repeat, with the prompt's primer
    ("Step 1:" of the completion prompt) put back in front of a non-empty reply."""
    first = resps if isinstance(resps, str) or resps is None else (resps[0] if resps else None)
    text = first if isinstance(first, str) else ""
    prefix = doc.get("response_prefix") or ""
    return prefix + text if prefix and text.strip() else text


def gold_row(doc: dict) -> dict[str, Any]:
    """A document as a problem row: arrow stores ``steps`` and ``answer`` as JSON text."""
    row = dict(doc)
    for key in ("steps", "answer"):
        if isinstance(row.get(key), str):
            row[key] = json.loads(row[key])
    return row


def process_results(doc: dict, results: list[ScoredAnswer]) -> dict[str, float]:
    """The ChainEval metrics of one document (:data:`scorers.chaineval.METRIC_KEYS`), from the filter."""
    answer = results[0]
    metrics = getattr(answer, "metrics", None)
    if metrics is None:
        raise TypeError("process_results needs the ChainEval filter's output (filter_list: ChainEvalFilter)")
    return {name: float(metrics[name]) for name in METRIC_KEYS}
