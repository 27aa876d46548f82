"""Deal structure: exchange ratios, cash and stock mix, fixed versus floating ratios, earn-outs, dilution.

Sources: DePamphilis, Mergers, Acquisitions, and Other Restructuring Activities (10th ed.), ch. 11
(form of payment, exchange ratios, collars) and Bruner, Applied Mergers and Acquisitions, ch. 23
(earn-outs and contingent payments).
"""

from finchain_tasks.engine import Builder, template


@template("easy")
def exchange_ratio_shares(b: Builder) -> None:
    """Exchange ratio and new shares in an all-stock deal (DePamphilis, ch. 11)."""
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")
    b.money("acquirer_price", 20, 180, step=0.01)
    b.derive("offer", b.values["acquirer_price"] * b.rng.uniform(0.25, 1.6), unit="$")
    b.integer("target_shares", 5_000_000, 120_000_000, unit="shares")
    b.ask(
        "{acquirer} agrees to buy {target} in an all-stock deal worth {offer} per {target} share. "
        "{acquirer}'s stock trades at {acquirer_price}, and {target} has {target_shares} outstanding. "
        "How many new {acquirer} shares must be issued (do not round to whole shares)?"
    )
    b.step("ratio", "Exchange ratio: offer per share ÷ acquirer share price", "offer / acquirer_price")
    b.step("new_shares", "New shares issued: exchange ratio × target shares", "ratio * target_shares",
           unit="shares")


@template("easy")
def earn_out_consideration(b: Builder) -> None:
    """Upfront price plus an earn-out on EBITDA above a target (Bruner, ch. 23)."""
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")
    b.money("upfront", 20_000_000, 400_000_000, step=100_000)
    b.derive("target_ebitda", 10_000 * round(b.values["upfront"] * b.rng.uniform(0.08, 0.14) / 10_000), unit="$")
    b.derive("actual_ebitda", 10_000 * round(b.values["target_ebitda"] * b.rng.uniform(1.03, 1.3) / 10_000),
             unit="$")
    b.number("multiple", 2.0, 6.0, decimals=1)
    b.ask(
        "{acquirer} buys {target} for {upfront} in cash at closing plus an earn-out: if {target}'s EBITDA "
        "in the first year after closing exceeds {target_ebitda}, the sellers receive {multiple} times the "
        "excess. First-year EBITDA turns out to be {actual_ebitda}. What is the total consideration paid "
        "(ignore discounting)?"
    )
    b.step("excess", "EBITDA above the earn-out target", "actual_ebitda - target_ebitda", unit="$")
    b.step("earn_out", "Earn-out payment: multiple × excess", "multiple * excess", unit="$")
    b.step("total", "Total consideration: upfront plus earn-out", "upfront + earn_out", unit="$")


@template("intermediate")
def mixed_consideration_ownership(b: Builder) -> None:
    """Cash and stock mix: shares issued and the target holders' stake (DePamphilis, ch. 11)."""
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")
    b.money("offer", 15, 120, step=0.5)
    b.integer("target_shares", 10_000_000, 90_000_000, unit="shares")
    b.percent("cash_pct", 30, 70, decimals=0)
    b.derive("acquirer_price", b.values["offer"] * b.rng.uniform(0.8, 2.5), unit="$")
    v = b.values
    new = v["offer"] * v["target_shares"] * (1 - v["cash_pct"] / 100) / v["acquirer_price"]
    b.derive("acquirer_shares", 1_000 * round(new * b.rng.uniform(2, 15) / 1_000), unit="shares")
    b.ask(
        "{acquirer} offers {offer} per share for all {target_shares} of {target}, paying {cash_pct} of the "
        "value in cash and the rest in {acquirer} stock valued at its current price of {acquirer_price}. "
        "{acquirer} has {acquirer_shares} outstanding before the deal. What percentage of the combined "
        "company will former {target} shareholders own?"
    )
    b.step("value", "Total deal value", "offer * target_shares", unit="$")
    b.step("stock_value", "Part of the value paid in stock", "value * (1 - cash_pct / 100)", unit="$")
    b.step("new_shares", "New acquirer shares issued", "stock_value / acquirer_price", unit="shares")
    b.step("stake", "Target holders' share of the combined company (%)",
           "new_shares / (acquirer_shares + new_shares) * 100", unit="%")


