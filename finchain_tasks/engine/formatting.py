"""How numbers are written in questions and gold solutions.

One module decides every display so that a question, a rendered step and the verifier's
"is this parameter in the question" check all agree on the same text.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

CURRENCY_UNITS = {"$": "$", "USD": "$", "€": "€", "EUR": "€", "£": "£", "GBP": "£", "¥": "¥"}
"""Units that are written as a currency symbol before the number."""


_DECIMAL = Context(prec=60)
CLEAN_DIGITS = 15
"""Significant digits a float is read to before rounding: binary dust (1.1249999999999998 for 1.125) is
below them, so a half-cent tie is a tie whatever the float holds."""


_STEPS = {places: Decimal(1).scaleb(-places) for places in range(13)}
"""The quantum of each usual number of places, built once (a draw formats dozens of numbers)."""


def _decimal(value: float, decimals: int) -> Decimal:
    """``value`` rounded half-up to ``decimals`` places, in decimal arithmetic."""
    exact = Decimal(f"{float(value):.{CLEAN_DIGITS}g}")
    step = _STEPS.get(decimals) or Decimal(1).scaleb(-decimals)
    return exact.quantize(step, rounding=ROUND_HALF_UP, context=_DECIMAL)


def round_half_up(value: float, decimals: int = 0) -> float:
    """Round half away from zero in decimal: 0.125 → 0.13 and 2.675 → 2.68, whatever the binary float holds.

    Python's ``round`` rounds the binary float half-to-even, so a half-cent tie goes up in some draws and
    down in others; money is rounded with this everywhere (draws, the formula ``round``, every display).
    Values too large or not finite to hold a tie are returned as they are.
    """
    if not math.isfinite(value) or abs(value) >= 1e15:
        return value
    return float(_decimal(value, decimals))


def fixed(value: float, decimals: int) -> str:
    """``value`` with thousands separators and exactly ``decimals`` places, rounded half-up in decimal."""
    if not math.isfinite(value) or abs(value) >= 1e15:
        return f"{value:,.{decimals}f}"
    return f"{_decimal(value, decimals):,.{decimals}f}"


def plain(value: float, decimals: int | None = None) -> str:
    """A number with thousands separators and as many decimals as its size needs.

    Integers print without decimals; |x| >= 100 prints two decimals; smaller numbers keep four
    significant decimals so that a rate like 0.0042 never rounds to 0.00.
    """
    if type(value) is int and decimals is None:
        return f"{value:,}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if decimals is not None:
        return fixed(value, decimals)
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    magnitude = abs(value)
    if magnitude >= 100:
        text = fixed(value, 2)
    elif magnitude >= 1:
        text = fixed(value, 4).rstrip("0").rstrip(".")
    elif magnitude == 0 or not math.isfinite(magnitude):
        return str(value)
    else:
        digits = max(4, 3 - math.floor(math.log10(magnitude)))
        text = fixed(value, digits).rstrip("0").rstrip(".")
    return text


PERCENTAGE_POINTS = "pp"
"""The unit of a difference of two rates: displayed as "percentage points", scored like "%"."""

_IRREGULAR = {"person": "people", "company": "companies", "country": "countries", "entity": "entities",
              "facility": "facilities", "policy": "policies", "property": "properties", "day": "days",
              "child": "children", "basis point": "basis points", "percentage point": "percentage points"}
_SINGULAR = {many: one for one, many in _IRREGULAR.items()}


def plural(count: float, noun: str) -> str:
    """The form of ``noun`` that agrees with ``count`` ("1 year", "2 years", "1 company")."""
    if noun in _SINGULAR:
        one = _SINGULAR[noun]
    elif noun.endswith(("ches", "shes", "xes", "sses")):
        one = noun[:-2]
    elif noun.endswith("s") and not noun.endswith("ss"):
        one = noun[:-1]
    else:
        one = noun
    if abs(count) == 1:
        return one
    return _IRREGULAR.get(one, one + ("es" if one.endswith(("ch", "sh", "x", "ss")) else "s"))


_COUNTED = frozenset({
    "years", "months", "days", "weeks", "quarters", "periods", "shares", "units", "employees", "customers",
    "transactions", "tokens", "contracts", "loans", "payments", "installments", "bonds", "options",
    "hours", "accounts", "wallets", "blocks", "coins", "trades", "people", "companies", "countries",
    "credits", "lots", "times", "stores", "branches", "clients", "projects", "investors", "holders",
    "transfers", "deposits", "withdrawals", "users", "merchants", "cards", "tonnes", "entities",
    "percentage points", "basis points", "dollars",
})
"""Units that name counted things: a value of exactly 1 is shown with the singular."""


def with_unit(value, unit: str = "", decimals: int | None = None) -> str:
    """Display ``value`` in its unit: ``$1,234.56``, ``5.25%``, ``7 years``, ``Project A``.

    ``pp`` shows "percentage points"; a counted unit agrees with the number ("1 year").
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if unit in CURRENCY_UNITS:
        symbol = CURRENCY_UNITS[unit]
        if decimals is None:
            decimals = 0 if float(value).is_integer() else 2
        amount = plain(abs(value), decimals)
        return f"-{symbol}{amount}" if value < 0 else f"{symbol}{amount}"
    if unit == "%":
        return f"{plain(value, decimals)}%"
    if unit in ("bp", "bps"):
        return f"{plain(value, decimals)} bps"
    if unit == PERCENTAGE_POINTS:
        return f"{plain(value, decimals)} {plural(value, 'percentage points')}"
    text = plain(value, decimals)
    if unit in _COUNTED:
        unit = plural(value, unit)
    return f"{text} {unit}" if unit else text


