"""Compound interest: annual, periodic and continuous compounding, unknown principal, rate changes."""

from finchain_tasks.engine import Builder, template

FREQUENCIES = {"annually": 1, "semi-annually": 2, "quarterly": 4, "monthly": 12}


@template("easy")
def annual_compounding(b: Builder) -> None:
    """Future value of a deposit compounded once a year."""
    b.person("person")
    b.money("principal", 1_000, 50_000, step=100)
    b.percent("rate", 2, 9)
    b.integer("years", 2, 15)
    verb = b.pick(["deposits", "invests", "places"])
    b.ask(
        f"{{person}} {verb} {{principal}} in an account that pays {{rate}} interest per year, "
        "compounded annually. What will the balance be after {years} years? "
        "Round the answer to the nearest cent."
    )
    b.step("growth", "Growth factor over the period", "(1 + rate / 100) ** years")
    b.step("future_value", "Future value of the deposit", "principal * growth", unit="$")


@template("easy")
def continuous_compounding(b: Builder) -> None:
    """Future value under continuous compounding."""
    b.money("principal", 2_000, 80_000, step=500)
    b.percent("rate", 1.5, 8, decimals=2)
    b.integer("years", 1, 20)
    b.ask(
        "A bond fund credits interest continuously at a nominal annual rate of {rate}. "
        "If {principal} is invested for {years} years, what is the ending value "
        "(A = P·e^(rt))?"
    )
    b.step("exponent", "Exponent r × t", "rate / 100 * years")
    b.step("future_value", "Future value with continuous compounding", "principal * exp(exponent)", unit="$")


@template("intermediate")
def periodic_compounding(b: Builder) -> None:
    """Future value with several compounding periods a year."""
    b.company("company")
    b.money("principal", 5_000, 250_000, step=1_000)
    b.percent("rate", 2, 10, decimals=2)
    b.choice("periods_per_year", FREQUENCIES)
    b.integer("years", 2, 12)
    b.ask(
        "{company} parks {principal} of surplus cash in a deposit paying a nominal {rate} per year, "
        "compounded {periods_per_year}, for {years} years. What is the balance at the end of the term?"
    )
    b.step("periodic_rate", "Interest rate per compounding period (%)",
           "rate / periods_per_year", unit="%")
    b.step("periods", "Number of compounding periods", "periods_per_year * years")
    b.step("growth", "Growth factor", "(1 + periodic_rate / 100) ** periods")
    b.step("future_value", "Balance at the end of the term", "principal * growth", unit="$")


@template("intermediate")
def required_principal(b: Builder) -> None:
    """Present value needed today to reach a target, with monthly compounding."""
    b.person("person")
    b.money("target", 10_000, 500_000, step=1_000)
    b.percent("rate", 2, 8)
    b.integer("years", 3, 25)
    b.ask(
        "{person} wants to have {target} in {years} years for a home purchase. A savings account "
        "pays {rate} per year compounded monthly. How much must be deposited today, with no further "
        "deposits, to reach the goal?"
    )
    b.step("monthly_rate", "Monthly interest rate (%)", "rate / 12", unit="%")
    b.step("months", "Number of months", "years * 12")
    b.step("discount", "Discount factor", "(1 + monthly_rate / 100) ** (-months)")
    b.step("principal_needed", "Deposit needed today", "target * discount", unit="$")


@template("advanced")
def rate_change_midway(b: Builder) -> None:
    """A deposit whose rate and compounding change partway through, with a withdrawal between."""
    b.person("person")
    b.money("principal", 10_000, 200_000, step=500)
    b.percent("rate1", 2, 6)
    b.integer("years1", 2, 6)
    b.money("withdrawal", 500, 5_000, step=100)
    b.percent("rate2", 3, 9)
    b.integer("years2", 2, 8)
    b.ask(
        "{person} deposits {principal} at {rate1} compounded annually. After {years1} years "
        "{person} withdraws {withdrawal}, and the bank moves the remaining balance to a new "
        "product paying {rate2} compounded quarterly for another {years2} years. How much interest "
        "was earned over the whole period (final balance plus the withdrawal, minus the deposit)?"
    )
    b.step("balance1", "Balance after the first phase", "principal * (1 + rate1 / 100) ** years1", unit="$")
    b.step("after_withdrawal", "Balance after the withdrawal", "balance1 - withdrawal", unit="$")
    b.step("quarterly_rate", "Quarterly rate in the second phase (%)", "rate2 / 4", unit="%")
    b.step("balance2", "Balance at the end of the second phase",
           "after_withdrawal * (1 + quarterly_rate / 100) ** (4 * years2)", unit="$")
    b.step("interest", "Total interest earned (final balance + withdrawal − deposit)",
           "balance2 + withdrawal - principal", unit="$")
