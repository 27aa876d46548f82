"""CFLUE application scoring (the ``default`` profile), one table-driven test per rule (issue 39.3): each causal
field's English and Chinese name, each sentiment and compliance synonym, each way of saying a field is absent,
each pair separator, each label-introducing head. The reader's table of whole answers is
tests/cflue/test_cflue_chatty_styles.py."""

from __future__ import annotations

import re

import pytest

from scorers.cflue.application import (
    CAUSAL_KEYS,
    LABEL_ONLY_MAX,
    NOT_COMPUTED,
    TABLE_COLUMNS,
    AppOutcome,
    average,
    corpus_bleu,
    direction_of,
    extraction_items,
    label_candidates,
    label_correct,
    label_only,
    record_scores,
    rouge_l_zh,
    sentence_bleu,
    summarize,
    target_tokens,
    tokenize_en,
)
from scorers.cflue.metrics import jieba_tokenize

CAUSAL_FIELDS = [("reason_type", "原因类型"), ("reason_product", "原因产品"), ("reason_industry", "原因行业"),
                 ("reason_region", "原因地区"), ("result_type", "结果类型"), ("result_product", "结果产品"),
                 ("result_industry", "结果行业"), ("result_region", "结果地区")]
"""Written out, not read from ``CAUSAL_KEYS``: a field dropped from it must fail here."""
ROLES = [{"role": "股票简称", "argument": "甲公司"}, {"role": "减持方", "argument": "张三"}]


def _f1(sub_task, gold, response):
    return record_scores("extraction", sub_task, gold, response)["f1"]


def _accuracy(sub_task, gold, response):
    return record_scores("classification", sub_task, gold, response)["accuracy"]


@pytest.mark.parametrize(("key", "name"), CAUSAL_FIELDS)
def test_each_causal_field_is_read_under_its_chinese_and_its_english_name(key, name):
    gold = [{k: ("铜" if k == key else "") for k, _ in CAUSAL_FIELDS}]
    assert _f1("金融事件因果关系抽取", gold, f"{name}：铜") == 1.0
    assert _f1("金融事件因果关系抽取", gold, f"{key}: 铜") == 1.0
    assert set(CAUSAL_KEYS.items()) == set(CAUSAL_FIELDS)


@pytest.mark.parametrize(("word", "label"), [
    ("正面", "正向"), ("积极", "正向"), ("positive", "正向"), ("负面", "负向"), ("消极", "负向"), ("negative", "负向"),
    ("中立", "中性"), ("neutral", "中性"), ("正向", "正向"),
])
def test_each_sentiment_word_reads_as_the_datas_label(word, label):
    assert _f1("行业情感信息抽取", {"新能源": label}, f"新能源：{word}") == 1.0


@pytest.mark.parametrize(("word", "label"), [
    ("合规", "是"), ("符合", "是"), ("符合规定", "是"), ("符合要求", "是"),
    ("不合规", "否"), ("不符合", "否"), ("不符合规定", "否"), ("不符合要求", "否"),
])
def test_each_compliance_verdict_word_reads_as_yes_or_no(word, label):
    assert _accuracy("合规政策审核", label, word) == 1.0
    assert _accuracy("合规政策审核", {"是": "否", "否": "是"}[label], word) == 0.0


@pytest.mark.parametrize("absent", ["无", "未提及", "无结果", "无明确", "none", "null", "n/a", "na", "空", "-", "—",
                                    "没有"])
def test_a_field_said_to_be_absent_is_no_item(absent):
    assert _f1("金融事件抽取", ROLES, f"股票简称：甲公司\n减持方：张三\n减持比例：{absent}") == 1.0


@pytest.mark.parametrize("sep", [",", "，", ";", "；"])
def test_pairs_on_one_line_split_at_each_separator(sep):
    assert _f1("行业情感信息抽取", {"新能源": "正向", "地产": "负向"}, f"新能源：正向{sep}地产：负向") == 1.0


@pytest.mark.parametrize("head", ["分类", "类别", "标签", "结果", "意图", "倾向", "答案", "判断", "结论", "行业",
                                  "类型", "情感", "情绪", "分类结果", "所属行业", "是否合规", "是否符合规定"])
