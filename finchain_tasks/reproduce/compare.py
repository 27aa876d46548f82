"""Reproducing the FinChain paper (first version) from the authors' own files.

The authors' repository (read from a directory the user gives; it has no licence, so nothing of it
is shipped) holds model generations (``results/<model>.jsonl``: ``solution`` = gold text,
``generation`` = model output), per-sample scores (``evals/<model>.jsonl`` and
``evals/reasoning_parsed/<model>.jsonl``: ``recall``, ``precision``, ``final_answer_match``) and the
means their paper reports (``evals/overall_results.txt``). :func:`reproduce` scores every generation
file present with a ChainEval profile, joins their per-sample scores by (seed, id, topic, subtopic,
level), and compares metric by metric:

* ``fac`` against their ``final_answer_match``; ``recall``/``precision``/``step_f1`` against theirs
  (their ``eval.py`` is cosine > 0.6 with a 10% step-value match, not our ``reference`` profile, so
  these are expected to differ; the comparison says by how much);
* the share of samples that agree within 1e-6 and within 0.05;
* the largest disagreements, each with a one-line reason;
* per profile, the AUC of ChainEval separating outputs whose final answer is right from wrong ones.

Besides ChainEval's profiles, ``v1`` runs the authors' own ``eval.py`` rule (:mod:`scorers.v1_rule`),
which reproduces their per-sample numbers; every profile's means are printed beside theirs.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finchain_tasks.reproduce.authors import (
    PUBLISHED_COLUMNS,
    _key,
    authors_rows,
    published_means,
    their_scores,
)
from finchain_tasks.reproduce.fac import fac_reason, write_disagreements

__all__ = ["METRICS", "V1_PROFILE", "ModelComparison", "ProfileStats", "auc", "check_profiles", "reproduce",
           "write_report"]

METRICS = (("fac", "final_answer_match"), ("recall", "recall"), ("precision", "precision"), ("step_f1", "step_f1"))
"""(our key, their key) of the per-sample metrics both sides have."""
V1_PROFILE = "v1"
"""The authors' own ``chaineval/eval.py`` rule: not a ChainEval profile (another algorithm), so it
is named here, where reproduce dispatches on it, and not in scorers/params.py."""


def auc(scores: list[float], labels: list[bool]) -> float | None:
    """Area under the ROC curve of ``scores`` separating True from False labels (ties count half);
    None when either class is empty. 0.5 is no separation, 1.0 perfect."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return None
    ranked = sorted((s, y) for s, y in zip(scores, labels))
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # average rank of the tie group (1-based)
        rank_sum += mid * sum(1 for k in range(i, j) if ranked[k][1])
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


@dataclass
class ProfileStats:
    """One profile's figures for one model: per metric our mean and the share of samples agreeing
    with their per-sample file within 1e-6 and within 0.05. (A plain mean is what the published means
    are: for all 30 models of ``overall_results.txt`` they equal the plain mean of the per-sample file
    to 1e-9, although the aggregate.py shipped beside them averages per template instance first.)"""

    means: dict[str, float] = field(default_factory=dict)
    agree_exact: dict[str, float] = field(default_factory=dict)
    agree_05: dict[str, float] = field(default_factory=dict)
    chaineval: float = float("nan")
    auc: float | None = None


@dataclass
class ModelComparison:
    """One model: our means, theirs (re-computed from their per-sample file and as published),
    agreement shares, largest disagreements and ChainEval's AUC per profile."""

    model: str
    n: int
    their_file: str
    ours: dict[str, float] = field(default_factory=dict)
    theirs: dict[str, float] = field(default_factory=dict)
    published: dict[str, float] = field(default_factory=dict)
    agree_exact: dict[str, float] = field(default_factory=dict)
    agree_05: dict[str, float] = field(default_factory=dict)
    auc: dict[str, float | None] = field(default_factory=dict)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    n_fac_disagree: int = 0
    fac_rows: list[dict[str, Any]] = field(default_factory=list)
    """Every joined row's fac on both sides, a reason where they differ (``fac_disagreements.csv``)."""
    by_profile: dict[str, ProfileStats] = field(default_factory=dict)


def _mean(values: Iterable[float]) -> float:
    values = [v for v in values if v is not None and not math.isnan(v)]
    return sum(values) / len(values) if values else float("nan")


