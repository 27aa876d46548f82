"""Budgeting: a small business's departmental budget, and that budget after a cut and years of growth, savings
rate, how price and pay changes move the savings rate, and an emergency-fund plan funded from a 50/30/20
budget."""

import math

from finchain_tasks.engine import Builder, template


@template("easy", floor=100)
def department_budget_split(b: Builder) -> None:
    """A small business's quarterly budget split by department, with money moved between departments.

    Source: percentage-of-total departmental budgeting with a reallocation (Horngren, Datar and Rajan, Cost
    Accounting, ch. 6, the master budget).
    """
    b.person("owner")
    business = b.pick(["design studio", "bakery", "bike repair shop", "software consultancy", "dental practice"])
    total = b.money("budget", 40_000, 600_000, step=1_000)
    b.percent("marketing", 15, 35, decimals=0)
    b.percent("development", 10, 30, decimals=0)
    b.money("moved", 0.02 * total, 0.08 * total, step=100)
    b.ask(
        f"{{owner}} runs a {business} and sets a quarterly budget of {{budget}}: {{marketing}} for marketing, "
        "{development} for product development, and the rest for operations. Halfway through the quarter "
        "{they} moves {moved} from the marketing budget to operations. What is the operations budget after "
        "the move?"
    )
    b.bounds("operations", lo=0, hi="budget", why="a department gets part of the budget")
    b.step("marketing_budget", "Marketing budget (total × marketing share)", "budget * marketing / 100", unit="$")
    b.step("development_budget", "Product development budget", "budget * development / 100", unit="$")
    b.step("operations", "Operations budget: total − marketing − development + the amount moved",
           "budget - marketing_budget - development_budget + moved", unit="$")


@template("easy", floor=1)
def savings_rate(b: Builder) -> None:
    """Savings rate from monthly take-home pay and itemized spending.

    Source: savings rate = (income − spending) ÷ income, Kapoor, Dlabay & Hughes, Personal Finance, ch. 3.
    """
    b.person("person")
    b.money("income", 4_000, 9_000, step=50)
    b.money("rent", 900, 2_000, step=25)
    b.money("groceries", 300, 700, step=10)
    b.money("transport", 100, 400, step=10)
    b.money("other", 200, 800, step=10)
    b.ask(
        "{person}'s monthly take-home pay is {income}. Each month {they} spends {rent} on rent, "
        "{groceries} on groceries, {transport} on transportation and {other} on everything else, and saves "
        "the rest. "
        + b.pick(["What is {person}'s savings rate, as a percentage of take-home pay?",
                  "What percentage of take-home pay does {person} save?"])
    )
    b.step("expenses", "Total monthly spending", "rent + groceries + transport + other", unit="$")
    b.step("savings", "Monthly savings", "income - expenses", unit="$")
    b.step("rate", "Savings rate, savings ÷ take-home pay", "savings / income * 100", unit="%")


@template("intermediate", floor=100)
def budget_cut_and_growth(b: Builder) -> None:
    """A small business's departmental budget after a cut to the total and years of planned growth.

    Source: the master budget's departmental allocation as shares of the total, revised for a budget cut and
    projected with compound growth (Horngren, Datar and Rajan, Cost Accounting, ch. 6). The cut and the growth
    both apply in every draw, and the shares stay fixed, so the operations budget moves with the total.
    """
    b.person("owner")
    business = b.pick(["design studio", "bakery", "bike repair shop", "software consultancy", "dental practice"])
    b.money("budget", 150_000, 2_400_000, step=5_000)
    b.percent("marketing", 12, 30, decimals=0)
    b.percent("development", 10, 25, decimals=0)
    b.percent("cut", 5, 20, decimals=0)
    b.percent("growth", 3, 12, decimals=1)
    b.integer("years", 2, 5, unit="years")
    b.ask(
        f"{{owner}} runs a {business} with an annual budget of {{budget}}: {{marketing}} for marketing, "
        "{development} for product development and the rest for operations. A slow year forces a {cut} cut to "
        "next year's total budget, shared out in the same proportions. From then on {they} plans to let the total "
        "grow {growth} a year, compounded, keeping the same shares. What will the operations budget be {years} "
        "after the cut year? Round to the nearest cent."
    )
    b.bounds("operations_share", lo=0, hi=100, why="operations get part of the budget")
    b.step("cut_budget", "Total budget in the cut year: budget × (1 − cut)", "budget * (1 - cut / 100)", unit="$")
    b.step("grown_budget", "Total budget after the years of growth: cut budget × (1 + growth)^years, to the cent",
           "round(cut_budget * (1 + growth / 100) ** years, 2)", unit="$")
    b.step("operations_share", "Operations share: 100% − marketing − development", "100 - marketing - development",
           unit="%")
    b.step("operations", "Operations budget: total × operations share, to the cent",
           "round(grown_budget * operations_share / 100, 2)", unit="$")


