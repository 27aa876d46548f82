"""Risk-adjusted return: Sharpe ratio, information ratio, Treynor ratio and Jensen's alpha with a
portfolio beta, Sortino ratio, and M² of a two-fund portfolio whose variance depends on the correlation."""

from finchain_tasks.engine import Builder, template

# (return range %, volatility range %) that fit each kind of fund
FUNDS = {
    "equity fund": ((5, 16), (14, 22)),
    "balanced fund": ((3, 10), (7, 12)),
    "multi-asset portfolio": ((3, 9), (6, 11)),
    "growth fund": ((6, 18), (17, 26)),
}
# (return range %, tracking-error range %) that fit each benchmark
BENCHMARKS = {
    "the S&P 500": ((5, 14), (2, 6)),
    "an MSCI World index": ((4, 12), (2, 6)),
    "a small-cap index": ((4, 15), (4, 9)),
    "a bond aggregate index": ((1.5, 5.5), (0.4, 1.5)),
}


def _not_one(*points: float) -> bool:
    """True unless a percentage-point figure would print as 1.0000 (the text rule wants "1 percentage point")."""
    return all(round(abs(x), 4) != 1 for x in points)


@template("easy", floor=0.02)
def sharpe_ratio(b: Builder) -> None:
    """Sharpe ratio of a fund from its annual return, volatility and the risk-free rate.

    Source: Sharpe (1966), "Mutual Fund Performance", Journal of Business; Bodie, Kane & Marcus,
    Investments, ch. 24. Return and volatility ranges fit the kind of fund named.
    """
    kind = b.pick(list(FUNDS))
    (r_lo, r_hi), (v_lo, v_hi) = FUNDS[kind]
    b.person("manager")
    ret = b.percent("fund_return", r_lo, r_hi, decimals=2)
    vol = b.percent("volatility", v_lo, v_hi)
    rf = b.percent("risk_free", 1, 4.5, decimals=2)
    b.require(abs(ret - rf) / vol > 0.05 and _not_one(ret - rf), "Sharpe ratio at least 0.05 away from 0")
    b.ask(
        f"The {kind} managed by {{manager}} earned an annual return of {{fund_return}} with an annual "
        "standard deviation of returns of {volatility}. Treasury bills yielded {risk_free} over the "
        "same year. What is the fund's Sharpe ratio?"
    )
    b.step("excess_return", "Excess return over the risk-free rate", "fund_return - risk_free", unit="pp")
    b.step("sharpe", "Sharpe ratio, excess return ÷ standard deviation", "excess_return / volatility")


@template("easy", floor=0.05)
def information_ratio(b: Builder) -> None:
    """Information ratio from a portfolio's return, its benchmark's return and the tracking error.

    Source: Grinold & Kahn, Active Portfolio Management, ch. 5 (IR = active return ÷ active risk).
    Benchmark returns and tracking errors fit the index named (a bond index moves little).
    """
    index = b.pick(list(BENCHMARKS))
    (r_lo, r_hi), (te_lo, te_hi) = BENCHMARKS[index]
    b.person("manager")
    bench = b.rng.uniform(r_lo, r_hi)
    te = b.percent("tracking_error", te_lo, te_hi, decimals=2)
    active = b.rng.choice([-1, 1]) * b.rng.uniform(0.1, 1.2) * te
    b.derive("fund_return", round(bench + active, 2), unit="%")
    b.derive("benchmark_return", round(bench, 2), unit="%")
    b.require(_not_one(b.values["fund_return"] - b.values["benchmark_return"]), "active return not one point")
    b.ask(
        f"An actively managed portfolio run by {{manager}} is benchmarked against {index}. Last year the "
        "portfolio returned {fund_return} while the benchmark returned {benchmark_return}, and the "
        "tracking error (standard deviation of active returns) was {tracking_error}. "
        "What is the portfolio's information ratio (negative if it trailed the benchmark)?"
    )
    b.step("active_return", "Active return over the benchmark", "fund_return - benchmark_return", unit="pp")
    b.step("info_ratio", "Information ratio, active return ÷ tracking error", "active_return / tracking_error")


