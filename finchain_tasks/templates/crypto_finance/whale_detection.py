"""Whale detection: wallet share of supply against a whale threshold, large transfers against market
volume, split transfers summed against a reporting threshold, exchange net flows, and an address
cluster labeled from its share of supply and the dollar value of its exchange flows."""

from finchain_tasks.engine import Builder, template

TOKENS = ["AAVE", "UNI", "LINK", "ARB", "OP", "LDO", "MKR"]


@template("easy")
def wallet_share_threshold(b: Builder) -> None:
    """Is a wallet a whale: its share of circulating supply against a stated threshold.

    Source: holder-concentration metrics (share of supply held) as used by on-chain analytics, e.g.
    Glassnode's supply-distribution cohorts; threshold stated in the question.
    """
    supply = b.number("supply", 50, 1_000, decimals=1, unit="million tokens")
    thr = b.choice("threshold", {"0.5%": 0.5, "1%": 1.0, "2%": 2.0})
    whale = b.pick([True, False])
    share = b.rng.uniform(thr, thr * 2.5) if whale else b.rng.uniform(thr * 0.3, thr * 0.97)
    b.derive("holding", round(supply * 1e6 * share / 100), unit="tokens")
    b.bounds("share", lo=0, hi=100, why="a share of supply")
    b.ask(
        "A governance token has {supply} in circulation. An analytics desk labels any single wallet holding at "
        "least {threshold} of circulating supply a whale. A wallet holds {holding}. What share of supply does "
        "it hold, and is it a whale? (Answer 'whale' or 'not a whale'.)"
    )
    b.step("share", "Wallet's share of circulating supply", "holding / (supply * 1000000) * 100", unit="%")
    b.step("label", "Label against the threshold", "'whale' if share >= threshold else 'not a whale'")


@template("easy")
def large_transfer_vs_volume(b: Builder) -> None:
    """Dollar value of a large on-chain transfer and its size relative to daily trading volume.

    Source: transfer value = units × price; volume share as a market-impact gauge (Kyle, "Continuous
    Auctions and Insider Trading", Econometrica 1985, on trade size relative to volume).
    """
    coins = b.number("coins", 500, 25_000, decimals=2, unit="BTC")
    price = b.money("price", 25_000, 95_000, step=1)
    b.derive("volume", round(coins * price * b.rng.uniform(3, 60), -5), unit="$")
    b.bounds("share", lo=0, hi=100, why="a share of the day's volume")
    b.ask(
        "A blockchain monitor flags a single transfer of {coins} from a dormant wallet to an exchange deposit "
        "address while bitcoin trades at {price}. Spot trading volume over the past 24 hours was {volume}. "
        "What is the transfer worth, and what percentage of the day's volume is that? Give the percentage."
    )
    b.step("value", "Dollar value of the transfer", "coins * price", unit="$")
    b.step("share", "Transfer value as a share of 24-hour volume", "value / volume * 100", unit="%")


@template("intermediate")
def split_transfers_threshold(b: Builder) -> None:
    """Several transfers from one wallet in 24 hours, summed and compared with a reporting threshold.

    Source: aggregation of related transactions within a business day (31 CFR §1010.313, aggregation of
    multiple transactions) applied to an exchange's internal large-transfer threshold.
    """
    price = b.money("price", 1_500, 4_500, step=0.5)
    thr = b.choice("threshold", {"$250,000": 250_000, "$500,000": 500_000, "$1,000,000": 1_000_000})
    over = b.pick([True, False])
    total = thr / price * (b.rng.uniform(1.03, 1.8) if over else b.rng.uniform(0.5, 0.97))
    cuts = sorted(b.rng.uniform(0.15, 0.85) for _ in range(3))
    parts = [cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 1 - cuts[2]]
    b.require(min(parts) >= 0.08, "no tiny transfer")
    for k, part in enumerate(parts, 1):
        b.derive(f"t{k}", round(total * part, 2), unit="ETH", decimals=2)
    b.ask(
        "An exchange's compliance rules treat transfers from the same wallet within 24 hours as one, and "
        "review any wallet whose combined transfers reach {threshold}. Within one day a wallet deposits "
        "{t1}, {t2}, {t3} and {t4}; ETH trades at {price} all day. What is the combined value, and is the "
        "wallet sent for review? (Answer 'review' or 'no review'.)"
    )
    b.step("total_eth", "ETH deposited in the day", "t1 + t2 + t3 + t4", unit="ETH")
    b.step("total_value", "Combined dollar value", "total_eth * price", unit="$")
    b.step("decision", "Decision against the threshold", "'review' if total_value >= threshold else 'no review'")


