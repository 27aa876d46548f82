"""Stock market analysis: holding-period return with dividends, P/E valuation against the market price,
moving-average crossover signals, beta from correlation and Jensen's alpha, and a portfolio's return, beta
and alpha."""

from finchain_tasks.engine import Builder, template


@template("easy", floor=1)
def holding_period_return(b: Builder) -> None:
    """Holding-period return including dividends.

    Source: Bodie, Kane and Marcus, Investments, ch. 5.
    """
    b.person("person")
    b.company("stock", kind="listed")
    buy = b.money("buy", 10, 400, step=0.01)
    b.derive("sell", round(buy * (1 + b.rng.uniform(-0.2, 0.35)), 2), unit="$")
    b.money("dividends", 0.005 * buy, 0.04 * buy, step=0.01)
    b.require(abs(b.values["sell"] + b.values["dividends"] - buy) > 0.02 * buy, "a clear gain or loss")
    b.ask(
        "{person} bought {stock} shares at {buy} and sold them a year later at {sell}, collecting dividends of "
        "{dividends} per share in between. What was {their} holding-period return (negative for a loss)?"
    )
    b.step("gain", "Gain per share (price change + dividends)", "sell - buy + dividends", unit="$")
    b.step("hpr", "Holding-period return (gain ÷ purchase price)", "gain / buy * 100", unit="%")


@template("easy", floor=1)
def pe_valuation_upside(b: Builder) -> None:
    """Relative valuation with a peer price-earnings multiple.

    Source: Damodaran, Investment Valuation, ch. 18.
    """
    b.company("stock", kind="listed")
    eps = b.money("eps", 0.8, 15, step=0.01)
    b.number("peer_pe", 10, 35, decimals=1)
    b.derive("price", round(eps * b.values["peer_pe"] * b.rng.uniform(0.7, 1.3), 2), unit="$")
    b.require(abs(eps * b.values["peer_pe"] / b.values["price"] - 1) > 0.03, "a clear mispricing")
    b.ask(
        "Analysts forecast next year's earnings per share for {stock} at {eps}. Comparable companies trade at an "
        "average forward price-earnings ratio of {peer_pe}. The stock trades at {price}. By how much, in percent "
        "of the current price, does the P/E-implied value differ from the price (negative if the stock looks "
        "overvalued)?"
    )
    b.step("implied", "P/E-implied value per share in dollars (EPS × peer P/E)", "eps * peer_pe")
    b.step("upside", "Upside (implied value ÷ price − 1)", "(implied / price - 1) * 100", unit="%")


@template("intermediate")
def moving_average_crossover(b: Builder) -> None:
    """Simple moving-average crossover signal, 3-day against 7-day.

    Source: Murphy, Technical Analysis of the Financial Markets, ch. 9.
    """
    b.company("stock", kind="listed")
    bullish = b.rng.random() < 0.5
    price = b.money("p1", 20, 300, step=0.01)
    drift = b.rng.uniform(0.003, 0.02) * (1 if bullish else -1)
    for day in range(2, 8):
        price = b.derive(f"p{day}", round(price * (1 + drift + b.rng.uniform(-0.02, 0.02)), 2), unit="$")
    v = b.values
    short = sum(v[f"p{d}"] for d in range(5, 8)) / 3
    long_ = sum(v[f"p{d}"] for d in range(1, 8)) / 7
    b.require((short > long_) == bullish and abs(short / long_ - 1) > 0.002, "the drawn signal, clearly")
    b.ask(
        "{stock} closed at {p1}, {p2}, {p3}, {p4}, {p5}, {p6} and {p7} over the last seven trading days (oldest "
        "first). A trader compares the 3-day simple moving average with the 7-day simple moving average: a "
        "short average above the long one is read as 'bullish', below it as 'bearish'. What is the signal today?"
    )
    b.step("short_ma", "3-day simple moving average (last three closes)", "(p5 + p6 + p7) / 3", unit="$")
    b.step("long_ma", "7-day simple moving average", "(p1 + p2 + p3 + p4 + p5 + p6 + p7) / 7", unit="$")
    b.step("signal", "Signal", "'bullish' if short_ma > long_ma else 'bearish'")


