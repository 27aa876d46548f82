"""Weighted average cost of capital: after-tax cost of debt, CAPM cost of equity, preferred stock,
market-value weights, a relevered beta, and the real WACC by the Fisher relation."""

from finchain_tasks.engine import Builder, template


@template("easy")
def after_tax_cost_of_debt(b: Builder) -> None:
    """After-tax cost of debt from the risk-free rate and the firm's credit spread.

    Source: Brealey, Myers and Allen, ch. 9; Damodaran, Applied Corporate Finance, ch. 4.
    """
    b.company("company")
    b.percent("risk_free", 2, 5, decimals=2)
    b.integer("spread", 80, 450, unit="bps")
    b.percent("tax_rate", 18, 32, decimals=0)
    b.ask(
        "{company} could issue new long-term bonds today at a yield of {spread} over the {risk_free} yield on "
        "government bonds of the same maturity. Its marginal tax rate is {tax_rate}, and interest is fully "
        "deductible. What is its after-tax cost of debt?"
    )
    b.step("pretax", "Pre-tax cost of debt (risk-free yield + spread)", "risk_free + spread / 100", unit="%")
    b.step("after_tax", "After-tax cost of debt", "pretax * (1 - tax_rate / 100)", unit="%")


@template("easy")
def capm_cost_of_equity(b: Builder) -> None:
    """Cost of equity by the capital asset pricing model.

    Source: Sharpe 1964; Bodie, Kane and Marcus, ch. 9.
    """
    b.company("company")
    b.percent("risk_free", 2, 5, decimals=2)
    b.number("beta", 0.6, 1.8, decimals=2)
    rf = b.values["risk_free"]
    b.percent("market", rf + 4, rf + 7, decimals=2)
    b.ask(
        "The yield on ten-year government bonds is {risk_free} and analysts expect the market portfolio to return "
        "{market} a year. {company} has an equity beta of {beta}. Using the CAPM, what is its cost of equity?"
    )
    b.step("premium", "Market risk premium (market return − risk-free rate)", "market - risk_free", unit="pp")
    b.step("cost_of_equity", "Cost of equity (risk-free rate + beta × premium)", "risk_free + beta * premium",
           unit="%")


@template("intermediate")
def wacc_with_preferred(b: Builder) -> None:
    """WACC with common equity, preferred stock and two debt tranches at market values.

    Source: Brigham and Ehrhardt, Financial Management, ch. 9.
    """
    b.company("company")
    equity = b.money("equity", 200_000_000, 8_000_000_000, step=1_000_000)
    b.money("preferred", 0.03 * equity, 0.12 * equity, step=1_000_000)
    b.money("pref_dividend", 2, 8, step=0.01)
    b.money("pref_price", b.values["pref_dividend"] / 0.085, b.values["pref_dividend"] / 0.05, step=0.01)
    b.money("loan", 0.1 * equity, 0.4 * equity, step=1_000_000)
    b.percent("r_loan", 3.5, 6.5, decimals=2)
    b.money("bonds", 0.1 * equity, 0.5 * equity, step=1_000_000)
    b.percent("r_bonds", 4, 8, decimals=2)
    b.percent("r_equity", 8, 14, decimals=2)
    b.percent("tax_rate", 18, 30, decimals=0)
    b.ask(
        "At market values, {company} is financed by {equity} of common equity; {preferred} of preferred stock "
        "paying a fixed annual dividend of {pref_dividend} a share and trading at {pref_price}; a bank term loan "
        "of {loan} at {r_loan}; and bonds worth {bonds} yielding {r_bonds}. Its cost of equity is {r_equity} and "
        "its tax rate is {tax_rate}; interest on both debt tranches is deductible. What is the weighted average "
        "cost of capital?"
    )
    b.step("capital", "Total capital", "equity + preferred + loan + bonds", unit="$")
    b.step("r_pref", "Cost of preferred (dividend ÷ price)", "pref_dividend / pref_price * 100", unit="%")
    b.step("debt_cost", "After-tax cost of the two debt tranches in dollars a year",
           "(loan * r_loan / 100 + bonds * r_bonds / 100) * (1 - tax_rate / 100)", unit="$")
    b.step("wacc", "WACC (market-value weighted costs)",
           "(equity * r_equity / 100 + preferred * r_pref / 100 + debt_cost) / capital * 100", unit="%")


