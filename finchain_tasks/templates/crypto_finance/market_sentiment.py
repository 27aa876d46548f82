"""Market sentiment: net sentiment of social posts, price momentum against a moving average, follower-
weighted (social influence) sentiment, decaying news impact, and a sentiment regime from
perpetual funding, the put/call ratio and social posts."""

from finchain_tasks.engine import Builder, template

COINS = ["Solana", "Cardano", "Avalanche", "Polkadot", "Chainlink", "Litecoin"]
PRICED = {"Solana": (20, 250), "Avalanche": (10, 120), "Chainlink": (6, 50), "Litecoin": (50, 250),
          "Ether": (1_200, 4_500), "Bitcoin": (20_000, 95_000)}
"""Coins with a realistic price range, for questions that quote prices."""


@template("easy", floor=2)
def net_sentiment_score(b: Builder) -> None:
    """Net sentiment index (P − N)/(P + N) × 100 of classified social-media posts.

    Source: net-bullishness measure of Antweiler and Frank, "Is All That Talk Just Noise?", Journal of
    Finance 59 (2004), eq. 1 (the ratio form).
    """
    pos = b.integer("positive", 800, 40_000, unit="posts")
    b.integer("negative", int(pos * 0.4), int(pos * 1.8), unit="posts")
    b.require(abs(pos - b.values["negative"]) / (pos + b.values["negative"]) >= 0.03, "sentiment not neutral")
    coin = b.pick(COINS)
    b.ask(
        f"A sentiment tracker classifies yesterday's social-media posts about {coin}: {{positive}} "
        "are bullish and {negative} bearish (neutral posts are ignored). On a scale from −100 (all bearish) to +100 "
        "(all bullish), what is the net sentiment index, defined as (bullish − bearish) ÷ (bullish + bearish) "
        "× 100?"
    )
    b.step("difference", "Bullish minus bearish posts", "positive - negative", unit="posts")
    b.step("index", "Net sentiment index", "difference / (positive + negative) * 100")


@template("easy", floor=0.2)
def price_momentum_signal(b: Builder) -> None:
    """Momentum sentiment: today's price against its five-day simple moving average.

    Source: moving-average momentum (Murphy, Technical Analysis of the Financial Markets, ch. 9).
    """
    coin = b.pick(list(PRICED))
    price = b.money("p1", *PRICED[coin], step=0.01)
    for k in range(2, 6):
        price = b.derive(f"p{k}", price * (1 + b.rng.uniform(-0.06, 0.06)), unit="$")
    b.derive("today", price * (1 + b.rng.uniform(-0.08, 0.08)), unit="$")
    v = b.values
    ma = (v["p1"] + v["p2"] + v["p3"] + v["p4"] + v["p5"]) / 5
    b.require(abs(v["today"] / ma - 1) >= 0.003, "price away from its average")
    b.ask(
        f"{coin} closed at {{p1}}, {{p2}}, {{p3}}, {{p4}} and {{p5}} on the last five trading days, and trades at "
        "{today} now. A momentum gauge compares the current price with the five-day simple moving average of "
        "closes. By what percentage is the current price above (positive) or below (negative) that average?"
    )
    b.step("average", "Five-day simple moving average", "(p1 + p2 + p3 + p4 + p5) / 5", unit="$")
    b.step("momentum", "Current price relative to the average (5 × price ÷ sum of closes − 1)",
           "(5 * today / (p1 + p2 + p3 + p4 + p5) - 1) * 100", unit="%")


@template("intermediate", floor=0.02)
def influencer_weighted_sentiment(b: Builder) -> None:
    """Follower-weighted sentiment of three accounts: Σ fᵢsᵢ / Σ fᵢ.

    Source: influence-weighted sentiment aggregation (Bollen, Mao and Zeng, "Twitter Mood Predicts the
    Stock Market", Journal of Computational Science 2, 2011; weighting by reach as in Sprenger et al., 2014).
    """
    for k in (1, 2, 3):
        b.number(f"f{k}", 0.05, 6, decimals=2, unit="million followers")
        b.number(f"s{k}", -0.95, 0.95, decimals=2)
    v = b.values
    w = (v["f1"] * v["s1"] + v["f2"] * v["s2"] + v["f3"] * v["s3"]) / (v["f1"] + v["f2"] + v["f3"])
    b.require(abs(w) >= 0.03, "weighted sentiment not neutral")
    b.ask(
        "Three crypto influencers post about the same token. Account A has {f1} and its post scores {s1} on a "
        "sentiment scale from −1 (very bearish) to +1 (very bullish); account B has {f2} and scores {s2}; "
        "account C has {f3} and scores {s3}. Weighting each score by the account's followers, what is the "
        "reach-weighted sentiment of the three posts?"
    )
    b.step("weighted_sum", "Sum of followers × score (million follower-points)", "f1 * s1 + f2 * s2 + f3 * s3")
    b.step("followers", "Total followers (millions)", "f1 + f2 + f3")
    b.step("sentiment", "Reach-weighted sentiment", "weighted_sum / followers")


