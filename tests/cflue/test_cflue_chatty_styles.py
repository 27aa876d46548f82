"""Issue 42.4: the ``default`` profile reads CFLUE application answers as a reader reads them.

One table of answer styles over every classification and extraction sub-task of CFLUE: what a reader accepts
(a label after a label-introducing prefix, inside a short concluding sentence, a negated compliance verdict, a
field stated in a sentence, a greeting and a closing line around the items, "nothing to extract" said in words)
scores 1, and what a reader rejects (two labels, a hedge, a label only in a quoted question, a verdict its own
sentence contradicts, a wrong or extra item) does not. The ``reference`` profile is the CFLUE authors' code and
is pinned by test_cflue_reference.py, not here."""

import pytest

from scorers.cflue.application import record_scores

ROLES = [{"role": "股票简称", "argument": "甲公司"}, {"role": "减持方", "argument": "张三"}]
CAUSAL = [{"reason_type": "原材料价格上涨", "reason_product": "", "reason_region": "", "reason_industry": "",
           "result_type": "利润下降", "result_product": "", "result_industry": "家电", "result_region": ""}]
INDUSTRY = '{"新能源": "正向", "地产": "负向"}'

CLASSIFICATION = [  # (sub-task, gold, response, a reader accepts it)
    ("ESG分类", "经济绩效", "分类：经济绩效", True),
    ("ESG分类", "经济绩效", "标签：经济绩效", True),
    ("ESG分类", "经济绩效", "我认为是经济绩效", True),
    ("ESG分类", "经济绩效", "经分析，该文本的类别是经济绩效。", True),
    ("ESG分类", "经济绩效", "该文本属于“经济绩效”类别。\n理由：公告讨论营业收入。", True),
    ("ESG分类", "经济绩效", "经济绩效，排放", False),                      # two labels
    ("ESG分类", "经济绩效", "可能是经济绩效，也可能是排放", False),          # a hedge
    ("ESG分类", "经济绩效", "经济绩效或排放", False),
    ("ESG分类", "经济绩效", "问题是“该公告是否属于经济绩效？”，无法判断。", False),  # only in a quoted question
    ("ESG情感分类", "正向", "情感倾向：正面", True),
    ("ESG情感分类", "中立", "情绪：中性。", True),
    ("ESG情感分类", "正向", "该公告的情感倾向是正面。", True),
    ("ESG情感分类", "正向", "正面或中性", False),
    ("合规政策审核", "否", "该内容不合规。", True),
    ("合规政策审核", "否", "否，该内容不符合规定。", True),
    ("合规政策审核", "否", "判断结果：不合规", True),
    ("合规政策审核", "是", "该报告符合规定。", True),
    ("合规政策审核", "是", "是否合规：是", True),
    ("合规政策审核", "否", "是，该内容不合规。", False),                    # the sentence contradicts its lead word
    ("合规政策审核", "是", "是，该内容不合规。", False),
    ("合规政策审核", "是", "是或否", False),
    ("财报要点审核", "是", "结论：符合要求。", True),
    ("财报要点审核", "否", "不符合。理由：数据不一致。", True),
    ("金融事件分类", "业务资产重组", "事件类型：业务资产重组", True),
    ("金融事件分类", "业务资产重组", "该事件属于业务资产重组。", True),
    ("金融事件分类", "业务资产重组", "业务资产重组、涉嫌非法集资", False),
    ("金融会议业务分类", "经营", "**分类结果**：经营", True),
    ("金融会议业务分类", "经营", "经营\n（会议讨论了经营计划）", True),
    ("金融会议业务分类", "经营", "经营或预测", False),
    ("金融文档标题分类", "公司公告", "所属类别：公司公告", True),
    ("金融文档标题分类", "公司公告", "根据标题，我判断是公司公告。", True),
    ("金融文档标题分类", "公司公告", "“公司公告”还是“研究报告”？", False),
    ("金融行业分类", "电池", "所属行业：电池", True),
    ("金融行业分类", "电池", "电池、家电行业", False),
    ("银行客服对话意图分类", "汇兑费用", "客户意图：汇兑费用", True),
    ("银行客服对话意图分类", "汇兑费用", "用户的意图是汇兑费用。", True),
    ("银行客服对话意图分类", "汇兑费用", "汇兑费用，卡链接", False),
]

