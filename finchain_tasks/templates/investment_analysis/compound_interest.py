"""Compound interest: simple versus compound interest, periodic and continuous compounding, the
principal needed for an inflation-adjusted goal, and a deposit whose rate changes partway through."""

from finchain_tasks.engine import Builder, template

FREQUENCIES = {"semi-annually": 2, "quarterly": 4, "monthly": 12}


@template("easy", floor=1)
def annual_compounding(b: Builder) -> None:
    """Extra interest from annual compounding over simple interest on the same deposit.

    Source: simple interest I = P·r·t and compound value P(1 + r)^t, Brealey, Myers & Allen,
    Principles of Corporate Finance, ch. 2.
    """
    b.person("person")
    b.money("principal", 2_000, 60_000, step=100)
    b.percent("rate", 3, 9, decimals=2)
    b.integer("years", 3, 15, unit="years")
    verb = b.pick(["deposits", "invests", "places"])
    b.ask(
        f"{{person}} {verb} {{principal}} for {{years}} at {{rate}} a year. Account A pays simple interest "
        "(interest on the original deposit only); account B pays the same rate compounded annually. "
        "How much more interest does account B earn over the whole term? Round to the nearest cent."
    )
    b.step("simple_interest", "Simple interest in account A", "principal * rate / 100 * years", unit="$")
    b.step("compound_interest", "Compound interest in account B, to the cent",
           "round(principal * ((1 + rate / 100) ** years - 1), 2)", unit="$")
    b.step("extra", "Extra interest from compounding, to the cent", "round(compound_interest - simple_interest, 2)",
           unit="$")


@template("easy", floor=1)
def continuous_compounding(b: Builder) -> None:
    """Future value under continuous compounding, A = P·e^(rt).

    Source: Hull, Options, Futures and Other Derivatives, ch. 4 (continuous compounding).
    """
    b.money("principal", 2_000, 80_000, step=500)
    b.percent("rate", 1.5, 8, decimals=2)
    b.integer("years", 2, 20, unit="years")
    holder = b.pick(["A bond fund", "A money-market account", "A structured deposit"])
    b.ask(
        f"{holder} credits interest continuously at a nominal annual rate of {{rate}}. "
        "If {principal} is invested for {years}, what is the ending value (A = P·e^(rt))? "
        "Round to the nearest cent."
    )
    b.step("exponent", "Exponent, rate × time", "rate / 100 * years")
    b.step("future_value", "Future value with continuous compounding", "principal * exp(exponent)", unit="$")


@template("intermediate", floor=1)
def periodic_compounding(b: Builder) -> None:
    """Future value with m compounding periods a year (never annual), FV = P(1 + r/m)^(mt).

    Source: Ross, Westerfield & Jaffe, Corporate Finance, ch. 4 (compounding periods).
    """
    b.company("company")
    b.money("principal", 5_000, 250_000, step=1_000)
    b.percent("rate", 2, 10, decimals=2)
    b.choice("periods_per_year", FREQUENCIES)
    b.integer("years", 2, 12, unit="years")
    b.ask(
        "{company} parks {principal} of surplus cash in a deposit paying a nominal {rate} per year, "
        "compounded {periods_per_year}, for {years}. What is the balance at the end of the term? "
        "Round to the nearest cent."
    )
    b.step("periodic_rate", "Interest rate per compounding period", "rate / periods_per_year", unit="%")
    b.step("periods", "Number of compounding periods", "periods_per_year * years")
    b.step("growth", "Growth factor over the term", "(1 + periodic_rate / 100) ** periods")
    b.step("future_value", "Balance at the end of the term", "principal * growth", unit="$")


@template("intermediate", floor=1)
def inflation_adjusted_goal(b: Builder) -> None:
    """Deposit needed today for a goal stated in today's dollars, after inflation, at monthly compounding.

    Source: nominal amount = real amount × (1 + inflation)^t and present value at the periodic rate,
    Bodie, Kane & Marcus, Investments, ch. 5 (real and nominal rates).
    """
    b.person("person")
    b.money("target", 10_000, 300_000, step=1_000)
    b.integer("years", 3, 20, unit="years")
    inflation = b.percent("inflation", 1.5, 4.5)
    b.percent("rate", inflation + 1, 8)
    goal = b.pick(["a home down payment", "a child's college fund", "a sabbatical year"])
    b.ask(
        f"{{person}} is saving for {goal} that costs {{target}} in today's prices and will be needed in "
        "{years}. Prices are expected to rise {inflation} a year (compounded annually). A savings "
        "account pays a nominal {rate} a year, compounded monthly. How much must {person} deposit "
        "today, with no further deposits, to have the inflated cost on the day it is needed? "
        "Round to the nearest cent."
    )
    b.step("future_cost", "Cost of the goal in future dollars",
           "round(target * (1 + inflation / 100) ** years, 2)", unit="$")
    b.step("monthly_rate", "Monthly interest rate", "rate / 12", unit="%")
    b.step("discount", "Discount factor over the months to the goal", "(1 + monthly_rate / 100) ** (-12 * years)")
    b.step("deposit", "Deposit needed today", "future_cost * discount", unit="$")


@template("advanced", floor=1)
def rate_change_midway(b: Builder) -> None:
    """A deposit whose rate and compounding change partway through, with a withdrawal between.

    Source: compound value by phases, Ross, Westerfield & Jaffe, Corporate Finance, ch. 4.

    Concepts: annual compounding; withdrawal between phases; quarterly compounding at a new rate; total interest
    earned.
    """
    b.person("person")
    principal = b.money("principal", 10_000, 200_000, step=500)
    b.percent("rate1", 2, 6)
    b.integer("years1", 2, 6, unit="years")
    b.money("withdrawal", 0.02 * principal, 0.15 * principal, step=100)
    b.percent("rate2", 3, 9)
    b.integer("years2", 2, 8, unit="years")
    b.ask(
        "{person} deposits {principal} at {rate1} compounded annually. After {years1}, {they} "
        "withdraws {withdrawal}, and the bank moves the remaining balance to a new product paying {rate2} "
        "compounded quarterly for another {years2}. How much interest was earned over the whole period "
        "(final balance plus the withdrawal, minus the deposit)? Round to the nearest cent."
    )
    b.step("balance1", "Balance after the first phase", "principal * (1 + rate1 / 100) ** years1", unit="$")
    b.step("after_withdrawal", "Balance after the withdrawal", "round(balance1 - withdrawal, 2)", unit="$")
    b.step("quarterly_rate", "Quarterly rate in the second phase", "rate2 / 4", unit="%")
    b.step("balance2", "Balance at the end of the second phase",
           "after_withdrawal * (1 + quarterly_rate / 100) ** (4 * years2)", unit="$")
    b.step("interest", "Total interest earned (final balance + withdrawal − deposit)",
           "balance2 + withdrawal - principal", unit="$")
