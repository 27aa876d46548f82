"""Foreign exchange: pip value and profit in pips, cross rates and triangular arbitrage,
forward points by covered interest parity, covered interest arbitrage, and the profit or loss of a yen carry
trade."""

from finchain_tasks.engine import Builder, template

PAIRS = {"EUR/USD": (1.0500, 1.1500), "GBP/USD": (1.2000, 1.3500), "AUD/USD": (0.6300, 0.7000)}
"""Pairs quoted in US dollars (a pip is 0.0001 and its value is in dollars), with realistic ranges."""


@template("easy", floor=10)
def pip_value_pnl(b: Builder) -> None:
    """Profit or loss in pips and in dollars on a spot FX position quoted in US dollars.

    Source: CFA Institute, Economics, ch. on currency exchange rates; a pip is 0.0001 for a pair quoted to four
    decimals, and its value is lot size × 0.0001 in the quote currency (a standard lot is 100,000 units of the
    base currency).
    """
    b.person("trader")
    pair = b.choice("pair", list(PAIRS))
    side = b.choice("side", {"buys": 1, "sells short": -1})
    b.number("lots", 0.5, 10, decimals=1, unit="standard lots")
    lo, hi = PAIRS[pair]
    entry = b.number("entry", lo, hi, decimals=4)
    move = b.rng.choice([-1, 1]) * b.rng.randint(15, 150)
    b.derive("exit", round(entry + move / 10_000, 4), decimals=4)
    b.ask(
        "{trader} {side} {lots} of {pair} at {entry} and closes the position at {exit}. A standard lot is "
        "100,000 units of the base currency and a pip is 0.0001. How many pips did the position gain or lose, "
        "and what is the profit or loss in US dollars (negative for a loss)? Give the dollar amount."
    )
    if side == 1:
        b.step("pips", "Pips gained on the long position, (exit − entry) ÷ 0.0001", "round((exit - entry) / 0.0001)",
               unit="pips")
    else:
        b.step("pips", "Pips gained on the short position, (entry − exit) ÷ 0.0001", "round((entry - exit) / 0.0001)",
               unit="pips")
    b.step("pip_value", "Value of one pip: lots × 100,000 × 0.0001", "lots * 100000 * 0.0001", unit="$")
    b.step("pnl", "Profit or loss: pips × pip value", "pips * pip_value", unit="$")


@template("easy", floor=1_000)
def triangular_arbitrage(b: Builder) -> None:
    """Triangular arbitrage against the cross rate implied through the US dollar, EUR/JPY = EUR/USD × USD/JPY.

    Source: CFA Institute, Economics, ch. on currency exchange rates.
    """
    who = b.pick(["A currency dealer at a London bank", "An FX trader at a dealing bank", "A bank treasury trader"])
    b.number("eur_usd", 1.0200, 1.1800, decimals=4)
    b.number("usd_jpy", 130.00, 160.00, decimals=2)
    implied = b.values["eur_usd"] * b.values["usd_jpy"]
    b.derive("eur_jpy", round(implied * (1 + b.rng.uniform(0.002, 0.01)), 2), decimals=2)
    b.money("amount", 1_000_000, 20_000_000, step=100_000)
    b.ask(
        f"{who} sees EUR/USD at {{eur_usd}} (dollars per euro), "
        "USD/JPY at {usd_jpy} (yen per dollar) and EUR/JPY at {eur_jpy} (yen per euro), all tradable at these "
        "prices. Starting with {amount}, the trader buys euros with dollars, sells the euros for yen, and sells "
        "the yen for dollars. What is the profit in dollars?"
    )
    b.step("implied", "EUR/JPY cross rate implied through the dollar (EUR/USD × USD/JPY)", "eur_usd * usd_jpy")
    b.step("dollars_back", "Dollars after the round trip (amount × quoted cross ÷ implied cross)",
           "amount * eur_jpy / implied", unit="$")
    b.step("profit", "Arbitrage profit", "dollars_back - amount", unit="$")


@template("intermediate")
def forward_points_from_parity(b: Builder) -> None:
    """Forward rate and forward points by covered interest parity with money-market (ACT/360) rates.

    Source: Hull, Options, Futures and Other Derivatives, ch. 5.
    """
    b.number("spot", 1.0200, 1.1800, decimals=4)
    b.percent("usd_rate", 3, 5.5, decimals=2)
    b.percent("eur_rate", 1.5, 4, decimals=2)
    b.require(abs(b.values["usd_rate"] - b.values["eur_rate"]) >= 0.5, "the rate gap gives visible points")
    b.choice("days", {"90-day": 90, "180-day": 180, "270-day": 270, "360-day": 360, "120-day": 120,
                      "60-day": 60})
    b.ask(
        "EUR/USD spot is {spot} (US dollars per euro). Dollar deposits pay {usd_rate} and euro deposits "
        "{eur_rate}, both simple annual rates on an ACT/360 basis. By covered interest parity, how many forward "
        "points (in units of 0.0001, negative for a discount) separate the {days} forward rate from spot?"
    )
    b.step("eur_growth", "Euro growth factor (1 + euro rate × days ÷ 360)", "1 + eur_rate / 100 * days / 360")
    b.step("differential", "Interest differential (dollar rate − euro rate)", "usd_rate - eur_rate", unit="pp")
    b.step("points", "Forward points, F − S = S × differential × days ÷ 360 ÷ euro growth factor, in units of "
           "0.0001", "spot * differential / 100 * days / 360 / eur_growth * 10000")


