"""Personal investing: asset allocation after a withdrawal, the cost of fund fees, dividend reinvestment, the
annualized return of a sale net of commissions, selling costs and tax, and a year of regular purchases
(dollar-cost averaging) with commissions and a dividend.

Monthly and quarterly prices are drawn as a walk (each within ±10% of the one before), not as
independent draws, so a fund's price path looks like one.
"""

from finchain_tasks.engine import Builder, template


def _price_walk(b: Builder, names: list[str], lo: float, hi: float, step: float = 0.10) -> list[float]:
    """The first price in [lo, hi], each next one within ±``step`` of the one before (to the cent)."""
    prices = [b.money(names[0], lo, hi, step=0.01)]
    for name in names[1:]:
        prices.append(b.derive(name, prices[-1] * (1 + b.rng.uniform(-step, step)), unit="$"))
    return prices


@template("easy", floor=1)
def withdrawal_from_allocation(b: Builder) -> None:
    """Stock share of a portfolio after a withdrawal taken from its bond fund.

    Source: strategic asset allocation and drawdown from the bond sleeve in retirement (Kapoor, Dlabay and
    Hughes, Personal Finance, ch. 13 and 14).
    """
    b.person("person")
    value = b.money("value", 50_000, 1_500_000, step=1_000)
    b.percent("stocks", 40, 75, decimals=0)
    b.money("withdrawal", 0.03 * value, 0.12 * value, step=500)
    b.ask(
        "{person}'s retirement portfolio is worth {value}, invested {stocks} in a stock index fund and the rest "
        "in a bond fund. {They} withdraws {withdrawal} for living expenses, selling only the bond fund. What "
        "share of the portfolio is in stocks after the withdrawal?"
    )
    b.bounds("stock_share", lo=0, hi=100, why="a share of the portfolio")
    b.step("stock_value", "Value of the stock fund (unchanged by the withdrawal)", "value * stocks / 100", unit="$")
    b.step("remaining", "Portfolio value after the withdrawal", "value - withdrawal", unit="$")
    b.step("stock_share", "Stock share after the withdrawal", "stock_value / remaining * 100", unit="%")


@template("easy", floor=100)
def expense_ratio_drag(b: Builder) -> None:
    """Extra ending wealth from choosing a low-cost fund over a high-cost one.

    Source: net return = gross return − expense ratio, compounded, U.S. SEC Investor Bulletin "How Fees
    and Expenses Affect Your Investment Portfolio" (2014).
    """
    b.person("person")
    b.money("principal", 10_000, 200_000, step=1_000)
    b.percent("gross_return", 5, 10)
    b.percent("low_fee", 0.03, 0.25, decimals=2)
    b.percent("high_fee", 0.5, 1.5, decimals=2)
    b.integer("years", 10, 30, unit="years")
    b.ask(
        "{person} is choosing between two funds that both earn a gross return of {gross_return} a year. "
        "One has an expense ratio of {low_fee}, the other {high_fee}; each fund's net return is its gross "
        "return minus its expense ratio, compounded annually. If {they} invests {principal} for "
        "{years}, how much more will the cheaper fund be worth at the end? Round to the nearest cent."
    )
    b.step("fv_low", "Ending value in the low-cost fund",
           "round(principal * (1 + (gross_return - low_fee) / 100) ** years, 2)", unit="$")
    b.step("fv_high", "Ending value in the high-cost fund",
           "round(principal * (1 + (gross_return - high_fee) / 100) ** years, 2)", unit="$")
    b.step("fee_drag", "Difference in ending value", "fv_low - fv_high", unit="$")


@template("intermediate", floor=1)
def dividend_reinvestment(b: Builder) -> None:
    """Total return of a holding whose dividends are reinvested each year.

    Source: total return with dividends reinvested (shares grow by the yield each year), Bodie, Kane &
    Marcus, Investments, ch. 5.
    """
    b.person("person")
    b.integer("shares0", 50, 800, unit="shares")
    b.money("price0", 20, 150, step=0.01)
    b.percent("div_yield", 1.5, 5)
    b.percent("growth", 2, 9)
    b.integer("years", 3, 12, unit="years")
    b.ask(
        "{person} buys {shares0} of a stock at {price0} each. The share price grows {growth} a year, "
        "and at the end of each year the stock pays a dividend equal to {div_yield} of that year-end "
        "price, which is immediately reinvested in more shares at the same price (fractional shares "
        "allowed). Taking the final share price to the cent, what is the total return on the original "
        "investment after {years}, in percent?"
    )
    b.step("cost", "Original investment", "shares0 * price0", unit="$")
    b.step("shares_end", "Shares held after reinvestment (each year's dividend buys the yield in shares)",
           "shares0 * (1 + div_yield / 100) ** years")
    b.step("price_end", "Share price at the end, to the cent", "round(price0 * (1 + growth / 100) ** years, 2)",
           unit="$")
    b.step("value_end", "Value of the holding at the end", "shares_end * price_end", unit="$")
    b.step("total_return", "Total return, gain ÷ original investment", "(value_end - cost) / cost * 100", unit="%")