def profile_stats(rows: list[dict[str, Any]], res: list[Any], theirs: dict[tuple, dict[str, Any]]) -> ProfileStats:
    """One profile's :class:`ProfileStats` from its results (one per row, same order)."""
    stats = ProfileStats(chaineval=_mean(x.chaineval for x in res),
                         auc=auc([x.chaineval for x in res], [x.fac == 1.0 for x in res]))
    attrs = {"fac": "fac", "recall": "step_recall", "precision": "step_precision", "step_f1": "step_f1"}
    for ours_key, their_key in METRICS:
        values = [getattr(x, attrs[ours_key]) for x in res]
        stats.means[ours_key] = _mean(values)
        pairs = [(v, t[their_key]) for r, v in zip(rows, values)
                 if (t := theirs.get(_key(r))) is not None and t.get(their_key) is not None]
        stats.agree_exact[ours_key] = _mean(float(abs(a - b) <= 1e-6) for a, b in pairs)
        stats.agree_05[ours_key] = _mean(float(abs(a - b) <= 0.05) for a, b in pairs)
    return stats


def compare_model(model: str, rows: list[dict[str, Any]], results: dict[str, list[Any]],
                  theirs: dict[tuple, dict[str, Any]], their_file: str, published: dict[str, float],
                  top: int = 12) -> ModelComparison:
    """Join ``results[profile][k]`` (ChainEvalResult per row) with their per-sample rows. "Ours" is the first
    ChainEval profile run; the authors' rule (``v1``) only when it is the one profile asked for."""
    first = next((p for p in results if p != V1_PROFILE), next(iter(results)))
    comp = ModelComparison(model, len(rows), their_file, published=published)
    joined = [(r, {"fac": res.fac, "fac_strict": res.fac_strict, "recall": res.step_recall,
                   "precision": res.step_precision, "step_f1": res.step_f1, "final_answer": res.final_answer,
                   "answer_value": res.answer_value, "gold_answer": r.get("_gold_answer")},
               theirs.get(_key(r))) for r, res in zip(rows, results[first])]
    for ours_key, their_key in METRICS:
        pairs = [(o[ours_key], t[their_key]) for _, o, t in joined if t is not None and t.get(their_key) is not None]
        comp.ours[ours_key] = _mean(o[ours_key] for _, o, _ in joined)
        comp.theirs[ours_key] = _mean(t for _, t in pairs)
        comp.agree_exact[ours_key] = _mean(float(abs(a - b) <= 1e-6) for a, b in pairs)
        comp.agree_05[ours_key] = _mean(float(abs(a - b) <= 0.05) for a, b in pairs)
    for profile, res in results.items():
        comp.auc[profile] = auc([x.chaineval for x in res], [x.fac == 1.0 for x in res])
        comp.ours[f"chaineval_{profile}"] = _mean(x.chaineval for x in res)
    dis = [(r, o, t) for r, o, t in joined if t is not None and t.get("final_answer_match") is not None
           and o["fac"] != t["final_answer_match"]]
    their_reading = [x.final_answer for x in results["v1"]] if "v1" in results else None  # their rule, re-run
    for k, (r, o, t) in enumerate(joined):
        if t is None or t.get("final_answer_match") is None:
            continue
        comp.fac_rows.append({
            "key": "/".join(_key(r)), "ours_fac": o["fac"], "their_fac": t["final_answer_match"],
            "gold": o["gold_answer"] if not isinstance(o["gold_answer"], float) else round(o["gold_answer"], 6),
            "our_answer": o["final_answer"], "their_answer": their_reading[k] if their_reading else "",
            "reason": fac_reason(r, o, t) if o["fac"] != t["final_answer_match"] else ""})
    comp.disagreements = [e for e in comp.fac_rows if e["reason"]][:top]
    comp.n_fac_disagree = len(dis)
    comp.by_profile = {p: profile_stats(rows, res, theirs) for p, res in results.items()}
    return comp


def check_profiles(profiles: tuple[str, ...]) -> tuple[str, ...]:
    """The profiles as given, or a one-line error naming the known ones (before an hour-long run)."""
    from scorers.params import PROFILES

    known = (*PROFILES, V1_PROFILE)
    unknown = [p for p in profiles if p not in known]
    if unknown or not profiles:
        raise ValueError(f"unknown profile(s) {unknown or '(none given)'}: choose from {', '.join(known)}")
    return tuple(dict.fromkeys(profiles))


def score_profile(profile: str, rows: list[dict[str, Any]], golds: list[Any], embedder) -> list[Any]:
    """One profile's results for ``rows``: ChainEval's ``score_batch``, or the authors' ``eval.py``
    rule for ``v1`` (on their gold text as it is). One embedder serves every profile, so a step text
    two profiles embed alike is encoded once."""
    outputs = [r.get("generation") or "" for r in rows]
    if profile == V1_PROFILE:
        from scorers.v1_rule import score_v1_batch

        return score_v1_batch([r.get("solution") or "" for r in rows], outputs, embedder.encode_cached)
    from scorers.chaineval import score_batch

    return score_batch(golds, outputs, profile, embedder)


