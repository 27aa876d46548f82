"""CFLUE application metrics against values computed by hand (BLEU, ROUGE-L, item F1, label accuracy),
the corpus-level summary, "not computed" for missing metric models, and the table's average."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchain_tasks.cflue.application import reference_text
from scorers.cflue.application import (
    NOT_COMPUTED,
    TABLE_COLUMNS,
    AppOutcome,
    average,
    corpus_bleu,
    extraction_f1,
    extraction_items,
    label_correct,
    normalize_label,
    rouge_l_zh,
    summarize,
    tokenize_en,
)
from scorers.cflue.metrics import jieba_tokenize

pytest.importorskip("jieba")
pytest.importorskip("sacrebleu")


# ---- BLEU-4 (sacrebleu corpus BLEU, default exp smoothing), by hand
def test_english_bleu_by_hand():
    # hyp "the cat sat on a mat" vs ref "the cat sat on the mat" (6 tokens each, brevity penalty 1):
    # clipped n-gram precisions 5/6, 3/5, 2/4, 1/3 -> BLEU = (5/6 * 3/5 * 2/4 * 1/3) ** (1/4) = (1/12) ** (1/4)
    assert corpus_bleu(["the cat sat on the mat"], ["the cat sat on a mat"], "zh2en") == pytest.approx(
        100 * (1 / 12) ** 0.25)


def test_chinese_bleu_by_hand_with_jieba_tokens():
    ref, hyp = "利率上升导致债券价格下跌", "利率上升使债券价格下跌"
    assert jieba_tokenize(ref) == ["利率", "上升", "导致", "债券", "价格", "下跌"]
    assert jieba_tokenize(hyp) == ["利率", "上升", "使", "债券", "价格", "下跌"]
    # 1-grams 5/6; 2-grams 3/5 (利率上升, 债券价格, 价格下跌); 3-grams 1/4 (债券价格下跌); 4-grams 0/3, which
    # sacrebleu's exp smoothing turns into 1 / (2 * 3) (first zero precision: 1 / (2^1 * total)).
    expected = 100 * (5 / 6 * 3 / 5 * 1 / 4 * 1 / 6) ** 0.25
    assert corpus_bleu([ref], [hyp], "en2zh") == pytest.approx(expected)


def test_bleu_is_one_corpus_score_not_a_mean_of_sentences():
    refs = ["the cat sat on the mat", "bond yields rose sharply today"]
    hyps = ["the cat sat on a mat", "bond yields rose sharply today"]
    # n-gram counts summed over both sentences: 10/11, 7/9, 5/7, 3/5; lengths 11 = 11
    expected = 100 * (10 / 11 * 7 / 9 * 5 / 7 * 3 / 5) ** 0.25
    assert corpus_bleu(refs, hyps, "zh2en") == pytest.approx(expected)
    mean_of_sentences = (corpus_bleu(refs[:1], hyps[:1], "zh2en") + 100) / 2
    assert abs(expected - mean_of_sentences) > 1


def test_english_tokens_split_punctuation_and_keep_numbers():
    assert tokenize_en("Yields rose 0.5% in Q1, didn't they?") == ["Yields", "rose", "0.5%", "in", "Q1", ",",
                                                                   "didn't", "they", "?"]


@pytest.mark.parametrize(("text", "tokens"), [
    ("1,000.5 bn", ["1,000.5", "bn"]), ("1.2.3", ["1.2.3"]),                        # a number keeps , and .
    ("well-known", ["well-known"]), ("don't", ["don't"]), ("don’t", ["don’t"]),       # inner - ' ’ join a word
    ("a$b", ["a", "$", "b"]), ("(x)", ["(", "x", ")"]), ("a  b", ["a", "b"]),         # a mark alone, no space
])
def test_english_tokens_one_row_per_joining_mark(text, tokens):
    assert tokenize_en(text) == tokens


# ---- ROUGE-L with jieba, by hand
def test_chinese_rouge_l_by_hand():
    ref, pred = "公司净利润同比增长", "公司净利润大幅增长"
    assert jieba_tokenize(ref) == ["公司", "净利润", "同比", "增长"]
    assert jieba_tokenize(pred) == ["公司", "净利润", "大幅", "增长"]
    assert rouge_l_zh(ref, pred) == pytest.approx(0.75)  # LCS 3 of 4 and 4: P = R = 3/4


def test_english_rouge_l_by_hand():
    # LCS "the cat on mat" = 4; P = 4/4, R = 4/6 -> F = 2 * 1 * (2/3) / (5/3) = 0.8
    assert rouge_l_zh("the cat sat on the mat", "the cat on mat") == pytest.approx(0.8)


def test_an_empty_response_is_scored_as_none_text():
    assert rouge_l_zh("None of it", "") == pytest.approx(rouge_l_zh("None of it", "None"))
    assert rouge_l_zh("犹豫期为十五日", "   ") == 0.0


# ---- extraction F1 over (key, value) items
ROLES = [{"role": "股票简称", "argument": "甲公司"}, {"role": "减持方", "argument": "张三"},
         {"role": "减持方", "argument": "李四"}, {"role": "减持比例", "argument": "不超过百分之二"}]


def test_role_argument_f1_with_partial_matches():
    # 2 of 3 predicted items are gold, 2 of 4 gold items found: P = 2/3, R = 1/2 -> F1 = 4/7
    pred = "股票简称: 甲公司\n减持方：张三\n减持方: 王五"
    assert extraction_f1(ROLES, pred) == pytest.approx(4 / 7)


def test_causal_keys_match_their_chinese_names_and_empty_fields_do_not_count():
    gold = [{"reason_type": "原材料价格上涨", "reason_product": "", "result_type": "产品利润下降",
             "result_industry": "家电"}]
    assert extraction_items(gold) == {("原因类型", "原材料价格上涨"), ("结果类型", "产品利润下降"),
                                      ("结果行业", "家电")}
    pred = "原因类型: 原材料价格上涨\n结果类型: 产品利润下降\n结果行业: 汽车"
    assert extraction_f1(gold, pred) == pytest.approx(2 / 3)  # P = R = 2/3


def test_json_text_and_several_pairs_on_one_line():
    gold = '{"新能源": "正向", "地产": "负向"}'
    assert extraction_f1(gold, "新能源：正向，地产：中性") == pytest.approx(0.5)
    assert extraction_f1(gold, "新能源:正向,\n地产：负向") == 1.0
    assert extraction_f1(gold, '{"地产": "负向", "新能源": "正向"}') == 1.0


def test_entity_answers_compare_values_only():
    assert extraction_f1("乙科技公司", "主体：乙科技公司") == 1.0
    assert extraction_f1("乙科技公司", "乙科技") == 0.0


def test_empty_gold_rewards_an_empty_answer_only():
    assert extraction_f1("", "") == 1.0
    assert extraction_f1("", "质押方: 某公司") == 0.0
    assert extraction_f1(ROLES, "") == 0.0


def test_a_response_is_never_evaluated_as_code(tmp_path):
    marker = tmp_path / "pwned"
    pred = f"__import__('os').system('touch {marker}')"
    assert extraction_f1(ROLES, pred) == 0.0
    assert extraction_f1(ROLES, "[{'role': '股票简称', 'argument': '甲公司'}]") == 0.0  # Python literal, not JSON
    assert not marker.exists()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text("甲乙丙丁公司股份", min_size=1, max_size=4),
                          st.text("张三李四万元百分之二", min_size=1, max_size=6)), min_size=1, max_size=6))
def test_the_gold_output_written_as_lines_scores_one(pairs):
    gold = [{"role": r, "argument": a} for r, a in pairs]
    assert extraction_f1(gold, reference_text(gold)) == 1.0


# ---- classification
@pytest.mark.parametrize("response, correct", [
    ("经济绩效", True), ("“经济绩效”。", True), ("分类结果：经济绩效", True), ("['经济绩效']", True),
    ("**经济绩效**\n", True), ("经济绩效, 排放", False), ("经济", False), ("经济绩效或排放", False), ("", False)])
def test_label_accuracy_after_light_normalisation(response, correct):
    assert label_correct("经济绩效", response) == float(correct)


def test_sentiment_words_of_the_instruction_match_the_data_labels():
    assert normalize_label("正面") == normalize_label("正向") == "正向"
    assert label_correct("负向", "负面。") == 1.0 and label_correct("负向", "中性") == 0.0


# ---- summaries
def _rows():
    return [
        AppOutcome("classification", "ESG分类", "经济绩效", "经济绩效"),
        AppOutcome("classification", "合规政策审核", "是", "否"),
        AppOutcome("translation", "金融中英翻译", "the cat sat on the mat", "the cat sat on a mat", "猫坐在垫子上"),
        AppOutcome("translation", "金融英中翻译", "利率上升导致债券价格下跌", "利率上升使债券价格下跌", "Rates rose."),
        AppOutcome("extraction", "金融事件抽取", ROLES, "股票简称: 甲公司\n减持方：张三\n减持方: 王五"),
        AppOutcome("reading_comprehension", "保险文档问答", "公司净利润同比增长", "公司净利润大幅增长"),
        AppOutcome("generation", "资讯标题生成", "the cat sat on the mat", "the cat on mat"),
    ]


def test_summary_by_task_by_sub_task_and_table_on_the_0_100_scale():
    summary = summarize(_rows())
    assert (summary["profile"], summary["scale"], summary["n"]) == ("default", 100.0, len(_rows()))
    assert summary["by_task"]["classification"] == {"n": 2, "accuracy": 50.0, "label_only": 100.0}
    assert summary["by_sub_task"]["ESG分类"]["accuracy"] == 100.0
    assert summary["by_sub_task"]["合规政策审核"]["accuracy"] == 0
    translation = summary["by_task"]["translation"]
    assert translation["bleu_zh2en"] == pytest.approx(100 * (1 / 12) ** 0.25)
    assert translation["bleu_en2zh"] == pytest.approx(100 * (5 / 6 * 3 / 5 * 1 / 4 * 1 / 6) ** 0.25)
    assert translation["comet_en2zh"] == translation["comet_zh2en"] == NOT_COMPUTED
    assert summary["by_sub_task"]["金融英中翻译"]["bleu"] == translation["bleu_en2zh"]
    assert summary["by_task"]["extraction"]["f1"] == pytest.approx(100 * 4 / 7)
    assert summary["by_task"]["reading_comprehension"]["rouge_l"] == pytest.approx(75.0)
    assert summary["by_task"]["generation"]["rouge_l"] == pytest.approx(80.0)
    assert summary["by_task"]["generation"]["bertscore"] == NOT_COMPUTED
    table = summary["table"]
    assert list(table) == [c for c, *_ in TABLE_COLUMNS]
    assert table["Fin_MT en2zh COMET"] == NOT_COMPUTED and summary["average"] == NOT_COMPUTED
    computed = [50.0, translation["bleu_en2zh"], translation["bleu_zh2en"], 100 * 4 / 7, 75.0, 80.0]
    assert summary["average_of_computed"]["value"] == pytest.approx(sum(computed) / 6)
    assert len(summary["average_of_computed"]["columns"]) == 6


def test_metric_models_when_given_fill_comet_bertscore_and_the_average():
    seen = {}

    def comet(data):
        seen.setdefault("comet", []).append(data)
        return 0.8

    def bertscore(candidates, references):
        seen["bert"] = (candidates, references)
        return 0.9

    summary = summarize(_rows(), comet=comet, bertscore=bertscore)
    assert summary["table"]["Fin_MT en2zh COMET"] == pytest.approx(80.0)
    assert summary["by_task"]["generation"]["bertscore"] == pytest.approx(90.0)
    assert {"src": "Rates rose.", "mt": "利率上升使债券价格下跌", "ref": "利率上升导致债券价格下跌"} in [
        d for call in seen["comet"] for d in call]
    values = list(summary["table"].values())
    assert summary["average"] == pytest.approx(sum(values) / 8)


def test_the_average_is_the_mean_of_the_eight_published_columns():
    # the GPT-4 row of the published CFLUE application table, and its Avg. 49.63
    gpt4 = dict(zip([c for c, *_ in TABLE_COLUMNS], [61.23, 21.92, 78.32, 21.05, 87.20, 53.45, 46.34, 27.55]))
    full, partial = average(gpt4)
    assert round(full, 2) == 49.63 and partial["value"] == full


def test_a_task_without_records_is_not_computed_never_zero():
    summary = summarize([AppOutcome("generation", "资讯标题生成", "多家银行下调存款利率", "多家银行下调存款利率")])
    assert summary["table"]["Fin_TC ACC"] == NOT_COMPUTED
    assert summary["table"]["Fin_TG ROUGE-L"] == pytest.approx(100.0)
    assert not any(v == 0 for v in summary["table"].values())
    assert math.isclose(summary["average_of_computed"]["value"], 100.0)


def test_unknown_task_is_refused():
    with pytest.raises(ValueError, match="unknown CFLUE application task"):
        summarize([AppOutcome("poetry", "x", "a", "a")])
