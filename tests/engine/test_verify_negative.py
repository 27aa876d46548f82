"""The verifier's negative paths: a hand-built record that passes every rule, then one edit per
rule, each checked for the exact one-line failure it must produce (and for not tripping the
others' wires). Records are written out literally, not drawn from a template, so every expected
value here is arithmetic done by hand: (1 + 2.3%)^4 = 1.0952229..., 30,600 × 0.0952229 = 2,913.82."""

from __future__ import annotations

from dataclasses import replace

import pytest

from finchain_tasks.engine.problem import Problem, Step
from finchain_tasks.engine.verify import (
    MAX_MAGNITUDE,
    MAX_PERCENT,
    check_arithmetic,
    check_floor,
    check_level,
    check_shape,
    check_stored_text,
    check_text,
    check_units,
    verify,
)

GROWTH = Step("growth", "Growth factor", "(1 + rate / 100) ** years", 1.023 ** 4, "")
INTEREST = Step("interest", "Interest earned", "principal * (growth - 1)", 30600 * (1.023 ** 4 - 1), "$")
BASE = Problem(
    domain="d", topic="t", template="x", level="easy", seed=3,
    question="Daniela deposits $30,600 at 2.3% a year for 4 years. How much interest does she earn?",
    params={"person": "Daniela", "principal": 30600, "rate": 2.3, "years": 4},
    displays={"person": "Daniela", "principal": "$30,600", "rate": "2.3%", "years": "4 years"},
    steps=(GROWTH, INTEREST),
)
PREFIX = "d/t/x, seed 3, rule "


def rules(problem: Problem, **kw) -> dict[str, list[str]]:
    """Failures by rule name, each with the common prefix checked and removed."""
    out: dict[str, list[str]] = {}
    for line in verify(problem, **kw).failures:
        assert line.startswith(PREFIX) and "\n" not in line, line
        rule, _, detail = line[len(PREFIX):].partition(": ")
        out.setdefault(rule, []).append(detail)
    return out


def test_the_hand_built_record_passes_and_its_solution_is_as_computed_by_hand():
    assert rules(BASE) == {}
    assert BASE.solution.splitlines() == [
        "Step 1: Growth factor: (1 + 2.3%)^4 = 1.09522295.",
        "Step 2: Interest earned: 30,600 × (1.09522295 − 1) = $2,913.82.",
        "Final answer: $2,913.82",
    ]


# --- rule "level": step count bounds (both ends) and solvers in easy problems -----------------------------

def _steps(k: int) -> tuple[Step, ...]:
    """k steps, each doubling the one before (first: twice the principal)."""
    out, prev, value = [], "principal", 30600.0
    for i in range(k):
        value *= 2
        out.append(Step(f"s{i}", f"Doubling {i + 1}", f"{prev} * 2", value, "$"))
        prev = f"s{i}"
    return tuple(out)


@pytest.mark.parametrize("level, count, ok", [
    ("easy", 1, True), ("easy", 3, True), ("easy", 4, False),
    ("intermediate", 2, False), ("intermediate", 3, True), ("intermediate", 5, True), ("intermediate", 6, False),
    ("advanced", 4, False), ("advanced", 5, True), ("advanced", 99, True), ("advanced", 100, False),
])
def test_step_count_bounds(level, count, ok):
    bounds = {"easy": "1-3", "intermediate": "3-5", "advanced": "5-99"}[level]
    problem = replace(BASE, level=level, steps=_steps(count))
    expected = [] if ok else [f"{level} problem has {count} steps; allowed {bounds}"]
    assert list(check_level(problem)) == expected


def test_easy_problems_may_not_call_a_solver_and_harder_ones_may():
    solver = Step("r", "Rate of return", "irr([-100, 110])", 0.1, "")
    easy = replace(BASE, steps=(GROWTH, solver, INTEREST))
    assert list(check_level(easy)) == ["step 2 (r) calls the solver irr() in an easy template"]
    assert list(check_level(replace(easy, level="intermediate"))) == []
    # a name that is not called, or a formula that does not parse, calls nothing
    assert list(check_level(replace(BASE, steps=(Step("irr_x", "x", "principal + 1", 30601, ""),)))) == []
    assert list(check_level(replace(BASE, steps=(Step("x", "x", "irr(", 1, ""),)))) == []


