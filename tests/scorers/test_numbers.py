"""Number reading: hand-written tables for every documented rule, then fuzzing for robustness."""

import math

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

# (text, value, unit); value None means "not a number".
PARSE_CASES = [
    # plain, signs
    ("42", 42.0, ""),
    ("0.0042", 0.0042, ""),
    (".5", 0.5, ""),
    ("-4.5", -4.5, ""),
    ("−4.5", -4.5, ""),  # unicode minus
    ("–4.5", -4.5, ""),  # en-dash
    ("+3", 3.0, ""),
    # currency, before and after, symbols and words
    ("$1,234.50", 1234.5, "$"),
    ("-$5", -5.0, "$"),
    ("$-5", -5.0, "$"),
    ("€5", 5.0, "€"),
    ("5 €", 5.0, "€"),
    ("£3.20", 3.2, "£"),
    ("¥100", 100.0, "¥"),
    ("USD 1,000", 1000.0, "$"),
    ("1,000 USD", 1000.0, "$"),
    ("EUR 250", 250.0, "€"),
    ("US$7", 7.0, "$"),
    ("12 dollars", 12.0, "$"),
    ("\\$22,826.51", 22826.51, "$"),
    # percent and basis points
    ("2.33%", 2.33, "%"),
    ("5 %", 5.0, "%"),
    ("5 percent", 5.0, "%"),
    ("5 per cent", 5.0, "%"),
    ("3 percentage points", 3.0, "%"),
    ("4.5\\%", 4.5, "%"),
    ("25 bp", 25.0, "bp"),
    ("25bps", 25.0, "bp"),
    ("25 basis points", 25.0, "bp"),
    ("≈ 12 bps", 12.0, "bp"),
    # accounting parentheses (a whole string that is one parenthesised number)
    ("(3.2%)", -3.2, "%"),
    ("($1,234)", -1234.0, "$"),
    ("(500)", -500.0, ""),
    ("(-5)", -5.0, ""),
    # scale words
    ("12k", 12000.0, ""),
    ("12K", 12000.0, ""),
    ("1.2M", 1.2e6, ""),
    ("5m", 5e6, ""),
    ("3 mn", 3e6, ""),
    ("3 million", 3e6, ""),
    ("2.5 thousand", 2500.0, ""),
    ("$4B", 4e9, "$"),
    ("£3.2bn", 3.2e9, "£"),
    ("1.5 billion", 1.5e9, ""),
    ("2T", 2e12, ""),
    ("1 trillion", 1e12, ""),
    ("$2 MM", 2e6, "$"),
    ("5万元", 50000.0, "¥"),
    ("3亿", 3e8, ""),
    # scientific notation
    ("1.2e5", 1.2e5, ""),
    ("1.2E-3", 1.2e-3, ""),
    ("−4.5e3", -4500.0, ""),
    ("1.2 × 10^5", 1.2e5, ""),
    ("1.2×10⁵", 1.2e5, ""),
    ("1.2 x 10^-3", 1.2e-3, ""),
    ("1.2*10**5", 1.2e5, ""),
    ("1.2 \\times 10^{5}", 1.2e5, ""),
    ("3×10⁻²", 0.03, ""),
    # fractions
    ("3/4", 0.75, ""),
    ("\\frac{3}{4}", 0.75, ""),
    ("1/0", None, ""),
    # separators: comma grouping
    ("1,234", 1234.0, ""),
    ("1,234,567", 1234567.0, ""),
    ("1,234.5", 1234.5, ""),
    ("1,234,567.89", 1234567.89, ""),
    ("12,34,567", 1234567.0, ""),  # Indian lakh grouping
    # separators: space grouping, European decimals
    ("1 234 567", 1234567.0, ""),
    ("1\u2009234\u2009567", 1234567.0, ""),
    ("1\u202f234,5", 1234.5, ""),
    ("1\u00a0234", 1234.0, ""),
    ("1 234,5", 1234.5, ""),
    ("1 234.5", 1234.5, ""),
    ("1.234.567", 1234567.0, ""),
    ("1.234,56", 1234.56, ""),
    ("1.234", 1.234, ""),  # a single dot group is a decimal point
    ("3,5%", 3.5, "%"),
    ("12,3456", 12.3456, ""),
    ("1{,}234", 1234.0, ""),  # LaTeX thousands separator
    ("1\\,234", 1234.0, ""),  # LaTeX thin space
    # markup, approximation, trailing punctuation and unit words
    ("**$22,826.51**", 22826.51, "$"),
    ("\\boxed{5}", 5.0, ""),
    ("$\\boxed{7}$", 7.0, ""),
    ("about 5%", 5.0, "%"),
    ("~ 3", 3.0, ""),
    ("approximately 1,000", 1000.0, ""),
    ("$22,826.51.", 22826.51, "$"),
    ("= 4", 4.0, ""),
    ("7 years", 7.0, ""),
    ("１２３", 123.0, ""),  # fullwidth digits
    # not numbers
    ("NaN", None, ""),
    ("nan", None, ""),
    ("inf", None, ""),
    ("-Infinity", None, ""),
    ("1e999", None, ""),  # overflow is skipped, never inf
    ("1e99999999", None, ""),
    ("Project A", None, ""),
    ("1, 2, 3", None, ""),
    ("3 to 5", None, ""),
    ("", None, ""),
    ("-", None, ""),
    ("$", None, ""),
    ("%", None, ""),
    ("twelve", None, ""),
]