@template("intermediate", floor=5_000)
def covered_interest_arbitrage(b: Builder) -> None:
    """Profit from covered interest arbitrage when the quoted forward is above parity.

    Source: Hull, Options, Futures and Other Derivatives, ch. 5; CFA Institute, Economics, ch. on currency exchange
    rates.
    """
    b.company("bank", kind="trading")  # a desk arbitrages; a farm does not
    b.number("spot", 1.2200, 1.3400, decimals=4)
    b.percent("usd_rate", 3, 5.5, decimals=2)
    b.percent("gbp_rate", 3, 5.5, decimals=2)
    days = b.choice("days", {"90-day": 90, "180-day": 180, "360-day": 360})
    v = b.values
    parity = v["spot"] * (1 + v["usd_rate"] / 100 * days / 360) / (1 + v["gbp_rate"] / 100 * days / 360)
    b.derive("forward", round(parity + b.rng.randint(20, 150) / 10_000, 4), decimals=4)
    b.money("borrow", 5_000_000, 50_000_000, step=100_000)
    b.ask(
        "GBP/USD spot is {spot} and the {days} forward is quoted at {forward} (US dollars per pound). Dollar and "
        "sterling money-market rates are {usd_rate} and {gbp_rate}, simple annual rates on an ACT/360 basis. "
        "{bank} borrows {borrow}, buys pounds spot, deposits them, and sells the pounds plus interest forward. "
        "What arbitrage profit in dollars is locked in at maturity?"
    )
    b.step("pounds", "Pounds bought spot", "round(borrow / spot, 2)", unit="£")
    b.step("pounds_maturity", "Pounds at maturity with interest",
           "round(pounds * (1 + gbp_rate / 100 * days / 360), 2)",
           unit="£")
    b.step("dollars_back", "Dollars from the forward sale", "round(pounds_maturity * forward, 2)", unit="$")
    b.step("owed", "Dollar loan repayment", "round(borrow * (1 + usd_rate / 100 * days / 360), 2)", unit="$")
    b.step("profit", "Arbitrage profit", "dollars_back - owed", unit="$")


@template("advanced", floor=100_000)
def carry_trade_pnl(b: Builder) -> None:
    """Profit or loss of a yen-funded carry trade into Australian dollars at dealer bid/ask quotes.

    Source: Burnside, Eichenbaum and Rebelo, carry trade; CFA Institute, Economics, ch. on currency exchange rates.

    Concepts: dealer bid/ask conversion; simple interest on an ACT/365 basis in two currencies; break-even exchange
    rate; carry trade profit or loss.
    """
    fund, short = b.pick([("A Tokyo macro fund", "the fund"), ("A Singapore hedge fund", "the fund"),
                          ("A currency overlay manager", "the manager"), ("A proprietary trading desk", "the desk")])
    b.money("notional", 100_000_000, 3_000_000_000, step=1_000_000, unit="¥")
    b.number("ask", 88.00, 108.00, decimals=2)
    b.percent("jpy_rate", 0.1, 1.0, decimals=2)
    b.percent("aud_rate", 3.5, 5.5, decimals=2)
    days = b.choice("days", {"91 days": 91, "182 days": 182, "273 days": 273, "365 days": 365})
    v = b.values
    aud_end = v["notional"] / v["ask"] * (1 + v["aud_rate"] / 100 * days / 365)
    owed = v["notional"] * (1 + v["jpy_rate"] / 100 * days / 365)
    b.derive("bid_later", round(v["ask"] * b.rng.uniform(0.92, 1.06), 2), decimals=2)
    pnl = aud_end * v["bid_later"] - owed
    b.require(abs(pnl) > 0.004 * v["notional"], "a clear profit or loss")
    b.ask(
        f"{fund} borrows {{notional}} at {{jpy_rate}} and converts it into Australian dollars at the dealer's "
        "AUD/JPY ask of {ask} yen per Australian dollar. It deposits the Australian dollars at {aud_rate}. Both "
        "rates are simple annual rates on an ACT/365 basis, and the trade runs {days}. At maturity the dealer's "
        "AUD/JPY bid is {bid_later}. What is the profit or loss in yen after " + short + " converts its Australian "
        "dollars back and repays the yen loan (negative for a loss)?"
    )
    b.step("aud", "Australian dollars bought (yen ÷ ask)", "notional / ask")
    b.step("aud_end", "Australian dollars at maturity with interest", "aud * (1 + aud_rate / 100 * days / 365)")
    b.step("owed", "Yen owed on the loan", "round(notional * (1 + jpy_rate / 100 * days / 365), 2)", unit="¥")
    b.step("break_even", "Break-even AUD/JPY bid (yen owed ÷ Australian dollars at maturity)", "owed / aud_end")
    b.step("received", "Yen received at the bid", "round(aud_end * bid_later, 2)", unit="¥")
    b.step("pnl", "Profit or loss in yen", "received - owed", unit="¥")
