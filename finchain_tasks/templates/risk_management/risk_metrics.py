"""Risk metrics: beta, drawdown and recovery, sample volatility and the volatility band it implies,
diversification with correlation, and expected shortfall of a normal portfolio.

Sources: Bodie, Kane and Marcus, Investments (12th ed.), ch. 5 (sample standard deviation, annualizing
by √12, volatility over t years as σ·√t) and ch. 7–8 (portfolio variance, beta = Cov/Var); McNeil, Frey and Embrechts,
Quantitative Risk Management (2nd ed.), s.2.3 (expected shortfall of a normal loss: σ·φ(z)/(1 − α)).
"""

from finchain_tasks.engine import Builder, template

Z = {95: 1.645, 97.5: 1.96, 99: 2.326}


@template("easy")
def beta_from_covariance(b: Builder) -> None:
    """Beta as covariance over market variance (Bodie, Kane and Marcus, ch. 8)."""
    b.company("stock")
    b.percent("market_vol", 12, 24, decimals=1)
    beta = b.rng.uniform(0.4, 1.9)
    b.derive("cov", round(beta * (b.values["market_vol"] / 100) ** 2, 5), decimals=5)
    b.ask(
        "The covariance between {stock}'s annual returns and the market's is {cov}, and the market's annual "
        "volatility is {market_vol}. What is {stock}'s beta?"
    )
    b.step("market_var", "Market variance: volatility squared", "(market_vol / 100) ** 2")
    b.step("beta", "Beta: covariance ÷ market variance", "cov / market_var")


@template("easy")
def drawdown_recovery(b: Builder) -> None:
    """Maximum drawdown and the gain needed to recover it (Bodie, Kane and Marcus, ch. 5)."""
    b.person("investor")
    b.money("peak", 50_000, 2_000_000, step=100)
    b.derive("trough", round(b.values["peak"] * b.rng.uniform(0.45, 0.92), -2), unit="$")
    b.ask(
        "{investor}'s portfolio peaked at {peak} and later fell to a low of {trough} before recovering. What "
        "percentage gain from the low is needed to get back to the peak, given the drawdown?"
    )
    b.step("drawdown", "Drawdown from peak to low (%)", "(trough / peak - 1) * 100", unit="%")
    b.step("recovery", "Gain needed from the low: 1 ÷ (1 + drawdown) − 1 (%)",
           "(1 / (1 + drawdown / 100) - 1) * 100", unit="%")


@template("intermediate", floor=1_000)
def sample_volatility_band(b: Builder) -> None:
    """Sample standard deviation of five monthly returns, annualized by √12, and the volatility band it gives
    the fund's value over a horizon of a few months: value × (1 ± k·σ·√t), no drift (Bodie, Kane and Marcus,
    ch. 5: the sample standard deviation, and volatility growing with the square root of time)."""
    b.company("fund", kind="fund")
    for i in range(1, 6):
        b.derive(f"r{i}", round(b.rng.gauss(0.8, 4.5), 1), unit="%", decimals=1)
    b.money("value", 5_000_000, 900_000_000, step=100_000)
    b.choice("k", [1.5, 2, 2.5])
    b.integer("horizon", 2, 9, unit="months")
    v = b.values
    returns = [v[f"r{i}"] for i in range(1, 6)]
    mean = sum(returns) / 5
    annual = (sum((r - mean) ** 2 for r in returns) / 4) ** 0.5 * 12 ** 0.5
    b.require(max(returns) - min(returns) > 3, "returns that vary")
    b.require(v["k"] * annual / 100 * (v["horizon"] / 12) ** 0.5 < 0.6, "a band whose lower end stays well above 0")
    b.ask(
        "{fund}'s monthly returns over the last five months were {r1}, {r2}, {r3}, {r4} and {r5}, and its "
        "portfolio is now worth {value}. Using the sample standard deviation (dividing by n − 1) and scaling by "
        "√12, estimate the annualized volatility. Assuming no drift and volatility that grows with the square "
        "root of time, what is the lower end of a band of {k} standard deviations either side of today's value, "
        "{horizon} from now? Round to the nearest dollar."
    )
    b.step("mean", "Mean monthly return (%)", "(r1 + r2 + r3 + r4 + r5) / 5", unit="%")
    b.step("squares", "Sum of squared deviations from the mean",
           "(r1 - mean) ** 2 + (r2 - mean) ** 2 + (r3 - mean) ** 2 + (r4 - mean) ** 2 + (r5 - mean) ** 2")
    b.step("monthly_sd", "Monthly sample standard deviation (%)", "sqrt(squares / 4)", unit="%")
    b.step("annual_sd", "Annualized volatility: monthly × √12 (%)", "monthly_sd * sqrt(12)", unit="%")
    b.step("band_low", "Lower end of the band: value × (1 − standard deviations × annual volatility × √(months ÷ 12)), "
           "to the dollar",
           "round(value * (1 - k * annual_sd / 100 * sqrt(horizon / 12)))", unit="$")


