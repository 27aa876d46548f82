"""Global events and crypto prices: price shocks and the rebound needed to recover, volume shifts on news,
regulatory news and market capitalization, sentiment-driven market cap, and an event study
with a market model estimated from the window's statistics and a t-test of the abnormal return."""

from finchain_tasks.engine import Builder, template
from finchain_tasks.templates.crypto_finance import price_for_cap

SHOCKS = ["a major exchange hack", "a stablecoin de-peg", "an emergency central-bank rate hike",
          "a nationwide mining ban", "the collapse of a large crypto lender"]
NEWS = {"a spot ETF approval": 1, "a favorable court ruling": 1, "a new exchange listing in Japan": 1,
        "an SEC enforcement action": -1, "a trading ban in a large market": -1, "a delisting by a major exchange": -1}


@template("easy")
def rebound_to_recover(b: Builder) -> None:
    """Percentage rebound required to undo a percentage fall: 1/(1 − d) − 1.

    Source: holding-period return arithmetic (Bodie, Kane and Marcus, Investments, ch. 5).
    """
    b.money("price", 5_000, 95_000, step=0.5)  # after a fall of up to 30%, still where Bitcoin has traded since 2019
    b.percent("fall", 6, 30, decimals=1)
    b.bounds("fall", hi=40, why="bitcoin's worst day fell under 40%; 40-55% came up in 32% of draws")
    shock = b.pick(SHOCKS)
    b.ask(
        f"Bitcoin trades at {{price}} when news of {shock} sends it down {{fall}} in a day. What is the price "
        "after the fall, and by what percentage must it then rise to get back to its pre-shock level? Give "
        "the percentage rise."
    )
    b.step("new_price", "Price after the shock", "price * (1 - fall / 100)", unit="$")
    b.step("rebound", "Rise needed to return to the old price", "(price / new_price - 1) * 100", unit="%")


@template("easy")
def volume_surge_on_news(b: Builder) -> None:
    """Event-day trading volume against the average of the preceding days.

    Source: abnormal trading volume as a ratio to a pre-event mean (Campbell, Lo and MacKinlay, The
    Econometrics of Financial Markets, ch. 4).
    """
    days = b.integer("days", 5, 14, unit="days")
    avg = b.rng.uniform(2e8, 3e9)
    b.derive("total", round(avg * days, -5), unit="$")
    b.derive("event_volume", round(avg * b.rng.uniform(1.3, 4.5), -5), unit="$")
    news = b.pick(list(NEWS))
    b.ask(
        "Over the {days} before " + news + ", an altcoin traded a combined {total} across all exchanges. On "
        "the day of the announcement it traded {event_volume}. By what percentage did event-day volume exceed "
        "the average daily volume of the preceding period?"
    )
    b.step("average", "Average daily volume before the news", "total / days", unit="$")
    b.step("surge", "Increase of event-day volume over the average", "(event_volume / average - 1) * 100", unit="%")


@template("intermediate")
def regulatory_news_market_cap(b: Builder) -> None:
    """Change in market capitalization after a fall and a partial recovery.

    Source: market capitalization = circulating supply × price (CoinMarketCap methodology).
    """
    supply = b.number("supply", 100, 900, decimals=1, unit="million tokens")
    price_for_cap(b, "price", supply * 1e6, 5e8, 8e10)
    b.percent("fall", 6, 40, decimals=1)
    b.percent("recovery", 2, 25, decimals=1)
    factor = (1 - b.values["fall"] / 100) * (1 + b.values["recovery"] / 100)
    b.require(abs(factor - 1) >= 0.03, "the two days leave the price at least 3% away from where it started")
    b.ask(
        "A layer-1 token has {supply} in circulation, trading at {price}. A regulator announces an "
        "investigation into the foundation behind it and the price falls {fall} on the day. The next day, "
        "after the foundation publishes a legal opinion, the price recovers {recovery} from its new level. "
        "Assuming circulating supply is unchanged, by how many dollars has the market capitalization changed "
        "over the two days (negative for a loss)?"
    )
    b.step("cap_before", "Market capitalization before the news (supply × price)", "supply * 1000000 * price",
           unit="$")
    b.step("factor", "Two-day price factor (1 − fall) × (1 + recovery)", "(1 - fall / 100) * (1 + recovery / 100)")
    b.step("cap_after", "Market capitalization after two days", "round(cap_before * factor, 2)", unit="$")
    b.step("change", "Change in market capitalization", "cap_after - cap_before", unit="$")


