"""Risk management: compliance risk, risk appetite, risk metrics, scenarios, sensitivities, stress tests, VaR."""

BANKS = (
    "First Harbor Bank", "Cedar Valley Bank", "Northgate Savings Bank", "Pacific Crest Bank",
    "Union Ridge Bancorp", "Lakeshore National Bank", "Granite State Trust", "Silverline Bank",
    "Prairie Commerce Bank", "Bayview Federal Bank", "Old Mill Bank", "Redwood Capital Bank",
)
"""Bank names for questions set at a bank."""
