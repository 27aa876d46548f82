"""The object a template talks to: it samples parameters, writes the question, records steps.

A template reads like the finance it teaches::

    principal = b.money("principal", 1_000, 50_000, step=500)
    rate = b.percent("rate", 2, 9)
    b.ask("{person} invests {principal} at {rate} compounded annually for {years} years. ...")
    b.step("growth", "Growth factor", "(1 + rate / 100) ** years")
    b.step("fv", "Future value", "principal * growth", unit="$")

Every sampled parameter gets a display string (``$12,500``, ``5.5%``) that the question uses
through ``{name}`` placeholders, and every step's value comes from evaluating its formula over
the parameters and earlier steps, so the text, the numbers and the trace cannot drift apart.

The rest of the standard in TEMPLATES.md is supported here rather than in each template:

* ``b.require(condition, "why")`` rejects a draw; the registry re-draws deterministically from the
  seed, so an advanced template can insist that its advanced concept is exercised in every draw.
* ``b.derive(name, value, unit)`` records a parameter computed from earlier draws (a joint draw:
  a sell price as buy × (1 + g), a monthly price as a walk from the previous one).
* Unit ``"pp"`` displays "percentage points"; counted units ("years", "shares") are singular for 1.
* ``{they}``, ``{them}``, ``{their}`` (and capitalised forms) in ``ask`` refer to the last person
  drawn, so a question names someone once and then uses the right pronoun; ``b.plural(n, "year")``
  writes a noun that agrees with a count.
* ``b.bounds("unallocated", lo=0)`` declares what is plausible for a value (a share in [0, 100], a cost
  below ``"revenue"``, ``whole=True`` people); ``finchain verify`` checks it on every draw, so a range
  that lets a draw contradict itself fails CI naming the template, the seed and the bound.
* Questions and step descriptions pass through :func:`~finchain_tasks.engine.english.tidy` ("an 8%",
  "Pinnacle Foods'"); ``b.possessive`` and ``b.article`` serve text a template assembles itself.
* Money is rounded half-up in decimal (:func:`~finchain_tasks.engine.formatting.round_half_up`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from finchain_tasks.engine.english import article, possessive, tidy
from finchain_tasks.engine.formatting import CURRENCY_UNITS, plural, round_half_up, with_unit
from finchain_tasks.engine.formula import evaluate_compiled, parse_formula
from finchain_tasks.engine.names import COMPANY_KINDS, PEOPLE, PRONOUN_FORMS, PRONOUNS
from finchain_tasks.engine.problem import Bound, Step


class TemplateError(RuntimeError):
    """A template broke its own contract (duplicate name, missing question, ...)."""


class Redraw(Exception):  # noqa: N818 - control flow, not an error a caller sees
    """Raised by :meth:`Builder.require`; the registry draws the problem again from the seed."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Builder:
    """Seeded sampler plus step recorder for one problem."""

    __slots__ = ("rng", "values", "params", "displays", "steps", "question", "declared", "companies", "signed_names",
                 "_pronoun")

    def __init__(self, seed_key: int | str) -> None:
        self.rng = random.Random(seed_key)
        self.values: dict[str, Any] = {}
        self.params: dict[str, Any] = {}
        self.displays: dict[str, str] = {}
        self.steps: list[Step] = []
        self.question: str | None = None
        self.declared: list[Bound] = []
        self.companies: dict[str, str] = {}
        self.signed_names: dict[str, str] = {}
        self._pronoun: str | None = None

    # -- constraints ------------------------------------------------------------------------
    def require(self, condition: bool, why: str) -> None:
        """Reject this draw unless ``condition`` holds; the problem is drawn again from the seed.

        Re-draws are deterministic (attempt k of seed s always uses the same generator), so a seed
        still names one problem. ``why`` names the condition in the error raised when no draw in
        the registry's budget satisfies it.
        """
        if not condition:
            raise Redraw(why)

    def bounds(self, name: str, lo: float | str | None = None, hi: float | str | None = None, *,
               whole: bool = False, why: str = "") -> None:
        """Declare what is plausible for parameter or step ``name``: ``lo <= value <= hi``, a whole number.

        ``lo`` and ``hi`` are numbers or formulas over other values (``hi="revenue"``: a cost never above
        the revenue it comes out of; ``hi="supply * 1.6"``). Nothing is enforced while drawing:
        ``finchain verify`` checks every draw and names the template, seed and bound that failed, so a
        range that lets a draw contradict itself (more allocated than raised, 312.6 graduates) is caught,
        and the template fixes it with a joint draw or ``b.require``. ``why`` says what the bound means
        ("allocated never exceeds proceeds").
        """
        for side in (lo, hi):
            if side is not None and not isinstance(side, (int, float, str)) or isinstance(side, bool):
                raise TemplateError(f"bounds({name!r}): lo and hi are numbers or formulas, got {side!r}")
            if isinstance(side, str):
                parse_formula(side)
        if lo is None and hi is None and not whole:
            raise TemplateError(f"bounds({name!r}) declares nothing: give lo, hi or whole=True")
        self.declared.append(Bound(name, lo, hi, whole, why))

    def signed(self, name: str, why: str) -> None:
        """Declare that ``name``, whose name says it is an amount (a price, a holding), may be negative, and why.

        ``finchain verify`` (rule "non-negative") otherwise fails any negative amount at any step.
        """
        if not why.strip():
            raise TemplateError(f"signed({name!r}) needs a reason: why may this amount be negative?")
        self.signed_names[name] = why

    # -- parameters -------------------------------------------------------------------------
    def _param(self, name: str, value: Any, display: str) -> Any:
        if name in self.values:
            raise TemplateError(f"parameter {name!r} is defined twice")
        self.values[name] = self.params[name] = value
        self.displays[name] = display
        return value

    def money(self, name: str, lo: float, hi: float, step: float = 1, unit: str = "$") -> float:
        """An amount between ``lo`` and ``hi`` on a grid of ``step`` (whole dollars by default).

        Bounds computed from other amounts (``0.65 * cost``) are snapped inward to the grid.
        """
        first, last = math.ceil(round(lo / step, 9)), math.floor(round(hi / step, 9))
        if last < first:
            raise TemplateError(f"money {name!r}: no multiple of {step} lies in [{lo}, {hi}]")
        value = step * (first + self.rng.randrange(last - first + 1))
        value = round_half_up(value, 2)
        if float(value).is_integer():
            value = int(value)
        return self._param(name, value, with_unit(value, unit))

    def percent(self, name: str, lo: float, hi: float, decimals: int = 1) -> float:
        """A rate in percent points (``5.5`` means 5.5%); formulas divide by 100."""
        value = round(self.rng.uniform(lo, hi), decimals)
        if decimals == 0 or float(value).is_integer():
            value = int(value)
        return self._param(name, value, with_unit(value, "%"))

    def integer(self, name: str, lo: int, hi: int, unit: str = "") -> int:
        """A whole number in ``[lo, hi]``; ``unit`` (e.g. "years") is written after it."""
        value = self.rng.randint(lo, hi)
        return self._param(name, value, with_unit(value, unit))

    def number(self, name: str, lo: float, hi: float, decimals: int = 2, unit: str = "") -> float:
        """A real number rounded to ``decimals`` (a beta, a ratio, a price per unit)."""
        value = round(self.rng.uniform(lo, hi), decimals)
        return self._param(name, value, with_unit(value, unit, decimals))

    def choice(self, name: str, options: Sequence[Any] | Mapping[str, Any]) -> Any:
        """A categorical parameter. Given a mapping, the key is shown and the value is used:
        ``b.choice("per_year", {"quarterly": 4, "monthly": 12})`` shows "monthly", computes with 12.
        """
        if isinstance(options, Mapping):
            shown = self.pick(list(options))
            return self._param(name, options[shown], shown)
        value = options[self.rng.randrange(len(options))]
        return self._param(name, value, str(value))

    def derive(self, name: str, value: Any, unit: str = "", decimals: int | None = None) -> Any:
        """A parameter computed by the template from earlier draws (a joint draw).

        ``b.derive("sell_price", buy * (1 + g / 100), unit="$")`` shows the sell price in the
        question like any drawn parameter. Money is rounded to cents and percentages to
        ``decimals`` (default 2) so that the value used is exactly the value shown.
        """
        if isinstance(value, float):
            if unit in CURRENCY_UNITS:
                value = round_half_up(value, 2 if decimals is None else decimals)
            elif decimals is not None or unit in ("%", "pp"):
                value = round(value, 2 if decimals is None else decimals)
            if float(value).is_integer() and (decimals in (None, 0)) and unit not in ("%", "pp"):
                value = int(value)
        return self._param(name, value, with_unit(value, unit, decimals))

    def company(self, name: str = "company", kind: str = "any", exclude: Sequence[str] = ()) -> str:
        """A firm's name that fits the setting: ``kind`` is one of :data:`~.names.COMPANY_KINDS` ("bank", "fund",
        "retailer", "software", "pharmaceutical", "family office", "exchange", "listed" for a quoted stock,
        "trading" for a desk or fund that arbitrages and writes options, "large" for a group with tens of
        billions of revenue, "industrial", "any"); a farm does not run covered interest arbitrage. ``exclude``
        names already drawn (two parties to one deal are two firms). ``finchain verify`` (rule "company kind")
        fails a question that names a pool's firm not drawn here, or says it is something its pool is not."""
        if kind not in COMPANY_KINDS:
            raise TemplateError(f"company kind must be one of {sorted(COMPANY_KINDS)}, got {kind!r}")
        pool = tuple(n for n in COMPANY_KINDS[kind] if n not in set(exclude))
        if not pool:
            raise TemplateError(f"company {name!r}: every {kind!r} name is excluded")
        self.companies[name] = kind
        return self.choice(name, pool)

    @staticmethod
    def possessive(name: str) -> str:
        """"Pinnacle Foods'", "Maya's": the possessive of a name drawn or assembled by the template."""
        return possessive(name)

    @staticmethod
    def article(text: str) -> str:
        """``text`` with "a" or "an" before it: article("8% coupon") == "an 8% coupon"."""
        return article(text)

    def person(self, name: str = "person") -> str:
        """A person's name; later ``{they}``/``{their}``/``{them}`` in the question refer to them."""
        who = self.choice(name, PEOPLE)
        self._pronoun = PRONOUNS[who]
        return who

    @staticmethod
    def plural(count: float, noun: str) -> str:
        """``noun`` in the number that agrees with ``count``: plural(1, "year") == "year"."""
        return plural(count, noun)

    def pick(self, options: Sequence[Any]) -> Any:
        """A choice of wording that is not a parameter (it changes text, not numbers)."""
        return options[self.rng.randrange(len(options))]

    # -- question and steps ------------------------------------------------------------------
    def ask(self, text: str) -> str:
        """Write the question; ``{name}`` placeholders become parameters' displays."""
        names = dict(self.displays)
        if self._pronoun is not None:
            for form, word in PRONOUN_FORMS[self._pronoun].items():
                names.setdefault(form, word)
                names.setdefault(form.capitalize(), word.capitalize())
        try:
            self.question = tidy(text.format_map(names))
        except KeyError as exc:
            raise TemplateError(f"question names {exc}, which is not a sampled parameter") from None
        return self.question

    def step(self, name: str, description: str, formula: str, unit: str = "") -> Any:
        """Record a step whose value is ``formula`` over parameters and earlier steps."""
        if name in self.values:
            raise TemplateError(f"step {name!r} reuses a name already defined")
        value = evaluate_compiled(formula, self.values)
        self.values[name] = value
        self.steps.append(Step(name, tidy(description), formula, value, unit))
        return value
