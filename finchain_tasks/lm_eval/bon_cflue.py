"""``cflue_bon``: CFLUE Best-of-N with a PRM in lm-eval, the counterpart of ``inspect eval cflue -T samples=16``.

Every CFLUE knowledge question (all question types in one task, as Inspect's ``cflue`` is one task) is asked
``cflue_n`` times (16 by default) at ``cflue_temperature`` (0.7). :class:`CflueBoNFilter` reads each
candidate's answer letters with the run's extraction mode (a candidate is right when they equal the gold
letters; an unreadable answer casts no vote), scores every candidate of the task with the PRM in one batch
and runs every selector of :mod:`scorers.prm.selectors` (:func:`scorers.prm.pool.pool_records`, as Inspect's
scorer does). The PRM reads the question as Inspect's does: the user prompt, options included. What each
document hands on is the pool record as JSON text (``filtered_resps`` in the samples log), so
``finchain bon`` draws curves from it, and re-scores it with ``--prm``, without a model. Metrics: every
selector's accuracy (``prm_best,bon``, ``majority,bon``, ...); CFLUE has no gold steps, so no ChainEval.

Options through ``--metadata``: the dataset options of :mod:`finchain_tasks.lm_eval.cflue` (``cflue_path``,
``cflue_exams``, ``cflue_types``, ``cflue_prompt``, ``cflue_extract``, ``cflue_profile``), ``cflue_n`` and
``cflue_temperature``, and the PRM: ``cflue_prm`` (a spec, default ``calc``), ``cflue_prm_agg`` (``min``),
``cflue_prm_zeta`` (1.0), ``cflue_prm_trust_remote_code`` and ``cflue_prm_allow_pickle`` (false, see
docs/security.md). A bad spec or option fails while the task loads, before any request.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from lm_eval.api.filter import Filter
from lm_eval.api.task import ConfigurableTask

from finchain_tasks.cflue import hosts
from finchain_tasks.lm_eval.bon import BoNRecord, _prm, record_values
from finchain_tasks.lm_eval.bon_build import CFLUE_REPEATS
from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA
from scorers.prm.pool import Graded, pool_records, value_keys

__all__ = ["CflueBoNFilter", "CflueBoNTask", "configure", "grade", "load_cflue_bon", "process_results"]


def load_cflue_bon(cflue_path: str | None = None, cflue_exams: Any = None, cflue_types: Any = None,
                   cflue_prompt: str = "zero_shot", cflue_extract: str = hosts.DEFAULT_EXTRACT,
                   cflue_n: Any = CFLUE_REPEATS, cflue_prm: str = "calc", cflue_prm_agg: str = DEFAULT_AGG,
                   cflue_prm_zeta: float = DEFAULT_ZETA, cflue_prm_trust_remote_code: bool = False,
                   cflue_prm_allow_pickle: bool = False, cflue_run: dict | None = None,
                   cflue_profile: str = hosts.DEFAULT_PROFILE, **_: Any) -> dict:
    """``{"test": Dataset}`` of the selected questions, each stamped with the PRM options (the only thing
    a filter sees is the documents); fills ``cflue_run`` with the run's record, PRM included."""
    import datasets

    from finchain_tasks.lm_eval.cflue import SPLIT, _names, doc_of
    from finchain_tasks.prm import check_spec, opt_ins, opt_ins_text
    from scorers.prm.base import aggregate

    cflue_profile = hosts.check_profile(cflue_profile)
    n = hosts.check_options(cflue_prompt, cflue_extract, cflue_n, cflue_profile)
    cflue_extract = hosts.resolve_extract(cflue_extract, cflue_profile)
    aggregate([], cflue_prm_agg)
    spec, zeta = str(check_spec(cflue_prm)), float(cflue_prm_zeta)
    trust = opt_ins_text(opt_ins(cflue_prm_trust_remote_code, cflue_prm_allow_pickle))
    source = hosts.load_source(cflue_path, types=_names(cflue_types), exams=_names(cflue_exams))
    rows = [{**doc_of(r, cflue_prompt, cflue_extract, False), "bon_prm": spec, "bon_agg": cflue_prm_agg,
             "bon_zeta": zeta, "bon_opt_ins": trust} for r in source.records]
    if cflue_run is not None:
        cflue_run.update(hosts.run_info(source, cflue_prompt, cflue_extract, n, False, cflue_profile))
        cflue_run["best_of_n"] = {"n": n, "prm": spec, "agg": cflue_prm_agg, "zeta": zeta,
                                  "selectors": value_keys(False)}
    return {SPLIT: datasets.Dataset.from_list(rows)}


