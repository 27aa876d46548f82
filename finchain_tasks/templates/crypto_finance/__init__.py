"""Crypto finance: DeFi, tokenomics, transactions, whales, sentiment, events and regulation."""

EXCHANGES = ("Arclight Exchange", "Bitharbor", "Coinvale", "Nordchain Markets", "Quantix Exchange", "Satoria",
             "Tessera Digital", "Veldt Exchange", "Kestrel Markets", "Lodestar Crypto")
"""Fictional crypto venues: names that fit an exchange, unlike the general company list."""
