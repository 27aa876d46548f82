"""CFLUE answer extraction, one table-driven test per rule (issue 39.3): each official letter and each connector
and stripped character of the official rule, and robust mode's clean-up of a response (which HTML tags and
markdown marks go) at the edges of each pattern. The broad hand-written table is tests/cflue/test_cflue_extract.py."""

from __future__ import annotations

import pytest

from scorers.cflue.extract import extract_answer

SIX = "ABCDEF"


@pytest.mark.parametrize("mode", ["strict", "reference"])
@pytest.mark.parametrize("letter", list(SIX))
def test_the_official_rule_reads_each_official_letter_at_the_start_and_after_the_marker(mode, letter):
    assert extract_answer(letter, mode, SIX) == letter
    assert extract_answer(f"{letter}。因为……", mode, SIX) == letter
    assert extract_answer(f"解析略。答案：{letter}", mode, SIX) == letter


@pytest.mark.parametrize("mode", ["strict", "reference"])
@pytest.mark.parametrize(("text", "expected"), [
    ("答案是B", "B"), ("答案：B", "B"), ("答案:B", "B"), ("答案是：B", "B"),   # each connector of 答案[是：:]+
    ("答案：A、C", "AC"), ("答案：A,C", "AC"), ("答案：A，C", "AC"), ("答案：A C", "AC"),  # each stripped mark
    ("答案；B", "X"),                                                       # not a connector of theirs
])
def test_the_official_rule_takes_its_connectors_and_strips_its_list_marks(mode, text, expected):
    assert extract_answer(text, mode, SIX) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("答案：<STRONG>C</STRONG>", "C"),          # an upper-case tag name is a tag, not a word
    ("答案：<Span class=x>D</Span>", "D"),
    ("a<b 答案：C <i>注</i>", "C"),              # a lone "<" is no tag opening: the text after it stays
    ("<br>答案：C，因为 x>y", "C"),               # a tag ends at its first ">"
    ("x <y\n答案：C\n>", "C"),                  # a tag does not run over a line end
    ("答案：<B>", "B"),                          # a bare upper-case letter in brackets is an option
])
def test_robust_mode_removes_html_tags_and_nothing_else(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


@pytest.mark.parametrize("mark", ["*", "`", "#", "_", "$"])
def test_robust_mode_removes_each_markdown_and_latex_mark(mark):
    assert extract_answer(f"答案：{mark}C{mark}", "robust", "ABCD") == "C"


@pytest.mark.parametrize(("text", "expected"), [
    ("正确选项为C", "C"), ("正确选项：C", "C"), ("答: C", "C"), ("答：C", "C"), ("answer: C", "C"),
    ("The answer is C.", "C"), ("Final answer: C", "C"), ("故选C", "C"), ("所以选C", "C"), ("因此选C", "C"),
    ("因而选C", "C"), ("应该选C", "C"), ("应选C", "C"), ("应选择C", "C"),
    ("不应选A", "X"),                       # 不应选 is no marker
    ("答案解析：A项错误", "X"),              # a marker not followed by a span is no candidate
])
def test_robust_mode_reads_each_answer_marker(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


TRUE_FALSE = [("对", "错"), ("正确", "错误"), ("true", "false"), ("√", "×"), ("✓", "✗"), ("是", "否")]


@pytest.mark.parametrize(("true", "false"), TRUE_FALSE)
def test_each_true_false_pair_of_options_maps_each_answer_word(true, false):
    choices = {"A": true, "B": false}
    for word in ("对", "正确", "true", "√", "✓"):
        assert extract_answer(f"答案：{word}", "robust", choices=choices) == "A", word
    for word in ("错", "错误", "不正确", "不对", "false", "×", "✗"):
        assert extract_answer(f"答案：{word}", "robust", choices=choices) == "B", word
