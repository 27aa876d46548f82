"""The rules of scorers/cflue/reference.py (the CFLUE authors' scripts), one table per rule with its edges (issue 39.3):
the classification rule of each sub-task, the knowledge analysis' bookkeeping (pairs without a reference, the average
over pairs, BLEU-1 as the unigram precision), ROUGE-L of one record, jieba's joined tokens, and the one-line errors
when jieba or sacrebleu is missing. Hand-computed figures; no CFLUE data needed (CI has none)."""

from __future__ import annotations

import math
import sys

import pytest

from scorers.cflue import reference
from scorers.cflue.metrics import JIEBA_HINT

pytest.importorskip("jieba")
pytest.importorskip("sacrebleu")

F1_ONE = 0.999999995  # the rouge package's F of identical texts: 2PR / (P + R + 1e-8) with P = R = 1


@pytest.mark.parametrize(("label", "response", "right"), [
    ("正向", "Positive", True),  # the two English words, exactly as written
    ("负向", "Negative", True),
    ("正向", "positive", False),
    ("正向", "POSITIVE", False),
    ("负向", "Positive", False),  # each word only for its own label
    ("正向", "Negative", False),
    ("中性", "Positive", False),
    ("中性", "Negative", False),
    ("正向", "偏正面", True),  # else the label's first character anywhere
    ("中性", "", False),
])
def test_rule_esg_sentiment_is_the_labels_first_character_or_its_english_word(label, response, right):
    assert reference.classification_correct("ESG情感分类", label, response) == float(right)


@pytest.mark.parametrize(("label", "response", "right"), [
    ("否", "不合规", True),
    ("否", "不符合监管要求", True),  # either phrase says no
    ("是", "不符合监管要求", False),
    ("是", "符合监管要求", True),
    ("否", "合规", False),
])
def test_rule_compliance_is_no_only_when_the_reply_says_non_compliant(label, response, right):
    assert reference.classification_correct("合规政策审核", label, response) == float(right)


@pytest.mark.parametrize(("response", "right"), [
    ("'物料' 经济绩效", False),  # a quoted piece decides: the unquoted label beside it does not count
    ("'物料'和'经济绩效'", False),  # two quoted pieces: wrong even with the label among them
    ("'经济绩效'", True),
    ("答案是'经济绩效'，理由略", True),  # the quote rule comes before the list-mark rule
])
def test_rule_quoted_text_decides_a_classification_before_any_other_rule(response, right):
    assert reference.classification_correct("ESG分类", "经济绩效", response) == float(right)


@pytest.mark.parametrize(("label", "response", "right"), [
    ("XBRL", "XBRL", True),  # nothing but line breaks is stripped from the ends
    ("XBRL", "\nXBRL\n", True),
    ("经济绩效 ", "经济绩效 ", True),  # a space is kept, so a label's own trailing space is found
    ("经济绩效 ", "经济绩效", False),
])
def test_rule_only_line_breaks_are_stripped_before_the_substring_rule(label, response, right):
    assert reference.classification_correct("ESG分类", label, response) == float(right)


@pytest.mark.parametrize(("sub_task", "label", "right"), [
    ("ESG分类", "X", False),  # no text: not even a one-letter label is found
    ("ESG情感分类", "X向", False),
    ("合规政策审核", "是", True),  # no text is not "non-compliant"
])
def test_rule_a_missing_reply_reads_as_empty_text(sub_task, label, right):
    assert reference.classification_correct(sub_task, label, None) == float(right)
    assert reference.classification_correct(sub_task, label, "") == float(right)


@pytest.mark.parametrize(("pairs", "n", "skipped"), [
    ([(None, "x"), ("利率上升", "利率上升"), (None, "y")], 1, 2),  # a pair without a reference is counted, not scored
    ([(None, "x")], 0, 1),
    ([("利率上升", "利率上升")], 1, 0),
])
def test_rule_knowledge_analysis_counts_pairs_without_a_reference_apart(pairs, n, skipped):
    got = reference.knowledge_analysis(pairs)
    assert (got["n"], got["skipped_null_reference"]) == (n, skipped)
    assert set(got) == {"n", "skipped_null_reference", "bleu_1", "bleu_4", "rouge_1", "rouge_2", "rouge_l"}
    if n:
        assert (got["bleu_1"], got["rouge_l"]) == (pytest.approx(100.0), pytest.approx(F1_ONE))
    else:
        assert math.isnan(got["bleu_1"]) and math.isnan(got["rouge_l"])


@pytest.mark.parametrize(("references", "candidates", "rouge_1"), [
    (["a b", "a b"], ["a b", "a b"], F1_ONE),  # the mean over pairs, not the last pair
    (["a b", "a b"], ["", "a b"], F1_ONE / 2),  # an empty candidate counts 0, and the pairs after it still count
    (["a b", "a b", "a b"], ["a b", "", "a c"], (F1_ONE + 0.499999995) / 3),
])
def test_rule_rouge_average_is_the_mean_over_pairs_an_empty_candidate_counting_zero(references, candidates, rouge_1):
    assert reference.rouge_average(references, candidates)["rouge_1"] == pytest.approx(rouge_1, abs=1e-12)


def test_rule_rouge_average_of_no_pairs_is_nan():
    assert all(math.isnan(v) for v in reference.rouge_average([], []).values())


@pytest.mark.parametrize(("candidate", "bleu_1"), [
    ("a c", 100.0),  # both unigrams found, no bigram found: BLEU-1 is the unigram precision
    ("a b x", 200 / 3),
    ("x y", 0.0),
])
def test_rule_bleu_1_is_the_unigram_precision(candidate, bleu_1):
    assert reference.corpus_bleu(["a b c d"], [candidate])[0] == pytest.approx(bleu_1)


@pytest.mark.parametrize(("reference_text", "response", "rouge_l"), [
    ("a b", "a b", F1_ONE),  # the response itself is scored, against the reference itself
    ("a b", "a c", 0.499999995),
    ("None", None, F1_ONE),  # a missing or empty response reads as "None"
    ("None", "", F1_ONE),
    ("收益 增长", "...", 0.0),  # only ASCII full stops: no sentence for the package, which raises; counted 0
    ("收益 增长", ".", 0.0),
    ("...", "收益 增长", 0.0),  # the same for a reference of full stops
])
def test_rule_rouge_l_of_one_record(reference_text, response, rouge_l):
    assert reference.rouge_l_record(reference_text, response) == pytest.approx(rouge_l, abs=1e-12)


@pytest.mark.parametrize(("text", "joined"), [
    ("收益增长", "收益 增长"),
    ("ab cd", "ab   cd"),  # jieba's whitespace token is kept between two single spaces
])
def test_rule_joined_tokens_are_jieba_tokens_joined_by_one_space(text, joined):
    assert reference.joined_tokens(text) == joined


@pytest.mark.parametrize(("module", "call", "message"), [
    ("jieba", lambda: reference.joined_tokens("收益"), JIEBA_HINT),
    ("sacrebleu.metrics", lambda: reference.corpus_bleu(["a"], ["a"]),
     "the CFLUE reference BLEU needs sacrebleu: pip install 'finchain-tasks[cflue]'"),
])
def test_rule_a_missing_package_is_one_error_naming_the_install(monkeypatch, module, call, message):
    monkeypatch.setitem(sys.modules, module, None)  # makes the import fail as an absent package does
    with pytest.raises(ImportError) as raised:
        call()
    assert str(raised.value) == message
