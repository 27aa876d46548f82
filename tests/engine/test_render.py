"""Gold step text in words and numbers: hand-written expected lines for each form the renderer knows."""

from __future__ import annotations

import math

import pytest

from finchain_tasks.engine import Builder, Step, Template, all_templates
from finchain_tasks.engine.formatting import result_number, result_text
from finchain_tasks.engine.render import shown_value
from scorers.steps import parse_output


def line(description, formula, value, unit="", **params):
    """Render one step whose parameters are given as (value, display) pairs."""
    values = {k: v for k, (v, _) in params.items()}
    displays = {k: d for k, (_, d) in params.items()}
    return Step("s", description, formula, value, unit).render(values, displays, {})


def test_npv_is_expanded_term_by_term():
    value = -1000 + 600 / 1.1 + 600 / 1.21  # 41.3223...
    text = line("NPV", "npv(rate / 100, -cost, cf1, cf2)", value, "$",
                rate=(10, "10%"), cost=(1000, "$1,000"), cf1=(600, "$600"), cf2=(600, "$600"))
    assert text == "NPV: −1,000 + 600/(1 + 10%) + 600/(1 + 10%)^2 = $41.32"


def test_npv_with_a_negative_later_flow_subtracts_it():
    value = 500 - 100 / 1.05
    text = line("NPV", "npv(rate / 100, cf0, -cf1)", value, "$", rate=(5, "5%"), cf0=(500, "$500"),
                cf1=(100, "$100"))
    assert text == "NPV: 500 − 100/(1 + 5%) = $404.76"


def test_irr_states_the_equation_it_solved():
    # 1000 = 600/x + 600/x^2 with x = 1 + r  ->  1000x^2 - 600x - 600 = 0
    x = (600 + math.sqrt(600 ** 2 + 4 * 1000 * 600)) / (2 * 1000)
    rate = (x - 1) * 100
    text = line("Internal rate of return", "irr(-cost, cf1, cf2) * 100", rate, "%",
                cost=(1000, "$1,000"), cf1=(600, "$600"), cf2=(600, "$600"))
    assert text == ("Internal rate of return: the rate r at which −1,000 + 600/(1 + r) + 600/(1 + r)^2 = 0 "
                    f"is r = {rate:.6f}%")
    assert f"{rate:.6f}" == "13.066239"


def test_conditional_is_the_chosen_branch_with_its_reason():
    text = line("Applicable tax rate", "lt_rate if months > 12 else st_rate", 28, "%",
                lt_rate=(15, "15%"), st_rate=(28, "28%"), months=(8, "8 months"))
    assert text == "Applicable tax rate (since 8 months ≤ 12) = 28.000000%"
    text = line("Tax", "gain * (lt_rate if months > 12 else st_rate) / 100", 150.0, "$",
                gain=(1000, "$1,000"), lt_rate=(15, "15%"), st_rate=(28, "28%"), months=(18, "18 months"))
    assert text == "Tax (since 18 months > 12): 1,000 × 15% = $150.00"


def test_max_and_min_read_as_words():
    text = line("Deduction taken", "max(standard, itemized)", 27_300, "$",
                standard=(13_400, "$13,400"), itemized=(27_300, "$27,300"))
    assert text == "Deduction taken: the larger of 13,400 and 27,300 = $27,300.00"
    text = line("Lower-bracket tax", "min(income, t1) * r1 / 100", 4_320.0, "$",
                income=(45_000, "$45,000"), t1=(36_000, "$36,000"), r1=(12, "12%"))
    assert text == "Lower-bracket tax: (the smaller of 45,000 and 36,000) × 12% = $4,320.00"


