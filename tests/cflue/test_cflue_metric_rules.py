"""Rules of the CFLUE metrics that test_cflue_metrics.py leaves open (issue 31.18, found by mutation
testing): reasoning in <think> blocks leaves no trace in the analysis that BLEU and ROUGE read, and the
``bleu_4`` column (and ``bleu``'s default) is BLEU-4."""

from __future__ import annotations

import pytest

from scorers.cflue.metrics import bleu, extract_analysis, text_scores


def test_a_think_block_inside_the_analysis_leaves_nothing_behind():
    text = "解析：<think>先算一下</think>利率上升，债券价格下降。\n答案：B"
    assert extract_analysis(text) == "利率上升，债券价格下降。"
    assert extract_analysis("<THINK>解析：草稿</THINK>解析：正式分析") == "正式分析"


def test_bleu_4_by_hand_and_as_the_default():
    # one token of five differs at the end: clipped precisions 4/5, then smoothed (3+1)/(4+1), (2+1)/(3+1),
    # (1+1)/(2+1); equal lengths, no brevity penalty. BLEU-5 would add (0+1)/(1+1) and differ
    candidate, reference = list("abcdx"), list("abcde")
    expected = (4 / 5 * 4 / 5 * 3 / 4 * 2 / 3) ** 0.25
    scores = text_scores(candidate, reference)
    assert scores["bleu_4"] == pytest.approx(expected) and scores["bleu_1"] == pytest.approx(4 / 5)
    assert bleu(candidate, reference) == pytest.approx(expected)