@template("intermediate", floor=0.1)
def expense_changes(b: Builder) -> None:
    """Change, in percentage points, of the savings rate after rent, food and income all change.

    Source: savings rate = (income − spending) ÷ income, Kapoor, Dlabay & Hughes, Personal Finance, ch. 3.
    """
    b.person("person")
    b.money("income", 5_500, 10_000, step=50)
    b.money("rent", 1_200, 2_400, step=50)
    b.money("food", 400, 900, step=10)
    b.money("other", 800, 1_600, step=10)
    b.percent("rent_increase", 2, 12)
    b.percent("food_increase", 1, 9)
    b.percent("pay_raise", 1, 7)
    v = b.values
    old = (v["income"] - v["rent"] - v["food"] - v["other"]) / v["income"]
    new_income = v["income"] * (1 + v["pay_raise"] / 100)
    new = (new_income - v["rent"] * (1 + v["rent_increase"] / 100) - v["food"] * (1 + v["food_increase"] / 100)
           - v["other"]) / new_income
    b.require(abs(new - old) > 0.003 and round(abs(new - old) * 100, 4) != 1, "a change of at least 0.3 points")
    b.ask(
        "{person} takes home {income} a month and spends {rent} on rent, {food} on food and {other} on "
        "everything else, saving the remainder. Next year the rent goes up {rent_increase}, food costs "
        "rise {food_increase}, other spending stays the same, and take-home pay rises {pay_raise}. "
        "By how many percentage points does {their} savings rate (savings as a share of take-home "
        "pay) change? Give a negative number for a fall."
    )
    b.step("old_rate", "Current savings rate", "(income - rent - food - other) / income * 100", unit="%")
    b.step("new_expenses", "Next year's monthly spending",
           "rent * (1 + rent_increase / 100) + food * (1 + food_increase / 100) + other", unit="$")
    b.step("new_income", "Next year's monthly take-home pay", "income * (1 + pay_raise / 100)", unit="$")
    b.step("new_rate", "Next year's savings rate", "(new_income - new_expenses) / new_income * 100", unit="%")
    b.step("rate_change", "Change in the savings rate", "new_rate - old_rate", unit="pp")


@template("advanced", floor=0.5)
def budget_emergency_plan(b: Builder) -> None:
    """Months to fill an emergency fund from the 50/30/20 savings bucket plus unspent needs money.

    Source: the 50/30/20 rule, Warren & Tyagi, All Your Worth (2005), ch. 2; emergency fund sizing,
    Kapoor, Dlabay & Hughes, Personal Finance, ch. 3. Needs always cost less than their budget, so the
    unspent part is saved in every draw.

    Concepts: 50/30/20 budget rule; rent increase in essential expenses; unspent needs money; emergency-fund target;
    months to save, rounded up.
    """
    b.person("person")
    income = b.money("income", 4_500, 9_000, step=50)
    b.money("rent", 0.18 * income, 0.3 * income, step=25)
    b.percent("rent_increase", 2, 10)
    b.money("other_needs", 0.08 * income, 0.18 * income, step=10)
    b.integer("months_cover", 3, 6, unit="months")
    b.money("saved", 500, 4_000, step=100)
    v = b.values
    essentials = v["rent"] * (1 + v["rent_increase"] / 100) + v["other_needs"]
    unspent = 0.5 * income - essentials
    months = math.ceil((v["months_cover"] * essentials - v["saved"]) / (0.2 * income + unspent))
    b.require(unspent > 50 and months != v["months_cover"], "needs under budget and a non-trivial count")
    b.ask(
        "{person} takes home {income} a month and follows the 50/30/20 rule: 50% for needs, 30% for "
        "wants, 20% for savings. Needs are rent, currently {rent} but rising {rent_increase} starting "
        "this month, plus {other_needs} of other essentials. Any part of the needs budget left unspent "
        "is also saved. All savings go into an emergency fund until it holds {months_cover} of essential "
        "expenses (at the new rent). The fund already holds {saved}, and deposits are made at the end "
        "of each month. How many months until the fund is complete (count a partial month as a full month)?"
    )
    b.step("new_rent", "Rent after the increase", "rent * (1 + rent_increase / 100)", unit="$")
    b.step("essentials", "Monthly essential expenses", "round(new_rent + other_needs, 2)", unit="$")
    b.step("needs_budget", "Needs budget (50% of take-home pay)", "income * 50 / 100", unit="$")
    b.step("savings_budget", "Savings budget (20% of take-home pay)", "income * 20 / 100", unit="$")
    b.step("monthly_saving", "Monthly deposit, the savings budget plus the unspent needs money",
           "savings_budget + needs_budget - essentials", unit="$")
    b.step("target", "Emergency-fund target", "months_cover * (rent * (1 + rent_increase / 100) + other_needs)",
           unit="$")
    b.step("months_needed", "Months to complete the fund, rounded up", "ceil((target - saved) / monthly_saving)",
           unit="months")
