"""Digital banking: tiered interest on balances, international transfer fees and exchange-rate markups,
recurring deposits, spending analysis against income, and loan payoff under daily simple interest."""

from finchain_tasks.engine import Builder, template

APPS = ["a neobank", "a mobile-only bank", "a digital bank", "a banking app"]


@template("easy")
def tiered_savings_interest(b: Builder) -> None:
    """A year's interest on a savings balance under a two-tier rate structure.

    Source: tiered-rate accounts as disclosed under Regulation DD (Truth in Savings), 12 CFR 1030.4(b)(1)(ii).
    """
    b.person("person")
    tier = b.money("tier", 5_000, 50_000, step=1_000)
    b.percent("r1", 3, 5.5, decimals=2)
    b.percent("r2", 0.5, 2.5, decimals=2)
    b.money("balance", tier * 1.1, tier * 6, step=10)
    app = b.pick(APPS)
    b.ask(
        f"{{person}}'s savings account at {app} pays {{r1}} a year on the first {{tier}} of the balance and "
        "{r2} on any amount above it (each rate applies only to its own slice). {They} keeps {balance} in "
        "the account for a full year and withdraws the interest as it is paid, so the balance does not "
        "change. How much interest does {they} earn in the year?"
    )
    b.step("first", "Interest on the first tier", "tier * r1 / 100", unit="$")
    b.step("second", "Interest on the balance above the tier", "(balance - tier) * r2 / 100", unit="$")
    b.step("total", "Interest for the year", "first + second", unit="$")


@template("easy")
def international_transfer_received(b: Builder) -> None:
    """Euros received from a transfer after a flat fee and an exchange-rate markup.

    Source: remittance disclosures (fee and exchange rate) under Regulation E, Subpart B, 12 CFR 1005.31.
    """
    b.person("person")
    b.money("amount", 200, 20_000, step=10)
    b.money("fee", 1, 15, step=0.5)
    b.number("mid", 0.82, 0.98, decimals=4)
    b.number("markup", 0.3, 2.5, decimals=2, unit="%")
    b.ask(
        "{person} sends {amount} from a US banking app to a relative in Spain. The app deducts a flat fee of "
        "{fee} from the amount, then converts the rest at the mid-market rate of {mid} euros per dollar less "
        "an exchange-rate markup of {markup}. How many euros does the relative receive?"
    )
    b.step("converted", "Dollars converted after the fee", "amount - fee", unit="$")
    b.step("rate", "Exchange rate applied (euros per dollar)", "mid * (1 - markup / 100)")
    b.step("received", "Euros received", "converted * rate", unit="€")


@template("intermediate")
def recurring_deposit_interest(b: Builder) -> None:
    """Interest earned on a recurring monthly deposit (an annuity due) with monthly compounding.

    Source: future value of an annuity due, FV = P·((1 + i)^n − 1)/i·(1 + i) (Brealey, Myers and Allen,
    Principles of Corporate Finance, ch. 2).
    """
    b.person("person")
    b.money("deposit", 50, 2_000, step=10)
    b.percent("rate", 2.5, 6.5, decimals=2)
    b.integer("months", 12, 60, unit="months")
    b.ask(
        "{person} sets up a recurring deposit in {their} banking app: {deposit} is moved into savings at the "
        "start of every month for {months}. The account pays {rate} a year, compounded monthly. How much "
        "interest has the plan earned by the end of the last month?"
    )
    b.step("growth", "Growth factor over the term, (1 + rate/12)^months", "(1 + rate / 1200) ** months")
    b.step("balance", "Balance at the end (annuity due)",
           "deposit * (growth - 1) / (rate / 1200) * (1 + rate / 1200)", unit="$")
    b.step("paid_in", "Total deposited", "deposit * months", unit="$")
    b.step("interest", "Interest earned", "balance - paid_in", unit="$")


@template("intermediate")
def spending_analysis_savings_rate(b: Builder) -> None:
    """A month's spending by category from a banking app, the discretionary share and the savings rate.

    Source: needs/wants/savings split of the 50/30/20 rule (Warren and Tyagi, All Your Worth, 2005).
    """
    b.person("person")
    income = b.money("income", 3_000, 12_000, step=10)
    b.money("rent", income * 0.2, income * 0.38, step=5)
    b.money("groceries", income * 0.05, income * 0.12, step=0.01)
    b.money("dining", income * 0.03, income * 0.1, step=0.01)
    b.money("subscriptions", 20, 180, step=0.01)
    b.money("transport", income * 0.02, income * 0.08, step=0.01)
    b.bounds("wants_share", lo=0, hi=100, why="a share of income")
    b.ask(
        "{person}'s banking app reports {their} monthly take-home pay of {income} and these card and "
        "transfer outflows: rent {rent}, groceries {groceries}, dining out {dining}, streaming subscriptions "
        "{subscriptions} and transport {transport}. Treating dining and subscriptions as discretionary "
        "(wants), what share of take-home pay went to wants, and what percentage of take-home pay was left "
        "unspent (the savings rate)? Give the savings rate."
    )
    b.step("spent", "Total spending", "rent + groceries + dining + subscriptions + transport", unit="$")
    b.step("wants", "Discretionary spending (dining + subscriptions)", "dining + subscriptions", unit="$")
    b.step("wants_share", "Wants as a share of take-home pay", "wants / income * 100", unit="%")
    b.step("savings_rate", "Savings rate (unspent share of take-home pay)", "(income - spent) / income * 100",
           unit="%")


@template("advanced")
def daily_interest_loan_payoff(b: Builder) -> None:
    """Payoff amount of a digital-bank loan under daily simple interest after one payment.

    Source: daily simple interest on the outstanding principal, interest = principal × APR/365 × days
    (Regulation Z, 12 CFR 1026.17 disclosures; CFPB explainer on simple-interest auto loans), with each
    payment applied to accrued interest first.

    Concepts: daily simple interest (APR ÷ 365); payment applied to interest first; principal reduction; payoff
    quote with accrued interest.
    """
    b.person("person")
    principal = b.money("principal", 3_000, 60_000, step=50)
    apr = b.percent("apr", 6, 24, decimals=2)
    d1 = b.integer("days1", 28, 31, unit="days")
    b.money("payment", principal * 0.03, principal * 0.12, step=0.01)
    b.require(b.values["payment"] > principal * apr / 100 / 365 * d1 * 1.5, "the payment covers the interest")
    b.integer("days2", 5, 25, unit="days")
    b.ask(
        "{person} takes a personal loan of {principal} through {their} banking app at an APR of {apr}, with "
        "interest charged as daily simple interest on the outstanding principal (APR ÷ 365 per day). "
        "Accrued interest is rounded to the cent whenever it is charged. {They} makes the first payment of "
        "{payment} after {days1}; the payment covers accrued interest first and the rest reduces principal. "
        "{days2} later {they} asks for a payoff quote. What amount clears the loan on that day?"
    )
    b.step("interest1", "Interest accrued before the payment, rounded to the cent",
           "round(principal * apr / 100 / 365 * days1, 2)", unit="$")
    b.step("principal_paid", "Principal repaid by the payment", "payment - interest1", unit="$")
    b.step("balance", "Principal outstanding after the payment", "principal - principal_paid", unit="$")
    b.step("interest2", "Interest accrued up to the payoff date, rounded to the cent",
           "round(balance * apr / 100 / 365 * days2, 2)", unit="$")
    b.step("payoff", "Payoff amount (principal + accrued interest)", "balance + interest2", unit="$")
