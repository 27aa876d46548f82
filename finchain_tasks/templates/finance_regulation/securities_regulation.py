"""Securities regulation (US): ownership disclosure thresholds, insider trading penalties, resale and
offering limits, Schedule 13D against 13G.

Sources: Securities Exchange Act of 1934 s.13(d) and Rules 13d-1(a) and 13d-3(d)(1) (5% threshold,
shares acquirable within 60 days), Rules 13d-1(b) and (c) (Schedule 13G for qualified institutional and
passive investors), s.21A(a)(2) (civil penalty up to three times the profit gained or loss avoided);
Securities Act Rule 144(e)(1) (affiliate resale volume) and Rule 251(d)(2)(i)(C) (Regulation A Tier 2 investment limit).
"""

import math

from finchain_tasks.engine import Builder, template


@template("easy")
def beneficial_ownership_filing(b: Builder) -> None:
    """Ownership percentage against the 5% Schedule 13D threshold (Exchange Act Rule 13d-1(a))."""
    above = b.pick([True, False])
    b.person("investor")
    b.company("issuer")
    b.integer("outstanding", 20_000_000, 400_000_000)
    pct = b.rng.uniform(5.05, 8.5) if above else b.rng.uniform(2.5, 4.95)
    b.derive("held", round(b.values["outstanding"] * pct / 100 / 100) * 100)
    b.ask(
        "{investor} has bought {held} shares of {issuer}'s common stock, which has {outstanding} shares "
        "outstanding, with the intent of influencing the company's strategy. Under Exchange Act Rule "
        "13d-1(a), an investor who acquires beneficial ownership of more than 5% of a registered class "
        "must file a Schedule 13D. Must {investor} file (answer 'file Schedule 13D' or 'no filing')?"
    )
    b.step("ownership", "Ownership percentage: shares held ÷ shares outstanding", "held / outstanding * 100",
           unit="%")
    b.step("decision", "Comparison with the 5% threshold", "'file Schedule 13D' if ownership > 5 else 'no filing'")


@template("easy", floor=10_000)
def insider_trading_penalty(b: Builder) -> None:
    """Profit gained or loss avoided and the maximum civil penalty (Exchange Act s.21A(a)(2))."""
    b.person("insider")
    b.company("issuer")
    b.integer("shares", 2_000, 90_000, unit="shares")
    b.money("price_before", 8, 150, step=0.01)
    gain = b.pick([True, False])
    move = b.rng.uniform(0.12, 0.45)
    b.require(3 * b.values["shares"] * b.values["price_before"] * move > 20_000, "a penalty worth pursuing")
    if gain:
        b.derive("price_after", b.values["price_before"] * (1 + move), unit="$")
        b.ask(
            "{insider}, a director of {issuer}, learns of an unannounced takeover offer and buys {shares} at "
            "{price_before} each. After the announcement the stock trades at {price_after}. Under Exchange "
            "Act section 21A the SEC may seek a civil penalty of up to three times the profit gained. "
            "What is the maximum civil penalty?"
        )
        b.step("per_share", "Profit per share", "price_after - price_before", unit="$")
    else:
        b.derive("price_after", b.values["price_before"] * (1 - move), unit="$")
        b.ask(
            "{insider}, an officer of {issuer}, learns that quarterly earnings will fall far short of guidance "
            "and sells "
            "{shares} at {price_before} each before the news is public. After the announcement the stock trades at "
            "{price_after}. Under Exchange Act section 21A the SEC may seek a civil penalty of up to three "
            "times the loss avoided. What is the maximum civil penalty?"
        )
        b.step("per_share", "Loss avoided per share", "price_before - price_after", unit="$")
    b.step("benefit", "Total benefit from the trade", "shares * per_share", unit="$")
    b.step("penalty", "Maximum civil penalty: three times the benefit", "3 * benefit", unit="$")


