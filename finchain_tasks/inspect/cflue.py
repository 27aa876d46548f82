"""The ``cflue`` Inspect task: CFLUE knowledge questions, the official prompts, answer-letter scoring.

``inspect eval finchain_tasks/cflue --model ... -T path=/data/cflue/knowledge.json -T type=multiple_choice``.
Each sample's Score is 1/0 (exact set match), its ``answer`` the extracted letters ("X": none found);
the metrics are accuracy with stderr, weighted F1 over all samples at once, the invalid rate,
accuracy and weighted F1 per question type, and accuracy per exam.

Best-of-N uses epochs: ``-T n=8`` runs every question 8 times and :func:`majority_vote` (the
``MajorityVote`` of ``scorers.cflue.vote``) keeps the epoch whose answer is most frequent; the
metrics then see one voted Score per question. Epochs work with every provider, unlike
``num_choices``. The vote is the task's reducer for any number of epochs, so ``--epochs 8`` votes too.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    accuracy,
    grouped,
    metric,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate, system_message

from finchain_tasks.cflue import CflueDataError, hosts
from finchain_tasks.cflue.prompts import SYSTEM_PROMPT
from finchain_tasks.inspect.errors import plain_task_errors
from finchain_tasks.inspect.tasks import Names, names
from scorers.cflue.metrics import ANALYSIS_KEYS
from scorers.cflue.metrics import weighted_f1 as _weighted_f1
from scorers.cflue.vote import MajorityVote

SCORER = "cflue_scorer"

try:  # Inspect's command line prints a PrerequisiteError as its message alone, without a traceback
    from inspect_ai._util.error import PrerequisiteError as _Plain
except ImportError:  # private API moved: the error then comes with a traceback, nothing worse
    _Plain = Exception  # type: ignore[misc,assignment]


class CflueTaskError(CflueDataError, _Plain):
    """The loader's error (a CflueDataError), shown by ``inspect eval`` as one plain message."""

    def __init__(self, message: str) -> None:
        CflueDataError.__init__(self, message)
        self.message = f"cflue: {message}"


@metric(name="weighted_f1")
def weighted_f1() -> Metric:
    """scikit-learn's weighted F1 over every sample's (gold, predicted) answer string, at once."""

    def compute(scores: list[SampleScore]) -> float:
        pairs = [_gold_pred(s) for s in scores]
        return _weighted_f1([g for g, _ in pairs], [p for _, p in pairs])

    return compute


@metric(name="invalid_rate")
def invalid_rate() -> Metric:
    """The share of samples whose answer could not be read ("X")."""

    def compute(scores: list[SampleScore]) -> float:
        return sum(_gold_pred(s)[1] == hosts.INVALID for s in scores) / len(scores) if scores else 0.0

    return compute


def _gold_pred(sample_score: SampleScore) -> tuple[str, str]:
    meta = sample_score.score.metadata or {}
    if "gold" not in meta or "pred" not in meta:
        raise ValueError("CFLUE metrics need each Score's gold and predicted letters, which the task's "
                         "majority_vote reducer keeps: do not replace it with --epochs-reducer")
    return meta["gold"], meta["pred"]


@metric(name="type")
def by_type() -> Metric:
    """Accuracy per question type: metrics of group ``type`` named single_choice, multiple_choice, true_false."""
    return grouped(accuracy(), "type_slug", all=False)


@metric(name="type_f1")
def f1_by_type() -> Metric:
    """Weighted F1 per question type (named ``<type>_weighted_f1``), like lm-eval's per-type leaves."""
    return grouped(weighted_f1(), "type_slug", all=False, name_template="{group_name}_weighted_f1")


@metric(name="exam")
def by_exam() -> Metric:
    """Accuracy per exam: metrics of group ``exam`` named by the exam."""
    return grouped(accuracy(), "exam", all=False)


