"""Label recipes: step and trajectory labels for a batch of candidate traces.

* ``exact`` (FinChain only; free, deterministic): the step label is the exact verdict
  (:mod:`.exact`); the trajectory label thresholds r_out + η · r_cover with r_out = ChainEval's fac and
  r_cover = the share of gold steps reproduced.
* ``fused`` (the paper's signals): r_step = softmax-fuse(r_imp, r_qual, r_acc), binarised at 0.5, with
  r_acc = r_corr + ω · r_know. Where an item has a FinChain gold trace the exact verdict stands in for
  the procedural-correctness judgement r_corr (it is that judgement, made exactly) and ChainEval's fac is
  r_out; elsewhere both come from the judge and the answer checker. r_cover comes from the concept
  extractor over the question's knowledge points.

Nothing is guessed: a step whose signal raised :class:`~.signals.Unknown` (judge off-format, rollout
timed out, no gold answer) is labelled ``None`` with the reason; a trace without steps keeps its row,
labelled unknown. :func:`summarise` counts every outcome and reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from scorers.final_answer import AnswerGold, judge_answer
from scorers.params import resolve
from scorers.prm.labels.exact import ExactSignals, exact_signals, trace_text
from scorers.prm.labels.fusion import (
    ETA,
    OMEGA,
    STEP_THRESHOLD,
    TRAJ_THRESHOLD,
    accuracy_score,
    binarise,
    coverage,
    softmax_fuse,
    trajectory_score,
)
from scorers.prm.labels.signals import Accuracy, Concepts, Importance, LabelItem, Qualitative, Unknown

__all__ = ["RECIPES", "FusedSignals", "TraceLabels", "answer_gold", "answer_matches", "label_items", "summarise"]

RECIPES = ("exact", "fused")


@dataclass
class TraceLabels:
    """One trace's labels: ``None`` means unknown, and ``reasons`` says why (step k -> reason)."""

    id: str
    recipe: str
    question: str
    steps: list[str]
    final_answer: str
    step_labels: list[int | None]
    traj_label: int | None
    step_scores: list[dict] = field(default_factory=list)
    traj_scores: dict = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FusedSignals:
    """The model-backed signals of the ``fused`` recipe and the paper's constants."""

    importance: Importance
    qualitative: Qualitative
    accuracy: Accuracy
    concepts: Concepts
    omega: float = OMEGA
    eta: float = ETA


def answer_gold(item: LabelItem) -> AnswerGold:
    """The item's gold answer with its kind and two-quantity reading: the gold trace's where it has them,
    else what the item's question asks for (as :func:`scorers.rows.gold_of` reads a row)."""
    gold = item.gold
    kind = gold.answer_kind if gold is not None and gold.answer_kind else None
    found = AnswerGold.for_question(item.gold_answer, item.gold_unit, item.question, kind)
    return AnswerGold(found.value, found.unit, found.kind, found.asks_two or bool(gold is not None and gold.asks_two))


def answer_matches(item: LabelItem, output: str | None = None) -> bool:
    """ξ: is the final answer of ``output`` (a whole text: a rollout, a candidate) the gold answer, read as
    ChainEval's ``fac`` reads it (:func:`scorers.final_answer.judge_answer`)? ``None`` reads the item's own
    trace (:func:`.exact.trace_text`: its output, else its steps and final answer). Raises :class:`Unknown`
    when the item has no gold answer."""
    if item.gold_answer is None:
        raise Unknown("missing gold answer")
    return judge_answer(answer_gold(item), trace_text(item) if output is None else output, resolve("paper")).fac


def _traj(r_out: float, r_cover: float, eta: float) -> tuple[int, dict]:
    score = trajectory_score(r_out, r_cover, eta)
    return binarise(score, TRAJ_THRESHOLD), {"r_out": r_out, "r_cover": r_cover, "r_traj": score, "eta": eta}


def _exact_labels(item: LabelItem, ex: ExactSignals) -> TraceLabels:
    out = TraceLabels(item.id, "exact", item.question, list(item.steps), item.final_answer,
                      [None] * len(item.steps), None, meta=dict(item.meta))
    if ex.reason:
        out.reasons["trace"] = ex.reason
        return out
    out.step_labels = [int(v) for v in ex.steps]
    out.step_scores = [{"exact": int(v)} for v in ex.steps]
    out.traj_label, out.traj_scores = _traj(ex.r_out, ex.r_cover, ETA)
    return out