@template("intermediate", floor=1000)
def exchange_netflow(b: Builder) -> None:
    """Net flow of coins from whale wallets onto three exchanges, in coins and dollars.

    Source: exchange netflow = inflows − outflows (CryptoQuant and Glassnode on-chain metric definitions).
    """
    for k in (1, 2, 3):
        b.company(f"exchange{k}", kind="exchange", exclude=[b.values[f"exchange{i}"] for i in range(1, k)])
    for k in (1, 2, 3):
        b.number(f"in{k}", 100, 6_000, decimals=1, unit="BTC")
        b.number(f"out{k}", 100, 6_000, decimals=1, unit="BTC")
    b.money("price", 25_000, 95_000, step=1)
    v = b.values
    net = v["in1"] + v["in2"] + v["in3"] - v["out1"] - v["out2"] - v["out3"]
    b.require(abs(net) >= 50, "a net flow of at least 50 BTC")
    b.ask(
        "Over one day, tracked whale wallets send {in1} to {exchange1} and withdraw {out1} from it; send "
        "{in2} to {exchange2} and withdraw {out2}; and send {in3} to {exchange3} and withdraw {out3}. "
        "Bitcoin trades at {price}. What is the whales' net exchange flow in dollars (positive for a net "
        "inflow onto exchanges, often read as selling pressure; negative for a net outflow)?"
    )
    b.step("inflow", "Total inflow onto the exchanges", "in1 + in2 + in3", unit="BTC")
    b.step("outflow", "Total outflow from the exchanges", "out1 + out2 + out3", unit="BTC")
    b.step("net", "Net flow (inflow − outflow)", "inflow - outflow", unit="BTC")
    b.step("net_value", "Net flow in dollars", "net * price", unit="$")


TOKEN_PRICES = {"AAVE": (60, 350), "UNI": (5, 15), "LINK": (6, 25), "COMP": (30, 120), "MKR": (800, 3_000)}
"""Tokens with a realistic price range (above $5, so prices show in cents)."""
TOKEN_SUPPLIES = {"AAVE": (14.0, 16.0, 2), "UNI": (580.0, 760.0, 1), "LINK": (450.0, 680.0, 1),
                  "COMP": (8.0, 10.0, 2), "MKR": (0.87, 0.98, 3)}
"""Each token's real circulating supply in millions (2023-25, CoinGecko), and the decimals it is shown with:
a real ticker with ten to nine hundred times its supply was a token worth trillions."""
CLUSTER_LABELS = ("accumulating whale", "distributing whale", "not a whale")


