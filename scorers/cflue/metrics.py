"""CFLUE metrics as plain functions: answer accuracy and weighted F1, and BLEU/ROUGE of the analysis.

Answer metrics take :class:`Outcome` rows (gold letters, extracted letters, question type, exam) so
both hosts can call them after turning their samples into plain data. Definitions:

- accuracy: exact match of the sorted letter strings (a multiple-choice answer is right only when
  the whole set is right); an invalid prediction ("X") is wrong.
- weighted F1: the official definition, scikit-learn's ``f1_score(gold, pred, average="weighted")``
  with each distinct answer string ("A", "ABD", "X", ...) as one class: per-class F1 over the union
  of gold and predicted classes, averaged with the gold support as weights (a class that is never
  gold weighs 0; an undefined precision or recall counts as 0, as scikit-learn's default does).
- invalid rate: the share of predictions that are "X".

Analysis metrics compare the model's "解析：" text with the reference analysis, tokenised by jieba
(whitespace tokens dropped, punctuation kept), as the mean of per-question scores:

- BLEU-n (n = 1, 4): geometric mean of clipped n-gram precisions 1..n times the brevity penalty
  ``exp(1 - r/c)`` when the candidate (c tokens) is shorter than the reference (r), else 1. Smoothing
  (Lin & Och 2004, "smoothed BLEU"): precisions for n >= 2 are ``(matches + 1) / (total + 1)``; the
  unigram precision is not smoothed, so a candidate sharing no token with the reference scores 0.
- ROUGE-1/2: F1 of clipped n-gram overlap; ROUGE-L: F1 of the longest common subsequence
  (precision LCS/c, recall LCS/r, beta = 1). Empty candidate or reference: 0; a text shorter than
  n tokens has no n-grams, so its ROUGE-n is 0 (identical one-token texts: ROUGE-2 = 0).
Questions whose reference analysis is null (or empty) are skipped and counted in the result.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

INVALID = "X"
ANALYSIS_KEYS = ("bleu_1", "bleu_4", "rouge_1", "rouge_2", "rouge_l")
JIEBA_HINT = "the CFLUE analysis metrics need jieba: pip install 'finchain-tasks[cflue]'"

Tokenizer = Callable[[str], list[str]]


class Outcome(NamedTuple):
    """One scored question: gold and predicted letters (sorted, "X" = invalid), type and exam."""

    gold: str
    pred: str
    type: str = ""
    exam: str = ""


def accuracy(golds: Sequence[str], preds: Sequence[str]) -> float:
    _check_lengths(golds, preds)
    return sum(g == p for g, p in zip(golds, preds)) / len(golds) if golds else 0.0


def weighted_f1(golds: Sequence[str], preds: Sequence[str]) -> float:
    """scikit-learn's ``f1_score(golds, preds, average="weighted")``, without scikit-learn."""
    _check_lengths(golds, preds)
    if not golds:
        return 0.0
    support = Counter(golds)
    predicted = Counter(preds)
    correct = Counter(g for g, p in zip(golds, preds) if g == p)
    total = 0.0
    for label, n_gold in support.items():
        tp = correct[label]
        precision = tp / predicted[label] if predicted[label] else 0.0
        recall = tp / n_gold
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        total += f1 * n_gold
    return total / len(golds)


def invalid_rate(preds: Sequence[str]) -> float:
    return sum(p == INVALID for p in preds) / len(preds) if preds else 0.0


def answer_metrics(rows: Sequence[Outcome]) -> dict[str, float | int]:
    golds = [r.gold for r in rows]
    preds = [r.pred for r in rows]
    return {"n": len(rows), "accuracy": accuracy(golds, preds), "weighted_f1": weighted_f1(golds, preds),
            "invalid_rate": invalid_rate(preds)}


def breakdown(rows: Iterable[Outcome], key: str) -> dict[str, dict[str, float | int]]:
    """:func:`answer_metrics` per value of ``key`` ("type" or "exam"), keys sorted."""
    groups: dict[str, list[Outcome]] = {}
    for row in rows:
        groups.setdefault(getattr(row, key), []).append(row)
    return {name: answer_metrics(groups[name]) for name in sorted(groups)}


def summarize(rows: Sequence[Outcome]) -> dict:
    """Overall answer metrics plus the per-question-type and per-exam breakdowns (JSON-ready)."""
    rows = [Outcome(*r) for r in rows]
    return {"overall": answer_metrics(rows), "by_type": breakdown(rows, "type"), "by_exam": breakdown(rows, "exam")}


def _check_lengths(golds: Sequence[str], preds: Sequence[str]) -> None:
    if len(golds) != len(preds):
        raise ValueError(f"{len(golds)} gold answers but {len(preds)} predictions")


