"""Global events and crypto prices: price shocks and the rebound needed to recover, volume shifts on news,
regulatory news and market capitalization, sentiment-driven market cap, event-study abnormal returns."""

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
    b.money("price", 2_000, 70_000, step=0.5)
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
    b.step("cap_after", "Market capitalization after two days", "cap_before * factor", unit="$")
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


@template("advanced", floor=1000)
def event_study_value_impact(b: Builder) -> None:
    """Market-model abnormal returns over a two-day event window and the dollar value they imply.

    Source: MacKinlay, "Event Studies in Economics and Finance", Journal of Economic Literature 35 (1997):
    expected return α + β·R_m, abnormal return AR = R − E[R], cumulative abnormal return CAR = Σ AR.
    """
    news = b.pick(list(NEWS))
    sign = NEWS[news]
    b.number("alpha", -0.05, 0.15, decimals=3, unit="%")
    beta = b.number("beta", 0.8, 1.9, decimals=2)
    b.number("cap", 0.5, 60, decimals=1, unit="billion dollars")
    m1 = b.percent("m1", -4, 4, decimals=2)
    m2 = b.percent("m2", -4, 4, decimals=2)
    b.derive("r1", beta * m1 + sign * b.rng.uniform(1, 14), unit="%")
    b.derive("r2", beta * m2 + sign * b.rng.uniform(-3, 8), unit="%")
    car = b.values["r1"] + b.values["r2"] - 2 * b.values["alpha"] - beta * (m1 + m2)
    b.require(abs(car) >= 1, "a cumulative abnormal return of at least 1 percentage point")
    ar1 = b.values["r1"] - (b.values["alpha"] + beta * m1)
    ar2 = b.values["r2"] - (b.values["alpha"] + beta * m2)
    b.require(all(abs(abs(x) - 1) > 1e-6 for x in (ar1, ar2, ar1 + ar2)), "no return of exactly one point (plural)")
    b.ask(
        "An analyst runs an event study on " + news + " affecting a large-cap token. From a 120-day "
        "estimation window, the market model for the token's daily return is E[R] = {alpha} + {beta} × Rm, "
        "where Rm is the return on a crypto market index. Just before the news the token's market "
        "capitalization was {cap}. On day 1 the index returned {m1} and the token {r1}; on day 2 the index "
        "returned {m2} and the token {r2}. Compute each day's expected and abnormal return, the cumulative "
        "abnormal return (CAR) over the two days, and the change in market capitalization attributable to "
        "the news (CAR × pre-event capitalization)."
    )
    b.step("expected1", "Day 1 expected return, α + β × index return", "alpha + beta * m1", unit="%")
    b.step("abnormal1", "Day 1 abnormal return (actual − expected)", "r1 - expected1", unit="pp")
    b.step("expected2", "Day 2 expected return, α + β × index return", "alpha + beta * m2", unit="%")
    b.step("abnormal2", "Day 2 abnormal return (actual − expected)", "r2 - expected2", unit="pp")
    b.step("car", "Cumulative abnormal return over the window", "abnormal1 + abnormal2", unit="pp")
    b.step("impact", "Value attributable to the news (CAR × capitalization)", "car / 100 * cap * 1000000000",
           unit="$")