@template("intermediate")
def fixed_value_vs_fixed_ratio(b: Builder) -> None:
    """Extra shares a fixed-value offer needs when the acquirer's price falls (DePamphilis, ch. 11)."""
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")
    b.money("acquirer_price", 25, 150, step=0.01)
    b.number("ratio", 0.3, 1.5, decimals=4)
    b.integer("target_shares", 5_000_000, 80_000_000, unit="shares")
    b.percent("drop", 5, 25, decimals=1)
    b.ask(
        "At signing, {acquirer}'s shares trade at {acquirer_price} and it offers {ratio} of its shares for "
        "each of {target}'s {target_shares}. Before closing, {acquirer}'s price falls by {drop}. If the deal "
        "had instead promised a fixed value per {target} share (the value at signing), how many more "
        "{acquirer} shares would have to be issued at closing than under the fixed exchange ratio (do not "
        "round to whole shares)?"
    )
    b.step("ratio_shares", "Shares issued under the fixed exchange ratio", "ratio * target_shares",
           unit="shares")
    b.step("uplift", "Extra shares per fixed-ratio share at the lower price: 1 ÷ (1 − drop) − 1",
           "1 / (1 - drop / 100) - 1")
    b.step("extra", "Extra shares under a fixed value", "ratio_shares * uplift", unit="shares")


@template("advanced")
def deal_premium_with_earn_out(b: Builder) -> None:
    """Value of cash, stock and a probability-weighted, discounted earn-out; premium over market value.

    Consideration per DePamphilis, ch. 11; the earn-out valued as expected payment discounted at the
    stated rate (Bruner, ch. 23).

    Concepts: cash and stock consideration; probability-weighted earn-out; present value of a contingent payment;
    acquisition premium.
    """
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")
    b.integer("target_shares", 10_000_000, 80_000_000, unit="shares")
    b.money("target_price", 10, 80, step=0.01)
    b.money("cash_per_share", b.values["target_price"] * 0.5, b.values["target_price"] * 0.9, step=0.01)
    b.number("ratio", 0.1, 0.6, decimals=4)
    b.money("acquirer_price", 20, 90, step=0.01)
    b.money("earn_out", 20_000_000, 150_000_000, step=1_000_000)
    b.percent("probability", 30, 80, decimals=0)
    b.percent("discount", 8, 14, decimals=1)
    b.integer("years", 2, 3, unit="years")
    v = b.values
    paid = (v["cash_per_share"] + v["ratio"] * v["acquirer_price"]) * v["target_shares"] + \
        v["earn_out"] * v["probability"] / 100 / (1 + v["discount"] / 100) ** v["years"]
    premium = paid / (v["target_price"] * v["target_shares"]) - 1
    b.require(0.1 < premium < 0.7, "a premium in the usual 10–70% range")
    b.ask(
        "{acquirer} bids for {target}, which has {target_shares} outstanding trading at {target_price} "
        "before the announcement. For each {target} share it pays {cash_per_share} in cash plus {ratio} "
        "{acquirer} shares, which trade at {acquirer_price}. It also promises an earn-out of {earn_out} "
        "in total if a revenue milestone is met; the milestone has a {probability} probability and would "
        "be paid in {years}, discounted at {discount} a year compounded annually. What premium does the "
        "offer represent over {target}'s pre-announcement market value?"
    )
    b.step("cash", "Cash paid", "round(cash_per_share * target_shares, 2)", unit="$")
    b.step("stock", "Value of the stock paid", "round(ratio * acquirer_price * target_shares, 2)", unit="$")
    b.step("expected", "Expected earn-out payment", "earn_out * probability / 100", unit="$")
    b.step("earn_out_pv", "Present value of the expected earn-out",
           "round(expected / (1 + discount / 100) ** years, 2)", unit="$")
    b.step("offer_value", "Total value offered", "cash + stock + earn_out_pv", unit="$")
    b.step("market_value", "Pre-announcement market value", "target_price * target_shares", unit="$")
    b.step("premium", "Premium over market value (%)", "(offer_value / market_value - 1) * 100", unit="%")
