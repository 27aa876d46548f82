"""Across-seed rules of TEMPLATES.md section 6: vacuous steps, balance, variety, near zero, determinism."""

from __future__ import annotations

import pytest

from finchain_tasks.engine import Builder, Template
from finchain_tasks.engine.standard import check_fresh_process, survey

SEEDS = 200


def _tpl(fn, level="easy", floor=0.0) -> Template:
    return Template("test_domain", "test_topic", fn.__name__, level, fn, 777 << 32, floor)


def rule_failures(figures, rule: str) -> list[str]:
    return [f for f in figures.failures if f", rule {rule}: " in f]


def assert_one_line(message: str, template: Template) -> None:
    assert "\n" not in message and message.startswith(f"{template.id}, seed ")


# -- templates (module level, so a fresh process can import them) -------------------------------
def per_period_any(b: Builder) -> None:
    b.money("p", 1_000, 90_000, step=10)
    b.percent("rate", 2, 9, decimals=2)
    b.choice("periods", {"annually": 1, "quarterly": 4, "monthly": 12})
    b.ask("{p} earns {rate} a year, compounded {periods}. What is the rate per period?")
    b.step("per_period", "Rate per period", "rate / periods", unit="%")
    b.step("interest", "Interest in the first period", "p * per_period / 100", unit="$")


def per_period_sub_annual(b: Builder) -> None:
    b.money("p", 1_000, 90_000, step=10)
    b.percent("rate", 2, 9, decimals=2)
    b.choice("periods", {"quarterly": 4, "monthly": 12})
    b.ask("{p} earns {rate} a year, compounded {periods}. What is the rate per period?")
    b.step("per_period", "Rate per period", "rate / periods", unit="%")
    b.step("interest", "Interest in the first period", "p * per_period / 100", unit="$")


def larger_deduction(b: Builder) -> None:
    b.money("standard", 12_000, 15_000, step=10)
    b.money("itemized", 5_000, 30_000, step=10)
    b.ask("The standard deduction is {standard} and itemized deductions total {itemized}. "
          "Which deduction amount is taken?")
    b.step("taken", "Deduction taken", "max(standard, itemized)", unit="$")


def lopsided(b: Builder) -> None:
    b.money("a", 100, 1_000)
    b.money("c", 100, 1_000)
    b.ask("Project A returns {a}, Project B {c}, plus a bonus of $300 for Project A. Which is better?")
    b.step("gap", "Return of A with the bonus minus return of B", "a + 300 - c", unit="$")
    b.step("pick", "Better project", "'Project A' if gap > 0 else 'Project B'")


def balanced(b: Builder) -> None:
    b.money("a", 100, 1_000)
    b.money("c", 100, 1_000)
    b.require(a_gap(b) != 0, "the projects differ")
    b.ask("Project A returns {a}, Project B {c}. Which is better?")
    b.step("gap", "Return of A minus return of B", "a - c", unit="$")
    b.step("pick", "Better project", "'Project A' if gap > 0 else 'Project B'")


def a_gap(b: Builder) -> float:
    return b.values["a"] - b.values["c"]


def first_label_wins(b: Builder) -> None:
    la, lb = b.pick([("Project A", "Project B"), ("Alpha", "Beta"), ("North", "South"), ("X", "Y")])
    b.money("a", 100, 1_000)
    b.money("c", 100, 1_000)
    b.ask(f"{la} returns {{a}} plus a $300 bonus, {lb} returns {{c}}. Which is better?")
    b.step("gap", "Return of the first with the bonus minus the second", "a + 300 - c", unit="$")
    b.step("pick", "Better project", f"'{la}' if gap > 0 else '{lb}'")


def test_balance_sees_through_varying_labels():
    figures = survey(_tpl(first_label_wins, "intermediate"), SEEDS)
    assert rule_failures(figures, "balance") and figures.options["option 1 of 2"] > 0.6


def few_questions(b: Builder) -> None:
    b.integer("n", 1, 30)
    b.ask("What is {n} doubled?")
    b.step("twice", "Twice the number", "n * 2")


def close_rates(b: Builder) -> None:
    b.percent("a", 5, 6, decimals=2)
    b.percent("c", 5, 6, decimals=2)
    b.ask("By how many percentage points does {a} exceed {c}?")
    b.step("gap", "Difference of the rates", "a - c", unit="pp")


def separated_rates(b: Builder) -> None:
    a = b.percent("a", 5, 6, decimals=2)
    c = b.percent("c", 5, 6, decimals=2)
    b.require(abs(a - c) >= 0.1, "the rates are at least 0.1 points apart")
    b.money("fund", 1_000, 90_000, step=10)
    b.ask("A {fund} fund earned {a} and its benchmark {c}. By how many percentage points did it beat it?")
    b.step("gap", "Difference of the rates", "a - c", unit="pp")


def hash_dependent(b: Builder) -> None:
    b.money("a", 10, 99)
    b.ask(f"What is {{a}} plus {hash('finchain-standard') % 1_000_003}?")
    b.step("twice", "Twice the amount", "a * 2", unit="$")


