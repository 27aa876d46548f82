"""CFLUE metrics: hand-computed answer metrics and text scores, breakdowns, and the jieba path."""

import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.cflue.metrics import (
    Outcome,
    accuracy,
    analysis_metrics,
    bleu,
    extract_analysis,
    invalid_rate,
    jieba_tokenize,
    lcs_length,
    rouge_l,
    rouge_n,
    summarize,
    text_scores,
    weighted_f1,
)

GOLDS = ["A", "A", "A", "B", "C", "CD"]
PREDS = ["A", "A", "B", "B", "X", "CD"]


def test_accuracy_is_exact_set_match():
    assert accuracy(GOLDS, PREDS) == pytest.approx(4 / 6)
    assert accuracy(["ABD"], ["AB"]) == 0.0
    assert accuracy([], []) == 0.0
    with pytest.raises(ValueError, match="2 gold answers but 1"):
        accuracy(["A", "B"], ["A"])


def test_weighted_f1_by_hand():
    # A: P=2/2, R=2/3, F1=0.8 (support 3); B: P=1/2, R=1, F1=2/3 (1); C: 0 (1); CD: 1 (1); X has no support.
    assert weighted_f1(GOLDS, PREDS) == pytest.approx((3 * 0.8 + 2 / 3 + 0 + 1) / 6)
    assert weighted_f1(["A", "B"], ["A", "B"]) == 1.0
    assert weighted_f1(["A", "B"], ["X", "X"]) == 0.0
    assert weighted_f1([], []) == 0.0


answers_st = st.sampled_from(["A", "B", "C", "AB", "ACD", "X"])


@settings(max_examples=100, deadline=None)
@given(pairs=st.lists(st.tuples(answers_st.filter(lambda a: a != "X"), answers_st), min_size=1, max_size=30))
def test_weighted_f1_matches_scikit_learn(pairs):
    metrics = pytest.importorskip("sklearn.metrics")
    golds, preds = [g for g, _ in pairs], [p for _, p in pairs]
    expected = metrics.f1_score(golds, preds, average="weighted", zero_division=0)
    assert weighted_f1(golds, preds) == pytest.approx(expected)


def test_invalid_rate():
    assert invalid_rate(PREDS) == pytest.approx(1 / 6)
    assert invalid_rate([]) == 0.0


def test_summary_breaks_down_by_type_and_exam():
    rows = [Outcome("A", "A", "单项选择题", "证券从业资格"), Outcome("B", "C", "单项选择题", "基金从业资格"),
            Outcome("ABD", "ABD", "多项选择题", "证券从业资格"), Outcome("ACD", "X", "多项选择题", "证券从业资格"),
            ("A", "A", "判断题", "基金从业资格")]
    summary = summarize(rows)
    assert summary["overall"] == {"n": 5, "accuracy": pytest.approx(3 / 5),
                                  "weighted_f1": pytest.approx(weighted_f1(["A", "B", "ABD", "ACD", "A"],
                                                                           ["A", "C", "ABD", "X", "A"])),
                                  "invalid_rate": pytest.approx(1 / 5)}
    assert list(summary["by_type"]) == ["判断题", "单项选择题", "多项选择题"]
    assert summary["by_type"]["多项选择题"]["accuracy"] == 0.5
    assert summary["by_type"]["多项选择题"]["invalid_rate"] == 0.5
    assert summary["by_type"]["单项选择题"]["n"] == 2
    assert summary["by_exam"]["证券从业资格"]["accuracy"] == pytest.approx(2 / 3)
    # 基金: gold B,A vs pred C,A -> F1(A) = 1 (support 1), F1(B) = 0 (support 1)
    assert summary["by_exam"]["基金从业资格"] == {"n": 2, "accuracy": 0.5, "weighted_f1": 0.5, "invalid_rate": 0.0}


REF = ["a", "b", "c", "d"]
CAND = ["a", "b", "d"]


def test_text_scores_by_hand():
    bp = math.exp(1 - 4 / 3)
    assert bleu(CAND, REF, 1) == pytest.approx(bp)
    # p1 = 3/3, p2 = (1+1)/(2+1), p3 = (0+1)/(1+1), p4 = (0+1)/(0+1)
    assert bleu(CAND, REF, 4) == pytest.approx(bp * (1 * 2 / 3 * 1 / 2 * 1) ** 0.25)
    assert rouge_n(CAND, REF, 1) == pytest.approx(2 * 1 * 0.75 / 1.75)
    assert rouge_n(CAND, REF, 2) == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    assert rouge_l(CAND, REF) == pytest.approx(2 * 1 * 0.75 / 1.75)