def test_a_label_after_each_introducing_head_is_the_answer(head):
    assert _accuracy("金融行业分类", "银行", f"{head}：银行") == 1.0
    assert _accuracy("金融行业分类", "银行", f"{head}：保险") == 0.0


def _label(gold, response):
    from scorers.cflue.application import label_correct

    return label_correct(gold, response)


@pytest.mark.parametrize("mark", [" ", ":", ",", "。", ";", "“", "”", '"', "'"])
def test_a_label_introducing_head_reaches_back_over_no_space_punctuation_or_quote(mark):
    """``保险，分类：银行`` is two labels, not the head ``保险，分类：`` before 银行 (full-width ``：，；`` are
    their ASCII forms after NFKC, so the ASCII row stands for both)."""
    assert _label("银行", f"保险{mark}分类：银行") == 0.0
    assert _label("银行", "所属分类：银行") == 1.0


@pytest.mark.parametrize(("open_", "close"), [("“", "”"), ("「", "」"), ("『", "』"), ('"', '"'), ("'", "'")])
def test_one_quoted_label_in_a_sentence_is_the_answer_and_a_quote_ends_it(open_, close):
    assert _label("银行", f"看来{open_}银行{close}最贴切") == 1.0
    assert _label("银行", f"看来{open_}银{close}行{close}最贴切") == 0.0


@pytest.mark.parametrize("said", ["属于", "归为", "分类为", "类别为", "意图为", "意图是", "答案是", "结果是", "应为",
                                  "为", "类别是", "分类应该是", "标签应当是", "类型应是", "倾向是", "行业是", "结论是",
                                  "判断是", "认为是", "应该是", "应当是"])
def test_a_label_stated_at_the_end_of_a_sentence_is_the_answer(said):
    assert _label("银行", f"这段文本{said}银行。") == 1.0
    assert _label("银行", f"这段文本{said}银行类。") == 1.0


@pytest.mark.parametrize(("text", "quoted"), [
    # an opening mark inside a quote starts it again
    ("该文本属于“旧“经济绩效”", "经济绩效"), ("该文本属于“旧「经济绩效”", "经济绩效"),
    ("该文本属于“旧『经济绩效”", "经济绩效"),
    # any closing mark ends it
    ("该文本属于“旧”经济绩效”", "旧"), ("该文本属于“旧」经济绩效”", "旧"), ("该文本属于“旧』经济绩效”", "旧"),
    ('该文本属于“旧"经济绩效”', "旧"), ("该文本属于“旧'经济绩效”", "旧"),
])
def test_a_quoted_label_holds_no_quote_mark(text, quoted):
    assert quoted in label_candidates(text)


@pytest.mark.parametrize("verdict", ["此不合规", "这不合规", "这份报告不合规", "这个材料内容很长不合规", "本不合规",
                                     "该内容不合规", "是不合规", "为不合规", "该内容是不合规的。"])
def test_a_short_verdict_sentence_after_each_subject_word_is_the_answer(verdict):
    """该 / 此 / 这 / 这份 / 这个 / 本, up to six characters of what it names, then 是 / 为: the sentence is the
    verdict."""
    assert label_correct("否", verdict) == 1.0


@pytest.mark.parametrize(("text", "correct"), [
    ("分类是经济绩效", 1.0), ("标签是经济绩效", 1.0), ("属于:经济绩效", 1.0),                 # each head, a colon
    ("属于经济绩效类别", 1.0), ("属于经济绩效这一类", 1.0), ("属于经济绩效一类", 1.0),        # each trailing class word
    ("属于经济绩效类别.", 1.0), ("属于经济绩效类别！", 1.0),                                 # each final mark
    ("作为经济绩效", 0.0), ("成为经济绩效", 0.0), ("以为经济绩效", 0.0), ("因为经济绩效", 0.0),  # 为 inside a word
    ("行为经济绩效", 0.0),
])
def test_a_label_stated_at_the_end_of_a_sentence_follows_its_head_and_drops_its_class_word(text, correct):
    assert label_correct("经济绩效", text) == correct


