"""Best-of-N with a PRM in Inspect: ``inspect eval finchain -T samples=16 -T prm=calc`` (and ``cflue``).

A sampling solver (:func:`sample_candidates`) draws ``samples`` answers per question from the task's
model, concurrently, each with ``temperature`` > 0 and its own ``seed`` (so caches keyed by the request
keep them apart). The scorer (:func:`bon_scorer`) grades each candidate (ChainEval against the gold
steps for FinChain; the answer letters for CFLUE), scores every candidate with the PRM the spec names
(:func:`finchain_tasks.prm.load_prm`) and runs every selector of :mod:`scorers.prm.selectors`. The Score's
value holds each selector's accuracy at this N (and, for FinChain, the chosen candidate's ChainEval as
``ce_<selector>``), so the log's metrics report them all; the Score's metadata is the pool record of
:mod:`scorers.prm.pool` (every candidate's text, answer, ChainEval, step probabilities and R), which
``finchain bon`` reads to draw curves without calling a model; the explanation shows the candidates and
the PRM's pick, its text included, in ``inspect view``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from finchain_tasks.prm import opt_ins  # noqa: F401  (the tasks' -T prm_trust_remote_code, prm_allow_pickle)
from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA
from scorers.prm.pool import Graded, pool_records, value_keys

SCORER = "bon_scorer"
DEFAULT_TEMPERATURE = 0.7
CANDIDATES = "bon_candidates"
_PRM_LOCK = threading.Lock()
"""One PRM batch at a time per process (an ``hf`` model is not re-entrant)."""


def check_samples(samples: Any, temperature: float) -> int:
    """``samples`` as a positive int and a temperature that can draw different candidates."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    if samples > 1 and not float(temperature) > 0:
        raise ValueError(f"samples={samples} needs temperature > 0 to draw different candidates, got {temperature}")
    return samples


@solver
def sample_candidates(samples: int, temperature: float = DEFAULT_TEMPERATURE, seed: int = 0) -> Solver:
    """Draw ``samples`` answers to the current messages; the first is also the state's output."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        configs = [GenerateConfig(temperature=temperature, seed=seed + k) for k in range(samples)]
        outputs = await asyncio.gather(*(model.generate(state.messages, config=c) for c in configs))
        state.metadata[CANDIDATES] = [o.completion for o in outputs]
        state.output = outputs[0]
        state.messages.append(outputs[0].message)
        return state

    return solve


def bon_metrics(with_chaineval: bool) -> dict[str, list]:
    """Mean and stderr of every value key (selector accuracies, and ChainEval of each pick)."""
    return {key: [mean(), stderr()] for key in value_keys(with_chaineval)}


Grader = Callable[[TaskState, Target, list[str]], list[Graded]]


def bon_scorer_for(grader: Grader, prm_spec: str, agg: str, zeta: float, with_chaineval: bool,
                   cluster: Callable[[TaskState], str], prm_opt_ins: dict[str, bool] | None = None) -> Scorer:
    """The scorer; the PRM is loaded here, when the task is built, so a bad spec fails before any request."""
    from finchain_tasks.prm import load_prm

    prm = load_prm(prm_spec, agg=agg, zeta=zeta, **(prm_opt_ins or {}))

    @scorer(metrics=bon_metrics(with_chaineval), name=SCORER)
    def bon_scorer() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            texts = list(state.metadata.get(CANDIDATES) or [state.output.completion if state.output else ""])
            record = await asyncio.to_thread(_pool, grader, prm, state, target, texts, cluster(state))
            return to_score(record)

        return score

    return bon_scorer()


def _pool(grader: Grader, prm, state: TaskState, target: Target, texts: list[str], cluster: str) -> dict:
    graded = grader(state, target, texts)
    with _PRM_LOCK:
        [record] = pool_records([state.input_text], [graded], prm, [cluster], [str(state.sample_id)])
    return record


def to_score(record: dict) -> Score:
    """The Score: selector values, the PRM's pick as the answer, the pool record as metadata."""
    pick = record["selected"]["prm_best"]
    answer = record["candidates"][pick]["answer"] if pick is not None else ""
    return Score(value=record["values"], answer=answer, explanation=explain(record), metadata={"bon": record})


def explain(record: dict) -> str:
    """Markdown: a table of candidates (answer, correct, ChainEval, R, who picked it) and the PRM's pick."""
    from finchain_tasks.inspect.scorer import md_code, md_text, shorten

    chosen: dict[int, list[str]] = {}
    for name, i in record["selected"].items():
        chosen.setdefault(i, []).append(name)
    lines = [f"**Best-of-{record['n']}** with PRM `{record['prm']}` (R = {record['agg']}(steps) + "
             f"{record['zeta']:g} · p_traj)", "", "| # | answer | correct | ChainEval | R | chosen by |",
             "|---|---|---|---|---|---|"]
    for i, c in enumerate(record["candidates"]):
        ce = "" if c["chaineval"] is None else f"{c['chaineval']:.2f}"
        lines.append(f"| {i + 1} | {md_code(shorten(c['answer'] or '(none)', 40))} | {'yes' if c['correct'] else 'no'} "
                     f"| {ce} | {c['reward']:.3f} | {', '.join(chosen.get(i, []))} |")
    pick = record["selected"]["prm_best"]
    if pick is not None:
        text = record["candidates"][pick]["text"]
        lines += ["", f"PRM pick (candidate {pick + 1}):", ""]
        lines += [f"> {md_text(line)}  " for line in text.splitlines() if line.strip()] or ["> (empty)"]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ FinChain


