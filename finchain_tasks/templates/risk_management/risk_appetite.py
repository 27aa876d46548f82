"""Risk appetite: limit utilization and status, allocation of a risk budget, diversified aggregate limits,
remaining capacity under a loss tolerance, and Euler allocation of a firm-wide limit.

Sources: Financial Stability Board, Principles for an Effective Risk Appetite Framework (2013), s.2
(risk appetite, limits, utilization); McNeil, Frey and Embrechts, Quantitative Risk Management (2nd ed.,
2015), s.8.5 (Euler capital allocation) and s.2.2 (aggregation of normal VaR with correlation).
"""

from finchain_tasks.engine import Builder, template

DESKS = ("rates", "credit", "equities", "foreign exchange", "commodities")


@template("easy")
def limit_status(b: Builder) -> None:
    """Utilization of a desk limit and its traffic-light status (FSB Risk Appetite Principles, 2013)."""
    status = b.pick(["green", "amber", "red"])
    b.company("bank", kind="bank")
    b.choice("desk", DESKS)
    b.money("limit", 5_000_000, 80_000_000, step=500_000)
    b.integer("amber", 75, 90)
    lo, hi = {"green": (0.4, b.values["amber"] / 100 - 0.01), "amber": (b.values["amber"] / 100 + 0.01, 0.99),
              "red": (1.01, 1.3)}[status]
    b.derive("exposure", 10_000 * round(b.values["limit"] * b.rng.uniform(lo, hi) / 10_000), unit="$")
    b.ask(
        "The {desk} desk at {bank} has a 1-day VaR limit of {limit} and a current VaR of {exposure}. The "
        "risk appetite framework flags a limit 'green' below {amber}% utilization, 'amber' from {amber}% up to "
        "100%, and 'red' above 100%. What is the desk's status?"
    )
    b.step("utilization", "Limit utilization: exposure ÷ limit (%)", "exposure / limit * 100", unit="%")
    b.step("status", "Traffic-light status of the utilization",
           "'green' if utilization < amber else ('amber' if utilization <= 100 else 'red')")


@template("easy")
def proportional_risk_budget(b: Builder) -> None:
    """A firm-wide risk budget shared in proportion to planned revenue (FSB Risk Appetite Principles, 2013)."""
    b.company("bank", kind="bank")
    b.money("budget", 20_000_000, 200_000_000, step=1_000_000)
    for name in ("rev_rates", "rev_credit", "rev_equities"):
        b.money(name, 50_000_000, 900_000_000, step=1_000_000)
    b.bounds("share", lo=0, hi=100, why="a share of the budget")
    b.ask(
        "{bank} sets a total VaR budget of {budget} for its trading business and shares it among three desks "
        "in proportion to their planned revenue: rates {rev_rates}, credit {rev_credit} and equities "
        "{rev_equities}. What VaR limit does the credit desk receive?"
    )
    b.step("total_revenue", "Total planned revenue", "rev_rates + rev_credit + rev_equities", unit="$")
    b.step("share", "Credit desk's share of revenue (%)", "rev_credit / total_revenue * 100", unit="%")
    b.step("limit", "Credit desk VaR limit", "budget * share / 100", unit="$")


@template("intermediate")
def diversified_limit_utilization(b: Builder) -> None:
    """Aggregate VaR of two desks with correlation against a firm limit (McNeil et al., s.2.2)."""
    b.company("bank", kind="bank")
    b.number("var1", 5, 60, decimals=1)
    b.derive("var2", round(b.values["var1"] * b.rng.uniform(0.4, 1.6), 1), decimals=1)
    b.number("rho", -0.3, 0.8, decimals=2)
    b.require(abs(b.values["rho"]) > 0.05, "a correlation that matters")
    b.derive("limit", round((b.values["var1"] + b.values["var2"]) * b.rng.uniform(0.75, 1.1), 1), decimals=1)
    b.ask(
        "{bank}'s two trading desks have 1-day 99% VaRs of ${var1} million and ${var2} million; their P&Ls "
        "are jointly normal with a correlation of {rho}. The board's firm-wide VaR limit is ${limit} million. "
        "What percentage of the firm limit is used by the aggregate VaR?"
    )
    b.step("variance", "Sum of squares plus the correlation term",
           "var1 ** 2 + var2 ** 2 + 2 * rho * var1 * var2")
    b.step("aggregate", "Aggregate VaR in $ millions: square root of the sum", "sqrt(variance)")
    b.step("utilization", "Utilization of the firm limit (%)", "aggregate / limit * 100", unit="%")


