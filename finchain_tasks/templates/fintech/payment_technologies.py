"""Payment technologies: buy-now-pay-later instalments, interchange-plus pricing, flat-rate against interchange-plus
processing costs, foreign-exchange markups and dynamic currency conversion, and the cost of chargebacks."""

from finchain_tasks.engine import Builder, template

SHOPS = ["a coffee roaster", "a bike shop", "an online bookstore", "a furniture retailer", "a dental clinic",
         "a florist", "a sporting-goods store", "a pet-supply store"]


@template("easy")
def bnpl_instalments(b: Builder) -> None:
    """Buy-now-pay-later instalments: a service fee added, equal instalments rounded down, the last takes the rest.

    Source: pay-in-installments plans (CFPB, "Buy Now, Pay Later: Market trends and consumer impacts", 2022):
    the amount due is split into equal instalments; providers round each instalment to the cent and put the
    remaining cents in one payment, here the last.
    """
    shop = b.pick(SHOPS)
    b.person("shopper")
    b.money("price", 60, 2_500, step=0.01)
    b.derive("fee", b.rng.randint(2, 19) + 0.99, unit="$")
    n = b.choice("count", {"four": 4, "six": 6})
    cents = round(100 * (b.values["price"] + b.values["fee"]))
    b.require(cents % n != 0, "the amount does not split into equal cents, so the last instalment differs")
    b.ask(
        f"{{shopper}} buys an item for {{price}} at {shop} and pays with a buy-now-pay-later plan: a service "
        "fee of {fee} is added to the price and the total is split into {count} instalments. Each instalment "
        "but the last is the total divided by the number of instalments, rounded down to the cent; the last "
        "instalment pays whatever remains. How much is the last instalment?"
    )
    b.bounds("last", lo="regular", hi="regular + count * 0.01", why="the last instalment takes the leftover cents")
    b.step("total", "Total due: price + service fee", "price + fee", unit="$")
    b.step("regular", "Regular instalment: total ÷ number of instalments, rounded down to the cent",
           "floor(total / count * 100) / 100", unit="$")
    b.step("last", "Last instalment: total − the other instalments", "total - (count - 1) * regular", unit="$")


@template("easy")
def interchange_plus_fee(b: Builder) -> None:
    """Fee on a card transaction under interchange-plus pricing: interchange + network fee + markup.

    Source: interchange-plus pricing (Visa USA Interchange Reimbursement Fees schedule; network assessment
    and processor markup passed through separately).
    """
    b.money("amount", 40, 3_000, step=0.01)
    b.number("ic", 1.4, 2.4, decimals=2, unit="%")
    b.money("ic_fixed", 0.05, 0.10, step=0.05)
    b.number("network", 0.11, 0.15, decimals=2, unit="%")
    b.number("markup", 0.15, 0.5, decimals=2, unit="%")
    b.money("markup_fixed", 0.05, 0.15, step=0.01)
    b.ask(
        "A merchant on interchange-plus pricing accepts a {amount} rewards-card payment. Interchange on this card "
        "is {ic} + {ic_fixed}, the card network's assessment is {network} of the amount, and the processor's "
        "markup is {markup} + {markup_fixed}. The three percentage fees are added first and their sum is rounded to "
        "the nearest cent (half a cent rounds up); the fixed fees are then added. What is the total "
        "fee on the transaction, and what is it as a "
        "percentage of the amount? Give the percentage."
    )
    b.step("percent_part", "Percentage fees (interchange + assessment + markup), rounded to the cent",
           "round(amount * (ic + network + markup) / 100, 2)", unit="$")
    b.step("total_fee", "Total fee (percentage fees + fixed fees)", "percent_part + ic_fixed + markup_fixed",
           unit="$")
    b.step("effective", "Fee as a share of the amount", "total_fee / amount * 100", unit="%")


@template("intermediate", floor=20)
def flat_vs_interchange_plus(b: Builder) -> None:
    """Monthly processing cost under flat-rate and interchange-plus pricing, and the saving from switching.

    Source: processing-cost comparison of blended (flat) and interchange-plus pricing (Visa and Mastercard
    interchange schedules; processor rate cards).
    """
    shop = b.pick(SHOPS)
    n = b.integer("count", 300, 12_000, unit="transactions")
    b.derive("volume", round(n * b.rng.uniform(12, 180), -2), unit="$")
    b.number("flat", 2.5, 3.0, decimals=2, unit="%")
    b.money("flat_fixed", 0.10, 0.30, step=0.05)
    b.number("ic", 1.5, 2.3, decimals=2, unit="%")
    b.number("markup", 0.15, 0.6, decimals=2, unit="%")
    b.money("per_txn", 0.10, 0.35, step=0.01)
    v = b.values
    flat = v["volume"] * v["flat"] / 100 + n * v["flat_fixed"]
    plus = v["volume"] * (v["ic"] + v["markup"]) / 100 + n * v["per_txn"]
    b.require(abs(flat - plus) >= 20, "the two plans differ by at least $20")
    b.ask(
        f"The owner of {shop} processes {{count}} a month totaling {{volume}}. The current plan charges a flat "
        "{flat} + {flat_fixed} per transaction. An interchange-plus plan would pass through interchange "
        "averaging {ic} of volume and add a markup of {markup} of volume plus {per_txn} per transaction. How "
        "much would switching to interchange-plus save per month (negative if it would cost more)?"
    )
    b.step("flat_cost", "Monthly cost on the flat plan", "volume * flat / 100 + count * flat_fixed", unit="$")
    b.step("plus_percent", "Interchange-plus percentage fees", "volume * (ic + markup) / 100", unit="$")
    b.step("plus_cost", "Monthly cost on interchange-plus", "plus_percent + count * per_txn", unit="$")
    b.step("saving", "Monthly saving from switching", "flat_cost - plus_cost", unit="$")


