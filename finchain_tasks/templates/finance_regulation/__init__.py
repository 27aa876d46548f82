"""Finance regulation: AML, Basel capital, compliance fines, KYC and securities rules."""

BANKS = (
    "First Harbor Bank", "Cedar Valley Bank", "Northgate Savings Bank", "Pacific Crest Bank",
    "Union Ridge Bancorp", "Lakeshore National Bank", "Granite State Trust", "Silverline Bank",
    "Prairie Commerce Bank", "Bayview Federal Bank", "Old Mill Bank", "Redwood Capital Bank",
)
"""Bank names for questions set at a bank (the general company list has textile firms and airlines)."""