def test_math_notation_for_the_other_functions():
    assert line("Root", "sqrt(a ** 2 + 4 * c)", 5.0, a=(3, "3"), c=(4, "4")) == "Root: √(3^2 + 4 × 4) = 5.000000"
    assert line("Growth", "p * exp(r / 100 * t)", 100 * math.exp(0.15), "$", p=(100, "$100"), r=(5, "5%"),
                t=(3, "3 years")) == "Growth: 100 × e^(5% × 3) = $116.18"
    assert line("Periods", "ceil(x / y)", 3, "months", x=(250, "$250"), y=(100, "$100")) == \
        "Periods: ⌈250 ÷ 100⌉ = 3 months"
    assert line("Gap", "abs(a - b)", 2, a=(3, "3"), b=(5, "5")) == "Gap: |3 − 5| = 2"
    assert line("Log", "ln(a) - ln(b)", math.log(2), a=(4, "4"), b=(2, "2")) == "Log: ln(4) − ln(2) = 0.6931472"
    assert line("Prob", "norm_cdf(z)", 0.5, z=(0, "0")) == "Prob: N(0) = 0.5000000"


def test_powers_unary_minus_and_percent_signs():
    value = 108_000 * (0.005917) / (1 - 1.005917 ** -36)
    text = line("Payment", "p * (i / 100) / (1 - (1 + i / 100) ** (-n))", value, "$",
                p=(108_000, "$108,000"), i=(0.5917, "0.5917%"), n=(36, "36"))
    assert text == f"Payment: 108,000 × 0.5917% ÷ (1 − (1 + 0.5917%)^(−36)) = ${value:,.2f}"
    assert line("Growth", "(1 + (g - fee) / 100) ** years", 1.08 ** 2, g=(8.5, "8.5%"), fee=(0.5, "0.5%"),
                years=(2, "2 years")) == "Growth: (1 + (8.5% − 0.5%))^2 = 1.166400"
    assert line("Spread", "a - c", 4.25, "pp", a=(7.5, "7.5%"), c=(3.25, "3.25%")) == \
        "Spread: 7.5 − 3.25 = 4.250000 percentage points"


@pytest.mark.parametrize(("value", "unit", "shown"), [
    (5675, "$", "$5,675.00"), (-337628.871, "$", "−$337,628.87"), (0.5, "$", "$0.50"),
    (11.679, "%", "11.679000%"), (4.87, "%", "4.870000%"), (-1.7485123, "pp", "−1.748512 percentage points"),
    (1, "pp", "1.000000 percentage point"), (0.50833333, "%", "0.508333%"),
    (1.620119333, "", "1.620119"), (0.0212179312, "", "0.02121793"),
    (107.58123, "", "107.5812"), (16_164_000_000, "", "16,164,000,000"), (1, "years", "1 year"),
    (208, "months", "208 months"), (2_001_962.1345, "", "2,001,962.13"), (1, "basis points", "1 basis point"),
])
def test_one_display_convention_per_kind(value, unit, shown):
    assert result_text(value, unit) == shown


@pytest.mark.parametrize("value", [1.620119333, 0.0212179312, 0.000123456789, 9.87654321, 123.456789])
def test_reals_show_at_least_six_significant_digits(value):
    number = result_number(value)
    digits = number.replace(",", "").replace(".", "").lstrip("0")
    assert len(digits) >= 6 and abs(float(number) - value) <= 0.5e-6 * abs(value) * 10


def test_steps_keep_the_order_a_chain_needs_and_name_no_identifier():
    values = {"cf1": 423_000, "growth": 7.7, "cf2": 455_571.0}
    step = Step("cf2", "Year-2 cash flow", "cf1 * (1 + growth / 100)", 455_571.0, "$")
    assert step.render(values, {"cf1": "$423,000", "growth": "7.7%"}, {}) == \
        "Year-2 cash flow: 423,000 × (1 + 7.7%) = $455,571.00"
    later = Step("cf3", "Year-3 cash flow", "cf2 * (1 + growth / 100)", 490_649.967, "$")
    assert later.render(values, {"growth": "7.7%"}, {"cf2": "$"}) == \
        "Year-3 cash flow: 455,571.00 × (1 + 7.7%) = $490,649.97"


