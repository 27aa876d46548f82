"""Return on investment: simple ROI, annualizing a holding of less than a year, ROI after fees, dividend tax
and capital gains tax, a marketing campaign's ROI from its funnel, and a rental property's annualized ROI."""

from finchain_tasks.engine import Builder, template


def _signed_growth(b: Builder, lo: float, hi: float) -> float:
    """A growth rate whose size is in [lo, hi] and whose sign is drawn: gains and losses both occur."""
    return b.rng.choice([-1, 1, 1]) * b.rng.uniform(lo, hi)


@template("easy", floor=1)
def simple_roi(b: Builder) -> None:
    """Simple ROI on a block of shares bought and later sold.

    Source: ROI = (proceeds − cost) ÷ cost, Bodie, Kane & Marcus, Essentials of Investments, ch. 5
    (holding-period return). The sell price is drawn jointly as buy × (1 + g), |g| of 3–45%.
    """
    b.person("person")
    b.integer("shares", 20, 800, unit="shares")
    buy = b.money("buy_price", 10, 200, step=0.01)
    b.derive("sell_price", buy * (1 + _signed_growth(b, 3, 45) / 100), unit="$")
    b.require(abs(b.values["sell_price"] / buy - 1) > 0.02, "a gain or loss of at least 2%")
    verb = b.pick(["buys", "purchases", "picks up"])
    b.ask(
        f"{{person}} {verb} {{shares}} of a listed company at {{buy_price}} each and later sells them all at "
        "{sell_price} each. Ignoring fees and dividends, what is the return on investment (ROI) as a "
        "percentage of the amount invested (negative for a loss)?"
    )
    b.step("invested", "Amount invested", "shares * buy_price", unit="$")
    b.step("profit", "Gain or loss on the sale", "shares * sell_price - invested", unit="$")
    b.step("roi_pct", "Return on investment, gain ÷ amount invested", "profit / invested * 100", unit="%")


@template("easy", floor=0.25)
def annualized_short_holding(b: Builder) -> None:
    """Holding-period return of a position held for part of a year, annualized by compounding.

    Source: annualized return (1 + HPR)^(12/m) − 1 for a holding of m months, CFA Institute, Quantitative
    Investment Analysis, ch. 1. The sale price is drawn as buy × (1 + g)^(m/12) with g of −15% to 30% a year.
    """
    b.person("person")
    b.integer("shares", 20, 1_000, unit="shares")
    buy = b.money("buy_price", 10, 300, step=0.01)
    months = b.integer("months", 2, 10, unit="months")
    g = b.rng.uniform(-15, 30)
    b.require(abs(g) > 2, "an annual return at least 2% from 0")
    b.derive("sell_price", buy * (1 + g / 100) ** (months / 12), unit="$")
    b.require(b.values["sell_price"] != buy, "a gain or a loss")
    b.ask(
        "{person} buys {shares} of a listed company at {buy_price} each and sells them all {months} later at "
        "{sell_price} each; no dividends are paid and fees are ignored. What is the holding-period return, "
        "and what is it as a compound annual rate (a 12-month year)? Give the annualized return (negative for a loss)."
    )
    b.step("hpr", "Holding-period return, (sell − buy) ÷ buy", "(sell_price - buy_price) / buy_price * 100",
           unit="%")
    b.step("annualized", "Annualized return, (1 + HPR) to the power 12 ÷ months, minus one",
           "((1 + hpr / 100) ** (12 / months) - 1) * 100", unit="%")


@template("intermediate", floor=1)
def roi_with_fees_and_dividends(b: Builder) -> None:
    """After-tax ROI on a share position: commissions, taxed dividends and capital gains tax on the sale.

    Source: after-tax holding-period return; qualified dividends and long-term gains taxed at the
    preferential rates, IRS Publication 550 (Investment Income and Expenses).
    """
    b.person("person")
    b.integer("shares", 100, 2_000, unit="shares")
    buy = b.money("buy_price", 15, 150, step=0.01)
    b.money("commission", 5, 50, step=0.5)
    b.money("dividend", round(0.01 * buy, 2), round(0.04 * buy, 2), step=0.01)
    b.integer("years", 2, 6, unit="years")
    b.derive("sell_price", buy * (1 + b.rng.uniform(8, 60) / 100), unit="$")
    b.integer("div_tax", 10, 25, unit="%")
    b.choice("cg_rate", {"15%": 15, "20%": 20})
    b.ask(
        "{person} buys {shares} at {buy_price} per share, paying a flat commission of {commission} on the "
        "purchase and the same flat commission on the sale. Each share pays a cash dividend of {dividend} "
        "a year for the {years} {they} holds them (not reinvested), and then all the shares are sold at "
        "{sell_price}. Dividends are taxed at {div_tax}; the gain (sale proceeds after commission minus "
        "the total purchase cost including commission) is taxed at the long-term rate of {cg_rate}. "
        "What is the after-tax ROI, measured against the total purchase cost including commission?"
    )
    b.step("total_cost", "Total cost including the purchase commission", "shares * buy_price + commission", unit="$")
    b.step("dividends", "Dividends received after dividend tax", "shares * dividend * years * (1 - div_tax / 100)",
           unit="$")
    b.step("net_proceeds", "Sale proceeds after the commission", "shares * sell_price - commission", unit="$")
    b.step("gain_tax", "Capital gains tax on the gain", "(net_proceeds - total_cost) * cg_rate / 100", unit="$")
    b.step("roi_pct", "After-tax ROI, (proceeds + dividends − tax − cost) ÷ cost",
           "(net_proceeds + dividends - gain_tax - total_cost) / total_cost * 100", unit="%")


