"""The step alignment of lm-eval rows, recomputed for the sample viewer.

lm-eval's samples log keeps ChainEval's numbers per document (a host aggregates numbers) but not the
alignment behind them: which model step matched which gold step, with what similarity and numeric gate. The
viewer needs it beside the Inspect rows, whose logs carry it. So the build scores each lm-eval reply again
with the same scorer, the same gold steps and the ChainEval parameters the document itself recorded, and
keeps the alignment only where the recomputed ChainEval equals the logged one: a different scorer version
or embedding backend would show an alignment that is not the one behind the number."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

TOLERANCE = 1e-6


def _gold(doc: dict[str, Any]) -> Any:
    from scorers.rows import gold_of

    row = dict(doc)
    for key in ("steps", "answer"):
        if isinstance(row.get(key), str):
            row[key] = json.loads(row[key])
    return gold_of(row)


def _reply(doc: dict[str, Any], text: str) -> str:
    """The reply as the lm-eval filter scored it: the prompt's primer ("Step 1:") put back in front."""
    prefix = doc.get("response_prefix") or ""
    return prefix + text if prefix and text.strip() else text


def add_alignment(rows: list[dict[str, Any]], docs: list[dict[str, Any]]) -> None:
    """Set ``alignment`` (and ``n_gold_steps``/``n_pred_steps`` where missing) on the FinChain rows of one
    samples file, in place, one scoring call per parameter set. Rows whose document carries no parameters,
    whose gold cannot be read, or whose recomputed ChainEval differs from the logged one keep none."""
    from scorers.chaineval import score_batch
    from scorers.params import ChainEvalParams

    groups: dict[str, list[int]] = defaultdict(list)
    for k, doc in enumerate(docs):
        if isinstance(doc.get("chaineval_params"), str) and rows[k].get("chaineval") is not None:
            groups[doc["chaineval_params"]].append(k)
    for params_json, idx in groups.items():
        try:
            params = ChainEvalParams(**json.loads(params_json))
            golds = [_gold(docs[k]) for k in idx]
        except Exception:  # parameters or gold from another version: no alignment rather than a wrong one
            continue
        results = score_batch(golds, [_reply(docs[k], rows[k].get("output") or "") for k in idx], params)
        for k, gold, result in zip(idx, golds, results):
            if abs(result.chaineval - float(rows[k]["chaineval"])) <= TOLERANCE:
                rows[k]["alignment"] = result.alignment
                rows[k].setdefault("n_gold_steps", len(gold.steps))
                rows[k].setdefault("n_pred_steps", len(result.pred_steps))