@template("advanced")
def cluster_whale_signal(b: Builder) -> None:
    """Label an address cluster from its share of supply after a week's exchange flows and their dollar net flow.

    Source: common-input-ownership clustering (Meiklejohn et al., "A Fistful of Bitcoins", IMC 2013);
    share-of-supply concentration; exchange inflow and outflow per CryptoQuant's exchange-flow
    definitions (withdrawals from exchanges read as accumulation, deposits as intent to sell).

    Concepts: common-input clustering of addresses; exchange net flow in tokens; dollar value of flows at
    their own prices; share-of-supply whale threshold; accumulation or distribution label.
    """
    label = b.pick(CLUSTER_LABELS)
    token = b.pick(list(TOKEN_PRICES))
    s_lo, s_hi, s_decimals = TOKEN_SUPPLIES[token]
    supply = b.number("supply", s_lo, s_hi, decimals=s_decimals, unit="million tokens")
    end_share = b.rng.uniform(1.1, 2.5) if label != "not a whale" else b.rng.uniform(0.4, 0.9)
    inflow = label == "distributing whale" or (label == "not a whale" and b.pick([True, False]))
    net_share = b.rng.uniform(0.05, min(0.6, 0.8 * end_share)) * (-1 if inflow else 1)  # start holdings > 0
    start = (end_share - net_share) / 100 * supply * 1e6
    weights = [b.rng.uniform(0.5, 1.5) for _ in range(3)]
    for k, w in enumerate(weights, 1):
        b.derive(f"holding{k}", round(start * w / sum(weights)), unit="tokens")
    net = net_share / 100 * supply * 1e6
    gross = abs(net) * b.rng.uniform(1.5, 3)
    w1 = round(gross * b.rng.uniform(0.3, 0.7))
    b.derive("w1", w1, unit="tokens")
    b.derive("w2", round(gross - w1), unit="tokens")
    b.derive("d1", round(gross - net), unit="tokens")
    lo, hi = TOKEN_PRICES[token]
    base = b.rng.uniform(lo, hi)
    for k in (1, 2, 3):
        b.derive(f"p{k}", base * b.rng.uniform(0.96, 1.04), unit="$")
    v = b.values
    end = v["holding1"] + v["holding2"] + v["holding3"] + v["w1"] + v["w2"] - v["d1"]
    dollars = v["w1"] * v["p1"] + v["w2"] * v["p2"] - v["d1"] * v["p3"]
    whale = end / (supply * 1e6) * 100 >= 1
    got = ("accumulating whale" if dollars > 0 else "distributing whale") if whale else "not a whale"
    b.require(got == label and v["d1"] > 0 and abs(end / (supply * 1e6) * 100 - 1) > 0.02,
              "the drawn label, clear of the 1% line")
    b.ask(
        f"On-chain analysts link three addresses to one fund because they co-sign transactions. At the start of "
        f"the week they hold {{holding1}}, {{holding2}} and {{holding3}} of {token}, whose circulating supply is "
        "{supply} and does not change during the week. During the week the cluster withdraws {w1} from one "
        f"exchange when {token} trades at {{p1}} and {{w2}} from another at {{p2}}, and deposits {{d1}} to a "
        "third at {p3}. "
        "The desk calls a cluster a whale if it holds at least 1% of circulating supply at the end of the week, "
        "and labels a whale 'accumulating' if the dollar value it withdrew from exchanges exceeds the dollar "
        "value it deposited, otherwise 'distributing'. What is the cluster's label ('accumulating whale', "
        "'distributing whale' or 'not a whale')?"
    )
    b.bounds("holdings_end", lo=0, why="holdings cannot be negative")
    b.bounds("share", lo=0, hi=100, why="a share of supply")
    b.step("holdings_start", "Cluster holdings at the start of the week", "holding1 + holding2 + holding3",
           unit="tokens")
    b.step("net_tokens", "Net withdrawals from exchanges in tokens", "w1 + w2 - d1", unit="tokens")
    b.step("holdings_end", "Holdings at the end of the week", "holdings_start + net_tokens", unit="tokens")
    b.step("share", "Share of circulating supply at the end", "holdings_end / (supply * 1000000) * 100", unit="%")
    b.step("net_dollars", "Net dollar flow out of exchanges (withdrawn − deposited value)",
           "w1 * p1 + w2 * p2 - d1 * p3", unit="$")
    b.step("label", "Label: a whale at 1% or more, accumulating when the net dollar flow is positive",
           "('accumulating whale' if net_dollars > 0 else 'distributing whale') if share >= 1 else 'not a whale'")
