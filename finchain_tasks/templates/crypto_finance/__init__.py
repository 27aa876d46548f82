"""Crypto finance: DeFi, tokenomics, transactions, whales, sentiment, events and regulation."""
