"""The CFLUE ``reference`` profile: the authors' extraction and metric definitions as their code computes them
(aliyun/cflue ``exec_knowledge_eval.py`` and ``utils/compute_score.py``), bugs included, so that a figure can be
set beside the CFLUE paper's table. Our own code, written from what theirs does; every rule is pinned by a
hand-computed case in ``tests/cflue/test_cflue_reference.py``. The bugs are listed in the CFLUE README.

Knowledge (answer letters: :func:`scorers.cflue.extract.reference_letters`):

- accuracy and weighted F1 over the raw letter strings (scikit-learn's definitions: :mod:`scorers.cflue.metrics`);
- the analysis: a response whose ``strip()`` has exactly two lines contributes its second line with every
  "解析：" removed, any other response the WHOLE response (answer line and all); only questions with a
  reference analysis count. Both sides are jieba tokens joined by spaces.
- BLEU-1 is sacrebleu's corpus unigram precision (``precisions[0]``: no brevity penalty), BLEU-4 sacrebleu's corpus
  BLEU (13a re-tokenisation of the joined text, exp smoothing, brevity penalty), both 0–100.
- ROUGE-1/2/L: the ``rouge`` package's averaged F (:mod:`scorers.cflue.rouge_package`), 0–1.

Application: classification by per-sub-task substring rules (:func:`classification_correct`); extraction by four
sub-task parsers (:mod:`scorers.cflue.reference_extraction`); reading comprehension and generation by the
``rouge`` package's ROUGE-L over jieba tokens, an empty response read as "None"; translation as the default
profile (sacrebleu corpus BLEU-4, which the authors use as well).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from scorers.cflue import rouge_package

PROFILES = ("default", "reference")
DEFAULT_PROFILE = "default"


PROFILE_ALIASES = {"paper": "default"}
"""``finchain bench --profile`` names ChainEval's profiles (``paper``, ``reference``) for every task set: ``paper``
(the project's own definitions) is CFLUE's ``default``, ``reference`` (the authors' script) is the same word."""


def check_profile(profile: str) -> str:
    """The canonical profile name (``default`` or ``reference``), or ValueError."""
    profile = PROFILE_ALIASES.get(profile, profile)
    if profile not in PROFILES:
        raise ValueError(f"CFLUE profile must be one of {PROFILES}, got {profile!r}")
    return profile


def joined_tokens(text: str) -> str:
    """``" ".join(jieba.lcut(text))``: the authors' tokenisation, whitespace tokens kept (later steps collapse them)."""
    from scorers.cflue.metrics import JIEBA_HINT, _quiet

    try:
        import jieba
    except ImportError:
        raise ImportError(JIEBA_HINT) from None
    _quiet(jieba)
    return " ".join(jieba.lcut(text))


# ---------------------------------------------------------------------------------- knowledge analysis
def knowledge_candidate(response: str | None) -> str:
    """The part of a response the authors compare with the reference analysis."""
    response = response or ""
    lines = response.strip().split("\n")
    return lines[1].replace("解析：", "") if len(lines) == 2 else response


def corpus_bleu(references: Sequence[str], candidates: Sequence[str]) -> tuple[float, float]:
    """``(BLEU-1, BLEU-4)`` on 0–100 of space-joined token strings: sacrebleu ``BLEU()`` defaults, one corpus."""
    try:
        from sacrebleu.metrics import BLEU
    except ImportError:
        raise ImportError("the CFLUE reference BLEU needs sacrebleu: pip install 'finchain-tasks[cflue]'") from None

    if not references:
        return math.nan, math.nan
    result = BLEU().corpus_score(list(candidates), [list(references)])
    return float(result.precisions[0]), float(result.score)


def rouge_average(references: Sequence[str], candidates: Sequence[str]) -> dict[str, float]:
    """The ``rouge`` package's ``get_scores(candidates, references, avg=True)`` F values (0–1). A pair with an
    empty candidate, where the package raises and the authors' script stops, counts 0 (listed in the README)."""
    totals = dict.fromkeys(("rouge_1", "rouge_2", "rouge_l"), 0.0)
    for reference, candidate in zip(references, candidates):
        try:
            pair = rouge_package.scores(candidate, reference)
        except rouge_package.EmptyHypothesis:
            continue
        for key in totals:
            totals[key] += pair[key]
    n = len(references)
    return {key: (value / n if n else math.nan) for key, value in totals.items()}


def knowledge_analysis(pairs: Iterable[tuple[str | None, str | None]]) -> dict[str, Any]:
    """BLEU-1/4 (0–100) and ROUGE-1/2/L (0–1) over ``(reference analysis or None, response)`` pairs, as the
    authors' knowledge script computes them; ``n`` pairs scored, ``skipped_null_reference`` without one."""
    references, candidates, skipped = [], [], 0
    for reference, response in pairs:
        if reference is None:
            skipped += 1
            continue
        references.append(joined_tokens(reference))
        candidates.append(joined_tokens(knowledge_candidate(response)))
    bleu_1, bleu_4 = corpus_bleu(references, candidates)
    return {"n": len(references), "skipped_null_reference": skipped, "bleu_1": bleu_1, "bleu_4": bleu_4,
            **rouge_average(references, candidates)}


# ---------------------------------------------------------------------------------- application
_QUOTED = re.compile(r"'([^']*)'")
_LIST_MARKS = (",", "，", "、")


def classification_correct(sub_task: str, label: str, response: str | None) -> float:
    """``compute_text_classification``'s per-record rule (1.0 or 0.0):

    - ESG情感分类: right when the label's first character (正/中/负) occurs anywhere in the response, or the
      response is exactly "Positive"/"Negative" for 正向/负向;
    - 合规政策审核: a response containing 不合规 or 不符合 means 否, ANY other response (an empty one too) means 是;
    - every other sub-task (line breaks at the ends stripped): when the response holds text in single quotes, it
      is right only when there is exactly one quoted piece and it equals the label; else a comma or 、 anywhere
      makes it wrong; else it is right when the label occurs in it as a substring.
    """
    response = response or ""
    label = str(label)
    if sub_task == "ESG情感分类":
        if label[:1] and label[0] in response:
            return 1.0
        return float((label == "负向" and response == "Negative") or (label == "正向" and response == "Positive"))
    if sub_task == "合规政策审核":
        says_no = "不合规" in response or "不符合" in response
        return float(label == ("否" if says_no else "是"))
    pred = response.strip("\n")
    quoted = _QUOTED.findall(pred)
    if quoted:
        return float(len(quoted) == 1 and label in quoted)
    if any(mark in pred for mark in _LIST_MARKS):
        return 0.0
    return float(label in pred)


def rouge_l_record(reference: str, response: str | None) -> float:
    """The ``rouge`` package's ROUGE-L F (0–1) of jieba-joined texts; an empty response is "None", as the authors'
    QA and generation scripts substitute."""
    candidate = response if response else "None"
    try:
        return rouge_package.rouge_l(joined_tokens(candidate), joined_tokens(str(reference)))
    except rouge_package.EmptyHypothesis:  # e.g. a response of only full stops: the package would raise
        return 0.0
