"""Answer extraction: a hand-written table in both modes, then fuzzing for the invariants."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.cflue.extract import INVALID, extract_answer

TF = {"A": "对", "B": "错"}
TF_WORDS = {"A": "正确", "B": "错误"}
ABCD = "ABCD"
ABCDE = "ABCDE"

_rng = random.Random(7)
NOISE = "".join(_rng.choice("市场风险收益资产负债利率汇率 ，。的了是在有和xyzqw\n") for _ in range(10_000))

# (response, valid letters or a choices dict, expected strict, expected robust)
CASES = [
    # the official format and its neighbours
    ("答案：B\n解析：我国A股实行T+1交易制度。", ABCD, "B", "B"),
    ("答案:C\n解析:……", ABCD, "C", "C"),
    ("答案是D", ABCD, "D", "D"),
    ("答案是：A", ABCD, "A", "A"),
    ("答案：ABD\n解析：C项属于非流动负债。", ABCD, "ABD", "ABD"),
    ("答案：DBA", ABCD, "ABD", "ABD"),
    ("答案：A、C", ABCD, "AC", "AC"),
    ("答案：A,C,D", ABCD, "ACD", "ACD"),
    ("答案：A，B", ABCD, "AB", "AB"),
    ("答案： A C", ABCD, "AC", "AC"),
    ("答案是 B 和 D", ABCD, "B", "BD"),
    ("答案：A 与 C", ABCD, "A", "AC"),
    ("答案：B，因为优先股股息率通常固定。", ABCD, "B", "B"),
    ("答案：B。A项错误。", ABCD, "B", "B"),
    ("答案：B项", ABCD, "B", "B"),
    ("答案是选项B和选项D", ABCD, "X", "BD"),
    ("答案为B", ABCD, "X", "B"),
    ("正确答案是C", ABCD, "C", "C"),
    ("最终答案：D", ABCD, "D", "D"),
    ("故选：D", ABCD, "X", "D"),
    ("综上，应选C。", ABCD, "X", "C"),
    # leading letters
    ("B", ABCD, "B", "B"),
    ("B. 因为A股实行T+1。", ABCD, "B", "B"),
    ("C选项正确", ABCD, "C", "C"),
    ("AC", ABCD, "AC", "AC"),
    ("A股市场实行T+1制度", ABCD, "A", "X"),
    ("A lot depends on the market.", ABCD, "A", "X"),
    (" (B)", ABCD, "X", "B"),
    ("\nB", ABCD, "B", "B"),               # strict strips first, as the authors do (issue 27)
    # full-width, markdown, HTML, LaTeX
    ("答案：Ｃ", ABCD, "X", "C"),
    ("答案：（Ｄ）", ABCD, "X", "D"),
    ("**答案：B**\n**解析：**……", ABCD, "B", "B"),
    ("### 答案\nB", ABCD, "X", "B"),
    ("<p>答案：<b>C</b></p>", ABCD, "X", "C"),
    ("<div>答案：A&nbsp;</div>", ABCD, "A", "A"),
    ("答案：<B>", ABCD, "X", "B"),
    ("答案：【A】", ABCD, "X", "A"),
    (r"\boxed{B}", ABCD, "X", "B"),
    (r"所以最终结果为 $\boxed{\text{D}}$。", ABCD, "X", "D"),
    (r"\boxed{A, C}", ABCD, "X", "AC"),
    # English
    ("Answer: B", ABCD, "A", "B"),
    ("Answer: (C)", ABCD, "A", "C"),
    ("The answer is D.", ABCD, "X", "D"),
    ("The correct answer is A and C.", ABCD, "X", "AC"),
    ("Final answer: b", ABCD, "X", "B"),
    ("answer: a", ABCD, "X", "A"),
    ("The answer is a bond ladder.", ABCD, "X", "X"),
    ("The answer depends on the rate.", ABCD, "X", "X"),
    # several answers: official takes the first, robust the last
    ("答案：A\n解析：……\n更正：答案：B", ABCD, "A", "B"),
    ("答案：A\n答案：C", ABCD, "A", "C"),
    ("选项A错误，所以答案是C", ABCD, "C", "C"),
    ("A项错误，B项错误，故选D", ABCD, "A", "D"),
    ("答案：C\n解析：A项不是正确答案，D项也不对。", ABCD, "C", "C"),
    ("不应选A，答案是B", ABCD, "B", "B"),
    # reasoning models
    ("<think>先看A……答案：A？不对，再想想。</think>\n答案：B\n解析：……", ABCD, "A", "B"),
    ("<think>答案：A</think>答案：B", ABCD, "A", "B"),
    ("推理过程……答案：A……</think>\n答案：C", ABCD, "A", "C"),
    ("答案：D<think>还在思考答案：A", ABCD, "D", "D"),
    # letters outside the options, hedges, words
    ("答案：E", ABCD, "X", "X"),
    ("答案：E", ABCDE, "E", "E"),
    ("答案：AE", ABCD, "X", "X"),
    ("答案：B或C", ABCD, "B", "X"),
    ("The answer is B or C.", ABCD, "X", "X"),
    ("答案：CPA考试相关", ABCD, "C", "X"),
    ("答案：OK", ABCD, "X", "X"),
    ("答案：G", "ABCDEFG", "X", "G"),
    # bare answer line after reasoning, nothing usable
    ("分析：优先股股息固定，表决权受限。\n\n**B**", ABCD, "X", "B"),
    ("分析……\nA、C", ABCD, "X", "AC"),
    ("", ABCD, "X", "X"),
    ("   ", ABCD, "X", "X"),
    ("我不知道。", ABCD, "X", "X"),
    ("答案：\n\n解析：无法判断。", ABCD, "X", "X"),
    (NOISE, ABCD, "X", "X"),
    (NOISE + "\n答案：D", ABCD, "D", "D"),
    # true/false
    ("答案：A\n解析：……", TF, "A", "A"),
    ("答案：对", TF, "X", "A"),
    ("答案：错误", TF, "X", "B"),
    ("答案：不正确", TF, "X", "B"),
    ("错。货币市场基金不得投资股票。", TF, "X", "B"),
    ("正确", TF, "X", "A"),
    ("对于这个问题，答案：错", TF, "X", "B"),
    ("对于这个问题需要具体分析。", TF, "X", "X"),
    ("答案：正确", TF_WORDS, "X", "A"),
    ("答案：对", ABCD, "X", "X"),
    ("答案：C", TF, "X", "X"),
]


def _valid(spec):
    return ({"choices": spec} if isinstance(spec, dict) else {"valid_letters": spec})


@pytest.mark.parametrize(("text", "spec", "strict", "robust"), CASES, ids=[c[0][:24] for c in CASES])
def test_extraction_table(text, spec, strict, robust):
    assert extract_answer(text, "strict", **_valid(spec)) == strict
    assert extract_answer(text, "robust", **_valid(spec)) == robust


def test_table_is_large_and_adversarial():
    assert len(CASES) >= 60
    assert sum(s != r for _, _, s, r in CASES) >= 30  # the modes really differ


def test_default_is_the_official_letters_and_strict_mode():
    assert extract_answer("答案：F") == "F"
    assert extract_answer("Answer: B") == "A"  # official quirk
    assert extract_answer(None) == INVALID
    with pytest.raises(ValueError, match="unknown extraction mode"):
        extract_answer("B", mode="lenient")


# Inputs that once made a regular expression backtrack exponentially or cubically; they must just finish.
PATHOLOGICAL = [
    ("A  " * 16 + "1", "A", "A"),
    ("B or" + " " * 10_000 + "1", "B", "X"),
    ("答案：B" + " " * 10_000 + "or" + " " * 10_000 + "1", "B", "B"),
    ("答案：" + "A、" * 5_000 + "1", "A", "A"),
    ("<think>" * 2_000, "X", "X"),
    ("答案" * 5_000, "X", "X"),
    ("A" + " " * 10_000 + "1", "A", "A"),
    ("(" * 10_000, "X", "X"),
    (r"\boxed{" * 3_000, "X", "X"),
]


@pytest.mark.parametrize(("text", "strict", "robust"), PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_pathological_inputs_finish(text, strict, robust):
    assert extract_answer(text, "strict") == strict
    assert extract_answer(text, "robust") == robust


letters_st = st.sets(st.sampled_from("ABCDEFG"), min_size=1).map(lambda s: "".join(sorted(s)))
text_st = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(["答案", "：", ":", "是", "A", "b", "C", "E", "、", "和", " ", "\n", "<think>", "</think>",
                              "(", ")", r"\boxed{", "}", "对", "错误", "Answer", "或", "选", "项", "<b>", "Ｂ", "**"]),
             max_size=40).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(text=text_st, valid=letters_st, mode=st.sampled_from(["strict", "robust"]))
def test_never_raises_and_returns_valid_letters_or_x(text, valid, mode):
    got = extract_answer(text, mode, valid)
    assert got == INVALID or (set(got) <= set(valid) and got == "".join(sorted(set(got))))


@settings(max_examples=200, deadline=None)
@given(answer=letters_st, prefix=st.text(alphabet="市场风险收益的了，。 \n", max_size=50),
       mode=st.sampled_from(["strict", "robust"]))
def test_a_plain_answer_line_is_always_read(answer, prefix, mode):
    """After any Chinese prose without letters, the official "答案：" line is found by both modes."""
    text = f"{prefix}\n答案：{answer}\n解析：见教材。"
    expected = answer.replace("G", "") or INVALID  # strict reads only A-F: "ABG" -> "AB" (G ends the run)
    assert extract_answer(text, mode, "ABCDEFG") == (answer if mode == "robust" else expected)


@settings(max_examples=200, deadline=None)
@given(choice=st.sampled_from(["A", "B"]), think=st.text(max_size=80))
def test_think_content_never_decides_robust(choice, think):
    text = f"<think>{think.replace('<', '')}答案：A</think>\n答案：{choice}"
    assert extract_answer(text, "robust", choices=TF) == choice