@template("intermediate", floor=0.1)
def treynor_and_jensen_alpha(b: Builder) -> None:
    """Jensen's alpha of a two-stock portfolio from its Treynor ratio, the market's, and the portfolio beta.

    Source: Treynor (1965), "How to Rate Management of Investment Funds", Harvard Business Review;
    Jensen (1968), "The Performance of Mutual Funds", Journal of Finance; portfolio beta as the weighted
    average of the holdings' betas, Bodie, Kane & Marcus, Investments, ch. 8 and ch. 24. Jensen's alpha
    equals beta × (portfolio Treynor ratio − market Treynor ratio).
    """
    b.person("manager")
    b.integer("weight1", 25, 75, unit="%")
    b.number("beta1", 0.6, 1.1)
    b.number("beta2", 1.15, 1.8)
    b.percent("fund_return", 5, 16)
    b.percent("risk_free", 1, 4.5)
    b.percent("market_return", 6, 13)
    v = b.values
    beta = (v["weight1"] * v["beta1"] + (100 - v["weight1"]) * v["beta2"]) / 100
    alpha = v["fund_return"] - v["risk_free"] - beta * (v["market_return"] - v["risk_free"])
    b.require(abs(alpha) > 0.3 and _not_one(alpha, alpha / beta, v["fund_return"] - v["risk_free"]),
              "Jensen's alpha at least 0.3 percentage points away from 0")
    b.ask(
        "{manager} runs a portfolio with {weight1} of its value in a utility stock with a beta of {beta1} "
        "and the rest in a technology stock with a beta of {beta2}. The portfolio returned {fund_return} "
        "last year, the risk-free rate was {risk_free} and the market index returned {market_return}. "
        "Find the portfolio beta, the portfolio's Treynor ratio and how far it lies above or below the "
        "market's Treynor ratio, and from these the portfolio's Jensen's alpha (beta times the Treynor "
        "gap). "
        + b.pick([
            "What is Jensen's alpha, in percentage points (negative if the portfolio underperformed)?",
            "By how many percentage points did the portfolio beat its CAPM required return "
            "(negative if it fell short)?",
        ])
    )
    b.step("portfolio_beta", "Portfolio beta, the value-weighted average of the two betas",
           "weight1 / 100 * beta1 + (1 - weight1 / 100) * beta2")
    b.step("excess_return", "Portfolio excess return over the risk-free rate", "fund_return - risk_free", unit="pp")
    b.step("treynor_fund", "Portfolio Treynor ratio, excess return ÷ beta", "excess_return / portfolio_beta",
           unit="%")
    b.step("treynor_gap", "Portfolio Treynor ratio minus the market Treynor ratio (the market excess return)",
           "treynor_fund - (market_return - risk_free)", unit="pp")
    b.step("jensen_alpha", "Jensen's alpha, portfolio beta × Treynor gap", "portfolio_beta * treynor_gap", unit="pp")


@template("intermediate", floor=0.02)
def sortino_ratio(b: Builder) -> None:
    """Sortino ratio from five annual returns and a minimum acceptable return.

    Source: Sortino & van der Meer (1991), "Downside Risk", Journal of Portfolio Management; downside
    deviation over all periods with returns at or above the MAR counting as zero.
    """
    b.person("investor")
    for k in range(1, 6):
        b.percent(f"r{k}", -14, 22)
    mar = b.percent("mar", 0.5, 4)
    rs = [b.values[f"r{k}"] for k in range(1, 6)]
    below = sum(r < mar for r in rs)
    mean = sum(rs) / 5
    b.require(1 <= below <= 3 and abs(mean - mar) > 0.5 and _not_one(mean - mar), "a mean away from the MAR")
    downside = (sum(min(0, r - mar) ** 2 for r in rs) / 5) ** 0.5
    b.require(downside > 1, "a downside deviation of at least 1%")
    b.ask(
        "{investor}'s fund posted annual returns of {r1}, {r2}, {r3}, {r4} and {r5} in years 1 to 5. "
        "Using a minimum acceptable return (MAR) of {mar}, compute the Sortino ratio: the mean annual "
        "return minus the MAR, divided by the downside deviation, where the downside deviation is the "
        "square root of the average over all five years of the squared shortfall below the MAR "
        "(years at or above the MAR count as zero)."
    )
    b.step("mean_return", "Mean annual return", "(r1 + r2 + r3 + r4 + r5) / 5", unit="%")
    b.step("excess_mean", "Mean return above the MAR", "mean_return - mar", unit="pp")
    b.step("downside_dev", "Downside deviation, the root of the mean squared shortfall (years 1 to 5 in order)",
           "sqrt((min(0, r1 - mar) ** 2 + min(0, r2 - mar) ** 2 + min(0, r3 - mar) ** 2"
           " + min(0, r4 - mar) ** 2 + min(0, r5 - mar) ** 2) / 5)", unit="%")
    b.step("sortino", "Sortino ratio, excess mean ÷ downside deviation", "excess_mean / downside_dev")


