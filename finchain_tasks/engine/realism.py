"""Realism rules that need no declaration: checked by ``finchain verify`` on every draw of every template.

Bounds a template declares (``b.bounds``) guard the quantities its author thought of; the draws that read
as implausible to a finance reader were elsewhere: a cluster holding −243,310 tokens, "posts posts", a
pharmaceutical company called a retailer, an MKR token worth $1.9 trillion, bonds more volatile than
equities. These rules read the roles a problem's names and text already say (a name ``bond_vol``, a
question "X, a retailer") and check what finance takes for granted:

* "non-negative": amounts of something (prices, supplies, holdings, shares, counts, volatilities) are never
  negative, at any step; ``b.signed(name, why)`` declares an exception and says why;
* "repeated word": no word twice in a row in the question or a step;
* "company kind": a company named in the question was drawn with ``b.company`` and what the question says
  it is ("X, a retailer", "X is a family office") is a kind whose pool holds X;
* "real instrument": a real coin or token named in the question has a price and a supply inside its
  documented band (:data:`REAL_INSTRUMENTS`), and no token is worth more than $1 trillion;
* "relation": the relations of :data:`RELATIONS` (bond volatility below equity volatility, a bid below its
  ask, a coupon near the yield, a part not above its whole, a start before its end) hold wherever both
  roles appear.

The cross-template rule "same question" (no two templates ask the same question) needs every template's
draws and lives in :func:`same_questions`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from finchain_tasks.engine.names import COMPANY_KINDS, DESCRIPTIONS, PEOPLE

# -- non-negative amounts -----------------------------------------------------------------------------------
AMOUNT_WORDS = frozenset({
    "price", "prices", "supply", "holding", "holdings", "shares", "tokens", "units", "count", "volume", "vol",
    "volatility", "sigma", "quantity", "inventory", "principal", "outstanding", "reserve", "reserves",
    "coins", "balance", "deposits", "population", "employees", "customers", "accounts", "headcount",
})
"""A name holding one of these words (``start_price``, ``bond_vol``, ``holding1``) is an amount of something."""
SIGNED_WORDS = frozenset({
    "change", "diff", "difference", "gain", "net", "delta", "return", "returns", "flow", "flows", "pnl",
    "growth", "drift", "move", "shock", "surprise", "gap", "excess", "alpha", "shift", "adj", "adjustment",
    "variance", "skew", "spread", "effect", "impact", "error", "swing", "cut", "rise", "fall", "drop",
})
"""…unless it also says it is a change of one (``price_change``, ``net_flow``): changes may be negative."""


COUNTED_UNITS = frozenset({
    "tokens", "million tokens", "shares", "coins", "BTC", "ETH", "units", "contracts", "posts", "people",
    "employees", "customers", "accounts", "addresses", "wallets", "transactions", "barrels", "tonnes",
})
"""A value in one of these units counts things (holdings, supplies, shares), whatever its name."""


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\d]+", name.lower()) if w]


def is_amount(name: str, unit: str = "") -> bool:
    """Whether the name (or the unit: a count of tokens, shares, contracts) says the value is an amount of
    something that cannot be negative, and the name does not say it is a change of one."""
    words = _words(name)
    counted = unit in COUNTED_UNITS or any(w in AMOUNT_WORDS for w in words)
    return counted and not any(w in SIGNED_WORDS for w in words)


def check_non_negative(values: dict[str, Any], signed: dict[str, str], units: dict[str, str] | None = None
                       ) -> Iterable[str]:
    """Rule "non-negative": every amount (:func:`is_amount`) is at least zero, unless declared signed.

    ``units`` holds each value's unit (steps' units, and parameters' units read from their displays)."""
    units = units or {}
    for name, value in values.items():
        if name in signed or not is_amount(name, units.get(name, "")) or not _number(value):
            continue
        if value < 0:
            yield (f"{name} = {value:,.6g} is negative, but its name says it is an amount of something "
                   f"(declare b.signed({name!r}, why) if it may be)")


# -- repeated words -------------------------------------------------------------------------------------------
REPEATED_WORD = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.IGNORECASE)
""""posts posts": a word written twice in a row (numbers are not words: "2 × 2" is arithmetic)."""
ALLOWED_REPEATS = frozenset({"that", "had"})
"""English allows "that that" and "had had"; nothing else repeats."""