@pytest.mark.parametrize(("text", "gold"), [
    # a 是/否 (合规/不合规) lead, then a sentence that says the same: each word of agreement
    ("是，符合要求", "是"), ("合规，符合要求", "是"), ("是，内容合规", "是"), ("不合规，该内容不符合规定", "否"),
    ("否，该内容违反规定", "否"), ("否，存在违规", "否"),
    # the first clause is the answer: it ends at each sentence mark and before each reason word
    ("是。该内容不符合规定", "是"), ("是；该内容不符合规定", "是"), ("是！该内容不符合规定", "是"),
    ("是？该内容不符合规定", "是"),
    ("是，理由：该内容不符合规定", "是"), ("是，原因：该内容不符合规定", "是"), ("是，解释：该内容不符合规定", "是"),
    ("是，由于该内容不符合规定", "是"),
])
def test_a_verdict_lead_and_its_first_clause_are_read_as_a_reader_would(text, gold):
    assert label_correct(gold, text) == 1.0


# ---------------------------------------------------------------------------------- issue 39: the literal pass's rows
@pytest.mark.parametrize(("text", "gold"), [
    ("分类：银行", "银行"), ("情感倾向：正面，", "正向"), ("这段文本属于：银行！", "银行"),  # prefix, end marks
    ("（银行）", "银行"), ("银行！", "银行"), ("银行，", "银行"), ("银行；", "银行"),        # wrap and trail
    ("是；该内容不符合规定", "是"), ("是！该内容不符合规定", "是"), ("是？该内容不符合规定", "是"),  # clause ends
    ("否，该内容不合规", "否"), ("该内容不合规，因为存在误导", "否"),                          # lead, reason
])
def test_full_width_punctuation_reads_as_its_ascii_form(text, gold):
    """The patterns name ``: , ; ! ? ( )`` only: NFKC folds the full-width forms into them before any pattern runs."""
    assert label_correct(gold, text) == 1.0
    assert label_correct(gold, text.translate(str.maketrans("：，；！？（）", ":,;!?()"))) == 1.0


@pytest.mark.parametrize(("text", "gold"), [
    ("它不属于银行", "银行"), ("它并非属于银行", "银行"), ("分类不应该是银行", "银行"), ("我不认为是银行", "银行"),
    ("标签不应当是银行", "银行"), ("该内容不是合规的", "是"), ("该内容并非合规", "是"), ("该内容是否合规", "是"),
    ("该内容未必合规", "是"), ("该做法没有合规", "是"),
])
def test_a_negated_head_or_verdict_states_no_label(text, gold):
    """不属于 X / 不应该是 X / 该内容不是合规的 deny X: a reader takes no label from them, least of all X."""
    assert label_correct(gold, text) == 0.0


@pytest.mark.parametrize("text", [
    "它不属于保险,而属于银行", "原以为属于保险,实际上属于银行", "初看属于保险。细看属于银行",
    "乍看属于保险;细看属于银行",
    "它属于 银行 类", "这段文本属于银行.", "这段文本属于银行!",
])
def test_the_label_stated_last_on_the_line_is_read_and_no_comma_or_full_stop_falls_inside_it(text):
    assert label_correct("银行", text) == 1.0


@pytest.mark.parametrize("word", ["不合规", "不符合规定", "不符合要求", "不符合", "合规", "符合规定", "符合要求",
                                  "符合"])
def test_each_verdict_word_ends_a_subject_sentence_with_its_own_meaning(word):
    """该内容不符合规定 is 否, not the 符合规定 inside it read after a longer subject."""
    said = "否" if word.startswith("不") else "是"
    for text in (f"该内容{word}。理由：略", f"该内容{word}.", f"为{word}。理由：略"):
        assert label_correct(said, text) == 1.0, text
        assert label_correct({"是": "否", "否": "是"}[said], text) == 0.0, text


@pytest.mark.parametrize("mark", ["“", "”", "‘", "’", "「", "」", "『", "』", '"', "'"])
def test_label_only_fails_a_label_with_a_quote_mark_inside(mark):
    assert label_only(f"经济{mark}绩效") == 0.0
    assert label_only("经济绩效") == 1.0


@pytest.mark.parametrize("mark", [" ", "\t", "。", ",", "，", ";", "；", ":", "：", "!", "！", "?", "？"])
def test_label_only_fails_a_label_with_a_space_or_sentence_mark_inside(mark):
    assert label_only(f"经济{mark}绩效") == 0.0


