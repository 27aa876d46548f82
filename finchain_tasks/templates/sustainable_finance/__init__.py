"""Sustainable finance: carbon credits, ESG investing, green bonds, social impact, sustainability reporting."""
