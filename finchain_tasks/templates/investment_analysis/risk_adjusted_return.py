"""Risk-adjusted return: Sharpe, Treynor, Sortino, Jensen's alpha, information ratio."""

from finchain_tasks.engine import Builder, template


@template("easy")
def sharpe_ratio(b: Builder) -> None:
    """Sharpe ratio of a fund from its annual return, volatility and the risk-free rate."""
    b.person("manager")
    b.percent("fund_return", 4, 18)
    b.percent("risk_free", 1, 5, decimals=2)
    b.percent("volatility", 8, 30)
    kind = b.pick(["equity fund", "balanced fund", "multi-asset portfolio", "growth fund"])
    b.ask(
        f"The {kind} managed by {{manager}} earned an annual return of {{fund_return}} with an annual "
        "standard deviation of returns of {volatility}. Treasury bills yielded {risk_free} over the "
        "same year. What is the fund's Sharpe ratio?"
    )
    b.step("excess_return", "Excess return over the risk-free rate (%)", "fund_return - risk_free", unit="%")
    b.step("sharpe", "Sharpe ratio", "excess_return / volatility")


@template("easy")
def information_ratio(b: Builder) -> None:
    """Information ratio from a fund's return, its benchmark's return and the tracking error."""
    b.person("manager")
    b.percent("fund_return", 4, 14, decimals=2)
    b.percent("benchmark_return", 6, 12, decimals=2)
    b.percent("tracking_error", 3, 9, decimals=2)
    index = b.pick(["the S&P 500", "an MSCI World index", "a small-cap index", "a bond aggregate index"])
    b.ask(
        f"An actively managed portfolio run by {{manager}} is benchmarked against {index}. Last year the "
        "portfolio returned {fund_return} while the benchmark returned {benchmark_return}, and the "
        "tracking error (standard deviation of active returns) was {tracking_error}. "
        "What is the portfolio's information ratio?"
    )
    b.step("active_return", "Active return over the benchmark (%)", "fund_return - benchmark_return", unit="%")
    b.step("info_ratio", "Information ratio", "active_return / tracking_error")


@template("intermediate")
def treynor_vs_market(b: Builder) -> None:
    """Gap between a fund's Treynor ratio and the market's Treynor ratio."""
    b.person("manager")
    b.percent("fund_return", 5, 15)
    b.number("beta", 0.7, 1.5)
    b.percent("risk_free", 1, 5)
    b.percent("market_return", 6, 14)
    b.ask(
        "The portfolio {manager} manages returned {fund_return} last year and has a beta of {beta} against the market "
        "index. The market returned {market_return} and the risk-free rate was {risk_free}. "
        + b.pick([
            "By how many percentage points does the portfolio's Treynor ratio exceed the market's "
            "Treynor ratio (a negative answer means it falls short)?",
            "What is the portfolio's Treynor ratio minus the market's Treynor ratio, in percentage "
            "points of excess return per unit of beta?",
        ])
    )
    b.step("excess_return", "Portfolio excess return (%)", "fund_return - risk_free", unit="%")
    b.step("treynor_fund", "Portfolio Treynor ratio (%)", "excess_return / beta", unit="%")
    b.step("treynor_market", "Market Treynor ratio (beta = 1) (%)", "market_return - risk_free", unit="%")
    b.step("treynor_gap", "Portfolio Treynor minus market Treynor (%)", "treynor_fund - treynor_market", unit="%")


@template("intermediate")
def sortino_ratio(b: Builder) -> None:
    """Sortino ratio from five annual returns and a minimum acceptable return."""
    b.person("investor")
    b.percent("r1", -15, -4)
    b.percent("r2", 2, 22)
    b.percent("r3", -8, 16)
    b.percent("r4", 5, 25)
    b.percent("r5", -6, 12)
    b.percent("mar", 0, 4)
    order = b.pick([
        "{r1}, {r2}, {r3}, {r4} and {r5}", "{r2}, {r1}, {r4}, {r3} and {r5}",
        "{r4}, {r3}, {r1}, {r5} and {r2}", "{r5}, {r4}, {r2}, {r1} and {r3}",
    ])
    b.ask(
        f"{{investor}}'s fund posted annual returns of {order} over the last five years. "
        "Using a minimum acceptable return (MAR) of {mar}, compute the Sortino ratio: the mean annual "
        "return minus the MAR, divided by the downside deviation, where the downside deviation is the "
        "square root of the average over all five years of the squared shortfall below the MAR "
        "(years at or above the MAR count as zero)."
    )
    b.step("mean_return", "Mean annual return (%)", "(r1 + r2 + r3 + r4 + r5) / 5", unit="%")
    b.step("excess_mean", "Mean return above the MAR (%)", "mean_return - mar", unit="%")
    b.step("downside_dev", "Downside deviation (%)",
           "sqrt((min(0, r1 - mar) ** 2 + min(0, r2 - mar) ** 2 + min(0, r3 - mar) ** 2"
           " + min(0, r4 - mar) ** 2 + min(0, r5 - mar) ** 2) / 5)", unit="%")
    b.step("sortino", "Sortino ratio", "excess_mean / downside_dev")


@template("advanced")
def appraisal_ratio(b: Builder) -> None:
    """Jensen's alpha per unit of residual risk (the appraisal or Treynor-Black information ratio)."""
    b.person("manager")
    b.percent("fund_return", 4, 18)
    b.percent("fund_vol", 15, 30)
    b.number("correlation", 0.5, 0.9)
    b.percent("market_return", 6, 14)
    b.percent("market_vol", 13, 20)
    b.percent("risk_free", 1, 5)
    b.ask(
        "The fund run by {manager} returned {fund_return} last year with a standard deviation of "
        "{fund_vol}. The market index returned {market_return} with a standard deviation of {market_vol}, "
        "the correlation between the fund and the market is {correlation}, and the risk-free rate is "
        "{risk_free}. "
        "Using the CAPM, find the fund's Jensen's alpha and divide it by the fund's residual "
        "(non-systematic) standard deviation. What is this appraisal ratio?"
    )
    b.step("beta", "Fund beta = correlation × fund σ / market σ", "correlation * fund_vol / market_vol")
    b.step("market_premium", "Market risk premium (%)", "market_return - risk_free", unit="%")
    b.step("capm_return", "CAPM required return (%)", "risk_free + beta * market_premium", unit="%")
    b.step("alpha", "Jensen's alpha (%)", "fund_return - capm_return", unit="%")
    b.step("residual_vol", "Residual standard deviation (%)", "fund_vol * sqrt(1 - correlation ** 2)", unit="%")
    b.step("appraisal", "Appraisal ratio (alpha / residual σ)", "alpha / residual_vol")