@template("intermediate")
def rule_144_volume_limit(b: Builder) -> None:
    """Affiliate resale volume limit: greater of 1% of outstanding or average weekly volume (Rule 144(e)(1))."""
    ok = b.pick([True, False])
    b.person("affiliate")
    b.company("issuer")
    b.integer("outstanding", 10_000_000, 300_000_000)
    base = b.values["outstanding"] / 100 * b.rng.uniform(0.6, 1.5)
    for i in range(1, 5):
        b.derive(f"week{i}", round(base * b.rng.uniform(0.7, 1.3) / 100) * 100)
    v = b.values
    limit = max(v["outstanding"] / 100, (v["week1"] + v["week2"] + v["week3"] + v["week4"]) / 4)
    b.derive("proposed", round(limit * (b.rng.uniform(0.8, 0.99) if ok else b.rng.uniform(1.01, 1.25)) / 100) * 100)
    b.ask(
        "{affiliate}, the chief executive of {issuer}, wants to sell {proposed} shares in the next three "
        "months under Rule 144. The company has {outstanding} shares outstanding, and weekly trading volume "
        "over the four calendar weeks before the filing of Form 144 was {week1}, {week2}, {week3} and "
        "{week4} shares. An affiliate may sell, in any three months, no more than the greater of 1% of the "
        "shares outstanding and the average weekly trading volume of those four weeks. Is the sale within "
        "the limit (answer 'within the limit' or 'exceeds the limit')?"
    )
    b.step("one_percent", "1% of the shares outstanding", "outstanding / 100")
    b.step("average_volume", "Average weekly trading volume", "(week1 + week2 + week3 + week4) / 4")
    b.step("decision", "The sale against the greater of the two measures",
           "'within the limit' if proposed <= one_percent or proposed <= average_volume else 'exceeds the limit'")


@template("intermediate")
def reg_a_investment_limit(b: Builder) -> None:
    """Regulation A Tier 2 limit for non-accredited investors (Securities Act Rule 251(d)(2)(i)(C))."""
    ok = b.pick([True, False])
    b.person("investor")
    b.company("issuer")
    b.money("income", 40_000, 190_000, step=500)
    b.derive("net_worth", 1_000 * round(b.values["income"] * b.rng.uniform(0.4, 2.5) / 1_000), unit="$")
    limit = max(b.values["income"], b.values["net_worth"]) / 10
    b.derive("amount", 100 * round(limit * (b.rng.uniform(0.7, 0.98) if ok else b.rng.uniform(1.03, 1.6)) / 100),
             unit="$")
    b.ask(
        "{investor}, who is not an accredited investor, wants to buy {amount} of {issuer}'s shares in a "
        "Regulation A Tier 2 offering that will not be listed on a national exchange. {Their} annual income "
        "is {income} and {their} net worth (excluding the primary residence) is {net_worth}. Such an "
        "investor may buy no more than 10% of the greater of annual income and net worth. Is the purchase "
        "allowed (answer 'allowed' or 'over the limit')?"
    )
    b.step("income_cap", "10% of annual income", "income / 10", unit="$")
    b.step("worth_cap", "10% of net worth", "net_worth / 10", unit="$")
    b.step("decision", "The purchase against the larger cap",
           "'allowed' if amount <= income_cap or amount <= worth_cap else 'over the limit'")


INVESTORS = {
    "qualified": ("a registered investment adviser that bought the shares in the ordinary course of its "
                  "business with no intent to influence control (a qualified institutional investor)"),
    "passive": "a family office that bought the shares with no intent to influence control (a passive investor)",
    "activist": "an activist manager that intends to seek seats on the board",
}
FORMS = {  # the filing decision by investor type (Rule 13d-1(b), (c) and (a)) as a step description and formula
    "qualified": ("Filing: above 5% a qualified institutional investor files Schedule 13G",
                  "'Schedule 13G' if ownership > 5 else 'no filing'"),
    "passive": ("Filing: above 5% a passive investor files Schedule 13G below 20% and Schedule 13D from 20%",
                "('Schedule 13D' if ownership >= 20 else 'Schedule 13G') if ownership > 5 else 'no filing'"),
    "activist": ("Filing: above 5% an investor seeking to influence control files Schedule 13D",
                 "'Schedule 13D' if ownership > 5 else 'no filing'"),
}