@pytest.mark.parametrize(("size", "only"), [(1, 1.0), (LABEL_ONLY_MAX, 1.0), (LABEL_ONLY_MAX + 1, 0.0)])
def test_label_only_allows_at_most_label_only_max_characters_without_a_gold(size, only):
    assert LABEL_ONLY_MAX == 20
    assert label_only("银" * size) == only


@pytest.mark.parametrize("mark", ["1.", "1、", "1)", "1）", "12.", "-", "*", "•", "·", "- ", "* "])
def test_each_list_mark_before_a_value_is_dropped_and_a_decimal_is_kept(mark):
    assert extraction_items(f"{mark}甲公司") == {("", "甲公司")}
    assert extraction_items("1.5亿") == {("", "1.5亿")}


@pytest.mark.parametrize("text", ["**甲公司**", "__甲公司__", "`甲公司`"])
def test_each_emphasis_mark_around_a_value_is_dropped(text):
    assert extraction_items(text) == {("", "甲公司")}


@pytest.mark.parametrize("said", [
    "无相关实体", "没有相关信息", "未提及相关内容", "未发现可抽取的实体", "未找到明确的结果", "未涉及事件",
    "未包含主体", "未提及抽取结果", "无因果关系", "无可抽取实体。", "无相关信息.", "无相关信息!", "未提及相关内容！",
    "无明确结果", "没有相关事件",
])
def test_each_way_of_saying_there_is_nothing_to_extract_is_no_item(said):
    assert extraction_items(said) == set()
    assert _f1("金融事件抽取", [], said) == 1.0


@pytest.mark.parametrize(("text", "items"), [
    ("该股票简称为甲公司", {("股票简称", "甲公司")}), ("此股票简称为甲公司", {("股票简称", "甲公司")}),
    ("本股票简称为甲公司", {("股票简称", "甲公司")}), ("事件的主体是乙公司", {("主体", "乙公司")}),
    ("主体是“乙公司”", {("主体", "乙公司")}), ("主体是'乙公司'", {("主体", "乙公司")}),
    ('主体是"乙公司"', {("主体", "乙公司")}), ("主体是‘乙公司’", {("主体", "乙公司")}),
    ("主体是乙公司。", {("主体", "乙公司")}), ("主体是乙公司!", {("主体", "乙公司")}),
    ("主体是乙公司.", {("主体", "乙公司")}),
])
def test_a_field_stated_in_a_sentence_gives_its_key_and_value(text, items):
    assert extraction_items(text) == items


@pytest.mark.parametrize("mark", [" ", "。", "“", "”", '"', "'", "‘", "’"])
def test_a_stated_fields_key_is_one_word_without_a_space_stop_or_quote(mark):
    """主{mark}体是乙公司 is no key and value: the line is read as a bare value."""
    assert not any(key for key, _ in extraction_items(f"主{mark}体是乙公司"))


@pytest.mark.parametrize("mark", ["“", "”", '"', "'", "‘", "’", "。"])
def test_a_stated_fields_value_holds_no_quote_or_full_stop(mark):
    assert not any(key for key, _ in extraction_items(f"主体是乙{mark}公司"))


def test_a_colon_inside_a_stated_key_leaves_the_line_to_its_first_colon():
    assert extraction_items("主:体是乙公司,减持方是张三") == {("主", "体是乙公司,减持方是张三")}


@pytest.mark.parametrize("word", ["以上", "以下", "如下", "结果", "答案", "这", "这些", "它", "其"])
def test_a_sentence_about_the_answer_itself_states_no_field(word):
    """以上是乙公司 / 它是乙公司 name no field: the line is a bare value."""
    assert not any(key for key, _ in extraction_items(f"{word}是乙公司"))
    assert extraction_items(f"{word}是乙公司") == {("", f"{word}是乙公司")}


# ---------------------------------------------------------------------------------- issue 39: mutmut's survivors
@pytest.mark.parametrize("response", ["", None, "   ", "\n"])
def test_an_empty_response_offers_no_label_at_all(response):
    assert label_candidates(response) == []
    assert label_correct("是", response) == 0.0