def test_clipping_and_no_brevity_penalty_for_longer_candidates():
    assert bleu(["a", "a", "a"], ["a", "b"], 1) == pytest.approx(1 / 3)  # "a" counts once
    assert rouge_n(["a", "a", "a"], ["a", "b"], 1) == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


@pytest.mark.parametrize("tokens", [["风险", "收益"], ["股票", "市场", "的", "风险"], list("abcdefgabc")])
def test_identical_texts_score_one(tokens):
    assert text_scores(tokens, tokens) == {k: pytest.approx(1.0) for k in text_scores(tokens, tokens)}


def test_one_token_texts_have_no_bigrams():
    """Documented edge: ROUGE-2 needs bigrams, so identical one-token texts score 0 there (BLEU stays 1)."""
    assert text_scores(["风险"], ["风险"]) == {"bleu_1": 1.0, "bleu_4": 1.0, "rouge_1": 1.0, "rouge_2": 0.0,
                                               "rouge_l": 1.0}


def test_disjoint_or_empty_texts_score_zero():
    assert set(text_scores(["x", "y"], ["a", "b"]).values()) == {0.0}
    assert set(text_scores([], ["a"]).values()) == {0.0}
    assert set(text_scores(["a"], []).values()) == {0.0}


def _lcs_dp(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


@settings(max_examples=300, deadline=None)
@given(a=st.lists(st.sampled_from("abcd"), max_size=70), b=st.lists(st.sampled_from("abcd"), max_size=70))
def test_bit_parallel_lcs_equals_dynamic_programming(a, b):
    assert lcs_length(a, b) == _lcs_dp(a, b)


@pytest.mark.parametrize(("text", "analysis"), [
    ("答案：B\n解析：优先股股息率固定。", "优先股股息率固定。"),
    ("答案：B\n解析:  优先股。\n\n", "优先股。"),
    ("解析：先看A项……再看B项。\n答案：B", "先看A项……再看B项。"),
    ("解析：先看A项。\n**答案：** B", "先看A项。"),
    ("<think>解析：草稿</think>答案：A\n解析：正式。", "正式。"),
    ("答案：B", ""),
    ("", ""),
    (None, ""),
])
def test_extract_analysis(text, analysis):
    assert extract_analysis(text) == analysis


def test_analysis_metrics_with_a_given_tokenizer_skip_nulls():
    pairs = [(" a b c d ", "答案：A\n解析：a b d"), (None, "答案：B\n解析：x"), ("", "解析：y"), ("a b", "答案：A")]
    result = analysis_metrics(pairs, tokenize=str.split)
    assert result["n"] == 2 and result["skipped_null_reference"] == 2
    assert result["rouge_1"] == pytest.approx((2 * 0.75 / 1.75 + 0.0) / 2)
    assert result["bleu_1"] == pytest.approx(math.exp(1 - 4 / 3) / 2)
    assert analysis_metrics([(None, "x")], tokenize=str.split)["rouge_l"] == 0.0


def test_jieba_tokenisation_and_scores():
    pytest.importorskip("jieba", reason="install finchain-tasks[cflue] for the analysis metrics")
    reference = "股票市场的风险包括系统性风险和非系统性风险。"
    response = "答案：A\n解析：股票市场的风险包括系统性风险。"
    ref_tokens = jieba_tokenize(reference)
    assert ref_tokens == ["股票市场", "的", "风险", "包括", "系统性", "风险", "和", "非", "系统性", "风险", "。"]
    assert jieba_tokenize(extract_analysis(response)) == ["股票市场", "的", "风险", "包括", "系统性", "风险", "。"]
    result = analysis_metrics([(reference, response), (reference, "解析：" + reference), (None, response)])
    # rouge-1 of the short one: 7 of its 7 tokens match, 7 of 11 reference tokens: F1 = 14/18
    assert result["rouge_1"] == pytest.approx((14 / 18 + 1.0) / 2)
    assert result["n"] == 2 and result["skipped_null_reference"] == 1


def test_missing_jieba_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "jieba", None)
    with pytest.raises(ImportError, match=r"pip install 'finchain-tasks\[cflue\]'"):
        analysis_metrics([("参考解析", "解析：模型解析")])
