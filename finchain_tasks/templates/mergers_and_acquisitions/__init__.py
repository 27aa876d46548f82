"""Mergers and acquisitions: deal structure, due diligence, integration, synergies and valuation."""