def finchain_grader(profile: str, overrides: dict | None) -> Grader:
    """ChainEval of every candidate against the sample's gold steps, in one batch."""
    from scorers.params import resolve

    params = resolve(profile, **(overrides or {}))

    def grade(state: TaskState, target: Target, texts: list[str]) -> list[Graded]:
        from finchain_tasks.inspect.scorer import _SCORING, gold_for
        from scorers.embeddings import shared_embedder
        from scorers.prm.pool import grade_finchain

        gold = gold_for(state, target)
        shared_embedder(params.embedding_model)
        with _SCORING:
            return grade_finchain([gold] * len(texts), texts, params)

    return grade


def finchain_bon_task(samples_list: list, *, samples: int, prm: str | None, prm_agg: str, prm_zeta: float,
                      temperature: float, profile: str, chaineval_params: dict | None, metadata: dict,
                      version: str, prm_opt_ins: dict[str, bool] | None = None):
    """The FinChain task in Best-of-N form (called from :func:`finchain_tasks.inspect.tasks.finchain`)."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.log import HeadlineMetric
    from inspect_ai.solver import system_message

    from finchain_tasks.finchain import prompts
    from finchain_tasks.finchain.sampling import template_id_of

    samples = check_samples(samples, temperature)
    spec = prm or "calc"
    scorer_ = bon_scorer_for(finchain_grader(profile, chaineval_params), spec, prm_agg, prm_zeta, True,
                             lambda s: template_id_of(str(s.sample_id)), prm_opt_ins)
    return Task(
        dataset=MemoryDataset(samples_list, name="finchain"),
        solver=[system_message(prompts.SYSTEM_PROMPT), sample_candidates(samples, temperature)],
        scorer=scorer_, config=GenerateConfig(max_tokens=prompts.MAX_NEW_TOKENS, temperature=temperature),
        version=version, metadata={**metadata, **bon_metadata(samples, spec, prm_agg, prm_zeta, temperature)},
        headline_metric=HeadlineMetric(scorer=SCORER, score="prm_best", metric="mean"),
    )


def bon_metadata(samples: int, spec: str, agg: str, zeta: float, temperature: float) -> dict:
    """What a reader of the log needs to know about the selection."""
    return {"best_of_n": {"samples": samples, "prm": spec, "agg": agg, "zeta": zeta, "temperature": temperature,
                          "mechanism": "sampling solver", "selectors": value_keys(False)}}


# ------------------------------------------------------------------------------------------ CFLUE


def cflue_grader(extract: str) -> Grader:
    """The answer letters of each candidate against the gold letters (no gold steps: no ChainEval)."""
    from finchain_tasks.cflue import hosts

    def grade(state: TaskState, target: Target, texts: list[str]) -> list[Graded]:
        out = []
        for text in texts:
            pred = hosts.answer_of(text, state.metadata["choices"], extract)
            key = None if pred == hosts.INVALID else pred
            out.append(Graded(text, pred, pred == target.text, None, key))
        return out

    return grade


def cflue_cluster(state: TaskState) -> str:
    """A CFLUE pool's cluster is its exam (the unit the board resamples too), as ``exam:<name>``."""
    return "exam:" + str((state.metadata or {}).get("exam") or state.sample_id)


def cflue_bon_task(samples_list: list, *, samples: int, prm: str | None,
                   prm_opt_ins: dict[str, bool] | None = None, prm_agg: str = DEFAULT_AGG,
                   prm_zeta: float = DEFAULT_ZETA, temperature: float = DEFAULT_TEMPERATURE, extract: str,
                   max_tokens: int, system_prompt: str, metadata: dict, version: Any):
    """The CFLUE task in Best-of-N form (called from :func:`finchain_tasks.inspect.cflue.cflue`)."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.log import HeadlineMetric
    from inspect_ai.solver import system_message

    samples = check_samples(samples, temperature)
    spec = prm or "calc"
    scorer_ = bon_scorer_for(cflue_grader(extract), spec, prm_agg, prm_zeta, False, cflue_cluster, prm_opt_ins)
    return Task(
        dataset=MemoryDataset(samples_list, name="cflue"),
        solver=[system_message(system_prompt), sample_candidates(samples, temperature)],
        scorer=scorer_, config=GenerateConfig(max_tokens=max_tokens, temperature=temperature),
        version=version, metadata={**metadata, **bon_metadata(samples, spec, prm_agg, prm_zeta, temperature)},
        headline_metric=HeadlineMetric(scorer=SCORER, score="prm_best", metric="mean"),
    )
