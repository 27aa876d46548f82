"""Step segmentation and final-answer extraction: the gold format exactly, each layout, hostile input."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.steps import (
    MAX_READ_CHARS,
    MAX_STEP_CHARS,
    MAX_STEPS,
    ParsedOutput,
    PredStep,
    extract_final_answer,
    parse_output,
    segment,
)

GOLD = """Step 1: Growth factor over the period = (1 + rate / 100) ^ years = (1 + 7.5 / 100) ^ 5 = 1.4356.
Step 2: Future value of the deposit = principal × growth = 15,900 × 1.4356 = $22,826.51.
Final answer: $22,826.51"""


def _values(parsed: ParsedOutput):
    return [None if s.value is None else (s.value.value, s.value.unit) for s in parsed.steps]


def test_gold_solution_parses_exactly():
    parsed = parse_output(GOLD)
    assert parsed.segmentation == "step_markers"
    assert [s.text for s in parsed.steps] == [
        "Growth factor over the period = (1 + rate / 100) ^ years = (1 + 7.5 / 100) ^ 5 = 1.4356.",
        "Future value of the deposit = principal × growth = 15,900 × 1.4356 = $22,826.51.",
    ]
    assert _values(parsed) == [(1.4356, ""), (22826.51, "$")]
    assert parsed.final_answer_text == "$22,826.51"
    assert (parsed.final_answer.value, parsed.final_answer.unit) == (22826.51, "$")
    assert parsed.reasoning == ""


def test_gold_percent_and_text_steps():
    text = ("Step 1: NPV of Project A = npv(10 / 100, -1,000, 600, 600) = $41.32.\n"
            "Step 2: Project to accept: Project A.\n"
            "Step 3: Interest rate per compounding period (%) = rate / periods_per_year = 4.66 / 2 = 2.33%.\n"
            "Final answer: Project A")
    parsed = parse_output(text)
    assert _values(parsed) == [(41.32, "$"), None, (2.33, "%")]
    assert parsed.final_answer_text == "Project A" and parsed.final_answer is None


def test_records_are_frozen():
    parsed = parse_output(GOLD)
    assert isinstance(parsed.steps[0], PredStep)
    with pytest.raises(AttributeError):
        parsed.steps[0].text = "x"


# (output, expected step texts, expected rule)
SEGMENT_CASES = [
    ("Step 1: a = 1\nStep 2: b = 2", ["a = 1", "b = 2"], "step_markers"),
    ("Step 1. a = 1\nStep 2. b = 2", ["a = 1", "b = 2"], "step_markers"),
    ("**Step 1.** a = 1\n**Step 2.** b = 2", ["a = 1", "b = 2"], "step_markers"),
    ("**Step 1:** a = 1\n\n**Step 2:** b = 2", ["a = 1", "b = 2"], "step_markers"),
    ("**Step 1: Growth**\ng = 1.4356\n\n**Step 2: Value**\nv = 5", ["Growth\ng = 1.4356", "Value\nv = 5"],
     "step_markers"),
    ("### Step 1\na = 1\n### Step 2\nb = 2", ["a = 1", "b = 2"], "step_markers"),
    ("Step 3 - a = 1\nSTEP 4) b = 2", ["a = 1", "b = 2"], "step_markers"),
    ("Let's go step by step.\nStep 1: a = 1\nStep 2: b = 2\nSo b is 2.", ["a = 1", "b = 2\nSo b is 2."],
     "step_markers"),
    ("Step 1: a = 1. Step 2: b = 2.", ["a = 1.", "b = 2."], "step_markers"),
    ("1. a = 1\n2. b = 2", ["a = 1", "b = 2"], "numbered_list"),
    ("1) a = 1\n2) b = 2", ["a = 1", "b = 2"], "numbered_list"),
    ("(1) a = 1\n(2) b = 2", ["a = 1", "b = 2"], "numbered_list"),
    ("**1.** a = 1\n**2.** b = 2", ["a = 1", "b = 2"], "numbered_list"),
    ("1. a = 1\n   - detail 9\n2. b = 2", ["a = 1\n   - detail 9", "b = 2"], "numbered_list"),
    ("- a = 1\n- b = 2", ["a = 1", "b = 2"], "bullets"),
    ("* a = 1\n* b = 2", ["a = 1", "b = 2"], "bullets"),
    ("• a = 1\n• b = 2", ["a = 1", "b = 2"], "bullets"),
    ("- a = 1\n  1. sub 9\n- b = 2", ["a = 1\n  1. sub 9", "b = 2"], "bullets"),
    ("## Growth\ng = 1.4356\n## Value\nv = 5", ["Growth\ng = 1.4356", "Value\nv = 5"], "headings"),
    ("**Growth:**\ng = 1.4356\n\n**Value:**\nv = 5", ["Growth:\ng = 1.4356", "Value:\nv = 5"], "headings"),
    ("First, compute g = 1.4356. Then, v = 5. Finally, round to 5.",
     ["compute g = 1.4356.", "v = 5.", "round to 5."], "ordinal_words"),
    ("Then we see. Next we go.", ["Then we see. Next we go."], "lines"),  # no "First": not an ordinal list
    ("We start.\n\nThe growth is 1.4356.\n\nThe value is 5.",
     ["We start.", "The growth is 1.4356.", "The value is 5."], "paragraphs"),
    ("g = 1.4356\nv = 5", ["g = 1.4356", "v = 5"], "lines"),
    ("v = 5", ["v = 5"], "lines"),
    ("\\begin{align*}\nr &= 4.66/2 = 2.33\\% \\\\\nFV &= 1000 \\times 1.0233 = 1023.30\n\\end{align*}",
     ["r = 4.66/2 = 2.33%", "FV = 1000 × 1.0233 = 1023.30"], "lines"),
    ("We have $r = 5\\%$ and \\(n = 2\\).\n\nSo $FV = 110.25$.", ["We have r = 5% and n = 2.", "So FV = 110.25."],
     "paragraphs"),
    ("| Year | CF | PV |\n|---|---:|---|\n| 1 | 100 | 90.91 |\n| 2 | 100 | 82.64 |",
     ["Year: 1; CF: 100; PV: 90.91", "Year: 2; CF: 100; PV: 82.64"], "paragraphs"),
    ("Intro.\n\n| 1 | 100 |\n| 2 | 200 |", ["Intro.", "1 | 100", "2 | 200"], "paragraphs"),
    ("<p>Step 1: a = 1</p><p>Step 2: b = 2</p>", ["a = 1", "b = 2"], "step_markers"),
    ("a = 1\n---\n* * *\nb = 2", ["a = 1", "b = 2"], "lines"),
    ("", [], "none"),
    ("   \n\n  ", [], "none"),
    ("---\n***", [], "none"),
    ("Final answer: 5", ["Final answer: 5"], "answer_only"),  # an answer alone is one step (issue 24)
]


@pytest.mark.parametrize(("text", "steps", "rule"), SEGMENT_CASES)
def test_segment(text, steps, rule):
    assert segment(text) == (steps, rule)


def test_segment_agrees_with_parse_output():
    for text, _, _ in SEGMENT_CASES:
        parsed = parse_output(text)
        assert ([s.text for s in parsed.steps], parsed.segmentation) == segment(text)


def test_answer_lines_are_not_steps():
    text = "Step 1: a = 1\nStep 2: b = 2\n**Final Answer:** $2\n\\boxed{2}"
    assert segment(text) == (["a = 1", "b = 2"], "step_markers")
    text = "1. a = 1\n2. b = 2\n\n### Final Answer\n\nThe value is **2**."
    assert segment(text) == (["a = 1", "b = 2"], "numbered_list")
    assert extract_final_answer(text)[1].value == 2


def test_step_values_use_the_last_equals():
    parsed = parse_output("- g = 1.075^5 = 1.4356\n- FV = 15,900 × 1.4356 = **$22,826.51**\n- check (2024)")
    assert _values(parsed) == [(1.4356, ""), (22826.51, "$"), (2024.0, "")]


# (output, final_answer_text, value or None)
ANSWER_CASES = [
    ("Final answer: $22,826.51", "$22,826.51", 22826.51),
    ("final ANSWER: 5", "5", 5.0),
    ("Answer: 7", "7", 7.0),
    ("**Final Answer:** **$1,050**", "$1,050", 1050.0),
    ("**Final Answer**: 1,050", "1,050", 1050.0),
    ("### Final Answer\n\n$22,826.51", "$22,826.51", 22826.51),
    ("The answer is 12.5%.", "12.5%", 12.5),
    ("Therefore, the final answer is 42.", "42", 42.0),
    ("So the answer is 3, which is small.", "3", 3.0),
    ("FV = \\boxed{22826.51}", "22826.51", 22826.51),
    ("The final answer is $\\boxed{\\$1,234}$.", "$1,234", 1234.0),
    ("\\boxed{4}\nlater \\boxed{5}", "5", 5.0),  # the last one wins
    ("Answer: 4\nFinal answer: 6", "6", 6.0),
    ("The answer is \\boxed{5}. Actually the final answer is 6.", "6", 6.0),
    ("Final answer: The future value after 5 years is $22,826.51.", "The future value after 5 years is $22,826.51",
     22826.51),
    ("Final answer: FV = 15,900 × 1.4356 = $22,826.51", "FV = 15,900 × 1.4356 = $22,826.51", 22826.51),
    ("Final answer: $22,826.51 (after 5 years)", "$22,826.51 (after 5 years)", 22826.51),
    ("Answer: Project A", "Project A", None),
    ("Final Answer: **Yes**, accept it.", "Yes", None),
    ("答案：B", "B", None),
    ("最终答案：5万元", "5万元", 50000.0),
    ("Step 1: a = 3\nStep 2: b = 4", "4", 4.0),  # no explicit answer: the last step value
    ("Step 1: a = 3\nStep 2: accept Project A", "3", 3.0),
    ("Step 1: accept Project A", "", None),
    ("To answer this, compute 5 + 5 = 10.", "10", 10.0),  # "answer" without a separator is prose
    ("Answer choices: A, B\n\nx = 2", "2", 2.0),
    ("", "", None),
]


@pytest.mark.parametrize(("text", "answer_text", "value"), ANSWER_CASES)
def test_final_answer(text, answer_text, value):
    got_text, got = extract_final_answer(text)
    assert got_text == answer_text
    if value is None:
        assert got is None
    else:
        assert got is not None and got.value == pytest.approx(value)
    parsed = parse_output(text)
    assert (parsed.final_answer_text, parsed.final_answer) == (got_text, got)


# --- reasoning blocks ----------------------------------------------------------------------


def test_think_block_is_reasoning_not_steps():
    parsed = parse_output("<think>Maybe 99? Answer: 99</think>\nStep 1: x = 5\nAnswer: 5")
    assert parsed.reasoning == "Maybe 99? Answer: 99"
    assert [s.text for s in parsed.steps] == ["x = 5"]
    assert parsed.final_answer.value == 5


def test_thinking_tag_any_case_and_several_blocks():
    parsed = parse_output("<THINKING>one</THINKING>a = 1\n<think>two</think>\nb = 2")
    assert parsed.reasoning == "one\n\ntwo"
    assert [s.text for s in parsed.steps] == ["a = 1", "b = 2"]


def test_unclosed_think_makes_the_rest_reasoning():
    parsed = parse_output("<think>working... Answer: 5")
    assert parsed.reasoning == "working... Answer: 5"
    assert parsed.steps == () and parsed.segmentation == "none"
    assert parsed.final_answer is None and parsed.final_answer_text == ""


def test_visible_text_before_an_unclosed_think_stays():
    parsed = parse_output("Step 1: a = 1\n<think>more")
    assert [s.text for s in parsed.steps] == ["a = 1"] and parsed.reasoning == "more"


def test_orphan_closing_tag_makes_the_prefix_reasoning():
    parsed = parse_output("hidden chain 77</think>Step 1: a = 3\n\\boxed{3}")
    assert parsed.reasoning == "hidden chain 77"
    assert _values(parsed) == [(3.0, "")]
    assert parsed.final_answer_text == "3"


# --- caps and hostile input ------------------------------------------------------------------


def test_step_count_is_capped_and_the_tail_merged():
    text = "\n".join(f"Step {k}: v = {k}" for k in range(1, 501))
    parsed = parse_output(text)
    assert len(parsed.steps) == MAX_STEPS
    assert parsed.steps[MAX_STEPS - 2].text == f"v = {MAX_STEPS - 1}"
    assert parsed.steps[-1].text.startswith(f"v = {MAX_STEPS}\n")


def test_step_length_is_capped():
    parsed = parse_output("Step 1: " + "word " * 2000 + "\nStep 2: b = 2")
    assert len(parsed.steps[0].text) <= MAX_STEP_CHARS
    assert parsed.steps[1].text == "b = 2"


def test_an_output_beyond_the_read_cap_is_read_as_its_head_and_tail():
    """Issue 40.5: a megabyte of line breaks took seconds; only the first and last MAX_READ_CHARS / 2 are read,
    so the steps at the start and the answer at the end still count and the middle does not."""
    filler = "\\\\" * MAX_READ_CHARS  # LaTeX line breaks: one line each once normalised
    text = f"Step 1: a = 5\nStep 2: b = 7\n{filler}\nStep 3: c = 99\n{filler}\nFinal answer: 12"
    parsed = parse_output(text)
    assert [s.text for s in parsed.steps] == ["a = 5", "b = 7"]  # the middle's step is not read
    assert parsed.final_answer is not None and parsed.final_answer.value == 12
    below = "\\\\" * (MAX_READ_CHARS // 5)
    whole = parse_output(f"Step 1: a = 5\n{below}\nStep 2: c = 99\n{below}\nFinal answer: 12")
    assert [s.text for s in whole.steps] == ["a = 5", "c = 99"]  # below the cap nothing is cut


HOSTILE = {
    "answers": "Answer: " * 12_500,
    "boxed": "\\boxed{1}" * 11_000,
    "think_open": "<think>" * 14_000,
    "think_close": "</think>" * 12_500,
    "steps": "Step 1: " * 12_500,
    "step_lines": "Step 1: x = 5\n" * 7_000,
    "list": "1. a\n" * 20_000,
    "bullets": "- a\n" * 25_000,
    "table": "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 10_000,
    "headings": "## a\n" * 20_000,
    "ordinals": "First, then. " * 8_000,
    "spaces": " " * 100_000,
    "newlines": "\n" * 100_000,
    "bold": "**a**   " * 12_500 + "x",
    "rule": "| " + " " * 100_000 + "-",
    "html": "<script>alert('Step 1: 5')</script>" * 2_800,
    "chinese": "答案是5万元，" * 14_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_100kb_outputs_return(name):
    parsed = parse_output(HOSTILE[name])
    assert len(parsed.steps) <= MAX_STEPS
    assert all(len(s.text) <= MAX_STEP_CHARS for s in parsed.steps)
    assert all(s.value is None or math.isfinite(s.value.value) for s in parsed.steps)


def _check(parsed: ParsedOutput):
    assert parsed.segmentation in {"step_markers", "numbered_list", "bullets", "headings", "ordinal_words",
                                   "lines", "paragraphs", "answer_only", "none"}
    assert (parsed.segmentation == "none") == (not parsed.steps)
    assert len(parsed.steps) <= MAX_STEPS
    for step in parsed.steps:
        assert step.text and step.text == step.text.strip() and len(step.text) <= MAX_STEP_CHARS
        assert step.value is None or math.isfinite(step.value.value)
    assert parsed.final_answer is None or math.isfinite(parsed.final_answer.value)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises_and_is_deterministic(text):
    parsed = parse_output(text)
    _check(parsed)
    assert parsed == parse_output(text)


_PIECES = ["Step 1:", "**Step 2.**", "### Step 3", "1.", "2)", "(3)", "- ", "* ", "• ", "First,", "Then,", "Finally,",
           "Final answer:", "Answer:", "The answer is", "\\boxed{", "}", "<think>", "</think>", "$", "$$", "\\(",
           "\\)", "\\\\", "&=", "|", "|---|", "**", "\n", "\n\n", " ", "=", "≈", "(", ")", "1,234.5", "5%", "-3",
           "1e999", "NaN", "x", "答案：", "<script>", "\\frac{1}{2}", "\\text{a}"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_markup_soup_never_raises(text):
    parsed = parse_output(text)
    _check(parsed)
    assert segment(text) == ([s.text for s in parsed.steps], parsed.segmentation)
    assert extract_final_answer(text) == (parsed.final_answer_text, parsed.final_answer)