def check_repeated_words(texts: Sequence[tuple[str, str]]) -> Iterable[str]:
    """Rule "repeated word": no word twice in a row in the question or a step."""
    for where, text in texts:
        for m in REPEATED_WORD.finditer(text):
            if m.group(1).lower() not in ALLOWED_REPEATS:
                yield f"{where} says {m.group(0)!r} (a repeated word)"


# -- companies and what the question says they are -------------------------------------------------------------
KNOWN_COMPANIES = frozenset(name for pool in COMPANY_KINDS.values() for name in pool)
KINDS_OF = {name: frozenset(kind for kind, pool in COMPANY_KINDS.items() if name in pool)
            for name in KNOWN_COMPANIES}
_NAMES = "|".join(map(re.escape, sorted(KNOWN_COMPANIES, key=len, reverse=True)))
DESCRIBED = re.compile(r"(?<![\w])(" + _NAMES + r")(?:, | is | \()(?:a|an) ([^,.;:()]{3,80})")
""""Summit Pharmaceuticals, a retailer", "Marlin Macro Fund is a family office": a name and what it is said to be."""
_COMPANY = re.compile(r"(?<![\w])(?:" + _NAMES + r")(?![\w])")


def check_company_kind(question: str, companies: dict[str, str] | None, params: dict[str, Any]) -> Iterable[str]:
    """Rule "company kind": names come from ``b.company`` and fit what the question says the firm is.

    ``companies`` maps each parameter drawn with ``b.company`` to its kind (None for a record read from a
    file, which cannot say how its names were drawn: then only the descriptions are checked).
    """
    if companies is not None:
        drawn = {params[p] for p in companies if p in params}
        for name in sorted({m.group(0) for m in _COMPANY.finditer(question)} - drawn):
            yield f"the question names {name!r}, which was not drawn with b.company(kind=...)"
    for m in DESCRIBED.finditer(question):
        name, said = m.group(1), m.group(2)
        for pattern, kinds in DESCRIPTIONS:
            if re.search(pattern, said, re.IGNORECASE):
                if not KINDS_OF[name] & set(kinds):
                    yield (f"{name!r} is described as {('a ' + said)!r}, but it is not in the {kinds[0]!r} name "
                           f"pool (draw it with b.company(kind={kinds[0]!r}))")
                break


# -- real instruments ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Band:
    """Where a real coin's price (USD) and circulating supply (units) have been: wide, but not 10-900× off."""

    price: tuple[float, float]
    supply: tuple[float, float]


REAL_INSTRUMENTS: dict[tuple[str, ...], Band] = {
    ("BTC", "Bitcoin"): Band((3_000, 150_000), (17e6, 21e6)),
    ("ETH", "Ether", "Ethereum"): Band((80, 5_000), (100e6, 125e6)),
    ("SOL", "Solana"): Band((1, 300), (250e6, 600e6)),
    ("ADA", "Cardano"): Band((0.02, 3.2), (25e9, 45e9)),
    ("AVAX", "Avalanche"): Band((3, 150), (100e6, 720e6)),
    ("DOT", "Polkadot"): Band((2, 55), (0.9e9, 1.6e9)),
    ("LINK", "Chainlink"): Band((0.1, 55), (0.35e9, 1e9)),
    ("LTC", "Litecoin"): Band((20, 420), (55e6, 84e6)),
    ("ATOM", "Cosmos"): Band((1, 45), (0.19e9, 0.45e9)),
    ("AAVE",): Band((25, 700), (12e6, 16e6)),
    ("UNI", "Uniswap"): Band((1, 45), (0.5e9, 1e9)),
    ("ARB", "Arbitrum"): Band((0.2, 2.5), (1e9, 10e9)),
    ("OP", "Optimism"): Band((0.4, 5), (0.2e9, 4.3e9)),
    ("LDO", "Lido"): Band((0.4, 7), (0.8e9, 1e9)),
    ("MKR", "Maker"): Band((200, 6_300), (0.85e6, 1.01e6)),
    ("COMP", "Compound"): Band((25, 900), (2e6, 10e6)),
}
"""Real coins a question may name, with the band of prices and circulating supplies they have really had
(CoinMarketCap/CoinGecko histories through 2025, rounded outward). Outside a band, use a fictional name."""
TOKEN_CAP_LIMIT = 1e12
"""No token is worth more than $1 trillion (Bitcoin, the largest, peaked near $2.4 trillion; no other near it)."""
_PRICE_WORDS = frozenset({"price", "prices"})
_SUPPLY_WORDS = frozenset({"supply"})