@metric(name="analysis")
def analysis_text(profile: str = "default") -> Metric:
    """BLEU-1/4 and ROUGE-1/2/L of the analysis over samples that have a reference analysis: per-sample means
    (``default``), or the authors' corpus BLEU and ``rouge``-package ROUGE over all pairs (``reference``)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if profile == "reference":
            pairs = [tuple(p) for s in scores if (p := (s.score.metadata or {}).get("analysis_pair"))]
            return hosts.analysis_reference(pairs)
        rows = [v for s in scores if (v := (s.score.metadata or {}).get("analysis"))]
        return {key: (sum(r[key] for r in rows) / len(rows) if rows else float("nan")) for key in ANALYSIS_KEYS}

    return compute


def answer_metrics() -> list[Metric]:
    return [accuracy(), stderr(), weighted_f1(), invalid_rate(), by_type(), f1_by_type(), by_exam()]


@scorer(metrics=answer_metrics())
def cflue_scorer(extract: str | None = hosts.DEFAULT_EXTRACT, analysis: bool = False,
                 profile: str = hosts.DEFAULT_PROFILE) -> Scorer:
    """Exact match of the extracted answer letters (``extract``: the profile's reading unless named: robust for
    ``default``, the authors' rule for ``reference``); with ``analysis``, BLEU/ROUGE of the response's 解析 in the
    Score metadata (``reference``: the pair, scored over all samples at once by the metric)."""
    profile = hosts.check_profile(profile)
    extract = hosts.check_extract(extract, profile)

    async def score(state: TaskState, target: Target) -> Score:
        response = state.output.completion if state.output else ""
        pred = hosts.answer_of(response, state.metadata["choices"], extract)
        gold = target.text
        choices = state.metadata["choices"]
        meta: dict[str, Any] = {"gold": gold, "pred": pred, "extract_mode": extract, "profile": profile,
                                "epoch": state.epoch, "invalid": invalid_under_both(response, choices)}
        if analysis and profile == "reference":
            reference = state.metadata.get("analysis")
            meta["analysis_pair"] = [reference, response] if reference is not None else None
        elif analysis:
            meta["analysis"] = hosts.analysis_scores(state.metadata.get("analysis"), response)
        return Score(value=float(pred == gold), answer=pred, explanation=f"gold {gold}, extracted {pred}",
                     metadata=meta)

    return score


def invalid_under_both(response: str, choices: Any) -> dict[str, bool]:
    """Whether the official strict rule and the robust one each fail to read an answer: a summary shows
    both rates, so a model that answers nothing (or only in a form strict rejects) is visible."""
    return {mode: hosts.answer_of(response, choices, mode) == hosts.INVALID for mode in ("strict", "robust")}


@score_reducer(name="majority_vote")
def majority_vote() -> ScoreReducer:
    """Keep the epoch whose extracted answer is most frequent (MajorityVote's rules: "X" never wins
    while any epoch answered, a tie goes to the earliest epoch, all invalid keeps epoch 1)."""
    selector = MajorityVote(lambda _qid, answer: answer)

    def reduce(scores: list[Score]) -> Score:
        ordered = sorted(scores, key=lambda s: (s.metadata or {}).get("epoch", 0))
        answers = [s.answer or hosts.INVALID for s in ordered]
        winner = ordered[selector.select("sample", answers)]
        meta = {**(winner.metadata or {}), "votes": answers}
        return winner.model_copy(update={"metadata": meta})

    return reduce


def sample_of(record, prompt: str) -> Sample:
    """One question as a sample: the prompt's user message as input, the gold letters as target."""
    _, user = hosts.messages(record, prompt)
    return Sample(id=record.id, input=user, target=record.answer,
                  metadata={**record.metadata(), "choices": record.choices, "analysis": record.analysis})


@task
@plain_task_errors
def cflue(
    path: str | None = None,
    type: Names = None,
    exam: Names = None,
    prompt: str = "zero_shot",
    extract: str | None = hosts.DEFAULT_EXTRACT,
    n: int = 1,
    analysis: bool = False,
    samples: int = 1,
    prm: str | None = None,
    prm_agg: str = "min",
    prm_zeta: float = 1.0,
    temperature: float = 0.7,
    profile: str = hosts.DEFAULT_PROFILE,
    prm_trust_remote_code: bool = False,
    prm_allow_pickle: bool = False,
) -> Task:
    """CFLUE knowledge assessment: Chinese financial qualification exam questions.

    Args:
        path: CFLUE JSON/JSONL file (default: $CFLUE_PATH, else the shipped 40-question sample, not CFLUE data).
        type: Question type(s): single_choice, multiple_choice, true_false (or the Chinese names); default all.
        exam: Exam name(s) to keep (default all).
        prompt: 'zero_shot' (official format: answer line, then analysis) or 'cot' (analysis first).
        extract: Answer extraction: the profile's unless named ('robust' for default; 'strict' may be named).
        n: Best-of-N: answers per question, reduced by majority vote (sampled at temperature 0.7 unless set).
        analysis: Also report BLEU-1/4 and ROUGE-1/2/L of the analysis (needs jieba).
        samples: Best-of-N with a PRM: candidates per question, every selector reported (see
            :mod:`finchain_tasks.inspect.bon`); ``prm``, ``prm_agg``, ``prm_zeta``, ``temperature``,
            ``prm_trust_remote_code``, ``prm_allow_pickle`` as there.
        profile: 'default' (answers read as a reader would) or 'reference' (the CFLUE authors' extraction and
            metrics, bugs included: the figures to set beside the paper's).
    """
    profile = hosts.check_profile(profile)
    n = hosts.check_options(prompt, extract, n, profile)
    extract = hosts.resolve_extract(extract, profile)
    try:
        source = hosts.load_source(path, types=names(type) or None, exams=names(exam) or None)
    except CflueDataError as exc:
        raise CflueTaskError(str(exc)) from None
    if samples != 1 or prm:
        from finchain_tasks.inspect.bon import cflue_bon_task, opt_ins

        return cflue_bon_task([sample_of(r, prompt) for r in source.records], samples=samples, prm=prm,
                              prm_opt_ins=opt_ins(prm_trust_remote_code, prm_allow_pickle), prm_agg=prm_agg,
                              prm_zeta=prm_zeta, temperature=temperature, extract=extract,
                              max_tokens=hosts.max_new_tokens(prompt), system_prompt=SYSTEM_PROMPT,
                              metadata=hosts.run_info(source, prompt, extract, n, analysis, profile),
                              version=hosts.TASK_VERSION)
    return Task(
        dataset=MemoryDataset([sample_of(r, prompt) for r in source.records], name="cflue"),
        solver=[system_message(SYSTEM_PROMPT), generate()],
        scorer=cflue_scorer(extract, analysis, profile),
        metrics=answer_metrics() + [analysis_text(profile)] if analysis else None,
        epochs=Epochs(n, majority_vote()),
        config=GenerateConfig(max_tokens=hosts.max_new_tokens(prompt),
                              temperature=hosts.DEFAULT_BON_TEMPERATURE if n > 1 else None),
        version=hosts.TASK_VERSION,
        metadata={**hosts.run_info(source, prompt, extract, n, analysis, profile), "best_of_n_mechanism": "epochs"},
        headline_metric=HeadlineMetric(scorer=SCORER, metric="accuracy"),
    )
