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


# -- robust mode: what may stand between a marker and its letters, and between the letters ---------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("答案=C", "C"), ("答案应该C", "C"), ("答案应当C", "C"), ("答案应C", "C"),  # each lead word and mark
    ("答案选项C", "C"), ("答案选择C", "C"), ("答案选C", "C"), ("答案为C", "C"), ("答案 is C", "C"),
    ("答案该C", "X"),                                                        # not a lead word
])
def test_robust_mode_skips_each_lead_word_between_a_marker_and_its_letters(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("答案：[C]", "C"), ("答案：( C)", "C"), ("答案：(\tC)", "C"),                 # an opening bracket and its space
    ("答案：(A)、(C)", "AC"), ("答案：[A]、[C]", "AC"), ("答案：【A】、【C】", "AC"),   # each closing bracket
    ("答案：<A>、<C>", "AC"), ("答案：(A )、(C )", "AC"), ("答案：(A\t)、(C\t)", "AC"),
    ("答案：C选项和D选项", "CD"), ("答案：C项和D项", "CD"),                          # each item suffix
    ("答案：A 项和C 项", "AC"), ("答案：A\t项和C\t项", "AC"),
])
def test_robust_mode_reads_an_item_in_each_bracket_and_with_each_suffix(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("答案：A以及C", "AC"), ("答案：A及C", "AC"), ("答案：A与C", "AC"), ("答案：A和C", "AC"), ("答案：A and C", "AC"),
    ("答案：A/C", "AC"), ("答案：A&C", "AC"), ("答案：A+C", "AC"), ("答案：A;C", "AC"), ("答案：A、C", "AC"),
    ("答案：A,C", "AC"), ("答案：A、选C", "AC"), ("答案：A、选项C", "AC"),
    ("答案：A\t、C", "AC"), ("答案：A、 选C", "AC"), ("答案：A、\t选C", "AC"),          # spaces and tabs around each
    ("答案：A选 C", "AC"), ("答案：A选\tC", "AC"),
    ("答案：A但C", "A"),                                                        # not a separator: the span ends
])
def test_robust_mode_joins_letters_across_each_separator(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


@pytest.mark.parametrize("text", [
    "答案：A或B", "答案：A或者B", "答案：A or B", "答案：A\t或B", "答案：A或\tB", "答案：A或(B)", "答案：A或[B]",
    "答案：A或【B】", "答案：A或<B>", "答案：A或( B)", "答案：A或(\tB)",
])
def test_robust_mode_reads_a_hedge_between_two_letters_as_no_answer(text):
    assert extract_answer(text, "robust", "ABCD") == "X"


@pytest.mark.parametrize(("text", "expected"), [
    ("答案：c\n因为……", "C"), ("答案：c。", "C"), ("答案：c ，因为", "C"), ("答案：c\t。", "C"), ("答案：c", "C"),
    ("答案：a和c", "AC"), ("答案：a与c", "AC"), ("答案：a及c", "AC"), ("答案：a and c", "AC"),  # each joining word
    ("答案：c类", "X"),                                                          # a lower-case letter in a word
])
def test_robust_mode_takes_a_lower_case_letter_only_where_a_word_cannot_go_on(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


@pytest.mark.parametrize(("text", "expected"), [
    (r"\boxed{C}", "C"), (r"\boxed{\text{C}}", "C"),   # one level of braces inside
    (r"解析 \boxed{{C}", "X"), (r"\boxed{\text{{C}}", "X"),  # unbalanced: no boxed answer
    (r"\boxed{C}D}", "C"), (r"\boxed{\text{C}}D}", "C"),  # the box ends at the brace that closes it
])
def test_a_boxed_answer_holds_balanced_braces_one_level_deep(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("C选项\n因为……", "C"), ("C为本题所选。", "C"), ("C选，理由如下", "C"), ("C正确", "C"),  # each ending word
    ("C和其他", "C"), ("C与其他", "C"), ("C及其他", "C"), ("C是对的", "C"),
    ("C 因为", "C"), ("C\t因为", "C"), ("C，因为", "C"),  # a space, a tab, a mark
    ("C因为", "X"), ("C类资产", "X"),  # the letters run into a word: no answer
    ("C Dog", "X"), ("C  Dog", "X"), ("C\t\tDog", "X"),  # or, past spaces or tabs, into an English word
])
def test_robust_mode_reads_leading_letters_only_where_the_answer_ends(text, expected):
    """No marker and no line of letters alone: letters at the start count when what follows ends them."""
    assert extract_answer(text, "robust", "ABCD") == expected


BEFORE = "见上文分析。\n"
"""A first line with no marker and no letters: the answer can only come from a line of letters alone."""


@pytest.mark.parametrize(("line", "expected"), [
    ("C", "C"), (" C", "C"), ("\tC", "C"), ("c", "C"),                               # spaces before; lower case
    ("(C)", "C"), ("[C]", "C"), ("【C】", "C"), ("<C>", "C"),                           # each bracket pair
    ("( C)", "C"), ("(\tC)", "C"), ("(C )", "C"), ("(C\t)", "C"), ("(C) ", "C"), ("(C)\t", "C"),
    ("C.", "C"), ("C。", "C"), ("C. ", "C"), ("C.\t", "C"),                            # a full stop, then space
    ("A、C", "AC"), ("A,C", "AC"), ("A/C", "AC"), ("A&C", "AC"), ("A+C", "AC"), ("A;C", "AC"),  # each separator
    ("A和C", "AC"), ("A与C", "AC"), ("A及C", "AC"),
    ("A 、C", "AC"), ("A\t、C", "AC"), ("A、 C", "AC"), ("A、\tC", "AC"),
    ("C是", "X"), ("ab", "X"),                                        # not a line of letters alone; a word
])
def test_a_line_of_letters_alone_is_the_answer_with_each_bracket_separator_and_stop(line, expected):
    assert extract_answer(BEFORE + line, "robust", "ABCD") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("答案：(对)", "A"), ("答案：[对]", "A"), ("答案：【对】", "A"), ("答案：( 对)", "A"), ("答案：(\t错)", "B"),
    ("答案：错误率较高", "X"), ("答案：falsehood", "X"),  # a true/false word that begins a longer word is none
])
def test_a_true_false_word_may_stand_in_brackets_but_not_begin_a_word(text, expected):
    assert extract_answer(text, "robust", choices={"A": "对", "B": "错"}) == expected


@pytest.mark.parametrize(("true", "false"), [("正确", "不正确"), ("对", "不对")])
def test_negated_true_words_name_the_false_option(true, false):
    choices = {"A": true, "B": false}
    assert extract_answer(f"答案：{false}", "robust", choices=choices) == "B"
    assert extract_answer(f"答案：{true}", "robust", choices=choices) == "A"


@pytest.mark.parametrize(("text", "expected"), [
    (r"\boxed{\Rightarrow C}", "C"),               # a command in capitals goes like any other
    (r"\boxed{\text{A}\text{C}}", "AC"),           # every brace goes, closing ones too
])
def test_a_boxed_answer_drops_every_latex_command_and_brace(text, expected):
    assert extract_answer(text, "robust", "ABCD") == expected
