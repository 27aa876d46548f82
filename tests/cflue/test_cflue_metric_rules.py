"""Rules of the CFLUE metrics that test_cflue_metrics.py leaves open (issue 31.18, found by mutation
testing): reasoning in <think> blocks leaves no trace in the analysis that BLEU and ROUGE read."""

from __future__ import annotations

from scorers.cflue.metrics import extract_analysis


def test_a_think_block_inside_the_analysis_leaves_nothing_behind():
    text = "解析：<think>先算一下</think>利率上升，债券价格下降。\n答案：B"
    assert extract_analysis(text) == "利率上升，债券价格下降。"
    assert extract_analysis("<THINK>解析：草稿</THINK>解析：正式分析") == "正式分析"
