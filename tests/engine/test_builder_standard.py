"""Builder support for the template standard: require/re-draw, joint draws, units, plurals, pronouns."""

from __future__ import annotations

import pytest

from finchain_tasks.engine import Builder, Template, TemplateError, template
from finchain_tasks.engine.formatting import plural, with_unit
from finchain_tasks.engine.names import PEOPLE, PRONOUNS
from finchain_tasks.engine.registry import MAX_DRAWS


def _tpl(fn, level="easy", floor=0.0) -> Template:
    return Template("test_domain", "test_topic", fn.__name__, level, fn, 12345 << 32, floor)


def _even_only(b: Builder) -> None:
    n = b.integer("n", 1, 1000)
    b.require(n % 2 == 0, "n is even")
    b.ask("What is half of {n}?")
    b.step("half", "Half of n", "n / 2")


def test_require_redraws_until_the_condition_holds_and_records_why():
    tpl = _tpl(_even_only)
    seen_rejections = 0
    for seed in range(200):
        problem, rejected = tpl.draw(seed)
        assert problem.params["n"] % 2 == 0
        assert all(why == "n is even" for why in rejected)
        seen_rejections += bool(rejected)
    assert 50 < seen_rejections < 150  # about half of first draws are odd


def test_require_is_deterministic_per_seed():
    tpl = _tpl(_even_only)
    assert [tpl.generate(s).to_dict() for s in range(30)] == [tpl.generate(s).to_dict() for s in range(30)]


def test_require_that_never_holds_names_the_condition():
    def impossible(b: Builder) -> None:
        b.integer("n", 1, 5)
        b.require(False, "n exceeds five")

    with pytest.raises(TemplateError, match=rf"seed 3: no draw in {MAX_DRAWS} met require\('n exceeds five'\)"):
        _tpl(impossible).generate(3)


def test_derive_is_a_shown_parameter_rounded_to_what_is_shown():
    def joint(b: Builder) -> None:
        buy = b.money("buy", 10, 100, step=0.01)
        g = b.percent("g", 1, 9, decimals=2)
        b.derive("sell", buy * (1 + g / 100), unit="$")
        b.ask("Bought at {buy}, sold at {sell} after a {g} rise. What is the gain?")
        b.step("gain", "Gain per share", "sell - buy", unit="$")

    for seed in range(50):
        p = _tpl(joint).generate(seed)
        sell = p.params["sell"]
        assert sell == round(p.params["buy"] * (1 + p.params["g"] / 100), 2)
        assert p.displays["sell"] == with_unit(sell, "$") and p.displays["sell"] in p.question


@pytest.mark.parametrize(("value", "unit", "shown"), [
    (1, "years", "1 year"), (2, "years", "2 years"), (1, "companies", "1 company"),
    (3, "companies", "3 companies"), (1, "branches", "1 branch"), (4, "branches", "4 branches"),
    (0.72, "pp", "0.72 percentage points"), (-1.5, "pp", "-1.5 percentage points"),
    (1, "pp", "1 percentage point"), (12, "widgets", "12 widgets"),
])
def test_units_agree_with_their_number(value, unit, shown):
    assert with_unit(value, unit) == shown


@pytest.mark.parametrize(("count", "noun", "word"), [
    (1, "year", "year"), (2, "year", "years"), (1, "years", "year"), (0, "month", "months"),
    (2, "person", "people"), (1, "people", "person"), (2, "tax", "taxes"),
])
def test_plural(count, noun, word):
    assert plural(count, noun) == word


def test_pronouns_follow_the_person_drawn():
    def story(b: Builder) -> None:
        b.person("person")
        b.money("amount", 100, 900)
        b.ask("{person} saves {amount}. {They} then spends half of {their} savings. What is left to {them}?")
        b.step("left", "Half of the savings", "amount / 2", unit="$")

    forms = {"she": ("She", "her", "her"), "he": ("He", "his", "him")}
    for seed in range(40):
        p = _tpl(story).generate(seed)
        they, their, them = forms[PRONOUNS[p.params["person"]]]
        assert f" {they} then spends half of {their} savings. What is left to {them}?" in p.question


def test_every_person_has_a_pronoun():
    assert set(PEOPLE) == set(PRONOUNS) and set(PRONOUNS.values()) <= {"she", "he"}


def test_floor_is_declared_on_the_template_and_validated():
    assert _tpl(_even_only, floor=0.5).floor == 0.5
    with pytest.raises(TemplateError, match="floor"):
        template("easy", floor=float("nan"))
    with pytest.raises(TemplateError, match="floor"):
        template("easy", floor=-1)


def test_percentage_points_are_scored_as_percent():
    def spread(b: Builder) -> None:
        b.percent("a", 5, 9)
        b.percent("c", 1, 4)
        b.ask("By how much does {a} exceed {c}?")
        b.step("gap", "Difference of the two rates", "a - c", unit="pp")

    p = _tpl(spread).generate(0)
    assert p.answer_text.endswith("percentage points")
    assert p.gold().answer_unit == "%" and p.gold().steps[-1].unit == "%"