@pytest.mark.parametrize(("text", "gold", "correct"), [
    ("银行\n理由：略", "银行", 1.0),                # two lines: the first is the label
    ("银行\n理由：略\n以上", "银行", 1.0),          # three lines: still the first, not all but the last
    ("经济绩效\n\n排放\n物料", "经济绩效", 1.0),
    ("理由：略\n银行", "银行", 0.0),                # a label on a later line is not the answer
])
def test_the_first_line_of_a_longer_answer_is_a_candidate(text, gold, correct):
    assert label_correct(gold, text) == correct


@pytest.mark.parametrize(("text", "gold", "correct"), [
    ("**这段文本属于银行类**", "银行", 1.0),        # markdown stars around a stated label
    ("**该内容不合规**", "否", 1.0),                # ... around a verdict sentence
    ("答案是X", "X", 1.0),                          # a letter at the end of the line is the label's own
    ("这段文本属于银行X", "银行", 0.0),
    ("不合规X", "否", 0.0),                         # a verdict word with a letter attached is no verdict
    ("X不合规", "否", 0.0),
])
def test_only_markdown_stars_are_stripped_from_the_line_a_label_is_read_from(text, gold, correct):
    assert label_correct(gold, text) == correct


@pytest.mark.parametrize(("text", "gold"), [
    ("是否合规：该内容不合规", "否"), ("判断结果：该报告符合规定", "是"),   # a prefix, then a verdict sentence
    ("结论：否，该内容不符合规定", "否"), ("结论：是，内容合规", "是"),      # a prefix, then a lead and its sentence
])
def test_a_verdict_after_a_label_prefix_is_read_without_the_prefix(text, gold):
    assert label_correct(gold, text) == 1.0
    assert label_correct({"是": "否", "否": "是"}[gold], text) == 0.0


@pytest.mark.parametrize("text", ["是，请参考相关法规", "否，请参考相关法规", "是，详见下文"])
def test_a_verdict_lead_followed_by_a_sentence_that_says_neither_is_no_answer(text):
    assert label_correct("是", text) == label_correct("否", text) == 0.0


@pytest.mark.parametrize(("text", "only"), [
    ("银行。", 1.0), ("“银行”", 1.0),
    ("银行\n。", 0.0), ("“\n银行”", 0.0), ("**银行**\n", 1.0),   # a line break inside what is stripped away
])
def test_label_only_fails_a_response_with_a_line_break_inside_even_in_its_wrapping(text, only):
    assert label_only(text) == only


@pytest.mark.parametrize(("gold", "response", "only"), [
    ("排放", "经济绩效指标", 1.0),     # 6 characters: at most 2 * 2 + 2 for a two-character gold
    ("排放", "经济绩效指标类", 0.0),   # 7: a wrong label that long is a sentence, not a label
    ("是", "合规合规", 1.0), ("是", "合规合规合", 0.0),
])
def test_record_scores_label_only_is_limited_by_the_gold_labels_length(gold, response, only):
    assert record_scores("classification", "ESG分类", gold, response)["label_only"] == only


@pytest.mark.parametrize(("text", "items"), [
    ("型号：ABX", {("型号", "ABX")}), ("代码：X", {("代码", "X")}), ("XA：甲", {("XA", "甲")}),
    ("型号：ABX。", {("型号", "ABX")}), ("型号：“ABX”", {("型号", "ABX")}),
])
def test_an_item_keeps_the_letters_at_its_ends_only_punctuation_and_quotes_go(text, items):
    assert extraction_items(text) == items


@pytest.mark.parametrize(("value", "items"), [
    (["甲公司", "乙公司"], {("", "甲公司"), ("", "乙公司")}),      # a list of bare values: keyless items
    (["甲公司", "无", ""], {("", "甲公司")}),                       # ... an absent one dropped
    ('["甲公司", "乙公司"]', {("", "甲公司"), ("", "乙公司")}),     # the same as JSON text
    ([["甲公司"], {"主体": "乙公司"}], {("", "甲公司"), ("主体", "乙公司")}),
    ([1, 2.5], {("", "1"), ("", "2.5")}),
])
def test_the_bare_values_of_a_json_list_are_keyless_items(value, items):
    assert extraction_items(value) == items