@template("advanced")
def schedule_13d_or_13g(b: Builder) -> None:
    """Schedule 13D, 13G or no filing for an adviser's funds with warrants exercisable within 60 days.

    Exchange Act Rule 13d-3(a) (voting or investment power makes the adviser the beneficial owner of its
    funds' shares), Rule 13d-3(d)(1)(i) (shares acquirable within 60 days count, and are added to the
    denominator for the holder only), Rule 13d-1(a) (more than 5%: Schedule 13D), Rule 13d-1(b) (qualified
    institutional investors: Schedule 13G) and Rule 13d-1(c) (other passive investors: Schedule 13G while
    below 20%).

    A convertible note converts at its face ÷ the conversion price (Rule 13d-3(d)(1)(i) covers conversion
    rights like options and warrants).

    Concepts: aggregation of shares under common voting power; conversion shares of a convertible note; rights
    exercisable within 60 days in the numerator and denominator; the 5% reporting threshold; Schedule 13G
    eligibility by investor type and the 20% passive-investor ceiling.
    """
    answer = b.pick(["no filing", "Schedule 13G", "Schedule 13D"])
    kind = {"no filing": b.pick(list(INVESTORS)), "Schedule 13G": b.pick(["qualified", "passive"]),
            "Schedule 13D": b.pick(["activist", "passive"])}[answer]
    target = (3.0, 4.9) if answer == "no filing" else (
        (20.5, 26.0) if (answer, kind) == ("Schedule 13D", "passive") else (5.1, 19.5))
    issuer = b.company("issuer", kind="listed")
    b.company("adviser", kind="family office" if kind == "passive" else "trading", exclude=[issuer])
    s = b.integer("outstanding", 20_000_000, 250_000_000)
    pct = b.rng.uniform(*target)
    w = b.derive("warrants", round(s * b.rng.uniform(0.003, 0.01) / 1_000) * 1_000)
    conversion = b.money("conversion_price", 8, 60, step=0.5)
    note = b.derive("note", 100_000 * round(s * b.rng.uniform(0.002, 0.008) * conversion / 100_000), unit="$")
    rights = w + math.floor(note / conversion)
    group = pct / 100 * (s + rights) - rights
    shares_a = b.derive("fund_a", round(group * b.rng.uniform(0.3, 0.5) / 100) * 100)
    shares_b = b.derive("fund_b", round(group * b.rng.uniform(0.2, 0.35) / 100) * 100)
    b.derive("fund_c", round((group - shares_a - shares_b) / 100) * 100)
    v = b.values
    owned = (v["fund_a"] + v["fund_b"] + v["fund_c"] + rights) / (s + rights) * 100
    b.require(min(abs(owned - 5), abs(owned - 20)) > 0.05, "ownership clear of the 5% and 20% lines")
    b.ask(
        "{adviser} is " + INVESTORS[kind] + ". It has sole voting and investment power over three funds "
        "that hold shares of {issuer}: fund A holds {fund_a} shares and warrants exercisable within 60 days "
        "for another {warrants} shares, fund B holds {fund_b} shares and a {note} note convertible at any time "
        "at {conversion_price} a share, and fund C holds {fund_c} shares. "
        "{issuer} has {outstanding} shares outstanding. Under Rule 13d-3 the adviser beneficially owns "
        "every share over which it has voting or investment power, and shares it can acquire within 60 days "
        "count as owned (a note as the whole shares its face amount buys at the conversion price) and are added "
        "to the shares outstanding for its calculation. A beneficial owner of more than 5% must file Schedule "
        "13D, except that a qualified institutional investor acting in the ordinary course may file the "
        "short-form Schedule 13G, and so may any other investor without intent to influence control while it "
        "owns less than 20%. What must {adviser} file (answer 'no filing', "
        "'Schedule 13G' or 'Schedule 13D')?"
    )
    b.bounds("ownership", lo=0, hi=100, why="a stake is a part of the shares")
    b.step("held", "Shares held by the three funds", "fund_a + fund_b + fund_c")
    b.step("conversion_shares", "Whole shares on converting the note: face ÷ conversion price, rounded down",
           "floor(note / conversion_price)")
    b.step("rights", "Shares the adviser can acquire within 60 days: warrants + conversion shares",
           "warrants + conversion_shares")
    b.step("beneficial", "Beneficially owned shares including those it can acquire", "held + rights")
    b.step("denominator", "Shares outstanding plus the shares it can acquire", "outstanding + rights")
    b.step("ownership", "Beneficial ownership percentage", "beneficial / denominator * 100", unit="%")
    b.step("filing", *FORMS[kind])
