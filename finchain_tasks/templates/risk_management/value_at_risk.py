"""Value at risk: parametric VaR, historical VaR from a return list, square-root-of-time scaling,
confidence conversion, portfolio VaR with correlation, and a liquidity adjustment.

Sources: Jorion, Value at Risk (3rd ed.), ch. 5 (parametric VaR, √t scaling), ch. 7 (portfolio VaR
with correlation, diversification), ch. 10 (historical simulation); Hull, Risk Management and Financial
Institutions (5th ed.), ch. 12–14; Basel 2.5 (BCBS 158, 2009) for the 10-day 99% standard and the
multiplier of at least 3.
"""

from finchain_tasks.engine import Builder, template

Z = {"95%": 1.645, "99%": 2.326}


@template("easy")
def parametric_var(b: Builder) -> None:
    """One-day parametric VaR from an annual volatility (Jorion, ch. 5)."""
    b.company("fund", kind="fund")
    b.money("value", 1_000_000, 500_000_000, step=100_000)
    b.percent("vol", 8, 40, decimals=1)
    conf = b.choice("conf", {"95%": 95, "99%": 99})
    b.derive("z", Z[f"{conf}%"], decimals=3)
    b.ask(
        "{fund} holds a {value} equity position with annual volatility {vol}. Assuming normally distributed "
        "daily returns with zero mean and 252 trading days a year, what is the one-day {conf} VaR (z = {z})?"
    )
    b.step("daily", "Daily volatility as a decimal: annual ÷ 100 ÷ √252", "vol / 100 / sqrt(252)")
    b.step("var", "One-day VaR: value × z × daily volatility", "value * z * daily", unit="$")


@template("easy")
def historical_var(b: Builder) -> None:
    """Historical-simulation VaR from twenty daily returns, scaled to ten days (Jorion, ch. 10 and 5)."""
    b.company("fund", kind="fund")
    b.money("value", 1_000_000, 300_000_000, step=100_000)
    returns = [round(b.rng.gauss(0.05, 1.3), 2) for _ in range(20)]
    b.require(len(set(returns)) == 20 and sorted(returns)[1] < -0.3, "distinct returns with real losses")
    for i, r in enumerate(returns, 1):
        b.derive(f"r{i}", r, unit="%", decimals=2)
    second = sorted(range(1, 21), key=lambda i: returns[i - 1])[1]
    listing = ", ".join(f"{{r{i}}}" for i in range(1, 21))
    b.ask(
        "{fund}'s portfolio is worth {value}. Its last 20 daily returns were " + listing + ". Using historical "
        "simulation, the one-day 90% VaR is the loss at the second-worst return (10% of 20 observations lie "
        "at or below it). What is the ten-day 90% VaR, scaling by √10?"
    )
    b.step("one_day", "One-day VaR: value × loss at the second-worst return", f"-value * r{second} / 100",
           unit="$")
    b.step("ten_day", "Ten-day VaR: one-day VaR × √10", "one_day * sqrt(10)", unit="$")


@template("intermediate")
def regulatory_var_from_95(b: Builder) -> None:
    """From a one-day 95% VaR to the 10-day 99% VaR and the capital multiplier (Jorion, ch. 5; BCBS 158)."""
    b.company("bank", kind="bank")
    b.money("var95", 200_000, 50_000_000, step=10_000)
    b.number("multiplier", 3, 4, decimals=2)
    b.ask(
        "{bank}'s risk system reports a one-day 95% VaR of {var95} for its trading book, assuming normal "
        "returns with zero mean (z = 1.645 at 95% and 2.326 at 99%). The regulator requires a 10-day 99% VaR "
        "scaled by √10, and sets the capital charge at {multiplier} times that figure. What is the capital "
        "charge?"
    )
    b.step("sigma", "Daily standard deviation in dollars: VaR ÷ 1.645", "var95 / 1.645", unit="$")
    b.step("var99", "One-day 99% VaR: 2.326 × σ (σ = VaR95 ÷ 1.645)", "2.326 * var95 / 1.645", unit="$")
    b.step("var10", "Ten-day 99% VaR: one-day 99% VaR × √10", "2.326 * var95 / 1.645 * sqrt(10)", unit="$")
    b.step("charge", "Capital charge: multiplier × ten-day VaR (2.326 × VaR95 ÷ 1.645 × √10)",
           "multiplier * 2.326 * var95 / 1.645 * sqrt(10)", unit="$")