class CflueBoNTask(ConfigurableTask):
    """``repeats`` (N), sampling and the prompt variant's token budget follow the ``cflue_*`` metadata."""

    def __init__(self, data_dir=None, cache_dir=None, download_mode=None, config: dict | None = None) -> None:
        super().__init__(data_dir, cache_dir, download_mode, config=configure(dict(config or {})))


def configure(config: dict[str, Any]) -> dict[str, Any]:
    """The task's config with N, the temperature and the token budget applied (always sampling: N greedy
    answers would be N copies of one)."""
    config.pop("class", None)  # lm-eval's factory key, not a TaskConfig field
    meta = config.get("metadata") or {}
    prompt = meta.get("cflue_prompt", "zero_shot")
    extract = meta.get("cflue_extract", hosts.DEFAULT_EXTRACT)
    n = hosts.check_options(prompt, extract, meta.get("cflue_n", CFLUE_REPEATS),
                            meta.get("cflue_profile", hosts.DEFAULT_PROFILE))
    gen = dict(config.get("generation_kwargs") or {})
    gen.update(max_gen_toks=hosts.max_new_tokens(prompt), do_sample=True,
               temperature=float(meta.get("cflue_temperature", hosts.DEFAULT_BON_TEMPERATURE)))
    config["repeats"], config["generation_kwargs"] = n, gen
    return config


def grade(doc: dict, texts: Sequence[str]) -> list[Graded]:
    """Each candidate's answer letters against the gold (Inspect's ``cflue_grader``, on a document)."""
    import json

    choices = json.loads(doc["choices"])
    out = []
    for text in texts:
        pred = hosts.answer_of(text, choices, doc["extract_mode"])
        out.append(Graded(text, pred, pred == doc["answer"], None, None if pred == hosts.INVALID else pred))
    return out


class CflueBoNFilter(Filter):
    """Grade, PRM-score and select over every document's candidates (one PRM batch per PRM setting)."""

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[BoNRecord]:
        pools = [[r if isinstance(r, str) else "" for r in (rs if isinstance(rs, (list, tuple)) else [rs])]
                 for rs, doc in zip(resps, docs)]
        groups: dict[tuple, list[int]] = defaultdict(list)
        for k, doc in enumerate(docs):
            groups[(doc["bon_prm"], doc["bon_agg"], float(doc["bon_zeta"]), doc.get("bon_opt_ins") or "")].append(k)
        out: list[BoNRecord | None] = [None] * len(pools)
        for (spec, agg, zeta, opted), idx in groups.items():
            records = pool_records([docs[k]["prompt"] for k in idx], [grade(docs[k], pools[k]) for k in idx],
                                   _prm(spec, agg, zeta, opted),
                                   ["exam:" + str(docs[k].get("exam") or docs[k]["id"]) for k in idx],  # as the board
                                   [str(docs[k]["id"]) for k in idx])
            for k, record in zip(idx, records):
                out[k] = BoNRecord(record)
        return out  # type: ignore[return-value]


def process_results(doc: dict, results: list[Any]) -> dict[str, float]:
    """Each selector's accuracy, from the filter's record."""
    return record_values(results, False)