@pytest.mark.parametrize(("text", "value", "unit"), PARSE_CASES)
def test_parse_number(text, value, unit):
    got = parse_number(text)
    if value is None:
        assert got is None
    else:
        assert got is not None, text
        assert got.value == pytest.approx(value, rel=1e-12)
        assert got.unit == unit


def test_parse_number_keeps_the_matched_text():
    assert parse_number("  $1,234.50 ") == Number(1234.5, "$", "$1,234.50")
    assert parse_number("(3.2%)").text == "(3.2%)"


def test_large_but_finite_values_survive():
    assert parse_number("1e308").value == 1e308
    assert parse_number("1e308k") is None  # 1e311 overflows: skipped


# Running text: (text, values in reading order).
FIND_CASES = [
    ("1, 2, 3", [1, 2, 3]),
    ("1,2,3", [1, 2, 3]),
    ("1,234 and 5,678.9", [1234, 5678.9]),
    ("from 2020-2024", [2020, 2024]),
    ("a range of 5–10%", [5, 10]),
    ("x = 10 - 3 = 7", [10, 3, 7]),
    ("change of -3 and −4", [-3, -4]),
    ("the discount rate (8%) applies", [8]),  # an aside, not a negative
    ("Net income: (1,200)", [-1200]),  # accounting value position
    ("| Loss | ($500) |", [-500]),
    ("= (1.05)^5", [1.05, 5]),  # a factor, not a negative
    ("= 100 / (1.05) × 2", [100, 1.05, 2]),
    ("f(3) + g(4)", [3, 4]),
    ("(1 + 0.05)^5", [1, 0.05, 5]),
    ("Q3 revenue rose in FY2024 by x2", []),  # digits glued to letters are names
    ("CF_1 = 100", [100]),
    ("dates 3/4/2024", [3, 4, 2024]),
    ("half is 1/2", [0.5]),
    ("rate / 100", [100]),
    ("1.4356.", [1.4356]),
    ("1 234 567 people", [1234567]),
    ("5min then 5km", [5, 5]),
    ("1e999 then 7", [7]),
    ("NaN inf 3", [3]),
    ("利率为5%，期限3年", [5, 3]),
    ("<b>$5</b> and <script>x=1e3</script>", [5, 1000]),
    ("1.2×10⁵ and 2e-2", [1.2e5, 0.02]),
]


@pytest.mark.parametrize(("text", "values"), FIND_CASES)
def test_find_numbers(text, values):
    assert [n.value for n in find_numbers(text)] == pytest.approx(values)


def test_find_numbers_units_and_text():
    found = find_numbers("Pay $1,200 at 4.5% for 25 bps, 3 million euros")
    assert [(n.value, n.unit) for n in found] == [(1200, "$"), (4.5, "%"), (25, "bp"), (3e6, "€")]
    assert [n.text for n in found] == ["$1,200", "4.5%", "25 bps", "3 million euros"]