@template("intermediate", floor=100_000)
def loss_tolerance_capacity(b: Builder) -> None:
    """Remaining capacity under a stressed-loss tolerance set as a share of capital (FSB, 2013, s.2)."""
    b.company("bank", kind="bank")
    b.money("capital", 1_000_000_000, 20_000_000_000, step=10_000_000)
    b.percent("tolerance", 5, 15, decimals=1)
    appetite = b.values["capital"] * b.values["tolerance"] / 100
    b.derive("current", 1_000_000 * round(appetite * b.rng.uniform(0.55, 0.9) / 1_000_000), unit="$")
    b.derive("new_loss", 1_000_000 * round(appetite * b.rng.uniform(0.05, 0.4) / 1_000_000), unit="$")
    left = appetite - b.values["current"] - b.values["new_loss"]
    b.require(abs(left) > 0.02 * appetite, "not a near tie with the tolerance")
    b.ask(
        "{bank}'s risk appetite statement caps the loss in its severe stress scenario at {tolerance} of its "
        "{capital} of capital. The current portfolio would lose {current} in that scenario, and a proposed "
        "new lending program would add a stressed loss of {new_loss}. How much stressed-loss capacity remains "
        "after the program (negative if the appetite would be breached)?"
    )
    b.step("appetite", "Loss tolerance in dollars", "capital * tolerance / 100", unit="$")
    b.step("used", "Stressed loss with the program", "current + new_loss", unit="$")
    b.step("capacity", "Remaining capacity", "appetite - used", unit="$")


@template("advanced")
def euler_limit_allocation(b: Builder) -> None:
    """Firm-wide limit shared by Euler risk contributions; headroom of one desk (McNeil et al., s.8.5).

    For normal P&Ls, desk 1's Euler contribution to VaR_p is VaR₁ × (VaR₁ + ρ·VaR₂) ÷ VaR_p, and the
    contributions add up to VaR_p.

    Concepts: portfolio VaR with correlation; Euler risk contribution; proportional limit allocation; desk headroom.
    """
    b.company("bank", kind="bank")
    b.number("var1", 5, 60, decimals=1)
    b.derive("var2", round(b.values["var1"] * b.rng.uniform(0.4, 1.6), 1), decimals=1)
    b.number("rho", 0.1, 0.8, decimals=2)
    v = b.values
    firm = (v["var1"] ** 2 + v["var2"] ** 2 + 2 * v["rho"] * v["var1"] * v["var2"]) ** 0.5
    b.derive("limit", round(firm * b.rng.uniform(1.1, 1.5), 1), decimals=1)
    b.bounds("share", lo=0, hi=100, why="a share of the limit")
    b.ask(
        "{bank} has a firm-wide VaR limit of ${limit} million. Desk 1 has a standalone 1-day VaR of ${var1} "
        "million and desk 2 of ${var2} million, with a P&L correlation of {rho} (jointly normal). The firm "
        "limit is shared between the desks in proportion to their Euler contributions to the firm's VaR, "
        "where desk 1's contribution is VaR₁ × (VaR₁ + correlation × VaR₂) ÷ firm VaR. How much headroom "
        "does desk 1 have: its allocated limit minus its current contribution, in millions of dollars?"
    )
    b.step("variance", "Sum of squares plus the correlation term", "var1 ** 2 + var2 ** 2 + 2 * rho * var1 * var2")
    b.step("firm_var", "Firm VaR in $ millions", "sqrt(variance)")
    b.step("contribution", "Desk 1's Euler contribution in $ millions", "var1 * (var1 + rho * var2) / firm_var")
    b.step("share", "Desk 1's share of firm VaR (%)", "contribution / firm_var * 100", unit="%")
    b.step("allocated", "Desk 1's allocated limit in $ millions", "limit * share / 100")
    b.step("headroom", "Desk 1's headroom in $ millions", "allocated - contribution")
