"""Risk management: compliance risk, risk appetite, risk metrics, scenarios, sensitivities, stress tests, VaR."""

from finchain_tasks.templates.finance_regulation import BANKS  # noqa: F401  (one list of bank names)

FUNDS = (
    "Northstar Capital Fund", "Harborview Growth Fund", "Bluegate Capital Partners", "Crescent Investment Fund",
    "Ironwood Global Equity Fund", "Meadowlark Partners Fund", "Summit Peak Capital", "Tallgrass Opportunities Fund",
    "Westbrook Pension Trust", "Kestrel Macro Fund", "Oakmont Endowment", "Riverbend Absolute Return Fund",
)
"""Names for funds and portfolios (a portfolio's VaR belongs to a fund, not to an airline)."""