@template("intermediate", floor=1)
def real_wacc(b: Builder) -> None:
    """Real WACC from a nominal WACC by the Fisher relation, (1 + nominal) ÷ (1 + inflation) − 1.

    Source: Brealey, Myers and Allen, ch. 6 on consistent discounting of real cash flows.
    """
    b.company("company")
    b.percent("equity_weight", 50, 80, decimals=0)
    b.percent("r_equity", 8, 14, decimals=2)
    b.percent("r_debt", 3.5, 7.5, decimals=2)
    b.percent("tax_rate", 18, 30, decimals=0)
    b.percent("inflation", 1.5, 3.5, decimals=2)
    v = b.values
    nominal = v["equity_weight"] * v["r_equity"] / 100 + (1 - v["equity_weight"] / 100) * v["r_debt"] * (
        1 - v["tax_rate"] / 100)
    b.require(nominal - v["inflation"] > 2.5, "a real rate well above zero")
    b.ask(
        "{company} is financed {equity_weight} by equity and the rest by debt, at market values. Its nominal "
        "cost of equity is {r_equity} and its bonds yield {r_debt} before tax; the tax rate is {tax_rate}. Its "
        "project forecasts are in real terms, so it needs a real discount rate. With expected inflation of "
        "{inflation}, what is its real WACC (use the exact Fisher relation)?"
    )
    b.step("r_debt_after", "After-tax cost of debt", "r_debt * (1 - tax_rate / 100)", unit="%")
    b.step("nominal", "Nominal WACC",
           "equity_weight / 100 * r_equity + (1 - equity_weight / 100) * r_debt_after", unit="%")
    b.step("real", "Real WACC, (1 + nominal) ÷ (1 + inflation) − 1",
           "((1 + nominal / 100) / (1 + inflation / 100) - 1) * 100", unit="%")


@template("advanced")
def wacc_from_market_data(b: Builder) -> None:
    """WACC from market prices, with the asset beta relevered by the Hamada equation and preferred stock.

    Source: Hamada, Journal of Finance 27(2), 1972; Berk and DeMarzo, ch. 12.

    Concepts: market values of debt, equity and preferred stock; Hamada relevering of an asset beta; CAPM cost of
    equity; cost of preferred; after-tax WACC.
    """
    b.company("company")
    b.number("shares", 20, 400, decimals=1, unit="million shares")
    b.money("price", 10, 120, step=0.01)
    equity = b.values["shares"] * 1e6 * b.values["price"]
    b.money("face", 0.2 * equity, 0.8 * equity, step=1_000_000)
    b.number("quote", 88, 108, decimals=2)
    b.percent("ytm", 4, 8, decimals=2)
    b.number("pref_shares", 0.5, 5, decimals=2, unit="million preferred shares")
    b.money("pref_dividend", 2, 7, step=0.01)
    b.money("pref_price", b.values["pref_dividend"] / 0.085, b.values["pref_dividend"] / 0.05, step=0.01)
    b.number("asset_beta", 0.5, 1.1, decimals=2)
    b.percent("tax_rate", 20, 30, decimals=0)
    b.percent("risk_free", 2, 5, decimals=2)
    b.percent("premium", 4, 7, decimals=2)
    b.ask(
        "{company} has {shares} outstanding at {price}. Its bonds have a face value of {face}, are quoted at "
        "{quote} per 100 of face value and yield {ytm} to maturity. It also has {pref_shares} outstanding, paying "
        "a fixed dividend of {pref_dividend} and priced at {pref_price}. Comparable firms have an unlevered "
        "(asset) beta of {asset_beta}. The tax rate is {tax_rate}, the risk-free rate {risk_free} and the market "
        "risk premium {premium}. Relevering the asset beta with the Hamada equation at the company's market "
        "debt-to-equity ratio and using market-value weights, what is its WACC?"
    )
    b.step("debt_value", "Market value of debt (face × quote ÷ 100)", "face * quote / 100", unit="$")
    b.step("equity_value", "Market value of equity", "shares * 1000000 * price", unit="$")
    b.step("pref_value", "Market value of preferred stock", "pref_shares * 1000000 * pref_price", unit="$")
    b.step("levered_beta", "Equity beta, asset beta × (1 + (1 − tax rate) × D/E)",
           "asset_beta * (1 + (1 - tax_rate / 100) * debt_value / equity_value)")
    b.step("r_equity", "Cost of equity (CAPM)", "risk_free + levered_beta * premium", unit="%")
    b.step("r_pref", "Cost of preferred", "pref_dividend / pref_price * 100", unit="%")
    b.step("wacc", "WACC",
           "(equity_value * r_equity + pref_value * r_pref + debt_value * ytm * (1 - tax_rate / 100)) "
           "/ (equity_value + pref_value + debt_value)", unit="%")
