"""Financial ratios: efficiency, leverage, liquidity and profitability."""
