"""Return on investment: simple ROI, annualized ROI, ROI after fees, dividend tax and capital gains
tax, comparing investments over different horizons, and a rental property's annualized ROI."""

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
        "percentage of the amount invested?"
    )
    b.step("invested", "Amount invested", "shares * buy_price", unit="$")
    b.step("profit", "Gain or loss on the sale", "shares * sell_price - invested", unit="$")
    b.step("roi_pct", "Return on investment, gain ÷ amount invested", "profit / invested * 100", unit="%")


@template("easy", floor=0.25)
def annualized_roi(b: Builder) -> None:
    """Compound annual ROI from a starting and an ending value.

    Source: annualized return (1 + total return)^(1/n) − 1, CFA Institute, Quantitative Investment
    Analysis, ch. 1. The end value is drawn as start × (1 + g)^n with g of −4% to 14%.
    """
    b.person("person")
    start = b.money("start_value", 5_000, 200_000, step=500)
    years = b.integer("years", 2, 12, unit="years")
    g = b.rng.uniform(-4, 14)
    b.require(abs(g) > 0.5, "an annual return at least half a percent from 0")
    b.derive("end_value", round(start * (1 + g / 100) ** years, -1), unit="$")
    thing = b.pick(["a collection of vintage watches", "a plot of undeveloped land", "a piece of fine art"])
    b.ask(
        f"{{person}} put {{start_value}} into {thing}, which was worth {{end_value}} after {{years}}, with no "
        "other cash flows in between. What was the annualized (compound annual) ROI?"
    )
    b.step("total_roi", "Total ROI over the holding period", "(end_value - start_value) / start_value * 100",
           unit="%")
    b.step("annual_roi", "Annualized ROI, (1 + total ROI) to the power one over the years, minus one",
           "((1 + total_roi / 100) ** (1 / years) - 1) * 100", unit="%")


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


@template("intermediate")
def compare_investments(b: Builder) -> None:
    """Which of two investments has the higher annualized ROI when holding periods differ.

    Source: annualized return for comparing different horizons, CFA Institute, Quantitative Investment
    Analysis, ch. 1. The winner is drawn first (either one equally often), then each end value as
    start × (1 + g)^n with the winner's g 0.6–4 points higher.
    """
    b.person("person")
    first_wins = b.pick([True, False])
    win = b.rng.uniform(6, 15)
    lose = win - b.rng.uniform(0.6, 4)
    rate_a, rate_b = (win, lose) if first_wins else (lose, win)
    start_a = b.money("start_a", 10_000, 100_000, step=1_000)
    years_a = b.integer("years_a", 2, 5, unit="years")
    b.derive("end_a", round(start_a * (1 + rate_a / 100) ** years_a, -2), unit="$")
    start_b = b.money("start_b", 10_000, 100_000, step=1_000)
    years_b = b.integer("years_b", 6, 10, unit="years")
    b.derive("end_b", round(start_b * (1 + rate_b / 100) ** years_b, -2), unit="$")
    la, lb = b.pick([
        ("investment A", "investment B"), ("the bond ladder", "the growth fund"), ("the franchise", "the farmland"),
    ])
    b.ask(
        f"{{person}} is reviewing two past investments. In {la}, {{start_a}} grew to {{end_a}} over "
        f"{{years_a}}; in {lb}, {{start_b}} grew to {{end_b}} over {{years_b}}. Neither paid any interim cash. "
        f"Which one earned the higher annualized (compound annual) ROI (answer '{la}' or '{lb}')?"
    )
    b.step("roi_a", f"Total ROI of {la}", "(end_a / start_a - 1) * 100", unit="%")
    b.step("roi_b", f"Total ROI of {lb}", "(end_b / start_b - 1) * 100", unit="%")
    b.step("annual_a", f"Annualized ROI of {la}", "((1 + roi_a / 100) ** (1 / years_a) - 1) * 100", unit="%")
    b.step("annual_b", f"Annualized ROI of {lb}", "((1 + roi_b / 100) ** (1 / years_b) - 1) * 100", unit="%")
    b.step("better", "Investment with the higher annualized ROI", f"'{la}' if annual_a > annual_b else '{lb}'")


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
