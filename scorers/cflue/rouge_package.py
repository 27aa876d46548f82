"""ROUGE as the PyPI ``rouge`` package (pltrdy, 1.0.x, ``Rouge().get_scores(hyps, refs, avg=True)``) defines it,
which is what the CFLUE authors' ``rouge_score`` calls. Our own code, written from the package's documented
behaviour, so the ``reference`` profile needs no extra dependency.

What makes it differ from textbook ROUGE (and from :mod:`scorers.cflue.metrics`):

- A text is first cut into "sentences" at every ASCII ``.`` (so ``3.5`` becomes two tokens); each piece with at
  least one character is kept and its whitespace collapsed; words are the pieces split at single spaces. A piece
  of only spaces thus becomes one empty word ``""``.
- ROUGE-N counts *distinct* n-grams (sets, the package's ``exclusive=True`` default): a token repeated ten
  times counts once. ``F = 2PR / (P + R + 1e-8)``; P = 0 when the hypothesis has no n-gram, R likewise.
- ROUGE-L is the summary-level variant: for every reference sentence and every hypothesis sentence one LCS is
  reconstructed (ties broken as the package does: on a mismatch move up when the cell above is strictly larger,
  else left), its *distinct words* are pooled in one set across all pairs; R = |pool| / distinct reference
  words, P = |pool| / distinct hypothesis words.
- An empty hypothesis (no sentence left) makes the package raise ``ValueError("Hypothesis is empty.")``:
  :class:`EmptyHypothesis` here, so a caller decides (the authors' knowledge script would stop).
- ``avg=True`` is the plain mean of the per-pair F values.
"""

from __future__ import annotations

from collections.abc import Sequence

EPS = 1e-8


class EmptyHypothesis(ValueError):
    """The package's ``ValueError("Hypothesis is empty.")`` (or "Reference is empty.")."""


def sentences(text: str) -> list[str]:
    """The package's split: pieces between ASCII full stops, non-empty, whitespace collapsed."""
    return [" ".join(piece.split()) for piece in text.split(".") if len(piece) > 0]


def words(sents: Sequence[str]) -> list[str]:
    return [w for s in sents for w in s.split(" ")]


def _ngram_set(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def _f(overlap: int, n_hyp: int, n_ref: int) -> float:
    precision = overlap / n_hyp if n_hyp else 0.0
    recall = overlap / n_ref if n_ref else 0.0
    return 2.0 * (precision * recall) / (precision + recall + EPS)


def _checked(hyp: str, ref: str) -> tuple[list[str], list[str]]:
    hyp_s, ref_s = sentences(hyp), sentences(ref)
    if not hyp_s:
        raise EmptyHypothesis("Hypothesis is empty.")
    if not ref_s:
        raise EmptyHypothesis("Reference is empty.")
    return hyp_s, ref_s


def rouge_n(hyp: str, ref: str, n: int) -> float:
    """ROUGE-N F of one pair, distinct n-grams."""
    hyp_s, ref_s = _checked(hyp, ref)
    h, r = _ngram_set(words(hyp_s), n), _ngram_set(words(ref_s), n)
    return _f(len(h & r), len(h), len(r))


def lcs_words(x: Sequence[str], y: Sequence[str]) -> list[str]:
    """One longest common subsequence of ``x`` (reference words) and ``y`` (hypothesis words), reconstructed
    from the end as the package does. The table is built a row at a time with numpy: row_i[j] is the running
    maximum over k <= j of max(row_{i-1}[k], row_{i-1}[k-1] + [x_i == y_k]), which is the LCS recurrence."""
    import numpy as np

    if not x or not y:
        return []
    ids: dict[str, int] = {}
    xs = np.array([ids.setdefault(t, len(ids)) for t in x])
    ys = np.array([ids.setdefault(t, len(ids)) for t in y])
    table = np.zeros((len(x) + 1, len(y) + 1), dtype=np.int32)
    for i in range(1, len(x) + 1):
        prev = table[i - 1]
        step = np.maximum(prev[1:], prev[:-1] + (ys == xs[i - 1]))
        table[i, 1:] = np.maximum.accumulate(step)
    out: list[str] = []
    i, j = len(x), len(y)
    while i and j:
        if x[i - 1] == y[j - 1]:
            out.append(x[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1, j] > table[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return out[::-1]


def rouge_l(hyp: str, ref: str) -> float:
    """Summary-level ROUGE-L F of one pair, as the package computes it (distinct words of the pooled LCSs)."""
    hyp_s, ref_s = _checked(hyp, ref)
    pool: set[str] = set()
    for ref_sentence in ref_s:
        ref_words = ref_sentence.split(" ")
        for hyp_sentence in hyp_s:
            pool.update(lcs_words(ref_words, hyp_sentence.split(" ")))
    return _f(len(pool), len(set(words(hyp_s))), len(set(words(ref_s))))


def scores(hyp: str, ref: str) -> dict[str, float]:
    """``{"rouge_1", "rouge_2", "rouge_l"}`` F values of one pair."""
    return {"rouge_1": rouge_n(hyp, ref, 1), "rouge_2": rouge_n(hyp, ref, 2), "rouge_l": rouge_l(hyp, ref)}