@template("intermediate", floor=1)
def dynamic_currency_conversion(b: Builder) -> None:
    """Paying abroad in the local currency (network rate + card foreign-transaction fee) against dynamic
    currency conversion at the terminal (merchant rate with a markup).

    Source: Visa Core Rules on Dynamic Currency Conversion; foreign transaction fees as disclosed under
    Regulation Z, 12 CFR 1026.60(b)(4).
    """
    b.person("person")
    b.money("price", 150, 4_000, step=0.01, unit="€")
    b.number("rate", 1.05, 1.18, decimals=4)
    b.number("ftf", 1, 3, decimals=1, unit="%")
    b.number("dcc", 3, 7, decimals=1, unit="%")
    b.require(b.values["dcc"] - b.values["ftf"] >= 1, "the conversion markup exceeds the card fee by 1 point")
    b.ask(
        "{person} pays for a hotel stay of {price} in Lisbon with a US credit card. The card network's rate is "
        "{rate} dollars per euro and {their} card adds a foreign transaction fee of {ftf} of the converted "
        "amount. The terminal offers dynamic currency conversion instead: charging {them} in dollars at the "
        "network rate marked up by {dcc}, with no foreign transaction fee. How many more dollars does "
        "accepting the conversion at the terminal cost {them}?"
    )
    b.step("converted", "Dollar amount at the network rate", "round(price * rate, 2)", unit="$")
    b.step("card_route", "Cost paying in euros (converted amount + foreign transaction fee)",
           "converted * (1 + ftf / 100)", unit="$")
    b.step("dcc_route", "Cost with dynamic currency conversion", "converted * (1 + dcc / 100)", unit="$")
    b.step("extra", "Extra cost of accepting the conversion (price × rate × difference of the markups)",
           "price * rate * (dcc - ftf) / 100", unit="$")


@template("advanced")
def chargeback_cost_share(b: Builder) -> None:
    """A month's total chargeback cost, including a monitoring-program fine when the dispute ratio
    crosses the threshold, as a share of card sales.

    Source: Visa Dispute Monitoring Program thresholds (dispute ratio 0.9% and at least 100 disputes a month,
    Visa Core Rules and Visa Product and Service Rules); chargeback mechanics under Regulation Z, 12 CFR 1026.13.

    Concepts: dispute ratio against a card-network threshold; refunds and chargeback fees; unrecovered processing
    fees; monitoring-program fine; cost as a share of sales.
    """
    shop = b.pick(["an online electronics store", "a subscription-box company", "a ticketing website",
                   "an online fashion retailer"])
    n = b.integer("count", 12_000, 60_000, unit="transactions")
    above = b.pick([True, False])
    ratio = b.rng.uniform(0.95, 1.8) if above else b.rng.uniform(0.3, 0.85)
    disputes = b.derive("disputes", max(101, round(n * ratio / 100)), unit="chargebacks")
    b.require((disputes / n * 100 >= 0.9) == above, "the dispute ratio falls on the drawn side of 0.9%")
    b.money("ticket", 25, 220, step=0.01)
    b.money("cb_fee", 15, 35, step=1)
    b.number("pct", 2.2, 3.2, decimals=2, unit="%")
    b.money("fixed", 0.10, 0.30, step=0.05)
    b.money("fine", 5_000, 25_000, step=500)
    b.bounds("share", lo=0, hi=100, why="a share of card sales")
    b.ask(
        f"Last month {shop} processed {{count}} with an average ticket of {{ticket}} and received {{disputes}}, "
        "all of which it lost. For each lost chargeback it refunds the sale, pays a chargeback fee of {cb_fee}, "
        "and does not get back the original processing fee of {pct} + {fixed}. The card network fines a "
        "merchant {fine} for the month if its dispute ratio (disputes ÷ transactions) is at least 0.9% and it "
        "has at least 100 disputes. What is the month's total chargeback cost as a percentage of card sales?"
    )
    b.step("ratio", "Dispute ratio", "disputes / count * 100", unit="%")
    b.step("refunds", "Sales refunded and chargeback fees", "disputes * (ticket + cb_fee)", unit="$")
    b.step("lost_fees", "Processing fees not returned", "disputes * (ticket * pct / 100 + fixed)", unit="$")
    if above:
        b.step("total", "Total cost (the ratio is at least 0.9% with over 100 disputes, so the fine applies)",
               "refunds + lost_fees + fine", unit="$")
    else:
        b.step("total", "Total cost (the ratio is under 0.9%, so no fine)", "refunds + lost_fees", unit="$")
    b.step("sales", "Card sales for the month", "count * ticket", unit="$")
    b.step("share", "Chargeback cost as a share of card sales", "total / sales * 100", unit="%")