def reproduce(root: Path, profiles: tuple[str, ...] = ("reference", "paper"), limit: int | None = None,
              embedder=None, models: tuple[str, ...] = (),
              skipped: list[tuple[Path, str]] | None = None) -> list[ModelComparison]:
    """Score every generation file under ``root`` with each profile and compare with the authors; what
    :func:`authors_rows` passed over (a link out of ``results/``, a FIFO, a device) is added to ``skipped``."""
    from scorers.embeddings import shared_embedder
    from scorers.rows import RowError, gold_of

    profiles = check_profiles(profiles)
    embedder = embedder or shared_embedder()
    published = published_means(root)
    out = []
    for model, rows in authors_rows(root, skipped).items():
        if models and model not in models:
            continue
        theirs, their_file = their_scores(root, model)
        kept, golds = [], []
        for r in rows[:limit] if limit else rows:
            try:
                gold = gold_of(r)
            except RowError:
                continue  # a row without gold text (one of 2,700 has solution: null)
            r = {**r, "_gold_answer": gold.answer}
            kept.append(r)
            golds.append(gold)
        results = {p: score_profile(p, kept, golds, embedder) for p in profiles}
        out.append(compare_model(model, kept, results, theirs, their_file, published.get(model, {})))
    return out


def _fmt(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


TABLE_COLUMNS = ("metric", "profile", "ours", "theirs (per-sample file)", "published", "agree ≤1e-6",
                 "agree ≤0.05")
"""The comparison table's columns, the same in the terminal and in reproduce.md."""


def table_rows(c: ModelComparison) -> list[list[str]]:
    """One row per metric and profile (then ROUGE/BERTScore, published only), formatted."""
    rows = []
    for ours_key, their_key in METRICS:
        for p, st in c.by_profile.items():
            rows.append([ours_key, p, _fmt(st.means.get(ours_key)), _fmt(c.theirs.get(ours_key)),
                         _fmt(c.published.get(their_key)), _fmt(st.agree_exact.get(ours_key)),
                         _fmt(st.agree_05.get(ours_key))])
    for col in PUBLISHED_COLUMNS[4:]:
        rows.append([col, "—", "not computed", "—", _fmt(c.published.get(col)), "—", "—"])
    return rows


def step_score_line(c: ModelComparison) -> str:
    """Per profile: the mean step score and its AUC separating right from wrong final answers."""
    return ", ".join(
        f"`{p}` {'step F1 (eval.py has no ChainEval)' if p == V1_PROFILE else 'ChainEval'} mean {_fmt(st.chaineval)}"
        f", AUC {_fmt(st.auc)}" for p, st in c.by_profile.items())


def markdown(comparisons: list[ModelComparison]) -> str:
    """The comparison as a Markdown report."""
    lines = ["# FinChain v1 reproduced from the authors' files", ""]
    for c in comparisons:
        lines += [f"## {c.model} ({c.n} samples; theirs from `{c.their_file or 'none'}`)", "",
                  "| " + " | ".join(TABLE_COLUMNS) + " |", "|---|---|" + "---:|" * (len(TABLE_COLUMNS) - 2)]
        lines += ["| " + " | ".join(row) + " |" for row in table_rows(c)]
        lines += ["", "Step score per profile (AUC: separating outputs whose final answer is right from wrong, "
                  "by that profile's own fac): " + step_score_line(c), "",
            f"Final-answer disagreements: {c.n_fac_disagree} (largest first):", ""]
        for d in c.disagreements:
            lines.append(f"- `{d['key']}`: ours {d['ours_fac']:.0f}, theirs {d['their_fac']}, gold {d['gold']!r}, "
                         f"our answer {d['our_answer']!r}: {d['reason']}")
        lines.append("")
    return "\n".join(lines)


def write_report(comparisons: list[ModelComparison], out_dir: Path) -> tuple[Path, Path]:
    """``reproduce.md`` and ``reproduce.csv`` (one row per model and metric) under ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    md, csv_path = out_dir / "reproduce.md", out_dir / "reproduce.csv"
    md.write_text(markdown(comparisons), encoding="utf-8")
    write_disagreements({c.model: c.fac_rows for c in comparisons}, out_dir)
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "n", "profile", "metric", "ours", "theirs", "published", "agree_1e-6", "agree_0.05"])
        for c in comparisons:
            for p, st in c.by_profile.items():
                for ours_key, their_key in METRICS:
                    w.writerow([c.model, c.n, p, ours_key, st.means.get(ours_key), c.theirs.get(ours_key),
                                c.published.get(their_key), st.agree_exact.get(ours_key),
                                st.agree_05.get(ours_key)])
                w.writerow([c.model, c.n, p, "step_score", st.chaineval, "", "", "", ""])
                w.writerow([c.model, c.n, p, "auc", st.auc, "", "", "", ""])
    return md, csv_path
