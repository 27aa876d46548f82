"""Robo-advisors: advisory and fund fees, tax-loss harvesting, drift and rebalancing to target weights,
fee drag over time against a traditional advisor, and the tax cost of a rebalance offset by harvested losses."""

from finchain_tasks.engine import Builder, template

ROBOS = ["a robo-advisor", "an automated investing app", "a digital wealth manager"]


@template("easy")
def annual_all_in_cost(b: Builder) -> None:
    """A year's all-in cost of a robo portfolio: advisory fee plus the funds' expense ratios.

    Source: SEC Investor Bulletin "Robo-Advisers" (2017) and "How Fees and Expenses Affect Your Investment
    Portfolio" (2014): advisory fees and fund expense ratios are both charged on assets.
    """
    b.person("person")
    b.money("balance", 5_000, 900_000, step=100)
    b.number("fee", 0.15, 0.5, decimals=2, unit="%")
    b.number("expense", 0.03, 0.25, decimals=2, unit="%")
    robo = b.pick(ROBOS)
    b.ask(
        f"{{person}} keeps {{balance}} with {robo} all year; the balance does not change. The service charges an "
        "advisory fee of {fee} of assets a year, and the ETFs it holds have a weighted average expense ratio of "
        "{expense}. How much does {person} pay in advisory fees and fund expenses together over the year?"
    )
    b.step("advisory", "Advisory fee", "balance * fee / 100", unit="$")
    b.step("funds", "Fund expenses", "balance * expense / 100", unit="$")
    b.step("total", "Total annual cost", "advisory + funds", unit="$")


@template("easy")
def harvested_loss_tax_saving(b: Builder) -> None:
    """Tax saved by harvesting a loss against realized short-term gains.

    Source: IRS Publication 550, Investment Income and Expenses (capital losses offset capital gains;
    wash-sale rule), with a replacement fund that is not substantially identical.
    """
    b.person("person")
    basis = b.money("basis", 5_000, 200_000, step=10)
    b.money("value", basis * 0.6, basis * 0.93, step=0.01)
    b.choice("rate", {"22%": 22, "24%": 24, "32%": 32, "35%": 35})
    b.ask(
        "{person}'s robo-advisor sells an emerging-markets ETF bought for {basis} that is now worth {value}, "
        "and buys a similar but not substantially identical fund, so the wash-sale rule does not apply. "
        "{person} has enough realized short-term gains this year, taxed at {rate}, to absorb the whole loss. "
        "How much tax does the harvest save this year?"
    )
    b.step("loss", "Loss harvested (basis − sale value)", "basis - value", unit="$")
    b.step("saving", "Tax saved (loss × tax rate)", "loss * rate / 100", unit="$")


@template("intermediate")
def rebalance_to_target(b: Builder) -> None:
    """Drift from a target stock/bond mix and the trade that restores it.

    Source: calendar-and-threshold rebalancing (Vanguard, "Best practices for portfolio rebalancing", 2010),
    trade = current value − target weight × portfolio value.
    """
    b.person("person")
    target = b.choice("target", {"60/40": 60, "70/30": 70, "80/20": 80, "50/50": 50})
    band = b.choice("band", {"5": 5, "3": 3})
    total = b.rng.uniform(20_000, 600_000)
    over = b.pick([True, False])
    drift = b.rng.uniform(band + 0.5, band + 9) * (1 if over else -1)
    stocks = b.derive("stocks", round(total * (target + drift) / 100, -1), unit="$")
    b.derive("bonds", round(total - stocks, -1), unit="$")
    v = b.values
    weight = stocks / (stocks + v["bonds"]) * 100
    b.require(abs(weight - target) > band + 0.2, "the drift is clearly beyond the band")
    b.bounds("weight", lo=0, hi=100, why="a portfolio weight")
    b.ask(
        "{person}'s robo-advisor targets a {target} stock/bond mix and rebalances when the stock weight drifts "
        "more than {band} percentage points from target. The account now holds {stocks} in a stock ETF and "
        "{bonds} in a bond ETF. What is the stock weight, and how many dollars of the stock ETF must be "
        "bought (positive) or sold (negative) to restore the target?"
    )
    b.step("total", "Portfolio value", "stocks + bonds", unit="$")
    b.step("weight", "Current stock weight", "stocks / total * 100", unit="%")
    b.step("target_value", "Target value of the stock ETF", "total * target / 100", unit="$")
    b.step("trade", "Stock trade (target − current)", "target_value - stocks", unit="$")


