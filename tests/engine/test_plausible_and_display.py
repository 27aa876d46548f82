"""Issue 26's engine rules: plausibility bounds, money rounded half-up in decimal, one display rule per
unit, lines that can be redone to the cent from the page, and English that fits ("an 8%", "Foods'").

Every expected value is worked out by hand in the comment beside it; problems are built literally or
by tiny templates defined here, never drawn from the shipped ones."""

from __future__ import annotations

import re

import pytest

from finchain_tasks.engine import Builder, Template, TemplateError
from finchain_tasks.engine.english import PLURAL_POSSESSIVE, WRONG_ARTICLE, article, possessive, tidy
from finchain_tasks.engine.formatting import fixed, result_number, result_text, round_half_up
from finchain_tasks.engine.formula import evaluate_compiled, evaluate_safely
from finchain_tasks.engine.names import COMPANIES, LARGE_GROUPS, TRADING_FIRMS
from finchain_tasks.engine.problem import Bound, Problem, Step
from finchain_tasks.engine.verify import check_arithmetic, check_bounds, check_text, verify


def _tpl(fn) -> Template:
    return Template("test_domain", "test_topic", fn.__name__, "easy", fn, 777 << 32)


# -- money rounded half-up in decimal ------------------------------------------------------------------

@pytest.mark.parametrize("value, decimals, expected", [
    (2.675, 2, 2.68),               # the binary float is 2.67499999...: Python's round gives 2.67
    (0.125, 2, 0.13),               # an exact binary tie: round-half-even gives 0.12
    (1.125, 2, 1.13),
    (-2.675, 2, -2.68),             # half away from zero
    (1.1249999999999998, 2, 1.13),  # float dust from a chain (0.1 * 11.25) is still a tie
    (1.124, 2, 1.12),
    (12_345, -2, 12_300),
    (2.5, 0, 3.0),                  # round(2.5) == 2 in Python
])
def test_round_half_up_settles_ties_the_way_a_cashier_does(value, decimals, expected):
    assert round_half_up(value, decimals) == expected


def test_the_formula_round_and_every_money_display_round_half_up():
    for evaluate in (evaluate_compiled, evaluate_safely):
        assert evaluate("round(amount * fee / 100, 2)", {"amount": 1_070, "fee": 0.25}) == 2.68  # 2.675
        assert evaluate("round(x)", {"x": 2.5}) == 3
    assert result_text(0.125, "$") == "$0.13"
    assert fixed(1_234.565, 2) == "1,234.57"          # f"{1234.565:.2f}" is '1,234.56'
    assert result_text(-2.675, "$") == "−$2.68"


def test_money_drawn_or_derived_is_rounded_half_up():
    def tie(b: Builder) -> None:
        b.derive("fee", 1_070 * 0.25 / 100, unit="$")     # 2.675 → $2.68
        b.ask("A fee of {fee}.")
        b.step("double", "Twice the fee", "fee * 2", unit="$")

    problem = _tpl(tie).generate(0)
    assert problem.params["fee"] == 2.68 and problem.displays["fee"] == "$2.68"


# -- one display rule per unit ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, unit, shown", [
    (3.0, "", "3.000000"),               # a real that happens to be whole keeps the convention beside 5.180000
    (5.18, "", "5.180000"),
    (3, "", "3"),                        # an integer (a count, a ceiling) is an integer
    (6, "months", "6"),
    (1_250.5, "USDC", "1,250.50"),       # a stablecoin is money: to the cent, never 3 decimals
    (1_250.0, "USDC", "1,250.00"),
    (49_319.4, "tonnes", "49,319.40"),   # tonnes: two decimals whatever the size
    (196_368.0, "tonnes", "196,368.00"),
    (12.345678, "tonnes", "12.35"),
    (1_656.0, "people", "1,656"),        # people are whole
    (5, "%", "5.000000"),
])
def test_each_unit_has_one_display_rule(value, unit, shown):
    assert result_number(value, unit) == shown


# -- lines redone from the page reproduce to the cent -----------------------------------------------------

FACTOR = (1 - 1.112 ** -6) / 0.112     # annuity factor, 11.2% over 6 years = 4.2062749...
NPV = 14_340_000 * FACTOR - 36_800_000  # = 23,517,983.50... (abandonment_in_worst_case, seed 3, before the fix)
ANNUITY = Problem(
    domain="d", topic="t", template="annuity", level="easy", seed=3,
    question="A project costs $36,800,000 and pays $14,340,000 a year for 6 years. At 11.2%, what is its NPV?",
    params={"investment": 36_800_000, "cf": 14_340_000, "years": 6, "rate": 11.2},
    displays={"investment": "$36,800,000", "cf": "$14,340,000", "years": "6 years", "rate": "11.2%"},
    steps=(Step("factor", "Annuity factor", "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)", FACTOR),
           Step("npv", "NPV", "cf * factor - investment", NPV, "$")),
)