@template("intermediate", floor=0.5)
def annualized_return_after_costs_and_tax(b: Builder) -> None:
    """Annualized return on a sale of shares net of the buying commission, the selling costs and capital-gains tax.

    Source: holding-period return and its geometric annualization (Bodie, Kane and Marcus, Essentials of
    Investments, ch. 5); commissions enter the cost basis and reduce the amount realized, and tax falls on
    the realized gain (IRS Publication 550, basis and amount realized).
    """
    b.person("person")
    shares = b.integer("shares", 40, 1_500, unit="shares")
    buy = b.money("buy_price", 12, 400, step=0.01)
    years = b.integer("years", 2, 9, unit="years")
    growth = b.rng.uniform(0.03, 0.14)  # a yearly price gain tied to the holding period, not a free sell price
    b.derive("sell_price", buy * (1 + growth) ** years, unit="$")
    b.money("commission", 5, 40, step=0.5)
    b.percent("selling_cost", 0.5, 3, decimals=2)
    b.percent("tax", 10, 25, decimals=0)
    b.require(b.values["sell_price"] * shares * (1 - b.values["selling_cost"] / 100)
              > 1.05 * (buy * shares + b.values["commission"]), "a taxable gain after costs")
    b.ask(
        "{person} bought {shares} at {buy_price} a share, paying a commission of {commission} on the purchase, "
        "and sold them all {years} later at {sell_price} a share. Selling costs (commission and fees) took "
        "{selling_cost} of the sale proceeds, and the gain after all costs was taxed at {tax}. What was "
        "{their} annualized (compound yearly) return after costs and tax, in percent?"
    )
    b.bounds("gain", lo=0, why="the draw asks for a taxable gain")
    b.step("cost", "Total cost: shares × buy price + commission", "shares * buy_price + commission",
           unit="$")
    b.step("proceeds", "Net sale proceeds: shares × sell price × (1 − selling costs), to the cent",
           "round(shares * sell_price * (1 - selling_cost / 100), 2)", unit="$")
    b.step("gain", "Taxable gain: net proceeds − total cost", "proceeds - cost", unit="$")
    b.step("after_tax", "Proceeds after tax: net proceeds − tax rate × gain, to the cent",
           "round(proceeds - tax / 100 * gain, 2)", unit="$")
    b.step("annualized", "Annualized return: (after-tax proceeds ÷ total cost)^(1 ÷ years) − 1",
           "((after_tax / cost) ** (1 / years) - 1) * 100", unit="%")


@template("advanced", floor=2)
def dca_with_costs_and_dividend(b: Builder) -> None:
    """Return on a year of quarterly purchases with commissions and a reinvested dividend.

    Source: dollar-cost averaging with transaction costs and dividend reinvestment, Bodie, Kane &
    Marcus, Essentials of Investments, ch. 3 and ch. 5.

    Concepts: dollar-cost averaging with commissions; units bought per purchase; dividend reinvestment; total return
    on money invested.
    """
    b.person("person")
    amount = b.money("amount", 500, 5_000, step=100)
    b.money("commission", 2, 15)
    p1, p2, p3, p4, price_end = _price_walk(b, ["p1", "p2", "p3", "p4", "price_end"], 40, 60)
    b.money("dividend", round(0.005 * p4, 2), round(0.02 * p4, 2), step=0.01)
    v = b.values
    shares = (amount - v["commission"]) * (1 / p1 + 1 / p2 + 1 / p3 + 1 / p4)
    value = (shares + shares * v["dividend"] / price_end) * price_end
    b.require(abs(value / (4 * amount) - 1) > 0.03, "a return at least 3% away from 0")
    b.ask(
        "{person} sets aside {amount} at the start of each quarter to buy shares of a fund, paying a "
        "flat commission of {commission} per purchase out of that amount (fractional shares allowed). "
        "The four purchase prices were {p1}, {p2}, {p3} and {p4}, and the price at year end is {price_end}. "
        "At year end the fund pays a dividend of {dividend} per share held, reinvested commission-free at "
        "the year-end price. What is the return on the total cash set aside, in percent (negative for a loss)?"
    )
    b.step("net_amount", "Amount invested per purchase after commission", "amount - commission", unit="$")
    b.step("shares", "Shares bought over the year", "net_amount * (1 / p1 + 1 / p2 + 1 / p3 + 1 / p4)")
    b.step("dividend_cash", "Dividend received", "shares * dividend", unit="$")
    b.step("total_shares", "Shares after reinvesting the dividend", "shares + dividend_cash / price_end")
    b.step("value_end", "Year-end value of the position", "total_shares * price_end", unit="$")
    b.step("cash_in", "Total cash set aside", "4 * amount", unit="$")
    b.step("return_pct", "Return on cash set aside", "(value_end - cash_in) / cash_in * 100", unit="%")
