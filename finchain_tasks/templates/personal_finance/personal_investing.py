"""Personal investing: dollar-cost averaging, portfolio growth, fees, dividend reinvestment."""

from finchain_tasks.engine import Builder, template


@template("easy")
def dollar_cost_average(b: Builder) -> None:
    """Average cost per share after four equal monthly purchases at different prices."""
    b.person("person")
    b.money("amount", 100, 2_000, step=50)
    b.number("p1", 20, 80, unit="$")
    b.number("p2", 20, 80, unit="$")
    b.number("p3", 20, 80, unit="$")
    b.number("p4", 20, 80, unit="$")
    fund = b.pick(["an index fund", "an ETF", "a total-market fund", "a dividend ETF"])
    b.ask(
        f"{{person}} invests {{amount}} in {fund} at the start of each month for four months. The "
        "purchase prices were {p1}, {p2}, {p3} and {p4} per share, and fractional shares are allowed. "
        "What is the average cost per share of the position?"
    )
    b.step("shares", "Total shares bought", "amount / p1 + amount / p2 + amount / p3 + amount / p4")
    b.step("invested", "Total amount invested", "4 * amount", unit="$")
    b.step("avg_cost", "Average cost per share", "invested / shares", unit="$")


@template("easy")
def expense_ratio_drag(b: Builder) -> None:
    """Extra ending wealth from choosing a low-cost fund over a high-cost one."""
    b.person("person")
    b.money("principal", 10_000, 200_000, step=1_000)
    b.percent("gross_return", 5, 10)
    b.percent("low_fee", 0.03, 0.25, decimals=2)
    b.percent("high_fee", 0.5, 1.5, decimals=2)
    b.integer("years", 10, 30)
    b.ask(
        "{person} is choosing between two funds that both earn a gross return of {gross_return} a year. "
        "One has an expense ratio of {low_fee}, the other {high_fee}; each fund's net return is its gross "
        "return minus its expense ratio, compounded annually. If {person} invests {principal} for "
        "{years} years, how much more will the cheaper fund be worth at the end?"
    )
    b.step("fv_low", "Ending value in the low-cost fund",
           "principal * (1 + (gross_return - low_fee) / 100) ** years", unit="$")
    b.step("fv_high", "Ending value in the high-cost fund",
           "principal * (1 + (gross_return - high_fee) / 100) ** years", unit="$")
    b.step("fee_drag", "Difference in ending value", "fv_low - fv_high", unit="$")


@template("intermediate")
def dividend_reinvestment(b: Builder) -> None:
    """Total return of a holding whose dividends are reinvested each year."""
    b.person("person")
    b.integer("shares0", 50, 800, unit="shares")
    b.number("price0", 20, 150, unit="$")
    b.percent("div_yield", 1.5, 5)
    b.percent("growth", 2, 9)
    b.integer("years", 3, 12)
    b.ask(
        "{person} buys {shares0} of a stock at {price0} each. The share price grows {growth} a year, "
        "and at the end of each year the stock pays a dividend equal to {div_yield} of that year-end "
        "price, which is immediately reinvested in more shares at the same price (fractional shares "
        "allowed). What is the total return on the original investment after {years} years, in percent?"
    )
    b.step("cost", "Original investment", "shares0 * price0", unit="$")
    b.step("shares_end", "Shares held after reinvestment", "shares0 * (1 + div_yield / 100) ** years")
    b.step("price_end", "Share price at the end", "price0 * (1 + growth / 100) ** years", unit="$")
    b.step("value_end", "Value of the holding at the end", "shares_end * price_end", unit="$")
    b.step("total_return", "Total return (%)", "(value_end - cost) / cost * 100", unit="%")


@template("intermediate")
def portfolio_growth(b: Builder) -> None:
    """Future value of a lump sum plus monthly contributions, compounded monthly."""
    b.person("person")
    b.money("lump_sum", 1_000, 50_000, step=500)
    b.money("monthly", 100, 2_000, step=50)
    b.percent("rate", 4, 10)
    b.integer("years", 5, 30)
    account = b.pick(["a brokerage account", "an index-fund portfolio", "a retirement account"])
    b.ask(
        f"{{person}} opens {account} with {{lump_sum}} and adds {{monthly}} at the end of every month. "
        "The portfolio earns a nominal {rate} a year, compounded monthly. What will it be worth after "
        "{years} years?"
    )
    b.step("monthly_rate", "Monthly rate (%)", "rate / 12", unit="%")
    b.step("months", "Number of months", "years * 12", unit="months")
    b.step("fv_lump", "Future value of the lump sum", "lump_sum * (1 + monthly_rate / 100) ** months", unit="$")
    b.step("fv_contrib", "Future value of the monthly contributions",
           "monthly * ((1 + monthly_rate / 100) ** months - 1) / (monthly_rate / 100)", unit="$")
    b.step("fv_total", "Portfolio value at the end", "fv_lump + fv_contrib", unit="$")


@template("advanced")
def dca_with_costs_and_dividend(b: Builder) -> None:
    """Return on a year of quarterly purchases with commissions and a reinvested dividend."""
    b.person("person")
    b.money("amount", 500, 5_000, step=100)
    b.money("commission", 2, 15)
    b.number("p1", 40, 60, unit="$")
    b.number("p2", 40, 60, unit="$")
    b.number("p3", 40, 60, unit="$")
    b.number("p4", 40, 60, unit="$")
    b.number("dividend", 0.4, 3, unit="$")
    b.number("price_end", 40, 60, unit="$")
    b.ask(
        "{person} sets aside {amount} at the start of each quarter to buy shares of a fund, paying a "
        "flat commission of {commission} per purchase out of that amount (fractional shares allowed). "
        "The four purchase prices were {p1}, {p2}, {p3} and {p4}. At year end the fund pays a dividend "
        "of {dividend} per share held, reinvested commission-free at the year-end price of {price_end}. "
        "What is the return on the total cash set aside, in percent?"
    )
    b.step("net_amount", "Amount invested per purchase after commission", "amount - commission", unit="$")
    b.step("shares", "Shares bought over the year", "net_amount * (1 / p1 + 1 / p2 + 1 / p3 + 1 / p4)")
    b.step("dividend_cash", "Dividend received", "shares * dividend", unit="$")
    b.step("total_shares", "Shares after reinvesting the dividend", "shares + dividend_cash / price_end")
    b.step("value_end", "Year-end value of the position", "total_shares * price_end", unit="$")
    b.step("cash_in", "Total cash set aside", "4 * amount", unit="$")
    b.step("return_pct", "Return on cash set aside (%)", "(value_end - cash_in) / cash_in * 100", unit="%")