# --- rule "question": every parameter visible -------------------------------------------------------------

def test_a_parameter_missing_from_the_question():
    hidden = replace(BASE, question=BASE.question.replace("2.3%", "a good rate"))
    assert rules(hidden)["question"] == ["parameter 'rate' (shown as '2.3%') does not appear in the question"]
    both = replace(BASE, question="Daniela deposits money. How much interest does she earn?")
    assert rules(both)["question"] == [
        "parameter 'principal' (shown as '$30,600') does not appear in the question",
        "parameter 'rate' (shown as '2.3%') does not appear in the question",
        "parameter 'years' (shown as '4 years') does not appear in the question",
    ]


# --- rule "formula": stored values re-evaluate; values are plausible --------------------------------------

def test_a_stored_value_that_its_formula_does_not_give():
    edited = replace(BASE, steps=(GROWTH, replace(INTEREST, value=3000.0)))
    (detail,) = rules(edited)["formula"]
    assert detail.startswith("step 2 (interest): stored value 3000.0 but 'principal * (growth - 1)' gives 2913.82")


def test_values_within_the_comparison_tolerance_pass():
    nudged = replace(BASE, steps=(GROWTH, replace(INTEREST, value=INTEREST.value * (1 + 1e-12))))
    assert "formula" not in rules(nudged)


def test_a_formula_that_fails():
    broken = replace(BASE, steps=(GROWTH, replace(INTEREST, formula="principal / 0")))
    (detail,) = rules(broken)["formula"]
    assert detail.startswith("step 2 (interest): formula 'principal / 0' fails:")


@pytest.mark.parametrize("value, unit, message", [
    (MAX_MAGNITUDE, "$", None),
    (MAX_MAGNITUDE * 1.5, "$", "step 1 (v): value 1.5e+13 is implausibly large"),
    (-MAX_MAGNITUDE * 1.5, "$", "step 1 (v): value -1.5e+13 is implausibly large"),
    (MAX_PERCENT, "%", None),
    (MAX_PERCENT + 1, "%", "step 1 (v): percentage 1e+04% is implausible"),
    (-(MAX_PERCENT + 1), "%", "step 1 (v): percentage -1e+04% is implausible"),
    (MAX_PERCENT + 1, "", None),          # only a percentage has that limit
    (float("inf"), "$", "step 1 (v): value inf is not finite"),
    ("", "", "step 1 (v): has no value"),
    (None, "", "step 1 (v): has no value"),
    ("Project A", "", None), (False, "", None),
])
def test_implausible_values(value, unit, message):
    problem = replace(BASE, params={"k": value}, displays={}, steps=(Step("v", "Value", "k", value, unit),))
    found = rules(problem).get("formula", [])
    assert found == ([message] if message else [])


# --- rule "shape" -----------------------------------------------------------------------------------------

def test_step_and_parameter_names_must_be_unique():
    clash = replace(BASE, steps=(replace(GROWTH, name="rate"), INTEREST))
    assert list(check_shape(clash)) == ["step and parameter names are not unique"]
    twice = replace(BASE, steps=(GROWTH, replace(INTEREST, name="growth")))
    assert list(check_shape(twice)) == ["step and parameter names are not unique"]
    assert list(check_shape(BASE)) == []


# --- rule "near zero" ------------------------------------------------------------------------------------

def test_the_answer_must_be_strictly_above_the_floor():
    answer = INTEREST.value
    assert list(check_floor(BASE, answer - 0.01)) == []
    assert list(check_floor(BASE, answer)) == [f"|answer| = {answer:.6g} is not above the declared floor {answer:g}"]
    negative = replace(BASE, steps=(GROWTH, replace(INTEREST, value=-5.0)))
    assert list(check_floor(negative, 4.0)) == []  # magnitude
    assert list(check_floor(negative, 5.0)) == ["|answer| = 5 is not above the declared floor 5"]
    categorical = replace(BASE, steps=(Step("pick", "Pick", "'A'", "A", ""),))
    assert list(check_floor(categorical, 1e9)) == []
    boolean = replace(BASE, steps=(Step("ok", "Compliant", "True", True, ""),))
    assert list(check_floor(boolean, 1e9)) == []
    assert rules(BASE, floor=3000.0)["near zero"] == ["|answer| = 2913.82 is not above the declared floor 3000"]


