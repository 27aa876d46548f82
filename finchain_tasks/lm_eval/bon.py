"""``finchain_bon``: Best-of-N with a PRM in lm-eval (``repeats`` + a selecting filter).

The task draws ``repeats`` (16) answers per problem at temperature 0.7. :class:`BoNFilter`, the one hook
that sees every response of a task together with its documents, grades all candidates with ChainEval
in one batch, scores them all with the PRM in one batch and runs every selector
(:mod:`scorers.prm.pool`); what it hands on per document is the pool record as JSON text (the samples
log shows it as ``filtered_resps``, so ``finchain bon`` can redraw curves from it without a model),
carrying the selectors' values to :func:`process_results`. Metrics: every selector's accuracy and the
ChainEval of its pick (``prm_best,bon``, ``majority,bon``, ...).

Options come through ``--metadata`` (lm-eval hands them to the dataset function, which stamps them on
every document, the only thing a filter sees): ``finchain_prm`` (a PRM spec, default ``calc``),
``finchain_prm_agg`` (``min``), ``finchain_prm_zeta`` (1.0), ``finchain_prm_trust_remote_code`` and
``finchain_prm_allow_pickle`` (false: an ``hf`` checkpoint's own code and pickle weights, see
docs/security.md), plus the dataset options of
:mod:`finchain_tasks.lm_eval.dataset` and ``finchain_domain`` / ``finchain_level`` to narrow the problems.
A bad spec fails while the dataset loads, before any request.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from lm_eval.api.filter import Filter

from finchain_tasks.lm_eval.bon_build import FILTER_NAME  # noqa: F401  (one name, kept in the build)
from finchain_tasks.lm_eval.scoring import gold_row, reply_text
from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA
from scorers.prm.pool import grade_finchain, pool_records, value_keys


class BoNRecord(str):
    """A pool record as JSON text (what the samples log shows), with its selector values attached."""

    values: dict[str, float]

    def __new__(cls, record: dict) -> BoNRecord:
        obj = super().__new__(cls, json.dumps(record, ensure_ascii=False))
        obj.values = dict(record["values"])
        return obj


def load_bon(finchain_domain: str | None = None, finchain_level: str | None = None, finchain_prm: str = "calc",
             finchain_prm_agg: str = DEFAULT_AGG, finchain_prm_zeta: float = DEFAULT_ZETA,
             finchain_prm_trust_remote_code: bool = False, finchain_prm_allow_pickle: bool = False,
             **kwargs: Any) -> dict:
    """Every FinChain leaf's documents (or those of one domain / level), each stamped with the PRM options."""
    import datasets

    from finchain_tasks.lm_eval.build import layout
    from finchain_tasks.lm_eval.dataset import SPLIT, load_finchain
    from finchain_tasks.prm import check_spec, opt_ins, opt_ins_text
    from scorers.prm.base import aggregate

    aggregate([], finchain_prm_agg)
    trust = opt_ins_text(opt_ins(finchain_prm_trust_remote_code, finchain_prm_allow_pickle))
    spec = str(check_spec(finchain_prm))
    zeta = float(finchain_prm_zeta)
    parts = [load_finchain(d, lv, **kwargs)[SPLIT] for d, lv in layout().leaves.values()
             if finchain_domain in (None, d) and finchain_level in (None, lv)]
    if not parts:
        raise ValueError(f"no FinChain templates for domain {finchain_domain!r} at level {finchain_level!r}")
    docs = datasets.concatenate_datasets(parts)
    n = len(docs)
    docs = docs.add_column("bon_prm", [spec] * n).add_column("bon_agg", [finchain_prm_agg] * n)
    return {SPLIT: docs.add_column("bon_zeta", [zeta] * n).add_column("bon_opt_ins", [trust] * n)}


@lru_cache(maxsize=4)
def _prm(spec: str, agg: str, zeta: float, opted: str = ""):
    """The PRM of one setting; ``opted`` is :func:`finchain_tasks.prm.opt_ins_text` of the user's metadata."""
    from finchain_tasks.prm import OPT_INS, load_prm

    return load_prm(spec, agg=agg, zeta=zeta, **{k: k in opted.split(",") for k in OPT_INS})


class BoNFilter(Filter):
    """Grade, PRM-score and select over every document's candidates (one batch per PRM setting)."""

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[BoNRecord]:
        from finchain_tasks.finchain.sampling import template_id_of
        from scorers.params import ChainEvalParams
        from scorers.rows import gold_of

        pools = [[reply_text([r], doc) for r in (rs if isinstance(rs, (list, tuple)) else [rs])]
                 for rs, doc in zip(resps, docs)]
        groups: dict[tuple, list[int]] = defaultdict(list)
        for k, doc in enumerate(docs):
            groups[(doc["bon_prm"], doc["bon_agg"], float(doc["bon_zeta"]), doc["chaineval_params"],
                    doc.get("bon_opt_ins") or "")].append(k)
        out: list[BoNRecord | None] = [None] * len(pools)
        for (spec, agg, zeta, params_json, opted), idx in groups.items():
            params = ChainEvalParams(**json.loads(params_json))
            golds = [gold_of(gold_row(docs[k])) for k in idx for _ in pools[k]]
            flat = grade_finchain(golds, [t for k in idx for t in pools[k]], params)
            graded, pos = [], 0
            for k in idx:
                graded.append(flat[pos:pos + len(pools[k])])
                pos += len(pools[k])
            records = pool_records([docs[k]["question"] for k in idx], graded, _prm(spec, agg, zeta, opted),
                                   [template_id_of(docs[k]["id"]) for k in idx], [docs[k]["id"] for k in idx])
            for k, record in zip(idx, records):
                out[k] = BoNRecord(record)
        return out  # type: ignore[return-value]


def record_values(results: list[Any], with_chaineval: bool) -> dict[str, float]:
    """The selectors' figures from the filter's record (a :class:`BoNRecord`, or its JSON text once lm-eval
    has stringified it)."""
    values = getattr(results[0], "values", None)
    if values is None:
        values = json.loads(results[0])["values"]
    return {key: float(values[key]) for key in value_keys(with_chaineval)}


def process_results(doc: dict, results: list[Any]) -> dict[str, float]:
    """Each selector's accuracy and its pick's ChainEval, from the filter's record."""
    return record_values(results, True)
