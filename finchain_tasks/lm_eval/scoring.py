"""ChainEval inside lm-eval: one batched scoring call per task, then per-document numbers.

lm-eval's ``process_results`` sees one document at a time, but ChainEval is fast only in batches
(one embedding pass and one alignment call for many outputs). A filter is the one hook that sees
every response of a task together with its documents, so :class:`ChainEvalFilter` scores them all
with one ``score_batch`` call and hands each document its result as JSON text (also what the
samples log shows as ``filtered_resps``: scores, final answer and step alignment).
:func:`process_results` unpacks the numbers, so lm-eval's ``mean`` aggregation and stderr apply.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from lm_eval.api.filter import Filter

from scorers.chaineval import NUMERIC_FIELDS, score_batch
from scorers.params import ChainEvalParams
from scorers.rows import gold_of


class ChainEvalFilter(Filter):
    """Score the first response of every instance against its document's gold steps."""

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[str]:
        outputs = [reply_text(r, doc) for r, doc in zip(resps, docs)]
        results: list[str | None] = [None] * len(outputs)
        by_params: dict[str, list[int]] = defaultdict(list)
        for k, doc in enumerate(docs):
            by_params[doc["chaineval_params"]].append(k)
        for params_json, idx in by_params.items():
            params = ChainEvalParams(**json.loads(params_json))
            scored = score_batch([gold_of(gold_row(docs[k])) for k in idx], [outputs[k] for k in idx], params)
            for k, res in zip(idx, scored):
                results[k] = json.dumps({**res.scores(), "profile": params.profile, "alignment": res.alignment})
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


def process_results(doc: dict, results: list[str]) -> dict[str, float]:
    """The numeric ChainEval fields of one document, from the filter's JSON."""
    payload = json.loads(results[0])
    return {name: float(payload[name]) for name in NUMERIC_FIELDS}