@template("intermediate", floor=2)
def marketing_campaign_roi(b: Builder) -> None:
    """ROI of an online ad campaign from impressions, click-through and conversion rates and the margin per sale.

    Source: the marketing funnel (impressions × click-through rate = clicks, clicks × conversion rate =
    orders) and marketing ROI = (gross profit from the campaign − cost) ÷ cost, Farris et al., Marketing
    Metrics (2nd ed.), ch. 9 and 10.
    """
    b.company("company")
    b.integer("impressions", 200_000, 3_000_000, unit="impressions")
    b.percent("ctr", 0.6, 3, decimals=2)
    b.percent("conversion", 1.5, 6, decimals=2)
    b.money("order_value", 25, 250, step=0.5)
    b.percent("margin", 25, 60, decimals=0)
    v = b.values
    profit = v["impressions"] * v["ctr"] / 100 * v["conversion"] / 100 * v["order_value"] * v["margin"] / 100
    b.derive("cost", round(profit / b.rng.uniform(0.5, 2.5), -2), unit="$")
    b.require(abs(profit / v["cost"] - 1) > 0.05, "an ROI at least 5% from zero")
    b.ask(
        "{company} runs an online ad campaign that costs {cost} and is shown {impressions}. The click-through "
        "rate is {ctr} and {conversion} of the people who click place an order. The average order is "
        "{order_value} and the gross margin on sales is {margin}. Counting the gross profit on the orders as "
        "the campaign's return, what is the campaign's ROI (negative for a loss)?"
    )
    b.bounds("clicks", lo=0, hi="impressions", why="a click needs an impression")
    b.bounds("orders", lo=0, hi="clicks", why="an order needs a click")
    b.step("clicks", "Expected clicks: impressions × click-through rate", "impressions * ctr / 100", unit="clicks")
    b.step("orders", "Expected orders: clicks × conversion rate", "clicks * conversion / 100", unit="orders")
    b.step("gross_profit", "Gross profit: orders × order value × margin", "orders * order_value * margin / 100",
           unit="$")
    b.step("roi", "ROI: (gross profit − cost) ÷ cost", "(gross_profit - cost) / cost * 100", unit="%")


@template("advanced", floor=0.25)
def rental_property_roi(b: Builder) -> None:
    """Annualized ROI on a rental property after closing costs, management fees, expenses and a selling commission.

    Source: total ROI on cash invested and its annualized form, Brueggeman & Fisher, Real Estate Finance
    and Investments, ch. 10. The sale price is drawn as price × (1 + g)^n with g of −1% to 6%.

    Concepts: closing costs in the amount invested; net rental income after management fees; sale net of commission;
    total ROI; annualized ROI.
    """
    b.person("person")
    price = b.money("price", 150_000, 900_000, step=5_000)
    b.percent("closing_pct", 2, 5)
    b.money("annual_rent", 0.05 * price, 0.09 * price, step=500)
    b.percent("mgmt_pct", 6, 10)
    b.money("expenses", 0.01 * price, 0.02 * price, step=100)
    years = b.integer("years", 3, 10, unit="years")
    b.derive("sale_price", round(price * (1 + b.rng.uniform(-1, 6) / 100) ** years, -3), unit="$")
    b.percent("selling_pct", 4, 6)
    v = b.values
    invested = price * (1 + v["closing_pct"] / 100)
    profit = (v["sale_price"] * (1 - v["selling_pct"] / 100) - invested
              + years * (v["annual_rent"] * (1 - v["mgmt_pct"] / 100) - v["expenses"]))
    b.require(profit > 0.03 * invested, "a total ROI of at least 3%")
    b.ask(
        "{person} buys a rental house for {price} in cash, paying closing costs of {closing_pct} of the price. "
        "It rents for {annual_rent} a year; a manager takes {mgmt_pct} of the rent, and other running costs "
        "(property taxes, insurance, repairs) are {expenses} a year. After {years} the house is sold for "
        "{sale_price}, less a selling commission of {selling_pct} of the sale price. Define total ROI as total "
        "profit (net sale proceeds plus all net rental income, minus the total cash invested) divided by the "
        "total cash invested (price plus closing costs), with the net rent simply added up (not reinvested, "
        "not discounted). What is the annualized ROI, (1 + total ROI)^(1/years) − 1?"
    )
    b.step("invested", "Total cash invested (price + closing costs)", "price * (1 + closing_pct / 100)", unit="$")
    b.step("net_income", "Annual net rental income", "annual_rent * (1 - mgmt_pct / 100) - expenses", unit="$")
    b.step("total_income", "Net rental income over the holding period", "net_income * years", unit="$")
    b.step("net_sale", "Sale proceeds after commission", "sale_price * (1 - selling_pct / 100)", unit="$")
    b.step("total_profit", "Total profit", "net_sale + total_income - invested", unit="$")
    b.step("total_roi", "Total ROI on the cash invested", "total_profit / invested * 100", unit="%")
    b.step("annual_roi", "Annualized ROI", "((1 + total_roi / 100) ** (1 / years) - 1) * 100", unit="%")