def test_a_factor_is_shown_with_the_digits_the_next_line_needs():
    factor_line, npv_line = ANNUITY.solution.splitlines()[:2]
    shown = factor_line.rsplit("= ", 1)[1].rstrip(".")
    assert len(shown.split(".")[1]) >= 10                     # 4.2062749057...: seven digits were $1.35 short
    assert abs(14_340_000 * float(shown) - 36_800_000 - NPV) < 0.005
    assert npv_line.startswith("Step 2: NPV: 14,340,000 × " + shown + " − 36,800,000 = $")
    assert verify(ANNUITY).failures == []


def test_seven_significant_digits_of_a_factor_fail_the_rule_now():
    # the same lines rendered with the unit's convention only (4.206275): 14,340,000 × 4.206275 is $1.35 away
    values = {**ANNUITY.params, **{s.name: s.value for s in ANNUITY.steps}}
    units = ANNUITY.step_units()
    shown = tuple(s.rendered(values, ANNUITY.displays, units, {}) for s in ANNUITY.steps)
    (found,) = check_arithmetic(ANNUITY, shown)
    assert found.startswith("step 2 (npv) redone from the numbers shown gives 23,517,983.50")


def test_a_money_line_redoes_to_the_cent_from_the_amounts_it_shows():
    """Issue 41 section 4: "10,549,139,406.62 − 8,532,949,790.79" is $2,016,189,615.83 to a reader, so the page may
    not print the exact difference's $2,016,189,615.82; amounts a later line reads are rounded to the cent first."""
    a, b = 10_549_139_406.6198, 8_532_949_790.7949        # shown .62 and .79: a − b = .8249 is shown .82
    diff = Problem("d", "t", "eve", "easy", 0, "Assets fall by $1 and liabilities by $2.", {"x": 1, "y": 2},
                   {"x": "$1", "y": "$2"},
                   (Step("a", "Asset change", "x * 0 + 10549139406.6198", a, "$"),
                    Step("b", "Liability change", "y * 0 + 8532949790.7949", b, "$"),
                    Step("d", "Difference", "a - b", a - b, "$")))
    assert [f.split(" redone")[0] for f in check_arithmetic(diff)] == ["step 3 (d)"]
    ra, rb = round(a, 2), round(b, 2)
    rounded = Problem(**{**_fields(diff), "steps": (
        Step("a", "Asset change", "round(x * 0 + 10549139406.6198, 2)", ra, "$"),
        Step("b", "Liability change", "round(y * 0 + 8532949790.7949, 2)", rb, "$"),
        Step("d", "Difference", "a - b", ra - rb, "$"))})
    assert list(check_arithmetic(rounded)) == []
    off = Problem(**{**_fields(rounded), "steps": rounded.steps[:2] + (Step("d", "Difference", "a - b", ra - rb + 0.01,
                                                                          "$"),)})
    assert len(list(check_arithmetic(off))) == 1


def _fields(problem: Problem) -> dict:
    return {f: getattr(problem, f) for f in Problem.__dataclass_fields__}


# -- plausibility bounds ----------------------------------------------------------------------------------

def _allocation(share_lo: float):
    def allocation(b: Builder) -> None:
        b.money("proceeds", 1_000, 1_000, unit="$")
        b.derive("spent", 1_000 * b.rng.uniform(share_lo, share_lo + 0.3), unit="$")
        b.bounds("left", lo=0, why="allocated never exceeds the proceeds raised")
        b.bounds("spent", hi="proceeds")
        b.ask("Of {proceeds} raised, {spent} is allocated. How much is left?")
        b.step("left", "Proceeds not yet allocated", "proceeds - spent", unit="$")
    return allocation


def test_a_bound_passes_when_every_draw_is_plausible():
    tpl = _tpl(_allocation(0.4))
    assert all(not list(check_bounds(tpl.generate(seed))) for seed in range(20))
    assert tpl.generate(0).bounds == (Bound("left", 0, None, False, "allocated never exceeds the proceeds raised"),
                                      Bound("spent", None, "proceeds", False, ""))


def test_a_draw_outside_its_bounds_fails_rule_plausible_naming_template_seed_and_bound():
    problem = _tpl(_allocation(1.05)).generate(4)                 # always more allocated than raised
    failures = [f for f in verify(problem).failures if ", rule plausible: " in f]
    assert failures[0].startswith("test_domain/test_topic/allocation, seed 4, rule plausible: left = −$")
    assert failures[0].endswith("is below 0 (allocated never exceeds the proceeds raised)")
    assert re.search(r"rule plausible: spent = \$1,[0-9]{3}\.[0-9]{2} is above proceeds \(1,000\)$", failures[1])