_TICKER_OF = {key: keys[0] for keys in REAL_INSTRUMENTS for key in keys}
_INSTRUMENT = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, sorted(_TICKER_OF, key=len, reverse=True)))
                         + r")(?![\w])")
_BAND_OF = {keys[0]: band for keys, band in REAL_INSTRUMENTS.items()}


def instruments_named(question: str) -> list[tuple[str, Band]]:
    """The real instruments the question names (by ticker or by name), each once, as first written."""
    found: dict[str, str] = {}
    for m in _INSTRUMENT.finditer(question):
        found.setdefault(_TICKER_OF[m.group(1)], m.group(1))
    return [(said, _BAND_OF[ticker]) for ticker, said in found.items()]


def check_instruments(question: str, values: dict[str, Any], units: dict[str, str]) -> Iterable[str]:
    """Rule "real instrument": a named coin's price and supply lie in its band; no token cap above $1 trillion.

    With one coin named, every price (``price``, ``start_price``; not a ``price_change``) and every supply the
    problem holds is that coin's; with several, a value is only checked when its name says whose it is.
    """
    named = instruments_named(question)
    tokens = re.search(r"\btokens?\b|\bcoins?\b", question) is not None
    for name, value in values.items():
        if not _number(value) or not is_amount(name):
            continue
        words = set(_words(name))
        if tokens and "cap" in words and value > TOKEN_CAP_LIMIT:
            yield f"{name} = ${value:,.0f} is a token market cap above $1 trillion"
        for ticker, band in named:
            if len(named) > 1 and ticker.lower() not in words:
                continue
            priced = words & _PRICE_WORDS and units.get(name, "$") in ("$", "")
            if priced and not band.price[0] <= value <= band.price[1]:
                yield (f"{name} = {value:,.6g} is outside {ticker}'s real price band "
                       f"${band.price[0]:,g}-${band.price[1]:,g} (use a fictional token)")
            if words & _SUPPLY_WORDS and not band.supply[0] <= _scaled(value, name, question) <= band.supply[1]:
                yield (f"{name} = {value:,.6g} is outside {ticker}'s real circulating supply band "
                       f"{band.supply[0]:,.3g}-{band.supply[1]:,.3g} (use a fictional token)")
    prices = [v for n, v in values.items() if _number(v) and set(_words(n)) & _PRICE_WORDS and is_amount(n)]
    supplies = [_scaled(v, n, question) for n, v in values.items()
                if _number(v) and set(_words(n)) & _SUPPLY_WORDS and is_amount(n)]
    if tokens and prices and supplies and max(prices) * max(supplies) > TOKEN_CAP_LIMIT:
        yield (f"a token priced at ${max(prices):,.2f} with a supply of {max(supplies):,.0f} is worth "
               f"${max(prices) * max(supplies):,.0f}, above $1 trillion")


def _scaled(value: float, name: str, question: str) -> float:
    """A supply shown in millions or billions ("962.4 million tokens") read as units."""
    for word, factor in (("billion", 1e9), ("million", 1e6)):
        if value < 1e5 and re.search(r"[\d.,]+ " + word, question):
            return value * factor
    return value


# -- relations ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Relation:
    """``small`` < ``large`` (or ``small`` <= ``large`` when ``strict`` is false; within ``apart`` of each other
    when ``apart`` is set), for every pair of names matching the two patterns with the same ``k`` group."""

    small: str
    large: str
    why: str
    strict: bool = True
    apart: float | None = None


RELATIONS = (
    Relation(r"(?:bond|bonds)_vol(?P<k>\w*)", r"(?:stock|equity|equities)_vol(?P<k>\w*)",
             "bonds are less volatile than equities"),
    Relation(r"bid(?P<k>\d*)", r"ask(?P<k>\d*)", "a bid is below its ask"),
    Relation(r"bid_(?P<k>\w+)", r"ask_(?P<k>\w+)", "a bid is below its ask"),
    Relation(r"coupon(?:_rate)?(?P<k>\d*)", r"(?:ytm|market_yield|yield_rate)(?P<k>\d*)",
             "a bond's coupon and its yield are in the same range (within 6 percentage points)", apart=6.0),
    Relation(r"(?P<k>[a-z]\w*)", r"total_(?P<k>\w+)", "a part is not larger than its whole", strict=False),
    Relation(r"(?P<k>[a-z]\w*)", r"(?P<k>[a-z]\w*)_total", "a part is not larger than its whole", strict=False),
    Relation(r"start_date(?P<k>\w*)", r"end_date(?P<k>\w*)", "a period starts before it ends"),
    Relation(r"(?P<k>\w*)start_month", r"(?P<k>\w*)end_month", "a period starts before it ends"),
)
"""Relations finance takes for granted, declared once and checked wherever both roles appear."""