# --- rule "text" -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("description, message", [
    ("Net income_total", "step 1 shows the identifier 'income_total'"),
    ("Growth if positive", "step 1 shows a conditional expression ('if')"),
    ("Growth else nothing", "step 1 shows a conditional expression ('else')"),
    ("Growth max(", "step 1 shows call syntax 'max('"),
])
def test_code_in_a_step(description, message):
    found = rules(replace(BASE, steps=(replace(GROWTH, description=description), INTEREST)))["text"]
    assert len(found) == 1 and found[0].startswith(message + ": "), found


def test_math_notation_is_not_a_call():
    assert "text" not in rules(replace(BASE, steps=(replace(GROWTH, description="Growth ln(x) log(y) N(d)"),
                                                     INTEREST)))


def test_code_and_plurals_in_the_question():
    found = rules(replace(BASE, question=BASE.question + " Use rate_of_return."))["text"]
    assert found == ["the question shows the identifier 'rate_of_return'"]
    one = replace(BASE, question=BASE.question + " She waits 1 years.")
    assert rules(one)["text"] == ["the question says '1 years' (plural after 1)"]
    assert "text" not in rules(replace(BASE, question=BASE.question + " She waits 1 year, then 21 years."))


# --- rule "units" ----------------------------------------------------------------------------------------

def test_percentage_points_must_be_declared_and_shown():
    step = Step("gap", "Spread in percentage points", "rate - 1", 1.3, "%")
    found = rules(replace(BASE, steps=(step,)))["units"]
    assert len(found) == 1 and found[0].startswith(
        "step 1 (gap) is described as percentage points but has unit '%'")
    assert "units" not in rules(replace(BASE, steps=(replace(step, unit="pp"),)))
    asked = replace(BASE, question=BASE.question + " How many percentage points is it?",
                    steps=(replace(step, description="Spread"),))
    assert rules(asked)["units"][0].startswith("step 1 (gap) is described as percentage points")


# --- rule "arithmetic as shown" --------------------------------------------------------------------------

def test_a_step_whose_shown_numbers_do_not_give_its_shown_result():
    # the stored result 3,000 is printed; 30,600 × 0.09522295 (the numbers printed beside it) = 2,913.82227
    # (the factor shows eight decimals: the line after it needs them to reproduce to the cent)
    edited = replace(BASE, steps=(GROWTH, replace(INTEREST, value=3000.0)))
    assert rules(edited)["arithmetic as shown"] == [
        "step 2 (interest) redone from the numbers shown gives 2,913.822270, not the $3,000.00 shown: "
        "'Interest earned: 30,600 × (1.09522295 − 1) = $3,000.00'"]
    # a result off by less than its last printed digit is fine: 2,913.824 prints as $2,913.82
    assert "arithmetic as shown" not in rules(replace(BASE, steps=(GROWTH, replace(INTEREST, value=2913.824))))


# --- stored records and determinism ----------------------------------------------------------------------

def test_a_stored_solution_must_be_what_the_steps_render():
    row = BASE.to_dict()
    assert list(check_stored_text(BASE, row)) == []
    edited = dict(row, solution=row["solution"].replace("$2,913.82.", "$2,900.00."))
    assert list(check_stored_text(BASE, edited)) == [
        "stored solution line 2 is 'Step 2: Interest earned: 30,600 × (1.09522295 − 1) = $2,900.00.' but its steps "
        "render 'Step 2: Interest earned: 30,600 × (1.09522295 − 1) = $2,913.82.' (stale or edited record)"]
    shorter = dict(row, solution="\n".join(row["solution"].splitlines()[:2]))
    assert list(check_stored_text(BASE, shorter)) == [
        "stored solution has a different number of lines than its steps render (stale or edited record)"]
    assert list(check_stored_text(BASE, dict(row, solution=None))) == ["the record has no solution text"]