# -- computed results (gold steps) ---------------------------------------------------------------
# Drawn parameters keep the display they have in the question; a value the gold solution computes
# is shown with one convention per kind, fixed so that a reader who redoes a step from the numbers
# on the page gets the number printed after "=" (TEMPLATES.md section 4).

MINUS = "−"
"""The minus sign of rendered math (U+2212); every reader of the scorer treats it as a minus."""
PERCENT_DECIMALS = 6
"""Computed percentages: always six decimals (0.508333%, 11.679000%), so a monthly rate keeps six
significant digits and a 30-year chain built on it still reproduces (TEMPLATES.md section 4)."""
MONEY_DECIMALS = 2
"""Computed amounts of money: always to the cent ($5,675.00)."""
REAL_SIGNIFICANT = 7
"""Computed factors and ratios: at least seven significant digits below 1,000 (1.620119, 0.2849230)."""


def real_decimals(value: float) -> int:
    """Decimals that show a computed real to at least :data:`REAL_SIGNIFICANT` significant digits.

    Large numbers keep two decimals (cents-like), so no real is shown with fewer than six
    significant digits unless it is below 1e-12.
    """
    magnitude = abs(value)
    if magnitude == 0 or not math.isfinite(magnitude):
        return 2
    return max(2, REAL_SIGNIFICANT - 1 - math.floor(math.log10(magnitude)))


def _signed(text: str, negative: bool) -> str:
    return f"{MINUS}{text}" if negative else text


STABLECOINS = frozenset({"USDC", "USDT", "DAI", "PYUSD"})
"""Dollar-pegged tokens: amounts of them are money and keep the cent convention."""
UNIT_DECIMALS: dict[str, int] = {
    **{unit: MONEY_DECIMALS for unit in CURRENCY_UNITS}, **{coin: MONEY_DECIMALS for coin in STABLECOINS},
    "%": PERCENT_DECIMALS, PERCENTAGE_POINTS: PERCENT_DECIMALS, "bp": 2, "bps": 2,
    "tonnes": 2, "tonnes of CO2": 2, "MWh": 2, "million dollars": 2, "billion dollars": 2,
    **{people: 0 for people in ("people", "participants", "customers", "employees", "students", "patients",
                                "households", "users", "clients", "investors")},
}
"""One display rule per unit for computed values (TEMPLATES.md section 4): money and stablecoins to the
cent, percentages to six decimals, tonnes and energy to two, people whole (a template that computes a
fraction of a person fails the verifier's arithmetic and ``whole`` bounds). A unit not listed shows a
computed real to :data:`REAL_SIGNIFICANT` significant digits."""


def unit_decimals(value: float, unit: str = "") -> int | None:
    """Decimals a computed ``value`` in ``unit`` is shown with, or None for a whole count (an ``int``).

    The rule is per unit, never per value: a real that happens to be whole keeps its unit's decimals
    ("3.000000" beside "5.180000"), while an integer-typed result (a count of months, a ceiling) is an
    integer and shows none, except in a money or percent unit.
    """
    if unit in UNIT_DECIMALS:
        return UNIT_DECIMALS[unit]
    if type(value) is int:
        return None
    return real_decimals(value)


def result_number(value, unit: str = "", decimals: int | None = None) -> str:
    """A computed value as a bare number in its unit's convention, no symbol: ``19,570.50``, ``−1.7485``.

    ``decimals`` overrides the convention when a later step needs more digits of this value to reproduce
    its own result (:mod:`finchain_tasks.engine.precision`); never fewer.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    convention = unit_decimals(value, unit)
    if convention is None and decimals is None:
        return _signed(f"{int(abs(value)):,}", value < 0)
    decimals = max(convention or 0, decimals or 0)
    text = fixed(abs(value), decimals)
    return _signed(text, value < 0 and float(text.replace(",", "")) != 0)


def result_text(value, unit: str = "", decimals: int | None = None) -> str:
    """A computed value with its unit: ``$19,570.50``, ``18.7963%``, ``5.9963 percentage points``, ``6 months``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "Yes" if value else "No"
    number = result_number(value, unit, decimals)
    if unit in CURRENCY_UNITS:
        symbol = CURRENCY_UNITS[unit]
        return f"{MINUS}{symbol}{number[1:]}" if number.startswith(MINUS) else f"{symbol}{number}"
    if unit == "%":
        return f"{number}%"
    if unit in ("bp", "bps"):
        return f"{number} bps"
    shown = float(number.replace(",", "").replace(MINUS, "-"))  # agree with the number printed, not 0.9999999
    if unit == PERCENTAGE_POINTS:
        return f"{number} {plural(shown, 'percentage points')}"
    if unit in _COUNTED:
        unit = plural(shown, unit)
    return f"{number} {unit}" if unit else number
