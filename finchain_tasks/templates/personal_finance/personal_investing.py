"""Personal investing: asset allocation after a withdrawal, the cost of fund fees, dividend reinvestment, the
volatility a two-fund mix saves by diversification, and a year of regular purchases (dollar-cost averaging)
with commissions and a dividend.

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
           "principal * (1 + (gross_return - low_fee) / 100) ** years", unit="$")
    b.step("fv_high", "Ending value in the high-cost fund",
           "principal * (1 + (gross_return - high_fee) / 100) ** years", unit="$")
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


@template("intermediate", floor=0.2)
def diversification_benefit(b: Builder) -> None:
    """How much a two-fund mix lowers volatility below the weighted average of the funds' volatilities.

    Source: two-asset portfolio variance σp² = w1²σ1² + w2²σ2² + 2w1w2ρσ1σ2 (Markowitz, 1952; Bodie, Kane and
    Marcus, Essentials of Investments, ch. 6); with ρ below 1 the portfolio's σ is below the weighted
    average of the σs, which is the benefit of diversification.
    """
    b.person("person")
    pair = b.pick([("a US stock index fund", "an international stock fund", 14, 20, 16, 22, 0.6, 0.9),
                   ("a US stock index fund", "a bond index fund", 14, 20, 4, 8, -0.2, 0.4),
                   ("a growth stock fund", "a real-estate fund", 16, 24, 15, 22, 0.4, 0.8)])
    first, second, lo1, hi1, lo2, hi2, rlo, rhi = pair
    b.percent("weight", 30, 80, decimals=0)
    b.percent("vol1", lo1, hi1, decimals=1)
    b.percent("vol2", lo2, hi2, decimals=1)
    b.number("rho", rlo, rhi, decimals=2)
    b.require(abs(b.values["rho"]) > 0.005, "a correlation that is not zero")
    b.ask(
        f"{{person}} puts {{weight}} of {{their}} savings in {first}, with a volatility (standard deviation of "
        f"annual returns) of {{vol1}}, and the rest in {second}, with a volatility of {{vol2}}. The correlation "
        "between the two funds' returns is {rho}. By how many percentage points is the portfolio's volatility "
        "below the weighted average of the two funds' volatilities?"
    )
    b.bounds("benefit", lo=0, why="a mix is never riskier than the weighted average")
    b.step("average", "Weighted average volatility", "weight / 100 * vol1 + (1 - weight / 100) * vol2", unit="%")
    b.step("variance", "Portfolio variance (in squared percent), with the correlation term",
           "(weight / 100 * vol1) ** 2 + ((1 - weight / 100) * vol2) ** 2"
           " + 2 * rho * (weight / 100 * vol1) * ((1 - weight / 100) * vol2)")
    b.step("portfolio_vol", "Portfolio volatility (square root of the variance)", "sqrt(variance)", unit="%")
    b.step("benefit", "Reduction from diversification: weighted average − portfolio volatility",
           "average - portfolio_vol", unit="pp")


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