@template("advanced", floor=0.1)
def m_squared_two_fund_portfolio(b: Builder) -> None:
    """M² of a stock/bond portfolio: portfolio variance with correlation, Sharpe ratio, M² vs the market.

    Source: Modigliani & Modigliani (1997), "Risk-Adjusted Performance", Journal of Portfolio
    Management; two-asset portfolio variance σp² = w1²σ1² + w2²σ2² + 2w1w2ρσ1σ2, Bodie, Kane & Marcus,
    Investments, ch. 7.

    Concepts: two-asset portfolio return; portfolio variance with correlation; Sharpe ratio; M² against the market.
    """
    b.person("investor")
    b.integer("weight", 40, 80, unit="%")
    b.percent("stock_return", 6, 14)
    b.percent("stock_vol", 14, 22)
    b.percent("bond_return", 2, 6)
    b.percent("bond_vol", 3, 8)
    b.number("correlation", -0.3, 0.5)
    b.percent("risk_free", 1, 4)
    b.percent("market_return", 6, 12)
    b.percent("market_vol", 14, 20)
    v = b.values
    w = v["weight"] / 100
    ret = w * v["stock_return"] + (1 - w) * v["bond_return"]
    sd = (w ** 2 * v["stock_vol"] ** 2 + (1 - w) ** 2 * v["bond_vol"] ** 2
          + 2 * w * (1 - w) * v["correlation"] * v["stock_vol"] * v["bond_vol"]) ** 0.5
    gap = v["risk_free"] + (ret - v["risk_free"]) / sd * v["market_vol"] - v["market_return"]
    b.require(abs(gap) > 0.3 and _not_one(gap) and ret > v["risk_free"] + 0.5, "M² away from the market return")
    b.ask(
        "{investor} holds {weight} of a portfolio in a stock fund with an expected return of {stock_return} "
        "and a standard deviation of {stock_vol}, and the rest in a bond fund with an expected return of "
        "{bond_return} and a standard deviation of {bond_vol}. The correlation between the two funds is "
        "{correlation}. The risk-free rate is {risk_free}; the market index has an expected return of "
        "{market_return} and a standard deviation of {market_vol}. Compute the portfolio's Modigliani "
        "risk-adjusted performance M² (the return of the portfolio levered or de-levered with the "
        "risk-free asset to the market's standard deviation). By how many percentage points does M² "
        "exceed the market return (negative if it falls short)?"
    )
    b.step("port_return", "Portfolio expected return, the weighted average of the two funds",
           "weight / 100 * stock_return + (1 - weight / 100) * bond_return", unit="%")
    b.step("port_variance", "Portfolio variance (in squared percent), including the correlation term",
           "(weight / 100) ** 2 * stock_vol ** 2 + (1 - weight / 100) ** 2 * bond_vol ** 2"
           " + 2 * (weight / 100) * (1 - weight / 100) * correlation * stock_vol * bond_vol")
    b.step("port_sd", "Portfolio standard deviation, the square root of the variance", "sqrt(port_variance)",
           unit="%")
    b.step("sharpe", "Portfolio Sharpe ratio", "(port_return - risk_free) / port_sd")
    b.step("m_squared", "M², the risk-free rate plus the Sharpe ratio times the market standard deviation",
           "risk_free + sharpe * market_vol", unit="%")
    b.step("m2_gap", "M² minus the market return", "m_squared - market_return", unit="pp")