@pytest.mark.parametrize("text", ["抽取结果：未提及相关实体", "结果：无", "答案：没有相关信息。",
                                  "抽取结果：无因果关系"])
def test_saying_there_is_nothing_to_extract_after_a_label_prefix_is_no_item(text):
    assert extraction_items(text) == set()


# ---- text metrics
@pytest.mark.parametrize("text", ["", None])
def test_empty_text_has_no_tokens_in_either_language(text):
    assert tokenize_en(text) == []
    assert target_tokens(text, "en2zh") == target_tokens(text, "zh2en") == []


@pytest.mark.parametrize(("text", "direction", "tokens"), [
    ("didn't stop at 0.5%", "zh2en", ["didn't", "stop", "at", "0.5%"]),                 # English: words
    ("利率上升导致债券价格下跌", "en2zh", ["利率", "上升", "导致", "债券", "价格", "下跌"]),  # Chinese: jieba
])
def test_a_translation_is_tokenised_in_its_target_language(text, direction, tokens):
    assert target_tokens(text, direction) == tokens
    assert direction_of({"en2zh": "金融英中翻译", "zh2en": "金融中英翻译"}[direction]) == direction


@pytest.mark.parametrize(("reference", "hypothesis", "direction", "value"), [
    # 4-gram precisions 5/6, 3/5, 2/4, 1/3 (no zero: no smoothing), brevity penalty 1
    ("the cat sat on the mat", "the cat sat on a mat", "zh2en", (1 / 12) ** 0.25),
    # jieba tokens; a zero 4-gram precision smoothed to 1 / (2 * 3), as in the corpus BLEU by hand
    ("利率上升导致债券价格下跌", "利率上升使债券价格下跌", "en2zh", (5 / 6 * 3 / 5 * 1 / 4 * 1 / 6) ** 0.25),
    ("the cat sat", "the cat sat", "zh2en", 1.0),      # three words: only the orders it has (effective order)
    ("the cat sat on the mat", "", "zh2en", 0.0),
    ("", "the cat sat", "zh2en", 0.0),
])
def test_sentence_bleu_is_sacrebleus_sentence_score_on_the_0_1_scale(reference, hypothesis, direction, value):
    assert sentence_bleu(reference, hypothesis, direction) == pytest.approx(value)


@pytest.mark.parametrize(("sub_task", "reference", "prediction", "value"), [
    ("金融中英翻译", "the cat sat on the mat", "the cat sat on a mat", (1 / 12) ** 0.25),
    ("金融英中翻译", "利率上升导致债券价格下跌", "利率上升使债券价格下跌", (5 / 6 * 3 / 5 * 1 / 4 * 1 / 6) ** 0.25),
    ("金融中英翻译", "None", None, 0.0),                 # no response: nothing matches, not the text "None"
])
def test_a_translation_records_value_is_its_sentence_bleu_in_its_target_language(sub_task, reference, prediction,
                                                                                   value):
    scores = record_scores("translation", sub_task, reference, prediction)
    assert list(scores) == ["sentence_bleu"] and scores["sentence_bleu"] == pytest.approx(value)