class _Regenerate:
    def __init__(self, problem: Problem, floor: float = 0.0):
        self.problem, self.floor = problem, floor

    def generate(self, seed: int) -> Problem:
        assert seed == 3
        return self.problem


def test_determinism_and_the_template_floor():
    assert rules(BASE, regenerate=_Regenerate(BASE)) == {}
    other = replace(BASE, question=BASE.question + " ")
    assert rules(BASE, regenerate=_Regenerate(other)) == {
        "determinism": ["the same seed does not reproduce the same problem"]}
    assert rules(BASE, regenerate=_Regenerate(BASE, floor=5000.0)) == {
        "near zero": ["|answer| = 2913.82 is not above the declared floor 5000"]}
    # an explicit floor overrides the template's
    assert rules(BASE, regenerate=_Regenerate(BASE, floor=5000.0), floor=1.0) == {}


def test_gold_steps_that_cannot_be_rendered_are_one_failure_and_skip_the_rules_that_read_them():
    broken = replace(BASE, steps=(GROWTH, replace(INTEREST, formula="principal * (", value=1.0)))
    found = rules(broken)
    assert found["text"][0].startswith("the gold steps cannot be rendered:") and len(found["text"]) == 1
    assert "units" not in found and "arithmetic as shown" not in found
    assert found["formula"][0].startswith("step 2 (interest): formula 'principal * (' fails")


# --- what the first mutation run left alive (see tests/MUTANTS.md) -----------------------------------------

def test_the_report_names_its_problem():
    assert verify(BASE).problem_id == BASE.id == "finchain/d/t/x/3"


@pytest.mark.parametrize("formula, params, value, message", [
    ("principal", {"principal": 30600}, "A", "step 1 (v): stored value 'A' but 'principal' gives 30600"),
    ("'A'", {}, 5.0, "step 1 (v): stored value 5.0 but \"'A'\" gives 'A'"),
    ("k", {"k": None}, 5.0, "step 1 (v): stored value 5.0 but 'k' gives None"),
])
def test_a_value_of_another_kind_than_its_formula_gives(formula, params, value, message):
    problem = replace(BASE, params=params, displays={}, steps=(Step("v", "Value", formula, value, ""),))
    assert rules(problem)["formula"] == [message]


def test_near_zero_values_compare_with_an_absolute_tolerance():
    tiny = replace(BASE, params={"k": 0.0}, displays={}, steps=(Step("v", "Value", "k * 2", 1e-12, ""),))
    assert "formula" not in rules(tiny)
    off = replace(tiny, steps=(Step("v", "Value", "k * 2", 1e-8, ""),))
    assert rules(off)["formula"] == ["step 1 (v): stored value 1e-08 but 'k * 2' gives 0.0"]


def test_after_a_failing_formula_later_steps_use_the_stored_value():
    broken = replace(BASE, steps=(replace(GROWTH, formula="(1 + rate / 0) ** years"), INTEREST))
    (only,) = rules(broken)["formula"]
    assert only.startswith("step 1 (growth): formula '(1 + rate / 0) ** years' fails")
    both = replace(broken, steps=(broken.steps[0], replace(INTEREST, value=1.0)))
    found = rules(both)["formula"]
    assert len(found) == 2 and found[1].startswith("step 2 (interest): stored value 1.0 but")


def test_the_checks_render_the_steps_themselves_when_not_given_them():
    coded = replace(BASE, steps=(replace(GROWTH, description="Growth if positive"), INTEREST))
    assert next(iter(check_text(coded))).startswith("step 1 shows a conditional expression")
    step = Step("gap", "Spread in percentage points", "rate - 1", 1.3, "%")
    assert "(shown '1.300000%')" in next(iter(check_units(replace(BASE, steps=(step,)))))
    constant = replace(BASE, steps=(Step("c", "Constant", "2 * 3", 7.0, ""),))
    assert next(iter(check_arithmetic(constant))).startswith("step 1 (c) redone from the numbers shown gives 6")


