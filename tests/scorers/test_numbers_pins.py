"""Number reading, pinned at the edges that mutation testing found unguarded (issue 20).

Each expected value is worked out by hand from the rules in the module docstring of
``scorers/numbers.py`` and /work/shared/design/CHAINEVAL.md (which say what a grader reads), not by
running the code; where inputs vary, hypothesis draws them and a second, simpler reading in the
test gives the expectation.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.numbers import (
    Number,
    compare_values,
    concluding_value,
    find_numbers,
    normalize,
    parse_number,
    strip_step_marker,
)


def _values(text: str) -> list[float]:
    return [n.value for n in find_numbers(text)]


# --- currency words and codes --------------------------------------------------------------------

@pytest.mark.parametrize(("text", "unit"), [
    ("Rs. 500", "₹"),  # the abbreviation's dot is not part of the code
    ("Rs 500", "₹"),  # only the exact spelling "Rs" is a code (not "RS", not "rs")
    ("5美元", "$"),  # US dollars in Chinese, not yuan
    ("5元", "¥"),
    ("5 Euros", "€"),  # currency words are matched case-insensitively
    ("10 Yen", "¥"),
    ("3 Dollars", "$"),
])
def test_currency_spellings(text, unit):
    got = parse_number(text)
    assert got is not None and got.unit == unit


@pytest.mark.parametrize(("gold_unit", "expected"), [
    # a gold unit that names a currency in lower case is still that currency: no percent scaling
    ("eur", [5.0]), ("gbp", [5.0]), ("rmb", [5.0]), ("inr", [5.0]),
    # a unit that merely starts with a currency code is not a currency: % vs plain gives both readings
    ("EURX", [0.05, 5.0]), ("GBPX", [0.05, 5.0]),
    ("", [0.05, 5.0]),
])
def test_gold_unit_spellings(gold_unit, expected):
    assert compare_values(Number(5.0, "%"), 0.05, gold_unit) == pytest.approx(expected)


# --- accounting parentheses: value position ------------------------------------------------------

@pytest.mark.parametrize(("text", "values"), [
    # start of a line is a value position, whatever blanks precede the parentheses
    ("Net income\n(1,200)", [-1200]),
    ("Net income\n  (1,200)", [-1200]),
    # after a word the parentheses are an aside, also for a one-letter word at the start
    ("a (5)", [5]),
    ("X (5)", [5]),
    ("X **(5)**", [5]),
    # after a number they are an aside too ("= 100 (5%)" explains the 100)
    ("Total = 100 (5%)", [100, 5]),
    # a bold label that ends in a colon is a value position; bold closing after a word is not
    ("**Net loss:** (1,200)", [-1200]),
    ("__Net loss:__ (1,200)", [-1200]),
    ("Net **loss:** (1,200)", [-1200]),
    ("**Net loss** (1,200)", [1200]),
    ("**(see note)** (5)", [5]),
    # a bold value of its own on a new line, and after "= " with a blank before the bold
    ("Net loss\n**(1,200)**", [-1200]),
    ("Net loss = **(1,200)**", [-1200]),
    # what follows: an operator or another parenthesis makes it a factor, a line break does not
    ("= (1.05) × 2", [1.05, 2]),
    ("= (1.05)(2)", [1.05, 2]),
    # x or X written as a times sign (followed by its operand) is an operator too; a word is not
    ("= (1.05) x 2", [1.05, 2]),
    ("= (1.05) X 2", [1.05, 2]),
    ("= (1.05)x(2)", [1.05, 2]),
    ("Net loss: (500) xyz", [-500]),
    ("Net loss: (500) X", [-500]),
    ("Net loss: (1,200)\n- Revenue: 500", [-1200, 500]),
])
def test_parentheses_in_running_text(text, values):
    assert _values(text) == pytest.approx(values)


def test_the_context_windows_are_bounded():
    """The scan looks at most 40 characters left and 3 right of ``(x)`` (linear time on hostile text).
    A longer blank run on the left reads as a fresh start (a fixed-width table column); an operator
    beyond three blanks on the right is no longer seen."""
    assert _values("a" + " " * 39 + "(5)") == [5]
    assert _values("a" + " " * 40 + "(5)") == [-5]
    assert _values("= (5)  × 2") == [5, 2]
    assert _values("= (5)   × 2") == [-5, 2]


# --- exponents, scale words, fractions -------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("1.2e−3", 1.2e-3),  # a unicode minus in the exponent
    ("1.2 × 10^−3", 1.2e-3),
    ("2.5e00002", 250.0),  # five exponent digits are still read (six are absurd: skipped)
    ("2.5e000002", None),
    ("1.5e2 × 10^3", 1.5e5),  # every power of ten adds up
    ("1.5e2k", 1.5e5),
])
def test_exponents(text, value):
    got = parse_number(text)
    assert (got is None) if value is None else (got is not None and got.value == pytest.approx(value, rel=1e-12))


SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "mn": 1e6, "mln": 1e6,
               "mio": 1e6, "bn": 1e9, "bln": 1e9, "tn": 1e12}


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 999), word=st.sampled_from(sorted(SCALE_WORDS)), data=st.data())
def test_scale_words_in_any_letter_case(n, word, data):
    upper = data.draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    written = "".join(c.upper() if u else c for c, u in zip(word, upper))
    got = parse_number(f"{n} {written}")
    assert got is not None and got.value == pytest.approx(n * SCALE_WORDS[word], rel=1e-12), written


@settings(max_examples=150, deadline=None)
@given(a=st.integers(1, 999), b=st.integers(1, 10**12))
def test_fractions_of_any_size(a, b):
    """Tiny quotients (``1/1000000`` is 1e-06, written with an exponent) read as well as plain ones."""
    got = parse_number(f"{a}/{b}")
    assert got is not None and got.value == pytest.approx(a / b, rel=1e-12)
    got = parse_number(f"{a}/{b} thousand")
    assert got is not None and got.value == pytest.approx(a / b * 1e3, rel=1e-12)


def test_tiny_fractions_by_hand():
    assert parse_number("1/1000000").value == pytest.approx(1e-6, rel=1e-12)
    assert parse_number("1/200000 million").value == pytest.approx(5.0, rel=1e-12)


# --- what a token keeps: sign, parentheses, text ---------------------------------------------------

def test_an_unbalanced_parenthesis_is_not_accounting():
    assert parse_number("(12") == Number(12.0, "", "12")
    assert parse_number("12)") == Number(12.0, "", "12")
    assert _values("Loss: (12 and more") == [12]


def test_a_signed_number_in_parentheses_keeps_its_sign():
    """Accounting parentheses mean minus only around an unsigned number: ``(+5%)`` is +5, ``(-5)`` is -5."""
    assert parse_number("(+5%)") == Number(5.0, "%", "+5%")
    assert parse_number("(-5)") == Number(-5.0, "", "-5")
    assert [(n.value, n.text) for n in find_numbers("Change: (+5%)")] == [(5.0, "+5%")]
    assert [(n.value, n.text) for n in find_numbers("Change: (−5%)")] == [(-5.0, "−5%")]


def test_an_aside_keeps_the_number_text_without_its_parentheses():
    assert [(n.value, n.text) for n in find_numbers("the rate (8%) applies")] == [(8.0, "8%")]
    assert [(n.value, n.text) for n in find_numbers("Net income: (1,200) this year")] == [(-1200.0, "(1,200)")]


@pytest.mark.parametrize("text", ["(0)", "-0", "−0.0", "($0)", "(0%)", "0"])
def test_zero_is_never_negative(text):
    """A negative zero would print as ``-0`` in reports; every zero comes out as +0.0."""
    got = parse_number(text)
    assert got is not None and got.value == 0.0 and str(got.value) == "0.0"


# --- highlights that are headings -----------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("**Year 1: ** PV = 100 / 1.1 = 90.91", 90.91),  # blank inside the bold after the colon
    ("**第1年：** PV = 100 / 1.1 = 90.91", 90.91),  # fullwidth colon inside
    ("**Year 1** : PV = 100 / 1.1 = 90.91", 90.91),  # colon after a blank outside
    ("**Year 1**：PV = 100 / 1.1 = 90.91", 90.91),  # fullwidth colon outside
    ("**Year 1** PV = 100 / 1.1 = 90.91", 1.0),  # no colon: a highlight, whatever it holds
    ("**Year 1**   : PV = 100 / 1.1 = 90.91", 1.0),  # the colon is looked for within three characters
    # a heading is skipped, and an earlier highlight still counts
    ("The growth factor is **1.4356**; **Check:** 1.075^5", 1.4356),
])
def test_bold_headings_are_not_results(text, value):
    got = concluding_value(text)
    assert got is not None and got.value == pytest.approx(value)


# --- step markers ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "stripped"), [
    ("\n\nStep 1: a", "a"),  # blank lines before the label
    ("- 1. Step 2: a", "a"),  # three stacked markers: bullet, number, label
    ("- - - - a", "- a"),  # at most three are removed; a fourth dash is content
    # a bold span the label opened is closed on the same line: that closing ** goes too ...
    ("**Step 2: FV = 5**", "FV = 5"),
    ("**Step 2: FV** = 5\nnext", "FV = 5\nnext"),
    # ... but a ** on a later line belongs to another highlight and stays
    ("**Step 2: Compute FV\nFV = **5**", "Compute FV\nFV = **5**"),
    ("**Step 2: a\nb** c\nd", "a\nb** c\nd"),
    # the first ** on the line closes the label's bold, not the last one
    ("**Step 2: FV** = **5**", "FV = **5**"),
    # the closing ** may be the very first thing after the marker
    ("**1. **Revenue", "Revenue"),
])
def test_step_markers_at_the_edges(text, stripped):
    assert strip_step_marker(text) == stripped


# --- one string, one number: unwrapping and the length bound ----------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("= **5**", 5.0),  # the "=" goes first, then the bold: two rounds of peeling
    ("about **5%**.", 5.0),
    (": 5", 5.0),
    ("=5", 5.0),
    (":5", 5.0),
    ("**" * 4 + "5" + "**" * 4, 5.0),  # up to four layers of the same wrapper are peeled ...
    ("**" * 5 + "5" + "**" * 5, None),  # ... a fifth is not
    ("(5)", -5.0),
    ("(5) years", None),  # a parenthesised number must be the whole string
    ("(5) X", None),
    ("0" * 499 + "5", 5.0),  # 500 characters: still one number
    ("0" * 500 + "5", None),  # longer: a whole answer, not a value
])
def test_one_string_one_number(text, value):
    got = parse_number(text)
    assert (got is None) if value is None else (got is not None and got.value == value)


# --- normalisation of what is not a plain string ------------------------------------------------------

def test_non_strings_are_read_as_their_text():
    """A field that arrived as None or as a number (a JSON answer) reads like its text, never raises."""
    assert normalize(None) == ""
    assert normalize(12.5) == "12.5"
    assert parse_number(None) is None
    assert parse_number(1200) == Number(1200.0, "", "1200")
    assert find_numbers(None) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("a\r\nb", "a\nb"),  # a Windows line break is one line break
    ("a\rb", "a\nb"),  # so is a lone carriage return
    ("a\r\n\r\nb", "a\n\nb"),
])
def test_line_breaks(text, expected):
    assert normalize(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("\\frac{\\frac{1}{2}}{3}", "(1/2)/(3)"),
    ("\\frac{\\frac{\\frac{1}{2}}{3}}{4}", "((1/2)/(3))/(4)"),  # three levels are unfolded ...
    ("\\frac{\\frac{\\frac{\\frac{1}{2}}{3}}{4}}{5}", "\\frac{((1/2)/(3))/(4)}{5}"),  # ... a fourth is not
    ("\\begin{aligned} x &= 5 \\end{aligned}", " x = 5 "),  # environments vanish, alignment & too
])
def test_latex_structures(text, expected):
    assert normalize(text) == expected