def test_rouge_l_reads_a_blank_response_as_the_text_none():
    assert rouge_l_zh("None of it", "   ") == rouge_l_zh("None of it", "None") == pytest.approx(0.5)
    assert jieba_tokenize("None of it") == ["None", "of", "it"]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: corpus_bleu(["a", "b"], ["a"], "zh2en"), "2 references but 1 translations"),
    (lambda: direction_of("金融日英翻译"),
     "unknown translation sub-task '金融日英翻译' (known: 金融英中翻译, 金融中英翻译)"),
    (lambda: record_scores("poetry", "x", "a", "a"),
     "unknown CFLUE application task 'poetry' (known: classification, translation, extraction, "
     "reading_comprehension, generation)"),
    (lambda: summarize([AppOutcome("poetry", "x", "a", "a"), AppOutcome("classification", "ESG分类", "a", "a")]),
     "unknown CFLUE application task(s) ['poetry'] (known: classification, translation, extraction, "
     "reading_comprehension, generation)"),
])
def test_bad_input_is_one_error_naming_what_is_wrong_and_what_is_known(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


# ---- the reference profile per record
@pytest.mark.parametrize(("gold", "response", "f1"), [
    ("乙科技公司", "本次事件的主体为乙科技公司，另有丙公司。", 1.0),  # theirs: the gold occurs in the response
    ("乙科技公司", "主体：丙公司", 0.0),
])
def test_reference_profile_extraction_record_is_the_authors_f1_for_its_sub_task(gold, response, f1):
    assert record_scores("extraction", "金融事件主体抽取", gold, response, "reference") == {"f1": f1}
    assert record_scores("extraction", "未知抽取", gold, response, "reference") == {"f1": 0.0}  # theirs: unknown


@pytest.mark.parametrize(("task", "reference", "response", "official", "default"), [
    ("reading_comprehension", "公司净利润同比增长", "公司净利润大幅增长", 0.75, 0.75),
    ("generation", "None", "   ", 0.0, 1.0),     # theirs: only an empty response becomes "None"; ours: blank too
    ("generation", "None", "", 1.0, 1.0),
])
def test_reference_profile_rouge_record_is_the_rouge_packages(task, reference, response, official, default):
    assert record_scores(task, "x", reference, response, "reference")["rouge_l"] == pytest.approx(official, abs=1e-6)
    assert record_scores(task, "x", reference, response)["rouge_l"] == pytest.approx(default, abs=1e-6)


# ---- summaries
def test_average_with_no_computed_column_is_not_computed():
    columns = {column: NOT_COMPUTED for column, *_ in TABLE_COLUMNS}
    assert average(columns) == (NOT_COMPUTED, {"value": NOT_COMPUTED, "columns": []})
    assert average({}) == (NOT_COMPUTED, {"value": NOT_COMPUTED, "columns": []})


def test_each_sub_task_names_its_task_and_counts_its_rows():
    rows = [AppOutcome("classification", "ESG分类", "排放", "排放"),
            AppOutcome("classification", "ESG分类", "排放", "物料"),
            AppOutcome("generation", "资讯标题生成", "多家银行下调利率", "多家银行下调利率")]
    by_sub_task = summarize(rows)["by_sub_task"]
    assert {s: (m["task"], m["n"]) for s, m in by_sub_task.items()} == {"ESG分类": ("classification", 2),
                                                                        "资讯标题生成": ("generation", 1)}


def test_the_profile_reaches_every_sub_tasks_metrics():
    rows = [AppOutcome("classification", "合规政策审核", "是", "请参考相关法规")]  # theirs: no 不合规 means 是
    for profile, accuracy in (("reference", 100.0), ("default", 0.0)):
        summary = summarize(rows, profile=profile)
        assert summary["by_sub_task"]["合规政策审核"]["accuracy"] == accuracy
        assert summary["by_task"]["classification"]["accuracy"] == accuracy


def test_the_metric_models_given_reach_every_task_and_sub_task_row_with_blank_responses_read_as_none():
    seen: dict[str, list] = {"comet": [], "bert": []}

    def comet(data):
        seen["comet"].append(data)
        return 0.5

    def bertscore(candidates, references):
        seen["bert"].append((candidates, references))
        return 0.25

    rows = [AppOutcome("generation", "资讯标题生成", "多家银行下调利率", "多家银行下调利率"),
            AppOutcome("generation", "资讯标题生成", "利率上行", "  "),
            AppOutcome("generation", "资讯标题生成", "价格下跌", ""),
            AppOutcome("translation", "金融中英翻译", "Rates rose.", "Rates rose.", "利率上升。")]
    summary = summarize(rows, comet=comet, bertscore=bertscore)
    assert summary["by_sub_task"]["资讯标题生成"]["bertscore"] == summary["by_task"]["generation"]["bertscore"] == 25.0
    assert summary["by_sub_task"]["金融中英翻译"]["comet"] == summary["by_task"]["translation"]["comet_zh2en"] == 50.0
    assert seen["bert"] == [(["多家银行下调利率", "None", "None"], ["多家银行下调利率", "利率上行", "价格下跌"])] * 2
    assert seen["comet"] == [[{"src": "利率上升。", "mt": "Rates rose.", "ref": "Rates rose."}]] * 2
