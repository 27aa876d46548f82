"""Risk management: compliance risk, risk appetite, risk metrics, scenarios, sensitivities, stress tests, VaR."""

from finchain_tasks.engine.names import BANKS, FUNDS  # noqa: F401  (b.company(kind="fund"))
