"""The ``finchain`` Inspect task: template-generated problems, the shared prompt, ChainEval scoring.

``inspect eval finchain_tasks/finchain --model ... -T domain=personal_finance -T level=[easy,advanced]``.
The selection (domains, topics, levels, templates) comes from the template registry, so new
templates appear without changes here. Sample ids are the problem ids
(``finchain/<domain>/<topic>/<template>/<seed>``); the gold steps travel in the sample metadata so
that ``inspect score`` can re-score a log with another ChainEval profile without regenerating.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate, system_message

from finchain_tasks.inspect.errors import plain_task_errors
from finchain_tasks.inspect.scorer import chaineval

Names = str | list[str] | None


def names(value: Names | Iterable[str]) -> list[str]:
    """``None``, ``"a"``, ``"a,b"`` or ``["a", "b"]`` (``-T`` values are YAML-parsed) as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value]


def seeds_for(seeds: int | list[int], start_seed: int, fresh: bool, templates: int | None = None) -> list[int]:
    """A count of seeds (consecutive from ``start_seed``, or fresh unseen ones) or an explicit list.

    An explicit list with ``fresh`` names fresh seeds drawn earlier (a resumed run must ask for the
    same ones): each must lie outside the canonical range.
    """
    from finchain_tasks.finchain.generate import FRESH_SEED_FLOOR, seed_list

    if isinstance(seeds, bool):
        raise ValueError(f"seeds must be a count or a list of seeds, got {seeds!r}")
    if isinstance(seeds, int):
        return seed_list(seeds, start_seed, fresh, templates)
    if start_seed:
        raise ValueError("give either an explicit list of seeds or start_seed, not both")
    values = [int(s) for s in seeds]
    if fresh and any(s < FRESH_SEED_FLOOR for s in values):
        raise ValueError(f"fresh seeds lie at or above {FRESH_SEED_FLOOR}; got {values}")
    return values


def sample_of(problem) -> Sample:
    """One problem as an Inspect sample (metadata: the problem's, plus the gold steps for re-scoring)."""
    row = problem.to_dict()
    # the question too: what it asks decides how the answer is read (a VaR is a size, a two-quantity question is
    # graded on the gold's one), and scorers.rows.gold_of reads that from it as it does for lm-eval's documents
    gold = {"steps": row["steps"], "answer": row["answer"], "answer_unit": row["answer_unit"],
            "question": problem.question}
    return Sample(id=problem.id, input=problem.question, target=problem.solution,
                  metadata={**problem.metadata(), "gold": gold})


def ordered_samples(problems: Iterable[Any], sample_seed: int = 0) -> list[Sample]:
    """The problems as samples in the stratified order, so that any prefix (``--limit``) is representative."""
    from finchain_tasks.finchain.sampling import stratified_order, template_id_of

    samples = [sample_of(p) for p in problems]
    return stratified_order(samples, lambda s: (s.metadata["domain"], s.metadata["level"],
                                                 template_id_of(str(s.id))), sample_seed)


def authors_samples(path: str | None, domain: Names, topic: Names, level: Names, sample_seed: int) -> list[Sample]:
    """The authors' test instances as samples: their question, their gold text as the target, the
    question in the gold metadata so that the text-gold reader knows the asked unit."""
    from finchain_tasks.finchain.sampling import stratified_order, template_id_of
    from finchain_tasks.reproduce.authors import authors_dir, authors_problems

    root = authors_dir(path, "split=authors with -T authors_path=DIR")
    wanted = {k: set(names(v)) for k, v in (("domain", domain), ("topic", topic), ("level", level))}
    samples = [Sample(id=r["id"], input=r["question"], target=r["solution"],
                      metadata={**{k: r[k] for k in ("domain", "topic", "level", "template", "seed", "source")},
                                "gold": {"question": r["question"]}})
               for r in authors_problems(root) if r["solution"]
               and all(not w or r[k] in w for k, w in wanted.items())]
    if not samples:
        raise ValueError("no authors' test instance matches this selection of domain, topic and level")
    return stratified_order(samples, lambda s: (s.metadata["domain"], s.metadata["level"],
                                                 template_id_of(str(s.id))), sample_seed)


