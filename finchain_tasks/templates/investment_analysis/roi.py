"""Return on investment: simple ROI, annualised ROI, ROI with fees and dividends, comparing investments."""

from finchain_tasks.engine import Builder, template


@template("easy")
def simple_roi(b: Builder) -> None:
    """Simple ROI on a block of shares bought and later sold."""
    b.person("person")
    b.integer("shares", 20, 800, unit="shares")
    buy = b.money("buy_price", 10, 200, step=0.25)
    b.money("sell_price", 0.7 * buy, 1.6 * buy, step=0.25)
    verb = b.pick(["buys", "purchases", "picks up"])
    b.ask(
        f"{{person}} {verb} {{shares}} of a listed company at {{buy_price}} each and later sells them all at "
        "{sell_price} each. Ignoring fees and dividends, what is the return on investment (ROI) as a "
        "percentage of the amount invested?"
    )
    b.step("invested", "Amount invested", "shares * buy_price", unit="$")
    b.step("profit", "Gain or loss on the sale", "shares * sell_price - invested", unit="$")
    b.step("roi_pct", "Return on investment", "profit / invested * 100", unit="%")


@template("easy")
def annualised_roi(b: Builder) -> None:
    """Compound annual ROI from a starting and an ending value."""
    b.person("person")
    start = b.money("start_value", 5_000, 200_000, step=500)
    b.money("end_value", 0.9 * start, 3.0 * start, step=100)
    b.integer("years", 2, 12, unit="years")
    thing = b.pick(["a collection of vintage watches", "an index fund", "a small rental garage"])
    b.ask(
        f"{{person}} put {{start_value}} into {thing}, which was worth {{end_value}} after {{years}}, with no "
        "other cash flows. What was the annualised (compound annual) ROI?"
    )
    b.step("total_roi", "Total ROI over the holding period", "(end_value - start_value) / start_value * 100",
           unit="%")
    b.step("annual_roi", "Annualised ROI, (1 + total ROI)^(1/years) − 1",
           "((1 + total_roi / 100) ** (1 / years) - 1) * 100", unit="%")


@template("intermediate")
def roi_with_fees_and_dividends(b: Builder) -> None:
    """ROI on a share position after commissions on both trades and cash dividends received."""
    b.person("person")
    b.integer("shares", 100, 2_000, unit="shares")
    buy = b.money("buy_price", 15, 150, step=0.5)
    b.money("sell_price", 0.8 * buy, 1.5 * buy, step=0.5)
    b.money("commission", 5, 50, step=0.5)
    b.money("dividend", 0.2, 3, step=0.05)
    b.integer("years", 2, 6, unit="years")
    b.ask(
        "{person} buys {shares} at {buy_price} per share, paying a flat commission of {commission} on the "
        "purchase and the same flat commission on the sale. Over the {years} held, each share pays a cash "
        "dividend of {dividend} per year (not reinvested), and then all the shares are sold at {sell_price}. "
        "What is the total ROI, measured against the total amount paid including the purchase commission?"
    )
    b.step("total_cost", "Total cost including the purchase commission", "shares * buy_price + commission", unit="$")
    b.step("dividends", "Dividends received", "shares * dividend * years", unit="$")
    b.step("net_proceeds", "Sale proceeds after the commission", "shares * sell_price - commission", unit="$")
    b.step("net_profit", "Net profit", "net_proceeds + dividends - total_cost", unit="$")
    b.step("roi_pct", "Total ROI", "net_profit / total_cost * 100", unit="%")


@template("intermediate")
def compare_investments(b: Builder) -> None:
    """Which of two investments has the higher annualised ROI when holding periods differ."""
    b.person("person")
    start_a = b.money("start_a", 10_000, 100_000, step=1_000)
    b.money("end_a", 1.2 * start_a, 2.5 * start_a, step=500)
    b.integer("years_a", 2, 5, unit="years")
    start_b = b.money("start_b", 10_000, 100_000, step=1_000)
    b.money("end_b", 1.5 * start_b, 4.0 * start_b, step=500)
    b.integer("years_b", 6, 10, unit="years")
    la, lb = b.pick([
        ("investment A", "investment B"), ("the bond ladder", "the growth fund"), ("the franchise", "the farmland"),
    ])
    b.ask(
        f"{{person}} is reviewing two past investments. In {la}, {{start_a}} grew to {{end_a}} over "
        f"{{years_a}}; in {lb}, {{start_b}} grew to {{end_b}} over {{years_b}}. Neither paid any interim cash. "
        f"Which one earned the higher annualised (compound annual) ROI (answer '{la}' or '{lb}')?"
    )
    b.step("roi_a", f"Total ROI of {la}", "(end_a / start_a - 1) * 100", unit="%")
    b.step("roi_b", f"Total ROI of {lb}", "(end_b / start_b - 1) * 100", unit="%")
    b.step("annual_a", f"Annualised ROI of {la}", "((1 + roi_a / 100) ** (1 / years_a) - 1) * 100", unit="%")
    b.step("annual_b", f"Annualised ROI of {lb}", "((1 + roi_b / 100) ** (1 / years_b) - 1) * 100", unit="%")
    b.step("better", "Investment with the higher annualised ROI", f"'{la}' if annual_a >= annual_b else '{lb}'")


@template("advanced")
def rental_property_roi(b: Builder) -> None:
    """Annualised ROI on a rental property after closing costs, management fees, expenses and a selling commission."""
    b.person("person")
    price = b.money("price", 150_000, 900_000, step=5_000)
    b.percent("closing_pct", 2, 5)
    b.money("annual_rent", 0.05 * price, 0.09 * price, step=500)
    b.percent("mgmt_pct", 6, 10)
    b.money("expenses", 0.01 * price, 0.02 * price, step=100)
    b.integer("years", 3, 10, unit="years")
    b.money("sale_price", price, 1.6 * price, step=5_000)
    b.percent("selling_pct", 4, 6)
    b.ask(
        "{person} buys a rental house for {price} in cash, paying closing costs of {closing_pct} of the price. "
        "It rents for {annual_rent} a year; a manager takes {mgmt_pct} of the rent, and other running costs "
        "(taxes, insurance, repairs) are {expenses} a year. After {years} the house is sold for {sale_price}, "
        "less a selling commission of {selling_pct}. Treating the net rent as simply added up (not "
        "reinvested, not discounted), what is the annualised ROI, defined as (1 + total ROI)^(1/years) − 1?"
    )
    b.step("invested", "Total cash invested (price + closing costs)", "price * (1 + closing_pct / 100)", unit="$")
    b.step("net_income", "Annual net rental income", "annual_rent * (1 - mgmt_pct / 100) - expenses", unit="$")
    b.step("total_income", "Net rental income over the holding period", "net_income * years", unit="$")
    b.step("net_sale", "Sale proceeds after commission", "sale_price * (1 - selling_pct / 100)", unit="$")
    b.step("total_profit", "Total profit", "net_sale + total_income - invested", unit="$")
    b.step("total_roi", "Total ROI", "total_profit / invested * 100", unit="%")
    b.step("annual_roi", "Annualised ROI", "((1 + total_roi / 100) ** (1 / years) - 1) * 100", unit="%")