@template("intermediate")
def diversified_portfolio_var(b: Builder) -> None:
    """VaR of two positions with correlation and the diversification benefit (Jorion, ch. 7)."""
    b.company("fund", kind="fund")
    b.money("value1", 2_000_000, 200_000_000, step=100_000)
    b.derive("value2", 100_000 * round(b.values["value1"] * b.rng.uniform(0.4, 2) / 100_000), unit="$")
    equity_vol = b.percent("equity_vol", 0.8, 2.5, decimals=2)
    b.percent("bond_vol", 0.3, min(1.5, 0.8 * equity_vol), decimals=2)  # bonds are the calmer asset
    b.number("rho", -0.4, 0.8, decimals=2)
    b.require(abs(b.values["rho"]) > 0.05, "a correlation that matters")
    b.ask(
        "{fund} holds {value1} of stocks (daily volatility {equity_vol}) and {value2} of bonds (daily volatility "
        "{bond_vol}); the correlation of their daily returns is {rho}. Using z = 2.326 for 99% and normal returns "
        "with zero mean, what is the diversification benefit: the sum of the two stand-alone one-day 99% VaRs "
        "minus the portfolio's one-day 99% VaR?"
    )
    b.step("var1", "Stand-alone VaR of the stocks", "2.326 * value1 * equity_vol / 100", unit="$")
    b.step("var2", "Stand-alone VaR of the bonds", "2.326 * value2 * bond_vol / 100", unit="$")
    b.step("var_p", "Portfolio VaR: √(VaR₁² + VaR₂² + 2ρ·VaR₁·VaR₂)",
           "sqrt(var1 ** 2 + var2 ** 2 + 2 * rho * var1 * var2)", unit="$")
    b.step("benefit", "Diversification benefit", "var1 + var2 - var_p", unit="$")


@template("advanced")
def ten_day_var_with_drift(b: Builder) -> None:
    """Liquidity-adjusted ten-day 99% VaR of a two-asset portfolio with expected return.

    σ_p from weights, volatilities and correlation (Jorion, ch. 7); ten-day σ = σ_p·√(10/252) and μ =
    μ_p·10/252; VaR = V × (z·σ − μ) (Jorion, ch. 5); plus the exogenous liquidity cost of half the
    bid-ask spread on the position (Bangia, Diebold, Schuermann and Stroughair, 1999; Jorion, ch. 13).

    Concepts: portfolio volatility with correlation; square-root-of-time scaling; drift-adjusted parametric VaR;
    liquidity cost of the bid-ask spread.
    """
    b.company("fund", kind="fund")
    b.money("value", 5_000_000, 500_000_000, step=100_000)
    b.percent("w1", 30, 75, decimals=0)
    b.percent("equity_vol", 12, 30, decimals=1)
    b.percent("mu1", 6, 12, decimals=1)
    b.percent("bond_vol", 3, 10, decimals=1)
    b.percent("mu2", 2, 5, decimals=1)
    b.number("rho", -0.3, 0.6, decimals=2)
    b.percent("spread", 0.1, 0.8, decimals=2)
    b.ask(
        "{fund} invests {value} with {w1} in an equity index (expected return {mu1}, volatility {equity_vol} a year) "
        "and the rest in a bond index (expected return {mu2}, volatility {bond_vol} a year); the correlation is "
        "{rho}. Returns are normal; use 252 trading days a year and z = 2.326. The portfolio's average bid-ask "
        "spread is {spread} of its value, and liquidating it costs half the spread. What is the "
        "liquidity-adjusted ten-day 99% VaR, including the expected return over the ten days?"
    )
    b.step("sigma", "Annual portfolio volatility (%)",
           "sqrt((w1 / 100 * equity_vol) ** 2 + ((100 - w1) / 100 * bond_vol) ** 2 "
           "+ 2 * rho * (w1 / 100 * equity_vol) * ((100 - w1) / 100 * bond_vol))", unit="%")
    b.step("mu", "Annual portfolio expected return (%)", "w1 / 100 * mu1 + (100 - w1) / 100 * mu2", unit="%")
    b.step("sigma_10", "Ten-day volatility as a decimal: σ ÷ 100 × √(10 ÷ 252)", "sigma / 100 * sqrt(10 / 252)")
    b.step("mu_10", "Ten-day expected return as a decimal: μ ÷ 100 × 10 ÷ 252", "mu / 100 * 10 / 252")
    b.step("var", "Ten-day 99% VaR: value × (2.326 × ten-day σ − ten-day μ)",
           "value * (2.326 * sigma_10 - mu_10)", unit="$")
    b.step("liquidity", "Liquidity cost: half the spread × value", "value * spread / 100 / 2", unit="$")
    b.step("lvar", "Liquidity-adjusted VaR", "var + liquidity", unit="$")