@template("intermediate")
def news_impact_decay(b: Builder) -> None:
    """A news-sentiment shock that decays exponentially with a half-life, mapped to a price move.

    Source: exponential decay with half-life h, impact(t) = impact₀ × 0.5^(t/h) (Tetlock, "Giving Content to
    Investor Sentiment", Journal of Finance 62, 2007, on the reversal of news-driven moves).
    """
    b.integer("shock", 10, 60, unit="points")
    b.number("half_life", 3, 24, decimals=1, unit="hours")
    b.integer("hours", 2, 48, unit="hours")
    b.require(b.values["hours"] != b.values["half_life"], "elapsed time differs from the half-life")
    b.number("sensitivity", 0.05, 0.4, decimals=3)
    b.money("price", 5, 900, step=0.01)
    up = b.pick([True, False])
    b.ask(
        f"A {'positive' if up else 'negative'} headline pushes a news-sentiment gauge for a token {{shock}} "
        f"{'above' if up else 'below'} its baseline. The effect fades exponentially with a half-life of "
        "{half_life}. A model estimates that each point the gauge still sits away from baseline moves the price "
        "{sensitivity}% in the same direction. The token traded at {price} just before the news. What is the "
        "model's price for the token {hours} after the headline?"
    )
    b.step("decay", "Share of the shock left, 0.5^(hours ÷ half-life)", "0.5 ** (hours / half_life)")
    b.step("remaining", "Sentiment points still away from baseline", "shock * decay", unit="points")
    b.step("move", "Size of the price effect (points × sensitivity)", "remaining * sensitivity", unit="%")
    if up:
        b.step("new_price", "Model price after the rise", "price * (1 + move / 100)", unit="$")
    else:
        b.step("new_price", "Model price after the fall", "price * (1 - move / 100)", unit="$")


REGIMES = {"extreme fear": (0, 25), "fear": (25, 45), "neutral": (45, 55), "greed": (55, 75),
           "extreme greed": (75, 100)}


@template("advanced")
def derivatives_sentiment_regime(b: Builder) -> None:
    """Sentiment regime from perpetual funding, the options put/call ratio and social posts.

    Source: perpetual-swap funding paid every 8 hours (three times a day), annualized as rate × 3 × 365
    (BitMEX and Binance funding documentation); put/call open-interest ratio as a fear gauge (Deribit
    options data; Pan and Poteshman, Review of Financial Studies 19, 2006); min–max scaling and fixed weights
    as in the Crypto Fear & Greed Index (Alternative.me), whose bands are 0–25 extreme fear up to 75–100
    extreme greed.

    Concepts: annualizing an 8-hour perpetual funding rate; put/call open-interest ratio; min–max scaling to
    0–100; weighted composite index; regime bands.
    """
    regime = b.pick(list(REGIMES))
    lo, hi = REGIMES[regime]
    centre = (lo + hi) / 2
    scores = [min(97.0, max(3.0, b.rng.gauss(centre, 9))) for _ in range(3)]
    coin = b.pick(["Bitcoin", "Ether", "Solana"])
    b.derive("funding", (-10 + scores[0] / 100 * 50) / 1095, unit="%", decimals=4)
    calls = b.integer("calls", 20_000, 150_000, unit="contracts")
    b.derive("puts", round(calls * (1.5 - scores[1] / 100 * 1.2)), unit="contracts")
    posts = b.rng.randint(5_000, 40_000)
    bullish = b.derive("bullish", round(posts * scores[2] / 100), unit="posts")
    b.derive("bearish", posts - bullish, unit="posts")
    v = b.values
    index = (0.4 * (v["funding"] * 1095 + 10) / 50 * 100 + 0.3 * (1.5 - v["puts"] / calls) / 1.2 * 100
             + 0.3 * bullish / posts * 100)
    b.require(lo + 0.2 < index < hi - 0.2 or (lo == 0 and index < hi - 0.2) or (hi == 100 and index > lo + 0.2),
              "the drawn regime, clear of its edges")
    b.require(-10 < v["funding"] * 1095 < 40 and 0.3 < v["puts"] / calls < 1.5, "components inside their ranges")
    b.ask(
        f"A desk gauges {coin} sentiment on a 0–100 scale (0 = extreme fear) from three components. Funding: "
        "the perpetual swap's funding rate, paid every 8 hours, averaged {funding} per 8-hour period today; "
        "annualize it (three payments a day, 365 days) and score it (annualized rate + 10%) ÷ 50% × 100, so "
        "−10% scores 0 and 40% scores 100. Options: open interest is {puts} in puts and {calls} in calls; "
        "the put/call ratio reads as fear and scores (1.5 − ratio) ÷ 1.2 × 100. Social: {bullish} "
        "were classified bullish and {bearish} bearish; the score is the bullish share × 100. The index "
        "weights funding 40%, options 30% and social 30%. Below 25 is 'extreme fear', 25 up to 45 'fear', "
        "45 up to 55 'neutral', 55 up to 75 'greed', and 75 or more 'extreme greed'. Which regime is it?"
    )
    for name in ("funding_score", "options_score", "social_score"):
        b.bounds(name, lo=0, hi=100, why="a score on the 0–100 scale")
    b.step("annualized", "Annualized funding rate: 8-hour rate × 3 × 365", "funding * 3 * 365", unit="%")
    b.step("funding_score", "Funding score: (annualized + 10) ÷ 50 × 100", "(annualized + 10) / 50 * 100")
    b.step("ratio", "Put/call open-interest ratio", "puts / calls")
    b.step("options_score", "Options score: (1.5 − ratio) ÷ 1.2 × 100", "(1.5 - ratio) / 1.2 * 100")
    b.step("social_score", "Social score: bullish share × 100", "bullish / (bullish + bearish) * 100")
    b.step("index", "Index: 0.4 × funding + 0.3 × options + 0.3 × social score",
           "0.4 * funding_score + 0.3 * options_score + 0.3 * social_score")
    b.step("regime", "Regime band of the index",
           "'extreme fear' if index < 25 else ('fear' if index < 45 else ('neutral' if index < 55 else "
           "('greed' if index < 75 else 'extreme greed')))")