def _people(success: float):
    def people(b: Builder) -> None:
        b.integer("enrolled", 101, 101)
        b.percent("success", success, success)
        b.bounds("placed", whole=True, why="people are whole")
        b.bounds("placed", hi="enrolled * 0.5")
        b.ask("{enrolled} enrolled; {success} succeed.")
        b.step("placed", "People placed", "enrolled * success / 100", unit="people")
    return people


def test_whole_and_formula_bounds():
    # 101 × 31% = 31.31 people: not whole, but below half of 101
    assert list(check_bounds(_tpl(_people(31)).generate(0))) == [
        "placed = 31 people is not a whole number (people are whole)"]
    # 101 × 61% = 61.61 people: not whole, and above 101 × 0.5 = 50.5
    assert list(check_bounds(_tpl(_people(61)).generate(0))) == [
        "placed = 62 people is not a whole number (people are whole)",
        "placed = 62 people is above enrolled * 0.5 (50.5)"]
    # 100 enrolled would give whole people; the bound is on the step, not on how it was drawn
    assert list(check_bounds(Problem("d", "t", "x", "easy", 0, "Q", {}, {}, (Step("p", "P", "30", 30.0, "people"),),
                                     (Bound("p", whole=True),)))) == []


def test_bounds_reject_a_declaration_that_says_nothing_or_cannot_be_read():
    b = Builder(0)
    with pytest.raises(TemplateError, match="declares nothing"):
        b.bounds("x")
    with pytest.raises(TemplateError, match="numbers or formulas"):
        b.bounds("x", lo=[0])                                     # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a valid expression"):
        b.bounds("x", hi="revenue *")
    problem = Problem("d", "t", "x", "easy", 0, "Q 1", {"a": 1}, {"a": "1"},
                      (Step("s", "S", "a * 2", 2, ""),), (Bound("nope", lo=0), Bound("s", hi="missing + 1")))
    found = list(check_bounds(problem))
    assert found[0] == "bounds name 'nope', which is neither a parameter nor a step"
    assert found[1].startswith("the bound 'missing + 1' on 's' cannot be evaluated")


# -- English ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, fixed_text", [
    ("Pinnacle Foods's margin", "Pinnacle Foods' margin"),
    ("Helios Textiles's plant and Umbra Software's", "Helios Textiles' plant and Umbra Software's"),
    ("Lucas's fund", "Lucas's fund"),                            # a person's name keeps 's
    ("a 8% coupon", "an 8% coupon"),
    ("A 11-year bond", "An 11-year bond"),
    ("a 18.5% rate and a 80 bp spread", "an 18.5% rate and an 80 bp spread"),
    ("an 5% fee", "a 5% fee"),
    ("a 110-day bill, a 1,800 fee, a 180 limit", "a 110-day bill, a 1,800 fee, a 180 limit"),
    ("a $8 million loan", "an $8 million loan"),
    ("a 11,000 deposit", "an 11,000 deposit"),
])
def test_tidy_fixes_articles_before_numbers_and_plural_possessives(text, fixed_text):
    assert tidy(text) == fixed_text
    assert not WRONG_ARTICLE.search(fixed_text) and not PLURAL_POSSESSIVE.search(fixed_text)


def test_article_and_possessive_helpers():
    assert article("8% coupon") == "an 8% coupon" and article("7% coupon") == "a 7% coupon"
    assert article("annual fee") == "an annual fee" and article("bond") == "a bond"
    assert possessive("Quarry Lane Builders") == "Quarry Lane Builders'" and possessive("Maya") == "Maya's"
    assert Builder.possessive("Pinnacle Foods") == "Pinnacle Foods'"


def test_questions_and_descriptions_are_tidied_and_the_verifier_flags_what_is_left():
    def english(b: Builder) -> None:
        b.choice("firm", ["Pinnacle Foods"])
        b.percent("rate", 8, 8)
        b.ask("{firm}'s bond pays a {rate} coupon.")
        b.step("x", "Coupon on a 8% bond", "rate * 1")

    problem = _tpl(english).generate(0)
    assert problem.question == "Pinnacle Foods' bond pays an 8% coupon."
    assert problem.steps[0].description == "Coupon on an 8% bond"
    raw = Problem(**{**_fields(problem), "question": "Pinnacle Foods's bond pays a 8% coupon."})
    found = list(check_text(raw))
    assert "the question says 'a 8' (the article does not fit the number)" in found
    assert "the question says \"Pinnacle Foods's\" (a plural name's possessive is \"Pinnacle Foods'\")" in found


def test_company_kinds_fit_the_setting():
    b = Builder(5)
    assert b.company("desk", kind="trading") in TRADING_FIRMS
    assert b.company("group", kind="large") in LARGE_GROUPS
    assert b.company() in COMPANIES
    with pytest.raises(TemplateError, match="kind must be one of"):
        b.company("x", kind="farm")
    assert not any("Farms" in name or "Textiles" in name for name in TRADING_FIRMS)