@template("intermediate")
def diversification_benefit(b: Builder) -> None:
    """Two-asset portfolio volatility against the weighted average volatility (Bodie, Kane and Marcus, ch. 7)."""
    b.person("investor")
    b.percent("w1", 20, 80, decimals=0)
    b.percent("vol1", 8, 35, decimals=1)
    b.percent("vol2", 8, 35, decimals=1)
    b.number("rho", -0.4, 0.8, decimals=2)
    b.require(abs(b.values["vol1"] - b.values["vol2"]) > 1 and b.values["rho"] < 0.75, "a visible benefit")
    b.ask(
        "{investor} holds {w1} of a portfolio in asset A (volatility {vol1}) and the rest in asset B "
        "(volatility {vol2}); the correlation between their returns is {rho}. By how many percentage points "
        "is the portfolio's volatility below the weighted average of the two volatilities?"
    )
    b.step("variance", "Portfolio variance (in squared percent)",
           "(w1 / 100 * vol1) ** 2 + ((100 - w1) / 100 * vol2) ** 2 "
           "+ 2 * rho * (w1 / 100 * vol1) * ((100 - w1) / 100 * vol2)")
    b.step("vol", "Portfolio volatility (%)", "sqrt(variance)", unit="%")
    b.step("average", "Weighted average volatility (%)", "w1 / 100 * vol1 + (100 - w1) / 100 * vol2", unit="%")
    b.step("benefit", "Diversification benefit", "average - vol", unit="pp")


@template("advanced", floor=10_000)
def portfolio_expected_shortfall(b: Builder) -> None:
    """One-day expected shortfall of a two-asset portfolio under normality (McNeil et al., s.2.3).

    σ_p from weights, volatilities and correlation; daily σ = annual ÷ √252; ES = V·σ_d·φ(z)/(1 − α) with
    zero mean.

    Concepts: two-asset portfolio volatility with correlation; square-root-of-time scaling; standard normal density;
    parametric expected shortfall.
    """
    b.company("fund", kind="fund")
    b.money("value", 5_000_000, 500_000_000, step=100_000)
    b.percent("w1", 30, 70, decimals=0)
    equity_vol = b.percent("equity_vol", 10, 30, decimals=1)
    b.percent("bond_vol", 3, min(12, 0.8 * equity_vol), decimals=1)  # bonds are the calmer asset
    b.number("rho", -0.3, 0.7, decimals=2)
    conf = b.choice("conf", {"95%": 95, "97.5%": 97.5, "99%": 99})
    b.derive("z", Z[conf], decimals=3)
    b.ask(
        "{fund} holds a {value} portfolio, {w1} in equities with annual volatility {equity_vol} and the rest in "
        "bonds with annual volatility {bond_vol}; the correlation is {rho}. Daily returns are normal with zero "
        "mean, and there are 252 trading days a year. Using z = {z} for the {conf} level, what is the one-day "
        "{conf} expected shortfall, ES = value × daily σ × φ(z) ÷ (1 − confidence), where φ is the standard "
        "normal density?"
    )
    b.step("variance", "Annual portfolio variance (in squared percent)",
           "(w1 / 100 * equity_vol) ** 2 + ((100 - w1) / 100 * bond_vol) ** 2 "
           "+ 2 * rho * (w1 / 100 * equity_vol) * ((100 - w1) / 100 * bond_vol)")
    b.step("annual_vol", "Annual portfolio volatility (%)", "sqrt(variance)", unit="%")
    b.step("daily_vol", "Daily volatility as a decimal: annual ÷ 100 ÷ √252", "annual_vol / 100 / sqrt(252)")
    b.step("density", "Standard normal density at z: e^(−z²/2) ÷ √(2π)", "exp(-z ** 2 / 2) / sqrt(2 * 3.14159265)")
    b.step("es", "Expected shortfall: value × daily σ × φ(z) ÷ (1 − confidence)",
           "value * daily_vol * density / (1 - conf / 100)", unit="$")