# Steps: (text, value, unit); value None means no conclusion.
CONCLUDE_CASES = [
    ("Step 1: Growth factor over the period = (1 + rate / 100) ^ years = (1 + 7.5 / 100) ^ 5 = 1.4356.",
     1.4356, ""),
    ("Step 2: Future value of the deposit = principal × growth = 15,900 × 1.4356 = $22,826.51.", 22826.51, "$"),
    ("Step 3: Interest rate per compounding period (%) = rate / periods_per_year = 4.66 / 2 = 2.33%.", 2.33, "%"),
    ("Step 2: Project to accept: Project A.", None, ""),
    ("Step 3: 42", 42.0, ""),
    ("Step 3:", None, ""),
    ("2. The growth is 1.4356", 1.4356, ""),
    ("(2) The growth is 1.4356", 1.4356, ""),
    ("**Step 2.** FV = 1,000 × 1.05", 1000.0, ""),
    ("### Step 3 - total", None, ""),
    ("42.", 42.0, ""),
    ("The growth factor is 1.075^5, about 1.4356", 1.4356, ""),
    ("Growth = 1.075^5 ≈ 1.4356 (4 dp)", 1.4356, ""),
    ("1.075^5 → 1.4356 (rounded from 1.43563)", 1.4356, ""),
    ("We use **r = 5%** here", 5.0, "%"),
    ("FV = 15,900 × 1.4356 = **$22,826.51** after 5 years", 22826.51, "$"),
    ("**Year 1 (2024):** PV = 100 / 1.1 = 90.91", 90.91, ""),
    ("**Year 1**: PV = 100 / 1.1 = 90.91", 90.91, ""),
    ("**Step 2: Compute FV** = 15,900 × 1.4356 = $22,826.51", 22826.51, "$"),
    ("So FV = \\boxed{22826.51} and r = 5", 22826.51, ""),
    ("\\textbf{1,050} is the value at 5%", 1050.0, ""),
    ("Net loss = (1,200)", -1200.0, ""),
    ("FV = P(1 + r)^n = ?", 1.0, ""),  # a number after the last "=" is required; else the last one
    ("The answer is Project A", None, ""),
]


@pytest.mark.parametrize(("text", "value", "unit"), CONCLUDE_CASES)
def test_concluding_value(text, value, unit):
    got = concluding_value(text)
    if value is None:
        assert got is None
    else:
        assert got is not None and got.value == pytest.approx(value) and got.unit == unit


@pytest.mark.parametrize(("text", "stripped"), [
    ("Step 1: a", "a"), ("Step 1. a", "a"), ("**Step 2.** a", "a"), ("**Step 2:** a", "a"), ("**Step 2**: a", "a"),
    ("### Step 3\na", "a"), ("Step 3 - a", "a"), ("STEP 4) a", "a"), ("1. a", "a"), ("2) a", "a"), ("(3) a", "a"),
    ("- a", "a"), ("* a", "a"), ("• a", "a"), ("**Step 2: Compute FV** = 5", "Compute FV = 5"),
    ("Step 2: -5% change", "-5% change"), ("1.5 is a", "1.5 is a"), ("Steps matter", "Steps matter"),
])
def test_strip_step_marker(text, stripped):
    assert strip_step_marker(text) == stripped


COMPARE_CASES = [
    (Number(5, "%"), 0.05, "", [0.05, 5.0]),
    (Number(0.05), 5.0, "%", [0.05, 5.0]),
    (Number(5, "%"), 5.0, "%", [5.0]),
    (Number(25, "bp"), 0.25, "%", [0.25]),
    (Number(0.25, "%"), 25.0, "bp", [25.0]),
    (Number(100, "bp"), 1.0, "%", [1.0]),
    (Number(25, "bp"), 0.0025, "", [0.0025, 25.0]),
    (Number(0.0025), 25.0, "bps", [0.0025, 25.0]),
    (Number(1200, "$"), 1200.0, "$", [1200.0]),
    (Number(1200, "$"), 1200.0, "€", [1200.0]),  # currency symbols never scale
    (Number(5, "$"), 5.0, "%", [5.0]),
    (Number(5, "%"), 5.0, "USD", [5.0]),
    (Number(7), 7.0, "years", [7.0]),
    (Number(7, "%"), 0.07, "years", [0.07, 7.0]),  # an unknown unit is dimensionless
    (Number(0.0), 0.0, "%", [0.0]),  # duplicates collapse
]


@pytest.mark.parametrize(("pred", "gold", "unit", "expected"), COMPARE_CASES)
def test_compare_values(pred, gold, unit, expected):
    assert compare_values(pred, gold, unit) == pytest.approx(expected)


def test_compare_values_never_returns_non_finite():
    assert compare_values(Number(1e308), 1.0, "bp") == [1e308]


