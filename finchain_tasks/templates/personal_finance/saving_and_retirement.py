"""Saving and retirement: future value of contributions, the nest egg a withdrawal rate needs, an
employer match, the monthly saving a target needs, and retirement income from savings that include a
one-off deposit made partway through, with the balance left after years of those withdrawals.

Monthly rates are written as the annual rate ÷ 1,200 (annual percent ÷ 12 months ÷ 100) so that no
rounded monthly rate enters a long power.
"""

from finchain_tasks.engine import Builder, template


@template("easy", floor=100)
def future_value_of_contributions(b: Builder) -> None:
    """Balance built up by equal monthly contributions at a monthly-compounded return.

    Source: future value of an ordinary annuity, FV = PMT × ((1 + i)^n − 1) / i, Kapoor, Dlabay &
    Hughes, Personal Finance, ch. 1.
    """
    b.person("person")
    b.money("contribution", 100, 2_000, step=25)
    b.percent("rate", 3, 9)
    b.integer("years", 5, 40, unit="years")
    account = b.pick(["a retirement account", "an IRA", "a savings plan"])
    b.ask(
        f"{{person}} contributes {{contribution}} to {account} at the end of every month for {{years}}. "
        "The account earns {rate} per year, compounded monthly. What will the balance be right after "
        "the last contribution? Round to the nearest cent."
    )
    b.step("months", "Number of contributions", "years * 12", unit="months")
    b.step("balance", "Future value of the contributions (ordinary annuity, monthly rate = annual rate ÷ 12)",
           "contribution * ((1 + rate / 1200) ** months - 1) / (rate / 1200)", unit="$")


@template("easy", floor=1_000)
def nest_egg_from_withdrawal_rate(b: Builder) -> None:
    """Portfolio needed at retirement to fund spending under a given withdrawal rate.

    Source: the safe-withdrawal-rate rule, Bengen (1994), "Determining Withdrawal Rates Using
    Historical Data", Journal of Financial Planning.
    """
    b.person("person")
    b.money("spending", 40_000, 150_000, step=1_000)
    b.money("pension", 10_000, 35_000, step=500)
    b.percent("withdrawal_rate", 3, 5)
    income = b.pick(["a pension", "Social Security", "a guaranteed annuity"])
    b.ask(
        f"{{person}} wants {{spending}} a year to live on in retirement and expects {{pension}} a year from "
        f"{income}. The rest must come from a portfolio, from which {{they}} plans to withdraw "
        "{withdrawal_rate} of its value each year. How large must the portfolio be at retirement?"
    )
    b.step("gap", "Annual income the portfolio must provide", "spending - pension", unit="$")
    b.step("nest_egg", "Required portfolio (income gap ÷ withdrawal rate)",
           "gap / (withdrawal_rate / 100)", unit="$")


@template("intermediate", floor=1_000)
def employer_match(b: Builder) -> None:
    """Plan balance from own contributions plus a capped employer match.

    Source: 401(k) matching contributions up to a percentage of pay, IRS, 401(k) Plan Overview; future
    value of an ordinary annuity, Kapoor, Dlabay & Hughes, Personal Finance, ch. 14.
    """
    b.person("person")
    b.company("company")
    b.money("salary", 40_000, 200_000, step=1_000)
    own = b.integer("contribution_pct", 2, 12, unit="%")
    match = b.choice("match_pct", {"50 cents": 50, "75 cents": 75, "one dollar": 100})
    cap = b.integer("cap_pct", 3, 6, unit="%")
    b.require(match < 100 or own > cap, "the match differs from the employee's own contribution")
    b.percent("rate", 4, 9)
    b.integer("years", 10, 35, unit="years")
    b.ask(
        "{person} earns {salary} a year at {company} and puts {contribution_pct} of salary into the "
        "company's retirement plan. {company} adds {match_pct} for every dollar {they} contributes, on "
        "contributions up to {cap_pct} of salary. All contributions are made at the end of each year, the "
        "salary stays the same, and the plan earns {rate} per year compounded annually. What is the "
        "balance after {years}? Round to the nearest cent."
    )
    b.step("own_amount", "Employee contribution per year", "salary * contribution_pct / 100", unit="$")
    b.step("match_amount", "Employer match per year (on contributions up to the cap)",
           "salary * min(contribution_pct, cap_pct) / 100 * match_pct / 100", unit="$")
    b.step("annual_total", "Total contribution per year", "own_amount + match_amount", unit="$")
    b.step("balance", "Balance after the last contribution (ordinary annuity)",
           "annual_total * ((1 + rate / 100) ** years - 1) / (rate / 100)", unit="$")


