"""Crypto finance: DeFi, tokenomics, transactions, whales, sentiment, events and regulation."""

import math

from finchain_tasks.engine import Builder
from finchain_tasks.engine.names import EXCHANGES  # noqa: F401  (b.company(kind="exchange"))


def price_for_cap(b: Builder, name: str, tokens: float, lo_cap: float, hi_cap: float) -> float:
    """Draw a market capitalization log-uniformly in [lo_cap, hi_cap] and derive the token price it implies.

    Drawing price and supply independently gives trillion-dollar small caps; drawing the cap keeps the
    two jointly realistic. The price is a shown parameter, rounded to cents; draws under $0.10 are rejected.
    """
    cap = math.exp(b.rng.uniform(math.log(lo_cap), math.log(hi_cap)))
    b.require(cap / tokens >= 0.1, "a token price of at least $0.10")
    return b.derive(name, round(cap / tokens, 2), unit="$")