def test_categorical_steps_read_description_and_value():
    assert Step("d", "Project with the higher NPV", "'A' if x > 0 else 'B'", "Project A").render({"x": 1}) == \
        "Project with the higher NPV: Project A"


def _template() -> Template:
    def fn(b: Builder) -> None:
        b.money("p", 1_000, 9_000)
        b.percent("r", 2, 9)
        b.ask("Grow {p} at {r} for a year, then halve it.")
        b.step("fv", "Value after a year", "p * (1 + r / 100)", unit="$")
        b.step("half", "Half of it", "fv / 2", unit="$")

    return Template("d", "t", "fn", "easy", fn, 7 << 32)


@pytest.mark.parametrize("tpl", [_template(), *list(all_templates().values())], ids=lambda t: t.id)
def test_every_gold_step_parses_back_to_its_shown_result(tpl):
    for seed in range(3):
        problem = tpl.generate(seed)
        parsed = parse_output(problem.solution)
        shown = problem.rendered_steps()
        assert len(parsed.steps) == len(problem.steps)
        for step, read, rendered in zip(problem.steps, parsed.steps, shown):
            if isinstance(step.value, (str, bool)):
                continue
            assert read.value is not None and read.value.value == pytest.approx(shown_value(rendered.result)), \
                rendered.text


# -- property: the printed math means what the formula computes ---------------------------------
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from finchain_tasks.engine.formula import evaluate_safely  # noqa: E402

PARAMS = {"amount": (12_500, "$12,500"), "rate": (7.5, "7.5%"), "fee": (0.25, "0.25%"), "years": (4, "4 years"),
          "beta": (1.35, "1.35"), "loss": (-2_400, "-$2,400")}

leaf = st.sampled_from([*PARAMS, "rate / 100", "fee / 100", "2", "100", "0.5"])


def _combine(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(
        lambda t: f"({t[0]}) {t[1]} ({t[2]})")
    power = st.tuples(children, st.sampled_from(["2", "3", "(-1)", "0.5"])).map(lambda t: f"({t[0]}) ** {t[1]}")
    negate = children.map(lambda c: f"-({c})")
    percent = st.tuples(st.sampled_from(["rate", "fee"]), children).map(lambda t: f"{t[0]} * ({t[1]}) / 100")
    return binary | power | negate | percent


formulas = st.recursive(leaf, _combine, max_leaves=6)


def _read_back(expression: str) -> float:
    """An independent reading of the printed math: the symbols a person sees, as Python arithmetic."""
    text = expression.replace(",", "").replace("×", "*").replace("÷", "/").replace("^", "**").replace("−", "-")
    text = __import__("re").sub(r"(\d+(?:\.\d+)?)%", r"(\1/100)", text)
    return eval(text, {"__builtins__": {}})  # noqa: S307 - test-only, text built from digits and operators


@settings(max_examples=300, deadline=None)
@given(formula=formulas)
def test_printed_math_evaluates_to_the_formula(formula):
    values = {k: v for k, (v, _) in PARAMS.items()}
    try:
        value = evaluate_safely(formula, values)
    except (ZeroDivisionError, OverflowError):
        assume(False)
    assume(isinstance(value, float | int) and not isinstance(value, complex) and math.isfinite(value))
    assume(abs(value) < 1e12)
    text = Step("s", "Value", formula, value).render(values, {k: d for k, (_, d) in PARAMS.items()}, {})
    if ": " not in text:  # nothing computed: the line is "Value = result"
        return
    expression = text.split(": ", 1)[1].rsplit(" = ", 1)[0]
    try:
        read = _read_back(expression)
    except (ZeroDivisionError, OverflowError):
        assume(False)
    assume(not isinstance(read, complex))
    assert read == pytest.approx(value, rel=1e-9, abs=1e-9), (formula, text)