@template("intermediate", floor=10)
def required_monthly_saving(b: Builder) -> None:
    """Monthly saving needed to reach a retirement target, given savings already set aside.

    Source: sinking-fund payment PMT = FV × i / ((1 + i)^n − 1), Brealey, Myers & Allen, Principles of
    Corporate Finance, ch. 2.
    """
    b.person("person")
    b.money("target", 800_000, 2_500_000, step=50_000)
    b.money("current", 5_000, 60_000, step=1_000)
    b.integer("years", 10, 30, unit="years")
    b.percent("rate", 4, 8)
    b.ask(
        "{person} wants {target} saved for retirement in {years} and already has {current} invested. "
        "The investments earn {rate} per year, compounded monthly. How much must {they} add at the "
        "end of every month to reach the target exactly? Round to the nearest cent."
    )
    b.step("months", "Number of monthly deposits", "years * 12", unit="months")
    b.step("current_grown", "Future value of current savings (monthly rate = annual rate ÷ 12)",
           "current * (1 + rate / 1200) ** months", unit="$")
    b.step("shortfall", "Amount the deposits must build", "round(target - current_grown, 2)", unit="$")
    b.step("deposit", "Required monthly deposit (sinking-fund payment)",
           "shortfall * (rate / 1200) / ((1 + rate / 1200) ** months - 1)", unit="$")


@template("advanced", floor=50)
def retirement_income(b: Builder) -> None:
    """Savings (with a one-off mid-term deposit) drawn down as an annuity, and the balance left after years of
    withdrawals.

    Source: accumulation as future values of a lump sum, an annuity and a deposit made partway through,
    then decumulation as an annuity payment, Kapoor, Dlabay & Hughes, Personal Finance, ch. 14; the balance
    after k years of withdrawals W is B·(1 + i)^n − W·((1 + i)^n − 1)/i with n = 12k monthly periods (the
    remaining balance of an annuity, Brealey, Myers & Allen, Principles of Corporate Finance, ch. 2).

    Concepts: future value of monthly contributions; lump-sum deposit growth; balance at retirement; annuity payout
    over retirement; balance remaining after years of withdrawals.
    """
    b.person("person")
    age = b.integer("age", 25, 45)
    retire = b.integer("retire_age", 60, 67)
    b.money("current", 5_000, 80_000, step=1_000)
    b.money("contribution", 200, 2_500, step=50)
    b.integer("deposit_age", age + 3, retire - 3)
    b.money("deposit", 10_000, 100_000, step=1_000)
    b.percent("growth_rate", 5, 8)
    b.percent("payout_rate", 3, 5)
    payout = b.integer("payout_years", 20, 30, unit="years")
    b.integer("drawn_years", 5, payout - 5, unit="years")
    b.ask(
        "{person} is {age} years old, has {current} in a retirement account and will add {contribution} at "
        "the end of every month until retiring at age {retire_age}. On {their} birthday at age {deposit_age} "
        "{they} also deposits a one-off inheritance of {deposit}. Until retirement the account earns "
        "{growth_rate} per year compounded monthly; afterwards it is moved to a fund earning {payout_rate} "
        "per year compounded monthly. {They} then withdraws, at the end of each month, the level amount, "
        "rounded to the cent, that exhausts the account over {payout_years} of retirement. How much is left in "
        "the account right after the withdrawals of the first {drawn_years} of retirement? Round to the nearest "
        "cent."
    )
    b.step("saving_months", "Months until retirement", "(retire_age - age) * 12", unit="months")
    b.step("current_grown", "Current balance grown to retirement (monthly rate = annual rate ÷ 12)",
           "round(current * (1 + growth_rate / 1200) ** saving_months, 2)", unit="$")
    b.step("contributions_grown", "Future value of the monthly contributions",
           "round(contribution * ((1 + growth_rate / 1200) ** saving_months - 1) / (growth_rate / 1200), 2)", unit="$")
    b.step("deposit_grown", "The mid-term deposit grown over the months it is invested",
           "round(deposit * (1 + growth_rate / 1200) ** ((retire_age - deposit_age) * 12), 2)", unit="$")
    b.step("nest_egg", "Balance at retirement", "current_grown + contributions_grown + deposit_grown", unit="$")
    b.step("payout_months", "Months of withdrawals", "payout_years * 12", unit="months")
    b.step("withdrawal", "Level monthly withdrawal (annuity payment at the retirement rate ÷ 12), to the cent",
           "round(nest_egg * (payout_rate / 1200) / (1 - (1 + payout_rate / 1200) ** (-payout_months)), 2)", unit="$")
    b.step("balance_left", "Balance left after those withdrawals: balance at retirement grown at the monthly "
           "rate less the future value of the withdrawals made, to the cent",
           "round(nest_egg * (1 + payout_rate / 1200) ** (drawn_years * 12) "
           "- withdrawal * ((1 + payout_rate / 1200) ** (drawn_years * 12) - 1) / (payout_rate / 1200), 2)", unit="$")