# -- tests ---------------------------------------------------------------------------------------
def test_vacuous_step_in_a_third_of_draws_fails_and_names_it():
    tpl = _tpl(per_period_any, "intermediate")
    figures = survey(tpl, SEEDS)
    [message] = rule_failures(figures, "vacuous steps")
    assert_one_line(message, tpl)
    assert "step 1 (per_period) equals rate in" in message and "(limit 10%)" in message
    assert 0.25 < figures.vacuous[0] < 0.42 and figures.vacuous[1] == 0


def test_no_vacuous_step_when_every_draw_needs_it():
    figures = survey(_tpl(per_period_sub_annual, "intermediate"), SEEDS)
    assert figures.vacuous == [0.0, 0.0] and not rule_failures(figures, "vacuous steps")


def test_a_selection_may_equal_the_value_it_selects():
    figures = survey(_tpl(larger_deduction), SEEDS)
    assert figures.vacuous == [0.0] and not figures.failures


def test_balance_fails_when_one_option_wins_most_draws():
    tpl = _tpl(lopsided, "intermediate")
    figures = survey(tpl, SEEDS)
    [message] = rule_failures(figures, "balance")
    assert_one_line(message, tpl)
    assert "option 1 of 2 is the answer in" in message and "e.g. 'Project A'" in message
    assert figures.options["option 1 of 2"] > 0.6


def test_balance_passes_near_even_split():
    figures = survey(_tpl(balanced, "intermediate"), SEEDS)
    assert not rule_failures(figures, "balance") and max(figures.options.values()) < 0.6


def test_variety_counts_distinct_questions_over_a_thousand_draws():
    tpl = _tpl(few_questions)
    figures = survey(tpl, 50)
    [message] = rule_failures(figures, "variety")
    assert_one_line(message, tpl)
    assert figures.variety_draws == 1_000 and figures.distinct == pytest.approx(30 / 1_000)
    assert "30 distinct problems in 1000 draws" in message


def names_and_wording_only(b: Builder) -> None:
    b.person()
    b.company()
    b.integer("n", 1, 30)
    b.ask(f"{{person}} of {{company}} {b.pick(['asks', 'wonders', 'wants to know'])} what {{n}} doubled is.")
    b.step("twice", "Twice the number", "n * 2")


def test_variety_does_not_count_names_and_wording():
    figures = survey(_tpl(names_and_wording_only), 50)
    assert figures.distinct == pytest.approx(30 / 1_000) and rule_failures(figures, "variety")


def test_near_zero_without_a_declared_floor():
    tpl = _tpl(close_rates)
    figures = survey(tpl, SEEDS)
    messages = rule_failures(figures, "near zero")
    assert any("declares no floor" in m or "is not above the declared floor 0" in m for m in messages)
    assert_one_line(messages[0], tpl)


def test_near_zero_passes_with_a_redraw_and_a_declared_floor():
    figures = survey(_tpl(separated_rates, floor=0.09), SEEDS)
    assert not figures.failures
    assert figures.min_answer >= 0.1 and figures.floor == 0.09
    assert 0.05 < figures.redraw_rate < 0.3  # about 19% of first draws are closer than 0.1 points


def test_fresh_process_catches_hash_order_dependence():
    broken, clean = _tpl(hash_dependent), _tpl(per_period_sub_annual, "intermediate")
    messages = check_fresh_process([broken, clean], seeds=3)
    assert len(messages) == 1
    assert_one_line(messages[0], broken)
    assert "rule determinism: rows differ when generated in a fresh process" in messages[0]


def test_sensitivity_is_the_elasticity_of_the_answer():
    from finchain_tasks.engine import Problem, Step
    from finchain_tasks.engine.standard import sensitivity

    def problem(a, c, formula):
        return Problem("d", "t", "x", "easy", 0, "q", {"a": a, "c": c}, {"a": str(a), "c": str(c)},
                       (Step("s", "s", formula, eval(formula, {}, {"a": a, "c": c})),))  # noqa: S307

    kappa, name = sensitivity(problem(5.5, 5.4, "a - c"))
    assert name == "a" and kappa == pytest.approx(5.5 / 0.1, rel=1e-3)  # d ln(a - c) / d ln a = a / (a - c)
    kappa, _ = sensitivity(problem(5.5, 5.4, "a * c"))
    assert kappa == pytest.approx(1.0, rel=1e-3)
    kappa, name = sensitivity(problem(2.0, 3.0, "a ** 3 / c"))
    assert name == "a" and kappa == pytest.approx(3.0, rel=1e-3)


def impossible(b: Builder) -> None:
    b.integer("n", 1, 5)
    b.require(False, "n exceeds five")


def test_a_template_that_cannot_draw_is_one_failure_not_a_crash():
    tpl = _tpl(impossible)
    figures = survey(tpl, 20)
    [message] = figures.failures
    assert_one_line(message, tpl)
    assert "rule generation: the template raised TemplateError" in message and "n exceeds five" in message


def test_fresh_process_skips_a_template_that_cannot_generate():
    assert check_fresh_process([_tpl(impossible), _tpl(per_period_sub_annual, "intermediate")], seeds=2) == []


def test_a_clean_template_passes_every_across_seed_rule():
    tpl = _tpl(per_period_sub_annual, "easy")
    figures = survey(tpl, SEEDS)
    assert figures.failures == [] and check_fresh_process([tpl], seeds=5) == []
    assert figures.distinct > 0.95 and figures.redraw_rate == 0 and figures.sensitivity < 2
