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
    if count == 1:
        return one
    return _IRREGULAR.get(one, one + ("es" if one.endswith(("ch", "sh", "x", "ss")) else "s"))


_COUNTED = frozenset({
    "years", "months", "days", "weeks", "quarters", "periods", "shares", "units", "employees", "customers",
    "transactions", "tokens", "contracts", "loans", "payments", "installments", "bonds", "options",
    "hours", "accounts", "wallets", "blocks", "coins", "trades", "people", "companies", "countries",
    "credits", "lots", "times", "stores", "branches", "clients", "projects", "investors", "holders",
    "transfers", "deposits", "withdrawals", "users", "merchants", "cards", "tonnes", "entities",
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
