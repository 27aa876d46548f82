"""Financial markets: bonds, foreign exchange, options and stock market analysis."""