def test_units_message_shows_the_offending_steps_own_result():
    first = Step("base", "Base rate", "rate * 2", 4.6, "%")
    gap = Step("gap", "Spread in percentage points", "base - 1", 3.6, "%")
    (found,) = rules(replace(BASE, steps=(first, gap)))["units"]
    assert found.startswith("step 2 (gap) is described as percentage points but has unit '%' (shown '3.600000%')")


def test_plural_after_one_names_the_step_and_the_answer():
    wait = Step("w", "Waiting 1 years then", "principal * 2", 61200.0, "$")
    assert rules(replace(BASE, steps=(wait, INTEREST)))["text"] == ["step 1 says '1 years' (plural after 1)"]
    pick = Step("pick", "Choice", "'1 shares'", "1 shares", "")
    assert "the answer says '1 shares' (plural after 1)" in rules(replace(BASE, steps=(GROWTH, pick)))["text"]


def test_a_constant_step_is_redone_and_later_steps_still_are():
    constant = Step("c", "Constant", "2 * 3", 7.0, "")
    assert rules(replace(BASE, steps=(constant,)))["arithmetic as shown"] == [
        "step 1 (c) redone from the numbers shown gives 6.000000, not the 7.000000 shown: 'Constant: 2 × 3 = 7.000000'"]
    # a categorical step is skipped, and so is nothing after it
    pick = Step("pick", "Is the NPV = positive", "'yes'", "yes", "")
    found = rules(replace(BASE, steps=(pick, constant)))["arithmetic as shown"]
    assert found == ["step 2 (c) redone from the numbers shown gives 6.000000, not the 7.000000 shown: "
                     "'Constant: 2 × 3 = 7.000000'"]
    # a step that cannot be redone is reported, and the next one is still checked
    from finchain_tasks.engine.render import Rendered

    unknown = Step("u", "Mystery", "principal * 2", 61200.0, "$")
    odd = Rendered("Mystery: x = 1", {"principal": "not a number"}, "1")  # a shown operand that is no number
    found = list(check_arithmetic(replace(BASE, steps=(unknown, constant)), [odd, constant.rendered({}, {}, {})]))
    assert found[0].startswith("step 1 (u) cannot be redone from its text:") and len(found) == 2


@pytest.mark.parametrize("recomputed, shown, decimals, ok", [
    (1.01, 1.0, 2, False),                      # a whole unit of the last digit off
    (1.0045, 1.0, 2, True),                     # within half a unit
    (1.008, 1.0, 2, False),
    (2.5, 2.0, 0, True),                        # exactly half a unit: inclusive
    (2.5 + 5e-10 + 1e-12, 2.0, 0, True),        # inside the 1e-9 relative and 1e-12 absolute margins
    (2.5 + 5e-10 + 5e-12, 2.0, 0, False),
    (2.8, 2.0, 0, False),
    (10001.0, 10000.0, 0, False),               # no relative tolerance: a $13 gap on a big product fails
    (10000.4, 10000.0, 0, True),
    (float("inf"), 1.0, 2, False), (float("nan"), 1.0, 2, False),
])
def test_reproduces_boundaries(recomputed, shown, decimals, ok):
    from finchain_tasks.engine.verify import _reproduces

    assert _reproduces(recomputed, shown, decimals) is ok


def test_a_check_that_raises_is_reported_not_fatal():
    odd = replace(BASE, question=None)  # a record without question text
    found = rules(odd)
    assert found["question"][0].startswith("could not be checked:")
    assert found["text"][0].startswith("could not be checked:")


def test_a_line_that_prints_its_operands_without_an_equals_sign_is_still_redone():
    from finchain_tasks.engine.render import Rendered

    problem = replace(BASE, steps=(Step("r", "Rate", "rate", 5.0, "%"),))
    found = list(check_arithmetic(problem, [Rendered("Rate from 2.3 gives 5%", {"rate": "2.3"}, "5%")]))
    assert found == ["step 1 (r) redone from the numbers shown gives 2.300000, not the 5% shown: "
                     "'Rate from 2.3 gives 5%'"]
    # no operands and no "=": nothing to redo
    assert list(check_arithmetic(problem, [Rendered("Rate 5%", {}, "5%")])) == []