@task
@plain_task_errors
def finchain(
    domain: Names = None,
    level: Names = None,
    topic: Names = None,
    template: Names = None,
    seeds: int | list[int] = 10,
    fresh: bool = False,
    start_seed: int = 0,
    profile: str = "paper",
    chaineval_params: dict[str, Any] | None = None,
    sample_seed: int = 0,
    samples: int = 1,
    prm: str | None = None,
    prm_agg: str = "min",
    prm_zeta: float = 1.0,
    temperature: float = 0.7,
    prm_trust_remote_code: bool = False,
    prm_allow_pickle: bool = False,
    split: str = "canonical",
    authors_path: str | None = None,
) -> Task:
    """FinChain: verifiable multi-step financial reasoning, scored with ChainEval.

    Args:
        domain: Domain id(s) to include (default: all).
        level: Difficulty level(s): easy, intermediate, advanced (default: all).
        topic: Topic id(s) to include (default: all).
        template: Template name(s) or ``domain/topic/name`` id(s) (default: all).
        seeds: How many seeds per template (10 = the canonical split), or an explicit list of seeds.
        fresh: Draw ``seeds`` unseen seeds instead (a contamination check: compare with the canonical split);
            with an explicit list, marks those (non-canonical) seeds as fresh ones drawn earlier.
        start_seed: First seed when ``seeds`` is a count.
        profile: ChainEval profile, 'paper' or 'reference'.
        chaineval_params: ChainEval parameters to override, e.g. ``{step_tol: 0.1}``.
        sample_seed: Seed of the dataset's stratified order (see :mod:`finchain_tasks.finchain.sampling`): every
            prefix, so ``--limit N``, is spread over domain × level × template.
        samples: Best-of-N: candidates drawn per problem (see :mod:`finchain_tasks.inspect.bon`).
        prm: PRM spec for Best-of-N (calc, judge:<registry model>, hf:<path or hub id>[:release]); default calc.
        prm_agg: How step probabilities aggregate into R: mean, min, prod or last.
        prm_zeta: Weight of the trajectory probability in R.
        temperature: Sampling temperature of the Best-of-N candidates (must be > 0).
        prm_trust_remote_code: Let an ``hf`` PRM checkpoint run its own Python code (never by default; see
            docs/security.md).
        prm_allow_pickle: Let an ``hf`` PRM checkpoint load pickle-based ``.bin`` weights (never by default).
        split: 'canonical' (template-generated problems) or 'authors': the FinChain authors' 2,700 test
            instances with their gold text (text-gold scoring; see docs/reproducing-finchain.md).
        authors_path: The authors' repository for ``split=authors`` (default $FINCHAIN_AUTHORS_DIR).
    """
    from finchain_tasks.engine import select
    from finchain_tasks.finchain import prompts, sampling
    from finchain_tasks.finchain.generate import check_size, iter_problems

    if split not in ("canonical", "authors"):
        raise ValueError(f"split must be 'canonical' or 'authors', got {split!r}")
    if split == "authors":
        dataset, seed_values = authors_samples(authors_path, domain, topic, level, int(sample_seed)), []
    else:
        templates = select(names(domain), names(topic), names(level), names(template))
        if not templates:
            raise ValueError("no FinChain template matches this selection of domain, topic, level and template")
        seed_values = seeds_for(seeds, start_seed, fresh, len(templates))
        check_size(len(templates), len(seed_values))
        dataset = ordered_samples(iter_problems(templates, seed_values), int(sample_seed))
    metadata = {**task_metadata(profile, chaineval_params or {}, seed_values, fresh),
                "sample_order": sampling.record(int(sample_seed)), "split": split}
    if samples != 1 or prm:
        from finchain_tasks.inspect.bon import finchain_bon_task, opt_ins

        return finchain_bon_task(dataset, samples=samples, prm=prm, prm_agg=prm_agg, prm_zeta=prm_zeta,
                                 prm_opt_ins=opt_ins(prm_trust_remote_code, prm_allow_pickle),
                                 temperature=temperature, profile=profile, chaineval_params=chaineval_params,
                                 metadata=metadata, version=_task_version())
    scorer = chaineval(profile, **(chaineval_params or {}))
    return Task(
        dataset=MemoryDataset(dataset, name="finchain"),
        solver=[system_message(prompts.SYSTEM_PROMPT), generate()],
        scorer=scorer,
        config=GenerateConfig(max_tokens=prompts.MAX_NEW_TOKENS),
        version=_task_version(),
        metadata=metadata,
        headline_metric=HeadlineMetric(scorer="chaineval", score="chaineval", metric="mean"),
    )


def _task_version() -> str:
    from finchain_tasks.finchain.versioning import task_version

    return task_version()


def task_metadata(profile: str, overrides: dict[str, Any], seeds: list[int], fresh: bool) -> dict[str, Any]:
    """What a reader of the log needs to compare runs: versions, ChainEval parameters, embedder, seeds."""
    import finchain_tasks
    from finchain_tasks.finchain.versioning import recorded
    from scorers.embeddings import shared_embedder
    from scorers.params import resolve

    params = resolve(profile, **overrides)
    return {
        "finchain_tasks_version": finchain_tasks.__version__,
        "task_version": str(recorded()["version"]),
        "task_fingerprint": recorded().get("fingerprint"),
        "chaineval": params.to_dict(),
        "embedder": shared_embedder(params.embedding_model).info,
        "seeds": seeds,
        "fresh_seeds": fresh,
    }
