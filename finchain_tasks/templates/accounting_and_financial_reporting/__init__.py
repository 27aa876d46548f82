"""Accounting and financial reporting: balance sheets, cash flow statements, depreciation, income statements."""