EXTRACTION = [  # (sub-task, gold, response, F1 a reader gives it)
    ("金融事件抽取", ROLES, "抽取结果如下：\n股票简称：甲公司\n减持方：张三", 1.0),
    ("金融事件抽取", ROLES, "好的，以下是抽取结果：\n1. **股票简称**：甲公司\n2. **减持方**：张三\n希望对您有帮助。",
     1.0),
    ("金融事件抽取", ROLES, "股票简称为甲公司，减持方为张三。", 1.0),
    ("金融事件抽取", ROLES, '```json\n{"股票简称": "甲公司", "减持方": "张三"}\n```', 1.0),
    ("金融事件抽取", ROLES, "- 股票简称: 甲公司\n- 减持方: 张三\n- 减持比例: 无", 1.0),
    ("金融事件抽取", ROLES, "股票简称：甲公司\n减持方：李四", 0.5),            # one field wrong
    ("金融事件抽取", "", "未提及相关实体。", 1.0),
    ("金融事件抽取", "", "抽取结果：无", 1.0),
    ("金融事件抽取", "", "无锡公司", 0.0),                                  # a name, not "nothing"
    ("金融事件因果关系抽取", CAUSAL, "根据事件，因果关系如下：\n原因类型：原材料价格上涨\n原因产品：无\n"
                                      "结果类型：利润下降\n结果行业：家电\n结果地区：未提及", 1.0),
    ("金融事件因果关系抽取", CAUSAL, "原因类型：原材料价格上涨\n结果类型：利润上升\n结果行业：家电", 2 / 3),
    ("行业情感信息抽取", INDUSTRY, "新能源：正面\n地产：负面", 1.0),
    ("行业情感信息抽取", INDUSTRY, "抽取结果如下：\n1. 新能源:正向,\n2. 地产:负向\n以上为抽取结果。", 1.0),
    ("行业情感信息抽取", INDUSTRY, "新能源：正向\n地产：正向", 0.5),
    ("金融事件主体抽取", "乙科技公司", "事件主体是乙科技公司。", 1.0),
    ("金融事件主体抽取", "乙科技公司", "该事件的主体为“乙科技公司”。", 1.0),
    ("金融事件主体抽取", "乙科技公司", "主体：乙科技公司\n以上为抽取结果。", 1.0),
    ("金融事件主体抽取", "乙科技公司", "乙科技公司和丙公司", 0.0),
    ("金融事件主体抽取", "乙科技公司", "乙科技", 0.0),
]


def test_the_table_covers_every_sub_task_with_both_outcomes():
    classification = {s for s, *_ in CLASSIFICATION}
    assert classification == {"ESG分类", "ESG情感分类", "合规政策审核", "财报要点审核", "金融事件分类",
                              "金融会议业务分类", "金融文档标题分类", "金融行业分类", "银行客服对话意图分类"}
    assert {s for s, *_ in EXTRACTION} == {"金融事件抽取", "金融事件因果关系抽取", "行业情感信息抽取",
                                           "金融事件主体抽取"}
    assert len(CLASSIFICATION) + len(EXTRACTION) >= 40
    assert {ok for *_, ok in CLASSIFICATION} == {True, False} and {f < 1 for *_, f in EXTRACTION} == {True, False}


@pytest.mark.parametrize(("sub_task", "gold", "response", "accepted"), CLASSIFICATION)
def test_default_accepts_a_classification_answer_iff_a_reader_does(sub_task, gold, response, accepted):
    assert record_scores("classification", sub_task, gold, response)["accuracy"] == float(accepted)


@pytest.mark.parametrize(("sub_task", "gold", "response", "f1"), EXTRACTION)
def test_default_scores_an_extraction_answer_as_a_reader_does(sub_task, gold, response, f1):
    assert record_scores("extraction", sub_task, gold, response)["f1"] == pytest.approx(f1)