@template("intermediate")
def sentiment_driven_market_cap(b: Builder) -> None:
    """Market-cap forecast from a change in a sentiment index and an estimated price sensitivity.

    Source: linear sentiment-return sensitivity (Baker and Wurgler, "Investor Sentiment in the Stock
    Market", Journal of Economic Perspectives, 2007), applied to market cap = supply × price.
    """
    s0 = b.integer("s0", 15, 85)
    s1 = b.integer("s1", max(5, s0 - 30), min(95, s0 + 30))
    b.require(abs(s1 - s0) >= 4, "sentiment moves at least 4 points")
    b.number("beta", 0.3, 1.8, decimals=2)
    supply = b.number("supply", 20, 600, decimals=1, unit="million tokens")
    price_for_cap(b, "price", supply * 1e6, 2e8, 5e10)
    b.ask(
        "A crypto fear-and-greed index (0 = extreme fear, 100 = extreme greed) moves from {s0} to {s1} after "
        "a week of news coverage. A research desk estimates that each 1-point move in the index moves the "
        "token's price by {beta}% in the same direction. The token has {supply} in circulation at {price}. "
        "Using the desk's estimate and assuming no change in supply, what is the token's expected market "
        "capitalization after the move?"
    )
    b.step("points", "Change in the index", "s1 - s0", unit="points")
    b.step("price_change", "Expected price change", "beta * points", unit="%")
    b.step("cap_before", "Market capitalization now (supply × price)", "supply * 1000000 * price", unit="$")
    b.step("cap_after", "Expected market capitalization", "cap_before * (1 + price_change / 100)", unit="$")


@template("advanced")
def event_study_significance(b: Builder) -> None:
    """Is a token's two-day reaction to news statistically significant? Beta, alpha, abnormal returns, t-test.

    Source: MacKinlay, "Event Studies in Economics and Finance", Journal of Economic Literature 35 (1997):
    market model estimated over an estimation window (β = cov(R, Rm) ÷ var(Rm), α = mean R − β × mean Rm),
    abnormal return AR = R − (α + β·Rm), CAR = Σ AR, and the test statistic CAR ÷ (σ_ε × √L) for an event
    window of L days, compared with 1.96 at the 5% level.

    Concepts: beta from an estimation-window covariance and variance; market-model alpha; daily abnormal
    returns; cumulative abnormal return; t-test of the CAR at the 5% level.
    """
    news = b.pick(list(NEWS))
    sign = NEWS[news]
    significant = b.pick([True, False])
    var_m = b.number("var_m", 4, 25, decimals=2)
    beta = b.rng.uniform(0.8, 1.9)
    b.number("cov", beta * var_m - 0.005, beta * var_m + 0.005, decimals=2)
    b.number("mean_m", -0.2, 0.3, decimals=2, unit="%")
    b.number("mean_r", -0.3, 0.4, decimals=2, unit="%")
    sigma = b.number("sigma", 1.5, 4.5, decimals=2, unit="%")
    b.percent("m1", -4, 4, decimals=2)
    b.percent("m2", -4, 4, decimals=2)
    v = b.values
    beta = v["cov"] / var_m
    alpha = v["mean_r"] - beta * v["mean_m"]
    car = sign * sigma * 2 ** 0.5 * (b.rng.uniform(2.1, 3.5) if significant else b.rng.uniform(0.3, 1.8))
    ar1 = car * b.rng.uniform(0.45, 0.9)
    b.derive("r1", alpha + beta * v["m1"] + ar1, unit="%")
    b.derive("r2", alpha + beta * v["m2"] + car - ar1, unit="%")
    t = (v["r1"] + v["r2"] - 2 * alpha - beta * (v["m1"] + v["m2"])) / (sigma * 2 ** 0.5)
    b.require((abs(t) > 1.96) == significant and abs(abs(t) - 1.96) > 0.05, "the drawn case, clear of 1.96")
    b.ask(
        "An analyst tests whether " + news + " moved a large-cap token. Over a 120-day estimation window "
        "the covariance between the token's daily return and a crypto market index's daily return was "
        "{cov} (in squared percent), the variance of the index's daily return {var_m}, and the mean daily "
        "returns were {mean_r} for the token and {mean_m} for the index; the market model's residuals had "
        "a standard deviation of {sigma} a day. On day 1 of the event the index returned {m1} and the token "
        "{r1}; on day 2 the index returned {m2} and the token {r2}. Using the market model, compute the "
        "cumulative abnormal return (CAR) over the two days and the test statistic CAR ÷ (residual standard "
        "deviation × √2). Is the reaction statistically significant at the 5% level (two-sided, critical "
        "value 1.96)? "
        "Answer 'significant' or 'not significant'."
    )
    b.step("beta", "Beta: covariance ÷ index variance", "cov / var_m")
    b.step("alpha", "Alpha: mean token return − beta × mean index return", "mean_r - beta * mean_m", unit="%")
    b.step("abnormal1", "Day 1 abnormal return: actual − (alpha + beta × index)", "r1 - (alpha + beta * m1)",
           unit="pp")
    b.step("abnormal2", "Day 2 abnormal return: actual − (alpha + beta × index)", "r2 - (alpha + beta * m2)",
           unit="pp")
    b.step("car", "Cumulative abnormal return over the two days", "abnormal1 + abnormal2", unit="pp")
    b.step("t_stat", "Test statistic: CAR ÷ (residual standard deviation × √2)", "car / (sigma * sqrt(2))")
    b.step("decision", "Significant when the statistic lies beyond ±1.96",
           "'significant' if abs(t_stat) > 1.96 else 'not significant'")
