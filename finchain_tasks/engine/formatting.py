"""How numbers are written in questions and gold solutions.

One module decides every display so that a question, a rendered step and the verifier's
"is this parameter in the question" check all agree on the same text.
"""

from __future__ import annotations

import math

CURRENCY_UNITS = {"$": "$", "USD": "$", "€": "€", "EUR": "€", "£": "£", "GBP": "£", "¥": "¥"}
"""Units that are written as a currency symbol before the number."""


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
        return f"{value:,.{decimals}f}"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{value:,.2f}"
    elif magnitude >= 1:
        text = f"{value:,.4f}".rstrip("0").rstrip(".")
    elif magnitude == 0 or not math.isfinite(magnitude):
        return str(value)
    else:
        digits = max(4, 3 - math.floor(math.log10(magnitude)))
        text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
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


def result_number(value, unit: str = "") -> str:
    """A computed value as a bare number in its unit's convention, no symbol: ``19,570.50``, ``−1.7485``.

    Whole numbers without a money or percent unit (a count of months, a discriminant) print as integers.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if unit in CURRENCY_UNITS:
        decimals = MONEY_DECIMALS
    elif unit in ("%", PERCENTAGE_POINTS):
        decimals = PERCENT_DECIMALS
    elif unit in ("bp", "bps"):
        decimals = 2
    elif float(value).is_integer() and abs(value) < 1e15:
        return _signed(f"{int(abs(value)):,}", value < 0)
    else:
        decimals = real_decimals(value)
    text = f"{abs(value):,.{decimals}f}"
    return _signed(text, value < 0 and float(text.replace(",", "")) != 0)


def result_text(value, unit: str = "") -> str:
    """A computed value with its unit: ``$19,570.50``, ``18.7963%``, ``5.9963 percentage points``, ``6 months``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "Yes" if value else "No"
    number = result_number(value, unit)
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