def check_relations(values: dict[str, Any], units: dict[str, str]) -> Iterable[str]:
    """Rule "relation": each of :data:`RELATIONS` holds for every pair of names that plays its two roles."""
    names = [n for n, v in values.items() if _number(v)]
    for rel in RELATIONS:
        smalls = {m.group("k"): n for n in names if (m := re.fullmatch(rel.small, n))}
        for n in names:
            m = re.fullmatch(rel.large, n)
            if not m or m.group("k") not in smalls or smalls[m.group("k")] == n:
                continue
            a, b = values[smalls[m.group("k")]], values[n]
            if rel.apart is not None:
                if units.get(smalls[m.group("k")], "%") != units.get(n, "%"):
                    continue
                bad = abs(a - b) > rel.apart
                said = f"{smalls[m.group('k')]} = {a:,.6g} and {n} = {b:,.6g} are more than {rel.apart:g} apart"
            else:
                bad = a >= b if rel.strict else a > b * (1 + 1e-9) + 1e-9
                said = f"{smalls[m.group('k')]} = {a:,.6g} is not {'below' if rel.strict else 'at most'} {n} = {b:,.6g}"
            if bad:
                yield f"{said} ({rel.why})"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# -- the same question in two templates ----------------------------------------------------------------------------
SIMILARITY_LIMIT = 0.45
"""Two templates whose questions score above this (:func:`similarity`) ask the same question. Over the 290
templates the duplicate diversification pair scored 0.57 and the next pair 0.34."""
_NUMBER = re.compile(r"[$€£¥]?[−-]?\d[\d,]*(?:\.\d+)?%?")
_PERSON = re.compile(r"\b(?:" + "|".join(map(re.escape, PEOPLE)) + r")\b")
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(])")

Shape = tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]


def _grams(text: str, n: int) -> frozenset[tuple[str, ...]]:
    words = re.findall(r"[a-z]+", _COMPANY.sub(" C ", _PERSON.sub(" P ", _NUMBER.sub(" N ", text))).lower())
    return frozenset(zip(*(words[i:] for i in range(n))))


def shape(question: str) -> Shape:
    """What a question asks, not its draw: the word pairs of its asking sentence (the last one with a "?")
    and the word triples of the whole text, with numbers, people and companies blanked."""
    sentences = _SENTENCE.split(question.strip())
    asked = ([s for s in sentences if s.endswith("?")] or sentences[-1:])[-1]
    return _grams(asked, 2), _grams(question, 3)


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def similarity(a: Shape, b: Shape) -> float:
    """Mean of the asking sentences' and the whole texts' Jaccard similarities: a short shared "What is the
    total fine?" alone, or a shared setting alone, does not make two questions the same."""
    return 0.5 * _jaccard(a[0], b[0]) + 0.5 * _jaccard(a[1], b[1])


def same_questions(questions: dict[str, Sequence[str]], limit: float = SIMILARITY_LIMIT) -> list[str]:
    """Rule "same question": failure lines for pairs of templates whose questions are nearly the same.

    ``questions`` maps a template id to some of its rendered questions; two templates compare by the mean
    over paired draws of :func:`similarity`, so one chance coincidence of wording does not decide.
    """
    shapes = {tid: [shape(q) for q in qs] for tid, qs in questions.items()}
    ids = sorted(shapes)
    lines = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            pairs = list(zip(shapes[a], shapes[b]))
            if not pairs:
                continue
            score = sum(similarity(x, y) for x, y in pairs) / len(pairs)
            if score > limit:
                lines.append(f"{a} and {b}, rule same question: their questions share {score:.0%} of their "
                             f"word trigrams (limit {limit:.0%}): two templates ask the same question")
    return lines
