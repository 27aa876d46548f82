"""The CFLUE ``reference`` profile pinned rule by rule with cases computed by hand from the authors' code's
behaviour, the ``default`` profile's readings, and the profile plumbing. Figures on the authors' data (dev split,
application sample) run only when CFLUE_DEV_SPLIT / CFLUE_APPLICATION_SAMPLE point at them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scorers.cflue import reference, rouge_package
from scorers.cflue.application import extraction_f1, label_correct, label_only, record_scores, summarize
from scorers.cflue.extract import extract_answer
from scorers.cflue.reference_extraction import causal_f1, event_f1, industry_f1

DEV_ENV, APP_ENV = "CFLUE_DEV_SPLIT", "CFLUE_APPLICATION_SAMPLE"
EPS = rouge_package.EPS


# ---------------------------------------------------------------------------------- knowledge: answer letters
@pytest.mark.parametrize(("text", "letters"), [
    ("\nB", "X"),                          # exactly two lines: only the first ("") is read
    ("\n\nB", "B"),                        # three lines: the whole text, stripped
    ("  B", "B"),
    ("答案：DA\n解析：略", "DA"),            # raw: not sorted, so wrong against the gold "AD"
    ("Answer: B", "A"),                    # the leading A of "Answer"
    ("答案是 A、C", "AC"),
    ("E", "E"),                            # not checked against the options
    ("b", "X"),
    ("答案：B\n\n解析：略", "B"),
    ("我选B", "X"),
])
def test_reference_letters_follow_the_authors_rule(text, letters):
    assert extract_answer(text, "reference") == letters


def test_reference_analysis_candidate_is_the_second_of_two_lines_else_the_whole_response():
    assert reference.knowledge_candidate("答案：B\n解析：因为") == "因为"
    assert reference.knowledge_candidate("  答案：B\n解析：x  ") == "x"
    assert reference.knowledge_candidate("答案：B\n\n解析：因为") == "答案：B\n\n解析：因为"
    assert reference.knowledge_candidate(None) == ""


def test_reference_bleu_1_is_the_corpus_unigram_precision_without_brevity_penalty():
    bleu_1, bleu_4 = reference.corpus_bleu(["a b c d"], ["a b"])
    assert bleu_1 == pytest.approx(100.0)          # 2 of 2 unigrams match; the default's BLEU-1 would be e^(1-4/2)
    assert reference.corpus_bleu(["a b c d"], ["a b c d"]) == pytest.approx((100.0, 100.0))


# ---------------------------------------------------------------------------------- the rouge package
def test_rouge_n_counts_distinct_ngrams():
    # hyp {a, b}, ref {a, b, c}: P = 1, R = 2/3 (with multiplicity it would be 2/3 and 1/2)
    assert rouge_package.rouge_n("a a b", "a b b c", 1) == pytest.approx(2 * (2 / 3) / (5 / 3 + EPS))
    # bigrams hyp {aa, ab}, ref {ab, bb, bc}: P = 1/2, R = 1/3
    assert rouge_package.rouge_n("a a b", "a b b c", 2) == pytest.approx(2 * (1 / 6) / (5 / 6 + EPS))


def test_full_stops_cut_sentences_and_numbers():
    assert rouge_package.rouge_n("收益 3.5", "收益 3.5", 1) == pytest.approx(1.0)
    # "3.5" -> words 3 and 5: hyp {收益, 3, 5}, ref {收益, 35}: P = 1/3, R = 1/2
    assert rouge_package.rouge_n("收益 3.5", "收益 35", 1) == pytest.approx(2 * (1 / 6) / (5 / 6 + EPS))


def test_rouge_l_pools_distinct_words_of_the_lcs_the_package_reconstructs():
    # LCS of ref [a a b c] and hyp [b c a a] has length 2 twice over ("a a", "b c"); the package's backtrack
    # (up only when the cell above is strictly larger) keeps "b c": pool {b, c}, P = R = 2/3.
    assert rouge_package.lcs_words("a a b c".split(), "b c a a".split()) == ["b", "c"]
    assert rouge_package.rouge_l("b c a a", "a a b c") == pytest.approx(2 * (4 / 9) / (4 / 3 + EPS))
    assert rouge_package.rouge_l("a a b", "a b b c") == pytest.approx(2 * (2 / 3) / (5 / 3 + EPS))


def test_an_empty_hypothesis_raises_as_the_package_does_and_counts_zero_in_the_average():
    with pytest.raises(rouge_package.EmptyHypothesis):
        rouge_package.rouge_l("", "a")
    averaged = reference.rouge_average(["a b", "a b"], ["a b", ""])
    assert averaged["rouge_1"] == pytest.approx((1.0 - 0) / 2, abs=1e-7)


# ---------------------------------------------------------------------------------- application: classification
@pytest.mark.parametrize(("sub_task", "label", "response", "right"), [
    ("ESG情感分类", "负向", "负面", True),            # the label's first character anywhere
    ("ESG情感分类", "负向", "Negative", True),
    ("ESG情感分类", "正向", "不是负面", False),
    ("合规政策审核", "是", "", True),                 # bug kept: an empty answer is "compliant"
    ("合规政策审核", "否", "不合规", True),
    ("合规政策审核", "否", "合规", False),
    ("合规政策审核", "否", "否", False),              # bug kept: the requested answer itself reads as 是
    ("ESG分类", "经济绩效", "['经济绩效']", True),     # one quoted piece equal to the label
    ("ESG分类", "经济绩效", "'物料', '经济绩效'", False),
    ("ESG分类", "经济绩效", "经济绩效、排放", False),   # a list mark anywhere: 、 , or ，
    ("ESG分类", "经济绩效", "经济绩效,排放", False),
    ("ESG分类", "经济绩效", "经济绩效，排放", False),
    ("ESG分类", "经济绩效", "经济绩效;排放", True),     # not a list mark of theirs
    ("ESG分类", "经济绩效", "该文本属于经济绩效类别", True),
    ("ESG分类", "经济绩效", "非经济绩效", True),        # bug kept: a substring is enough
])
def test_reference_classification_rules(sub_task, label, response, right):
    assert reference.classification_correct(sub_task, label, response) == float(right)


# ---------------------------------------------------------------------------------- application: extraction
CAUSAL_GOLD = [{"reason_type": "出口下降", "reason_product": "", "reason_region": "", "reason_industry": "",
                "result_type": "利润下降", "result_product": "", "result_region": "", "result_industry": ""},
               {"reason_type": "其他", "reason_product": "", "reason_region": "", "reason_industry": "",
                "result_type": "其他", "result_product": "", "result_region": "", "result_industry": ""}]


def test_reference_causal_fields_keep_their_separator_so_only_blanks_said_as_none_match():
    # 原因类型 found as "：出口下降\n" (no match), 原因产品 as "：无" (gold blank: a match): acc 1/8, recall 2/8
    assert causal_f1(CAUSAL_GOLD, "原因类型：出口下降\n原因产品：无") == pytest.approx(1 / 6)
    # the name directly followed by the value at the very end of the text is the one way a value matches
    assert causal_f1(CAUSAL_GOLD, "原因类型出口下降") == pytest.approx(1 / 8)
    assert causal_f1(CAUSAL_GOLD, "没有因果关系") == 0.0


EVENT_GOLD = [{"role": "股票简称", "argument": "苏奥传感"}, {"role": "减持方", "argument": "李宏庆"},
              {"role": "减持方", "argument": "3名股东"}]


def test_reference_event_extraction():
    # the gold becomes {股票简称: 苏奥传感, 减持方: 3名股东} (a repeated role keeps its last argument)
    assert event_f1(EVENT_GOLD, "股票简称：苏奥传感\n减持方：李宏庆") == pytest.approx(0.5)
    assert event_f1(EVENT_GOLD, "key1: 股票简称\nvalue1: 苏奥传感") == pytest.approx(2 / 3)
    assert event_f1(EVENT_GOLD, json.dumps({"股票简称": "苏奥传感"}, ensure_ascii=False)) == 0.0  # bug kept


INDUSTRY_GOLD = '{"信息技术": "正向", "医疗": "正向"}'


@pytest.mark.parametrize(("response", "f1"), [
    ("信息技术:正向\n医疗:正向", 1.0),
    ("信息技术：正面\n医疗：正面", 1.0),              # reduced to the first 正/负/中/无
    ("行业：信息技术、医疗\n情感分类：正向", 1.0),     # one polarity for every industry listed
    (INDUSTRY_GOLD, 0.0),                            # the gold's own JSON: quotes stay in the keys
    ("信息技术:负向", 0.0),
])
def test_reference_industry_parser(response, f1):
    assert industry_f1(INDUSTRY_GOLD, response) == pytest.approx(f1)


def test_reference_reading_and_generation_read_an_empty_answer_as_none():
    assert record_scores("reading_comprehension", "保险文档问答", "None", "", "reference")["rouge_l"] == \
        pytest.approx(1.0, abs=1e-7)


# ---------------------------------------------------------------------------------- default profile readings
@pytest.mark.parametrize(("gold", "response", "right"), [
    ("经济绩效", "该文本属于“经济绩效”类别。", True),
    ("经济绩效", "经济绩效\n理由：文中讨论业绩。", True),
    ("经济绩效", "经济绩效，因为文中讨论业绩", True),
    ("经济绩效", "我认为属于经济绩效类。", True),
    ("否", "不合规。理由：研发投入不足。", True),
    ("是", "合规", True),
    ("负向", "Negative", True),
    ("经济绩效", "经济绩效, 排放", False),
    ("经济绩效", "经济绩效或排放", False),
    ("物料", "不是‘物料’而是‘经济绩效’", False),
    ("经济绩效", "非经济绩效", False),
])
def test_default_reads_labels_as_a_reader_would(gold, response, right):
    assert label_correct(gold, response) == float(right)


def test_label_only_adherence_is_its_own_metric():
    assert label_only("经济绩效") == label_only("“经济绩效”。") == label_only("物料", "经济绩效") == 1.0
    assert label_only("该文本属于“经济绩效”类别。") == label_only("经济绩效\n理由：略") == label_only("") == 0.0
    assert label_only("该文本属于经济绩效类别", "经济绩效") == 0.0   # 12 characters for a 4-character label
    assert record_scores("classification", "ESG分类", "经济绩效", "经济绩效\n理由：略") == \
        {"accuracy": 1.0, "label_only": 0.0}


@pytest.mark.parametrize("response", [
    "1. 原因类型：出口下降\n2. 结果类型：利润下降",
    "- **原因类型**：出口下降\n- **结果类型**：利润下降",
    "**原因类型**：出口下降\n**结果类型**：利润下降\n原因产品：无\n原因地区：未提及",
    '```json\n{"reason_type": "出口下降", "result_type": "利润下降", "reason_product": ""}\n```',
])
def test_default_extraction_reads_numbered_bold_json_and_none_as_blank(response):
    assert extraction_f1(CAUSAL_GOLD[:1], response) == 1.0


def test_leading_whitespace_before_a_bare_answer_is_read_by_default():
    assert extract_answer("\nB", "strict") == extract_answer("\nB", "robust") == "B"


# ---------------------------------------------------------------------------------- plumbing
def test_profiles_are_checked_and_named():
    from finchain_tasks.cflue import hosts

    with pytest.raises(ValueError, match="profile must be one of"):
        reference.check_profile("official")
    assert reference.check_profile("paper") == "default"  # what `finchain bench --profile` passes to every task set
    assert hosts.resolve_extract(None, "default") == "robust"
    assert hosts.resolve_extract(None, "reference") == "reference"
    assert hosts.resolve_extract("strict") == "strict"
    with pytest.raises(ValueError, match="authors' rule"):
        hosts.resolve_extract("robust", "reference")
    rows = [("classification", "ESG分类", "经济绩效", "该文本属于“经济绩效”类别。\n理由：略")]
    assert summarize(rows)["profile"] == "default" and summarize(rows)["by_task"]["classification"]["accuracy"] == 100
    assert summarize(rows, profile="reference")["by_task"]["classification"]["accuracy"] == 100  # substring rule


def test_the_inspect_task_takes_the_profile():
    from finchain_tasks.inspect.cflue import cflue

    task = cflue(profile="reference")
    assert task.metadata["profile"] == "reference" and task.metadata["extract_mode"] == "reference"
    with pytest.raises(ValueError, match="authors' rule"):
        cflue(profile="reference", extract="robust")


def test_a_default_profile_row_beside_the_paper_says_it_is_not_comparable():
    from finchain_tasks.leaderboard.reported import load_reported, note_cflue_profiles

    rows = [{"task": "cflue", "profile": "default"}, {"task": "cflue", "profile": None},
            {"task": "cflue", "profile": "reference"}]
    note = note_cflue_profiles(load_reported(("cflue-paper",)), rows)["sources"]["cflue-paper"]["note"]
    assert "profile default, unrecorded are NOT comparable" in note
    clean = note_cflue_profiles(load_reported(("cflue-paper",)), rows[2:])["sources"]["cflue-paper"]["note"]
    assert "NOT comparable" not in clean


def test_cflue_score_cli_scores_mixed_rows_and_keeps_bad_ones(tmp_path):
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    rows = [{"task": "单项选择题", "answer": "B", "choices": "{'A': 'x', 'B': 'y'}", "analysis": None,
             "model_response": "\nB"},
            {"task": "金融文本分类", "sub_task": "合规政策审核", "output": "是", "response": ""}, "not an object"]
    path = tmp_path / "outputs.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    done = CliRunner().invoke(app, ["cflue-score", str(path), "-p", "reference", "-o", str(out)])
    scored = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert done.exit_code == 1 and len(scored) == 3 and "error" in scored[2]
    assert scored[0]["pred"] == "X" and scored[1]["accuracy"] == 1.0 and {r["profile"] for r in scored} == {"reference"}
    CliRunner().invoke(app, ["cflue-score", str(path), "-o", str(out)])
    scored = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert scored[0]["pred"] == "B" and scored[1]["accuracy"] == 0.0 and scored[0]["profile"] == "default"


# ---------------------------------------------------------------------------------- on the authors' data
def _path(env: str) -> Path | None:
    value = os.environ.get(env, "")
    return Path(value) if value and Path(value).is_file() else None


APP_FIGURES = {  # reference profile on the 125-record sample, equal to the authors' code (crosscheck_reference.py)
    "oracle": {"TC acc": 97.78, "RE F1": 49.17, "RC ROUGE-L": 100.0, "TG ROUGE-L": 100.0},
    "official": {"TC acc": 97.78, "RE F1": 74.17, "RC ROUGE-L": 100.0, "TG ROUGE-L": 100.0},
    "empty": {"TC acc": 8.89, "RE F1": 0.0, "RC ROUGE-L": 0.0, "TG ROUGE-L": 0.0},
    "partial": {"TC acc": 55.56, "RE F1": 39.17, "RC ROUGE-L": 48.0, "TG ROUGE-L": 44.0},
    "chatty": {"TC acc": 97.78, "RE F1": 25.0, "RC ROUGE-L": 67.16, "TG ROUGE-L": 82.35},
}


@pytest.mark.skipif(_path(APP_ENV) is None, reason=f"set {APP_ENV} to aliyun/cflue data/application/application.json")
def test_reference_reproduces_the_authors_figures_on_the_application_sample():
    from finchain_tasks.cflue.application import load_application
    from tests.cflue.crosscheck_reference import application_ours, application_reply

    records = load_application(_path(APP_ENV)).records
    for shape, figures in APP_FIGURES.items():
        ours = application_ours(records, [application_reply(r, shape) for r in records], "reference")
        assert {k: round(ours[k], 2) for k in figures} == figures, shape
        if shape in ("oracle", "official", "chatty"):
            default = application_ours(records, [application_reply(r, shape) for r in records], "default")
            assert default["TC acc"] == 100.0 and default["RE F1"] >= 93.0, (shape, default)


@pytest.mark.skipif(_path(DEV_ENV) is None, reason=f"set {DEV_ENV} to aliyun/cflue data/knowledge/knowledge.json")
def test_reference_reproduces_the_authors_answer_figures_on_the_dev_split():
    from finchain_tasks.cflue.loader import load_cflue
    from scorers.cflue import metrics
    from tests.cflue.crosscheck_reference import knowledge_reply

    records = load_cflue(_path(DEV_ENV)).records
    assert len(records) == 3864
    figures = {"oracle": (100.0, 100.0), "official": (100.0, 100.0), "empty": (0.0, 0.0), "partial": (50.0, 54.63),
               "chatty": (100.0, 100.0)}   # accuracy and weighted F1 of the authors' code (crosscheck_reference.py)
    golds = [r.answer for r in records]
    for shape, (accuracy, weighted_f1) in figures.items():
        preds = [extract_answer(knowledge_reply(r, shape), "reference") for r in records]
        assert round(100 * metrics.accuracy(golds, preds), 2) == accuracy, shape
        assert round(100 * metrics.weighted_f1(golds, preds), 2) == weighted_f1, shape


def test_lm_eval_leaves_carry_the_profile_to_the_corpus_metrics():
    from finchain_tasks.lm_eval import cflue as leaf
    from finchain_tasks.lm_eval import cflue_application as app_leaf

    doc = {"answer": "B", "choices": json.dumps({"A": "x", "B": "y"}), "id": "q", "extract_mode": "reference",
           "analysis": "因为 B 对", "analysis_metrics": True, "profile": "reference"}
    picked = leaf.pick(["答案：B\n解析：因为 B 对"], doc)
    values = leaf.process_results(doc, [json.dumps(picked, ensure_ascii=False)])
    assert values["accuracy"] == 1.0 and values["bleu_1"] == ("bleu_1", "因为 B 对", "答案：B\n解析：因为 B 对")
    assert leaf.mean_scored([values["bleu_1"], None]) == pytest.approx(1.0)   # corpus BLEU-1 over the one pair
    row_doc = {"task_slug": "classification", "sub_task": "合规政策审核", "output": json.dumps("是"), "source": "",
               "comet": "", "bertscore": "", "profile": "reference"}
    rows = [app_leaf.process_results(row_doc, [""])["accuracy"]]
    assert app_leaf.accuracy(rows) == 100.0   # the authors' rule: an empty answer is "compliant"
    assert app_leaf.accuracy([(*rows[0][:7], "default")]) == 0.0