def _fused_step(item: LabelItem, k: int, exact: bool | None, sig: FusedSignals) -> dict:
    imp = sig.importance.importance(item, k)
    qual = sig.qualitative.qualitative(item, k)
    corr, know = sig.accuracy.accuracy(item, k)
    if exact is not None:
        corr = float(exact)
    acc = accuracy_score(corr, know, sig.omega)
    fused = softmax_fuse([imp, qual, acc])
    return {"importance": imp, "qualitative": qual, "procedural": corr, "factual": know, "accuracy": acc,
            "fused": fused, "exact": None if exact is None else int(exact)}


def _fused_traj(item: LabelItem, ex: ExactSignals | None, sig: FusedSignals) -> tuple[int, dict]:
    r_out = ex.r_out if ex is not None and not ex.reason else float(answer_matches(item))
    r_cover = coverage(item.knowledge_points, sig.concepts.used(item)) if item.knowledge_points else None
    if r_cover is None:
        raise Unknown("the question has no knowledge points for r_cover")
    return _traj(r_out, r_cover, sig.eta)


def _fused_labels(item: LabelItem, ex: ExactSignals | None, sig: FusedSignals) -> TraceLabels:
    out = TraceLabels(item.id, "fused", item.question, list(item.steps), item.final_answer,
                      [None] * len(item.steps), None, step_scores=[{} for _ in item.steps], meta=dict(item.meta))
    if not item.steps:
        out.reasons["trace"] = "trace has no steps"
        return out
    exact = ex.steps if ex is not None and not ex.reason else (None,) * len(item.steps)
    for k in range(len(item.steps)):
        try:
            scores = _fused_step(item, k, exact[k], sig)
        except Unknown as exc:
            out.reasons[f"step {k + 1}"] = str(exc)
            continue
        out.step_scores[k] = scores
        out.step_labels[k] = binarise(scores["fused"], STEP_THRESHOLD)
    try:
        out.traj_label, out.traj_scores = _fused_traj(item, ex, sig)
    except Unknown as exc:
        out.reasons["trajectory"] = str(exc)
    return out


def label_items(items: Sequence[LabelItem], recipe: str = "exact", signals: FusedSignals | None = None,
                embedder=None, profile: str = "paper") -> list[TraceLabels]:
    """Labels for every item, in order (no item is ever dropped)."""
    if recipe not in RECIPES:
        raise ValueError(f"unknown label recipe {recipe!r}: use one of {', '.join(RECIPES)}")
    if recipe == "fused" and signals is None:
        raise ValueError("the fused recipe needs signals (importance, qualitative, accuracy, concepts)")
    exact = exact_signals(items, embedder, profile)  # ChainEval runs only for items with a gold trace
    if recipe == "exact":
        return [_exact_labels(it, ex) for it, ex in zip(items, exact)]
    return [_fused_labels(it, ex, signals) for it, ex in zip(items, exact)]


def _reason_key(reason: str) -> str:
    """Reasons grouped for counting: digits dropped, so 'step 3' and 'step 4' count together."""
    return "".join("#" if c.isdigit() else c for c in reason)


def summarise(labels: Sequence[TraceLabels]) -> dict:
    """Counts of positive, negative and unknown step and trajectory labels, and of every reason."""
    steps = Counter({0: 0, 1: 0, None: 0})
    trajs = Counter({0: 0, 1: 0, None: 0})
    reasons: Counter = Counter()
    for lab in labels:
        steps.update(lab.step_labels)
        trajs[lab.traj_label] += 1
        reasons.update(_reason_key(r) for r in lab.reasons.values())
    return {"traces": len(labels), "steps": sum(steps.values()), "steps_correct": steps[1],
            "steps_incorrect": steps[0], "steps_unknown": steps[None], "traj_positive": trajs[1],
            "traj_negative": trajs[0], "traj_unknown": trajs[None], "reasons": dict(reasons.most_common())}