# ---- analysis text: BLEU / ROUGE over tokens ----

_ANALYSIS = re.compile(r"解析\s*[:：]")
_ANSWER_LINE = re.compile(r"^[ \t]*(?:[*#]+[ \t]*)?(?:最终答案|答案)[ \t]*[:：]", re.M)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


def extract_analysis(text: str | None) -> str:
    """The model's analysis: the text after the first "解析：" up to a later "答案：" line (the
    chain-of-thought format puts the answer last) or the end; "" when there is no "解析：".
    Reasoning inside <think>…</think> is not the analysis and is dropped first."""
    if not text:
        return ""
    text = _THINK.sub("", text)
    match = _ANALYSIS.search(text)
    if not match:
        return ""
    rest = text[match.end():]
    end = _ANSWER_LINE.search(rest)
    return (rest[:end.start()] if end else rest).strip()


def ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _overlap(candidate: Sequence[str], reference: Sequence[str], n: int) -> tuple[int, int, int]:
    """(clipped matches, candidate n-grams, reference n-grams)."""
    cand, ref = ngrams(candidate, n), ngrams(reference, n)
    return sum((cand & ref).values()), sum(cand.values()), sum(ref.values())


def bleu(candidate: Sequence[str], reference: Sequence[str], max_n: int = 4) -> float:
    """Sentence BLEU-``max_n`` with uniform weights, brevity penalty and add-one smoothing for n >= 2."""
    if not candidate or not reference:
        return 0.0
    log_sum = 0.0
    for n in range(1, max_n + 1):
        matches, total, _ = _overlap(candidate, reference, n)
        if n > 1:
            matches, total = matches + 1, total + 1
        if matches == 0:
            return 0.0
        log_sum += math.log(matches / total) / max_n
    c, r = len(candidate), len(reference)
    penalty = 1.0 if c > r else math.exp(1 - r / c)
    return penalty * math.exp(log_sum)


def _f1(overlap: float, n_candidate: int, n_reference: int) -> float:
    if not overlap or not n_candidate or not n_reference:
        return 0.0
    precision, recall = overlap / n_candidate, overlap / n_reference
    return 2 * precision * recall / (precision + recall)


def rouge_n(candidate: Sequence[str], reference: Sequence[str], n: int) -> float:
    return _f1(*_overlap(candidate, reference, n))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004): O(len(b)) big-int steps."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


def rouge_l(candidate: Sequence[str], reference: Sequence[str]) -> float:
    return _f1(lcs_length(candidate, reference), len(candidate), len(reference))


def text_scores(candidate: Sequence[str], reference: Sequence[str]) -> dict[str, float]:
    """BLEU-1/4 and ROUGE-1/2/L F1 of two token lists."""
    return {"bleu_1": bleu(candidate, reference, 1), "bleu_4": bleu(candidate, reference, 4),
            "rouge_1": rouge_n(candidate, reference, 1), "rouge_2": rouge_n(candidate, reference, 2),
            "rouge_l": rouge_l(candidate, reference)}


def jieba_tokenize(text: str) -> list[str]:
    """jieba's default (accurate-mode) segmentation, whitespace tokens dropped."""
    try:
        import jieba
    except ImportError:
        raise ImportError(JIEBA_HINT) from None
    _quiet(jieba)
    return [t for t in jieba.lcut(text) if t.strip()]


def _quiet(jieba) -> None:
    """jieba logs "Building prefix dict..." at INFO on first use; keep host logs clean."""
    import logging

    jieba.setLogLevel(logging.WARNING)


def analysis_metrics(pairs: Iterable[tuple[str | None, str]], tokenize: Tokenizer | None = None) -> dict:
    """Mean BLEU/ROUGE over ``(reference analysis or None, model response)`` pairs.

    The model's analysis is :func:`extract_analysis` of the response. Pairs with a null or empty
    reference are skipped and counted in ``skipped_null_reference``; ``n`` is the number scored.
    """
    tokenize = tokenize or jieba_tokenize
    totals = dict.fromkeys(ANALYSIS_KEYS, 0.0)
    n = skipped = 0
    for reference, response in pairs:
        if reference is None or not reference.strip():
            skipped += 1
            continue
        scores = text_scores(tokenize(extract_analysis(response)), tokenize(reference))
        for key in ANALYSIS_KEYS:
            totals[key] += scores[key]
        n += 1
    means = {key: (totals[key] / n if n else 0.0) for key in ANALYSIS_KEYS}
    return {"n": n, "skipped_null_reference": skipped, **means}