@template("intermediate", floor=0.3)
def beta_and_jensens_alpha(b: Builder) -> None:
    """Beta from correlation and volatilities, the CAPM required return and Jensen's alpha.

    Source: Jensen 1968; Bodie, Kane and Marcus, Investments, ch. 9 and 24.
    """
    b.company("stock", kind="listed")
    b.number("correlation", 0.35, 0.9, decimals=2)
    b.percent("stock_vol", 18, 45)
    b.percent("market_vol", 13, 20)
    b.percent("risk_free", 2, 5, decimals=2)
    rf = b.values["risk_free"]
    b.percent("market_return", rf + 2, rf + 10, decimals=2)
    v = b.values
    beta = v["correlation"] * v["stock_vol"] / v["market_vol"]
    required = rf + beta * (v["market_return"] - rf)
    b.derive("actual", round(required + b.rng.choice([-1, 1]) * b.rng.uniform(0.6, 5), 2), unit="%")
    b.ask(
        "Over the past year {stock} had a correlation of {correlation} with the market index, a volatility of "
        "{stock_vol} against the index's {market_vol}. The risk-free rate was {risk_free} and the index returned "
        "{market_return}. {stock} returned {actual}. What was its Jensen's alpha, in percentage points (negative "
        "if it underperformed)?"
    )
    b.step("beta", "Beta (correlation × stock volatility ÷ market volatility)", "correlation * stock_vol / market_vol")
    b.step("required", "CAPM required return", "risk_free + beta * (market_return - risk_free)", unit="%")
    b.step("alpha", "Jensen's alpha (actual − required return)", "actual - required", unit="pp")


@template("advanced", floor=0.5)
def portfolio_return_beta_alpha(b: Builder) -> None:
    """Jensen's alpha of a three-stock portfolio from its positions, dividends and value-weighted beta.

    Source: Bodie, Kane and Marcus, Investments, ch. 7, 9 and 24.

    Concepts: portfolio holding-period return with dividends; value-weighted portfolio beta; CAPM required return;
    Jensen's alpha.
    """
    b.person("person")
    for i in (1, 2, 3):
        b.company(f"stock{i}", kind="listed", exclude=[b.values[f"stock{k}"] for k in range(1, i)])
        b.integer(f"shares{i}", 50, 2_000, unit="shares")
        start = b.money(f"start{i}", 15, 250, step=0.01)
        b.derive(f"end{i}", round(start * (1 + b.rng.uniform(-0.2, 0.3)), 2), unit="$")
        b.money(f"div{i}", 0.005 * start, 0.04 * start, step=0.01)
        b.number(f"beta{i}", 0.5, 1.8, decimals=2)
    b.percent("risk_free", 2, 5, decimals=2)
    b.percent("market_return", b.values["risk_free"] - 4, b.values["risk_free"] + 14, decimals=2)
    v = b.values
    start_value = sum(v[f"shares{i}"] * v[f"start{i}"] for i in (1, 2, 3))
    ret = sum(v[f"shares{i}"] * (v[f"end{i}"] + v[f"div{i}"]) for i in (1, 2, 3)) / start_value * 100 - 100
    beta = sum(v[f"shares{i}"] * v[f"start{i}"] * v[f"beta{i}"] for i in (1, 2, 3)) / start_value
    alpha = ret - (v["risk_free"] + beta * (v["market_return"] - v["risk_free"]))
    b.require(abs(alpha) > 1, "a clear alpha")
    # the CAPM return is redone from a beta shown to 6 decimals: near 0% that rounding is more than 0.01% of it
    required = v["risk_free"] + beta * (v["market_return"] - v["risk_free"])
    b.require(abs(required) > 0.5, "a required return the shown beta reproduces")
    b.ask(
        "At the start of the year {person} held {shares1} of {stock1} bought at {start1}, {shares2} of {stock2} "
        "at {start2} and {shares3} of {stock3} at {start3}. By the year-end the prices were {end1}, {end2} and "
        "{end3}, and the three paid dividends of {div1}, {div2} and {div3} per share. The stocks' betas are "
        "{beta1}, {beta2} and {beta3}. The risk-free rate was {risk_free} and the market returned "
        "{market_return}. Weighting by start-of-year values and counting dividends (not reinvested), what was "
        "the portfolio's Jensen's alpha, in percentage points (negative if it underperformed)?"
    )
    b.step("start_value", "Portfolio value at the start",
           "shares1 * start1 + shares2 * start2 + shares3 * start3", unit="$")
    b.step("end_value", "Value at the year-end plus dividends",
           "shares1 * (end1 + div1) + shares2 * (end2 + div2) + shares3 * (end3 + div3)", unit="$")
    b.step("portfolio_return", "Portfolio return", "(end_value / start_value - 1) * 100", unit="%")
    b.step("portfolio_beta", "Portfolio beta (start-value weighted)",
           "(shares1 * start1 * beta1 + shares2 * start2 * beta2 + shares3 * start3 * beta3) / start_value")
    b.step("required", "CAPM required return", "risk_free + portfolio_beta * (market_return - risk_free)", unit="%")
    b.step("alpha", "Jensen's alpha (portfolio return − required return)", "portfolio_return - required", unit="pp")
