"""Market sentiment: net sentiment of social posts, price momentum against a moving average, follower-
weighted (social influence) sentiment, decaying news impact, and a composite fear-and-greed index."""

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


@template("advanced")
def composite_fear_greed_index(b: Builder) -> None:
    """A composite fear-and-greed index from four min–max-scaled components.

    Source: methodology of the Crypto Fear & Greed Index (Alternative.me): components scaled to 0–100
    against their recent range and combined with fixed weights; volatility and dominance read as fear.
    """
    vmin = b.percent("vol_min", 25, 45, decimals=1)
    vmax = b.percent("vol_max", vmin + 25, vmin + 70, decimals=1)
    b.percent("vol", vmin + 2, vmax - 2, decimals=1)
    lo = b.number("volume_min", 8, 25, decimals=1, unit="billion dollars")
    hi = b.number("volume_max", lo + 10, lo + 60, decimals=1, unit="billion dollars")
    b.number("volume", lo + 1, hi - 1, decimals=1, unit="billion dollars")
    b.integer("bullish", 2_000, 30_000, unit="posts")
    b.integer("bearish", 2_000, 30_000, unit="posts")
    dmin = b.percent("dom_min", 40, 50, decimals=1)
    dmax = b.percent("dom_max", dmin + 4, dmin + 15, decimals=1)
    b.percent("dom", dmin + 0.5, dmax - 0.5, decimals=1)
    b.ask(
        "A desk builds a crypto fear-and-greed index (0 = extreme fear, 100 = extreme greed) from four "
        "components, each scaled to 0–100 against its 90-day range. Volatility reads as fear: its score is "
        "(90-day maximum − current) ÷ (maximum − minimum) × 100; 30-day volatility ranged from {vol_min} to "
        "{vol_max} and is now {vol}. Trading volume reads as greed: its score is (current − minimum) ÷ "
        "(maximum − minimum) × 100; daily volume ranged from {volume_min} to {volume_max} and is now {volume}. "
        "The social score is the bullish share of classified posts × 100; today {bullish} were classified as "
        "bullish and {bearish} as bearish. Bitcoin dominance reads as fear (money retreats to bitcoin), scored like "
        "volatility; it ranged from {dom_min} to {dom_max} and is now {dom}. The weights are 30% volatility, "
        "30% volume, 20% social and 20% dominance. What is the index today?"
    )
    b.step("vol_score", "Volatility score", "(vol_max - vol) / (vol_max - vol_min) * 100")
    b.step("volume_score", "Volume score", "(volume - volume_min) / (volume_max - volume_min) * 100")
    b.step("social_score", "Social score (bullish share of posts)", "bullish / (bullish + bearish) * 100")
    b.step("dom_score", "Dominance score", "(dom_max - dom) / (dom_max - dom_min) * 100")
    b.step("index", "Weighted composite index",
           "0.3 * vol_score + 0.3 * volume_score + 0.2 * social_score + 0.2 * dom_score")