@pytest.mark.parametrize(("text", "expected"), [
    ("$x = 5$", "x = 5"),
    ("\\(r = 5\\%\\)", "r = 5%"),
    ("$$FV = 1{,}000$$", "FV = 1,000"),
    ("a \\\\ b", "a \nb"),
    ("\\text{FV} = \\frac{a}{b}", "FV = a/b"),
    ("\\frac{1+r}{2}", "(1+r)/(2)"),
    ("\\textbf{5}", "**5**"),
    ("x &= 5", "x = 5"),
    ("costs $5 and $6", "costs $5 and $6"),  # currency, not math
])
def test_normalize(text, expected):
    assert normalize(text) == expected


# --- robustness ---------------------------------------------------------------------------

HOSTILE = {
    "digits": "9" * 100_000,
    "commas": "1," * 50_000,
    "groups": "1" + ",234" * 25_000,
    "spaces": "1 " * 50_000,
    "parens": "(" * 100_000,
    "dollars": "$a " * 33_000,
    "exponents": "1e" * 50_000,
    "dots": "1." * 50_000,
    "fractions": "1/" * 50_000,
    "boxed": "\\boxed{" * 14_000,
    "bold": "**a" * 33_000,
    "blank": " " * 100_000,
    "tabs": "\t" * 100_000,
    "sci": "1.2 × 10^" * 11_000,
    "mixed": "1, 2 3.4 (5) $6 7% " * 5_000,
    "latex": "\\frac{\\text{" * 8_000,
    "html": "<script>alert('1e999')</script>" * 3_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_100kb_inputs_return(name):
    text = HOSTILE[name]
    found = find_numbers(text)
    assert all(math.isfinite(n.value) for n in found)
    for number in (parse_number(text), concluding_value(text)):
        assert number is None or math.isfinite(number.value)


def _finite_or_none(number):
    return number is None or (isinstance(number, Number) and math.isfinite(number.value))


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises_and_is_deterministic(text):
    found = find_numbers(text)
    assert found == find_numbers(text)
    assert all(_finite_or_none(n) for n in found)
    assert _finite_or_none(parse_number(text)) and parse_number(text) == parse_number(text)
    assert _finite_or_none(concluding_value(text)) and concluding_value(text) == concluding_value(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789,. -−–()$€%e×^/kMB\u2009\u00a0=:*\\{}")), max_size=60))
def test_number_like_noise_never_raises(text):
    assert all(math.isfinite(n.value) for n in find_numbers(text))
    assert _finite_or_none(parse_number(text))
    assert _finite_or_none(concluding_value(text))


def _styles(x: float) -> list[tuple[str, str]]:
    """``x`` written the ways accountants, Europeans and LaTeX write it, with the expected unit."""
    mag = f"{abs(x):,.2f}"
    sign = "-" if x < 0 else ""
    european = mag.replace(",", "_").replace(".", ",").replace("_", ".")
    return [
        (f"{x:,.2f}", ""),
        (f"{sign}${mag}", "$"),
        (f"${x:,.2f}", "$"),
        (f"{x:,.2f}%", "%"),
        (f"({mag})" if x < 0 else mag, ""),
        (f"(${mag})" if x < 0 else f"${mag}", "$"),
        (f"({mag}%)" if x < 0 else f"{mag}%", "%"),
        (f"{sign.replace('-', '−')}{mag}", ""),
        (sign + mag.replace(",", "\u202f"), ""),
        (sign + european, ""),
        (f"{sign}€{mag}", "€"),
        (f"{x:,.2f} USD", "$"),
    ]


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_infinity=False))
def test_formatted_numbers_round_trip(x):
    expected = float(f"{x:.2f}")
    for text, unit in _styles(x):
        got = parse_number(text)
        assert got is not None, text
        assert math.isclose(got.value, expected, rel_tol=1e-9, abs_tol=1e-12), (text, got)
        assert got.unit == unit, text
        assert [n.value for n in find_numbers(f"= {text}")] == [got.value], text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**12), st.sampled_from([("k", 1e3), ("M", 1e6), (" million", 1e6),
                                                                      ("bn", 1e9), (" thousand", 1e3), ("", 1.0)]))
def test_scale_words_round_trip(n, scale):
    suffix, factor = scale
    got = parse_number(f"{n:,}{suffix}")
    assert got is not None and math.isclose(got.value, n * factor, rel_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1e6), st.integers(min_value=-20, max_value=20))
def test_scientific_round_trip(mantissa, exponent):
    expected = float(f"{mantissa:.4f}e{exponent}")
    for text in (f"{mantissa:.4f}e{exponent}", f"{mantissa:.4f} × 10^{exponent}", f"{mantissa:.4f}*10**{exponent}"):
        got = parse_number(text)
        assert got is not None and math.isclose(got.value, expected, rel_tol=1e-12), text