@template("intermediate")
def fee_drag_vs_advisor(b: Builder) -> None:
    """Ending wealth under a low robo fee against a 1%-type advisor fee, fees deducted yearly.

    Source: fee drag with fees charged on assets each year, FV = P·((1 + r)(1 − f))^n (SEC Investor
    Bulletin "How Fees and Expenses Affect Your Investment Portfolio", 2014).
    """
    b.person("person")
    b.money("amount", 10_000, 500_000, step=500)
    b.percent("ret", 4, 9, decimals=1)
    b.number("robo", 0.15, 0.5, decimals=2, unit="%")
    b.number("advisor", 0.8, 1.5, decimals=2, unit="%")
    b.integer("years", 10, 35, unit="years")
    b.ask(
        "{person} invests {amount} and expects a gross return of {ret} a year. A robo-advisor charges {robo} of "
        "the balance each year and a traditional advisor charges {advisor}; either fee is deducted at each "
        "year end after the return is credited. After {years}, how much more will {person} have with the "
        "robo-advisor?"
    )
    b.step("robo_value", "Ending value with the robo-advisor, P × ((1 + r)(1 − fee))^n",
           "round(amount * ((1 + ret / 100) * (1 - robo / 100)) ** years, 2)", unit="$")
    b.step("advisor_value", "Ending value with the advisor",
           "round(amount * ((1 + ret / 100) * (1 - advisor / 100)) ** years, 2)", unit="$")
    b.step("difference", "Extra wealth with the robo-advisor", "robo_value - advisor_value", unit="$")


@template("advanced")
def rebalance_tax_with_harvest(b: Builder) -> None:
    """Tax due on a rebalancing sale (average-cost basis) after offsetting a harvested loss.

    Source: IRS Publication 550 (average basis for fund shares; capital losses offset gains; wash sales) and
    threshold rebalancing (Vanguard, "Best practices for portfolio rebalancing", 2010).

    Concepts: threshold rebalancing to a target weight; gain on an average-cost basis; tax-loss harvesting offset;
    capital gains tax.
    """
    b.person("person")
    target = b.choice("target", {"60%": 60, "70%": 70, "80%": 80})
    stocks = b.money("stocks", 40_000, 800_000, step=10)
    weight = b.rng.uniform(target + 6, target + 15)
    b.derive("bonds", round(stocks * (100 - weight) / weight, -1), unit="$")
    b.derive("basis", round(stocks * b.rng.uniform(0.45, 0.85), -1), unit="$")
    b.money("intl_basis", 8_000, 80_000, step=10)
    b.derive("intl_value", round(b.values["intl_basis"] * b.rng.uniform(0.6, 0.92), -1), unit="$")
    b.choice("rate", {"15%": 15, "20%": 20})
    v = b.values
    total = stocks + v["bonds"]
    sale = stocks - total * target / 100
    net = sale * (1 - v["basis"] / stocks) - (v["intl_basis"] - v["intl_value"])
    gain = sale * (1 - v["basis"] / stocks)
    b.require(net >= 1_000 and net >= 0.3 * gain, "the rebalancing gain clearly exceeds the harvested loss")
    b.ask(
        "{person}'s taxable robo account holds {stocks} of a US stock ETF and {bonds} of a bond ETF, and "
        "targets {target} in stocks. To rebalance, the robo sells enough of the stock ETF to restore the target "
        "(the bond ETF is then bought with the proceeds). The stock ETF position has a total average-cost basis "
        "of {basis}, and all of it has been held more than a year. On the same day the robo harvests a loss by "
        "selling a separate international ETF held outside the target mix, bought for {intl_basis} and now "
        "worth {intl_value}, into a fund that is not substantially identical. Long-term gains are taxed at "
        "{rate}. What tax does the day's trading create?"
    )
    b.step("total", "Value of the stock and bond holdings", "stocks + bonds", unit="$")
    b.step("sale", "Stock ETF to sell (current value − target value)", "round(stocks - total * target / 100, 2)",
           unit="$")
    b.step("gain", "Gain on the sale (sale × (1 − basis ÷ position value))", "round(sale * (1 - basis / stocks), 2)",
           unit="$")
    b.step("loss", "Loss harvested on the international ETF", "intl_basis - intl_value", unit="$")
    b.step("net_gain", "Net capital gain", "gain - loss", unit="$")
    b.step("tax", "Tax on the net gain", "net_gain * rate / 100", unit="$")
