"""Saving and retirement: future value of contributions, retirement targets, withdrawal rates, employer match."""

from finchain_tasks.engine import Builder, template


@template("easy")
def future_value_of_contributions(b: Builder) -> None:
    """Balance built up by equal monthly contributions at a monthly-compounded return."""
    b.person("person")
    b.money("contribution", 100, 2_000, step=25)
    b.percent("rate", 3, 9)
    b.integer("years", 5, 40, unit="years")
    account = b.pick(["a retirement account", "an IRA", "a savings plan"])
    b.ask(
        f"{{person}} contributes {{contribution}} to {account} at the end of every month for {{years}}. "
        "The account earns {rate} per year, compounded monthly. What will the balance be right after "
        "the last contribution?"
    )
    b.step("monthly_rate", "Monthly return (%)", "rate / 12", unit="%")
    b.step("months", "Number of contributions", "years * 12")
    b.step("balance", "Future value of the contributions (ordinary annuity)",
           "contribution * ((1 + monthly_rate / 100) ** months - 1) / (monthly_rate / 100)", unit="$")


@template("easy")
def nest_egg_from_withdrawal_rate(b: Builder) -> None:
    """Portfolio needed at retirement to fund spending under a given withdrawal rate."""
    b.person("person")
    b.money("spending", 40_000, 150_000, step=1_000)
    b.money("pension", 10_000, 35_000, step=500)
    b.percent("withdrawal_rate", 3, 5)
    income = b.pick(["a pension", "Social Security", "a guaranteed annuity"])
    b.ask(
        f"{{person}} wants {{spending}} a year to live on in retirement and expects {{pension}} a year from "
        f"{income}. The rest must come from a portfolio, from which {{person}} plans to withdraw "
        "{withdrawal_rate} of its value each year. How large must the portfolio be at retirement?"
    )
    b.step("gap", "Annual income the portfolio must provide", "spending - pension", unit="$")
    b.step("nest_egg", "Required portfolio (income gap ÷ withdrawal rate)",
           "gap / (withdrawal_rate / 100)", unit="$")


@template("intermediate")
def employer_match(b: Builder) -> None:
    """Plan balance from own contributions plus a capped employer match."""
    b.person("person")
    b.company("company")
    b.money("salary", 40_000, 200_000, step=1_000)
    b.integer("contribution_pct", 2, 12, unit="%")
    b.choice("match_pct", {"50 cents": 50, "75 cents": 75, "one dollar": 100})
    b.integer("cap_pct", 3, 6, unit="%")
    b.percent("rate", 4, 9)
    b.integer("years", 10, 35, unit="years")
    b.ask(
        "{person} earns {salary} a year at {company} and puts {contribution_pct} of salary into the "
        "company's retirement plan. {company} adds {match_pct} for every dollar {person} contributes, on "
        "contributions up to {cap_pct} of salary. All contributions are made at the end of each year, the "
        "salary stays the same, and the plan earns {rate} per year compounded annually. What is the "
        "balance after {years}?"
    )
    b.step("own_amount", "Employee contribution per year", "salary * contribution_pct / 100", unit="$")
    b.step("match_amount", "Employer match per year",
           "salary * min(contribution_pct, cap_pct) / 100 * match_pct / 100", unit="$")
    b.step("annual_total", "Total contribution per year", "own_amount + match_amount", unit="$")
    b.step("balance", "Balance after the last contribution (ordinary annuity)",
           "annual_total * ((1 + rate / 100) ** years - 1) / (rate / 100)", unit="$")


@template("intermediate")
def required_monthly_saving(b: Builder) -> None:
    """Monthly saving needed to reach a retirement target, given savings already set aside."""
    b.person("person")
    b.money("target", 800_000, 2_500_000, step=50_000)
    b.money("current", 5_000, 60_000, step=1_000)
    b.integer("years", 10, 30, unit="years")
    b.percent("rate", 4, 8)
    b.ask(
        "{person} wants {target} saved for retirement in {years} and already has {current} invested. "
        "The investments earn {rate} per year, compounded monthly. How much must {person} add at the "
        "end of every month to reach the target exactly?"
    )
    b.step("monthly_rate", "Monthly return (%)", "rate / 12", unit="%")
    b.step("months", "Number of monthly deposits", "years * 12")
    b.step("current_grown", "Future value of current savings",
           "current * (1 + monthly_rate / 100) ** months", unit="$")
    b.step("shortfall", "Amount the deposits must build", "target - current_grown", unit="$")
    b.step("deposit", "Required monthly deposit (sinking-fund payment)",
           "shortfall * (monthly_rate / 100) / ((1 + monthly_rate / 100) ** months - 1)", unit="$")


@template("advanced")
def retirement_income(b: Builder) -> None:
    """Monthly retirement income from savings accumulated before retirement and drawn down after."""
    b.person("person")
    b.integer("age", 25, 45)
    b.integer("retire_age", 60, 67)
    b.money("current", 5_000, 80_000, step=1_000)
    b.money("contribution", 200, 2_500, step=50)
    b.percent("growth_rate", 5, 8)
    b.percent("payout_rate", 3, 5)
    b.integer("payout_years", 20, 30, unit="years")
    b.ask(
        "{person} is {age} years old, has {current} in a retirement account and will add {contribution} at "
        "the end of every month until retiring at age {retire_age}. Until retirement the account earns "
        "{growth_rate} per year compounded monthly; afterwards it is moved to a fund earning {payout_rate} "
        "per year compounded monthly. What level monthly withdrawal, taken at the end of each month, "
        "exhausts the account exactly over {payout_years} of retirement?"
    )
    b.step("growth_monthly", "Monthly return before retirement (%)", "growth_rate / 12", unit="%")
    b.step("saving_months", "Months until retirement", "(retire_age - age) * 12")
    b.step("current_grown", "Current balance grown to retirement",
           "current * (1 + growth_monthly / 100) ** saving_months", unit="$")
    b.step("contributions_grown", "Future value of the monthly contributions",
           "contribution * ((1 + growth_monthly / 100) ** saving_months - 1) / (growth_monthly / 100)", unit="$")
    b.step("nest_egg", "Balance at retirement", "current_grown + contributions_grown", unit="$")
    b.step("payout_monthly", "Monthly return in retirement (%)", "payout_rate / 12", unit="%")
    b.step("payout_months", "Months of withdrawals", "payout_years * 12")
    b.step("withdrawal", "Level monthly withdrawal (annuity payment)",
           "nest_egg * (payout_monthly / 100) / (1 - (1 + payout_monthly / 100) ** (-payout_months))", unit="$")
