"""Income statements: net sales and gross profit, operating expenses, EBIT, EBT and net income, the deferred
tax asset on a warranty provision measured at expected value (IAS 37, IAS 12), and deferred tax from
accelerated tax depreciation (IAS 12)."""

from finchain_tasks.engine import Builder, template


@template("easy")
def gross_profit(b: Builder) -> None:
    """Net sales and gross profit.

    Source: IAS 1, paras 99-103, function-of-expense presentation; IFRS 15.
    """
    b.company("company")
    sales = b.money("gross_sales", 500_000, 60_000_000, step=1_000)
    b.money("returns", 0.01 * sales, 0.05 * sales, step=100)
    b.money("discounts", 0.005 * sales, 0.03 * sales, step=100)
    b.money("cogs", 0.45 * sales, 0.75 * sales, step=1_000)
    b.ask(
        "{company} recorded gross sales of {gross_sales} for the quarter. Customers returned goods invoiced at "
        "{returns}, and early-payment discounts of {discounts} were taken. Cost of goods sold was {cogs}. What "
        "gross profit does {company} report for the quarter?"
    )
    b.step("net_sales", "Net sales (gross sales − returns − discounts)", "gross_sales - returns - discounts", unit="$")
    b.step("gross_profit", "Gross profit (net sales − cost of goods sold)", "net_sales - cogs", unit="$")


@template("easy")
def net_income_from_ebit(b: Builder) -> None:
    """From operating profit to net income.

    Source: IAS 1, para 82.
    """
    b.company("company")
    ebit = b.money("ebit", 300_000, 40_000_000, step=1_000)
    b.money("interest", 0.05 * ebit, 0.4 * ebit, step=500)
    b.percent("tax_rate", 15, 32, decimals=0)
    b.ask(
        "{company} earned operating profit (EBIT) of {ebit} last year and paid interest of {interest} on its "
        "borrowings. Income tax is {tax_rate} of profit before tax. What was net income?"
    )
    b.step("ebt", "Profit before tax (EBIT − interest)", "ebit - interest", unit="$")
    b.step("tax", "Income tax expense", "ebt * tax_rate / 100", unit="$")
    b.step("net_income", "Net income", "ebt - tax", unit="$")


@template("intermediate")
def multi_step_income_statement(b: Builder) -> None:
    """A multi-step income statement from revenue to net income.

    Source: IAS 1, paras 99-103; Kieso, ch. 4.
    """
    b.company("company")
    revenue = b.money("revenue", 2_000_000, 80_000_000, step=10_000)
    b.money("cogs", 0.45 * revenue, 0.65 * revenue, step=1_000)
    b.money("selling", 0.06 * revenue, 0.12 * revenue, step=1_000)
    b.money("admin", 0.05 * revenue, 0.1 * revenue, step=1_000)
    b.money("depreciation", 0.02 * revenue, 0.06 * revenue, step=1_000)
    b.money("interest", 0.005 * revenue, 0.03 * revenue, step=1_000)
    b.percent("tax_rate", 18, 30, decimals=0)
    b.ask(
        "{company} reports revenue of {revenue}, cost of sales of {cogs}, selling and distribution expenses of "
        "{selling}, general and administrative expenses of {admin}, depreciation of {depreciation} and finance "
        "costs of {interest}. The income tax rate is {tax_rate} of profit before tax. Prepare the multi-step "
        "income statement: what is the net income for the year?"
    )
    b.step("gross_profit", "Gross profit", "revenue - cogs", unit="$")
    b.step("opex", "Operating expenses (selling + administrative + depreciation)", "selling + admin + depreciation",
           unit="$")
    b.step("ebit", "Operating profit (EBIT)", "gross_profit - opex", unit="$")
    b.step("ebt", "Profit before tax", "ebit - interest", unit="$")
    b.step("net_income", "Net income after tax", "ebt * (1 - tax_rate / 100)", unit="$")


@template("intermediate")
def warranty_deferred_tax_asset(b: Builder) -> None:
    """Deferred tax asset on a warranty provision measured at its expected value.

    Source: IAS 37, paras 36-39 and its warranty example (the provision at expected value); IAS 12, paras 5,
    24 and 47 (repairs are deductible for tax only when paid, so the provision's carrying amount is a
    deductible temporary difference, and the deferred tax asset is that difference × the enacted tax rate).
    """
    b.company("company")
    product = b.pick(["washing machines", "e-bikes", "laptops", "espresso machines", "heat pumps"])
    b.integer("units", 2_000, 60_000, unit="")
    b.percent("minor_pct", 4, 12)
    b.money("minor_cost", 40, 250, step=5)
    b.percent("major_pct", 0.5, 3)
    b.money("major_cost", 300, 1_500, step=10)
    v = b.values
    expense = v["units"] * (v["minor_pct"] * v["minor_cost"] + v["major_pct"] * v["major_cost"]) / 100
    b.money("opening", 0.3 * expense, 0.9 * expense, step=100)
    b.money("claims_paid", 0.5 * expense, 1.1 * expense, step=100)
    b.percent("tax_rate", 20, 30, decimals=0)
    b.require(v["opening"] + expense - v["claims_paid"] > 0.2 * expense, "a clearly positive closing provision")
    b.ask(
        f"{{company}} sold {{units}} {product} this year under a one-year warranty. Past experience shows that "
        "{minor_pct} of units need a minor repair costing {minor_cost} on average and {major_pct} need a major "
        "repair costing {major_cost}. The warranty provision stood at {opening} at the start of the year, and "
        "repairs costing {claims_paid} were paid during the year. The provision for this year's sales is "
        "measured at its expected value (IAS 37). Tax law allows a deduction for warranty costs only when "
        "repairs are paid, and the tax rate is {tax_rate}. What deferred tax asset does {company} report on the "
        "closing warranty provision (IAS 12)?"
    )
    b.bounds("closing", lo=0, why="a provision is never negative")
    b.step("per_unit", "Expected repair cost per unit sold in dollars (minor rate × cost + major rate × cost)",
           "minor_pct / 100 * minor_cost + major_pct / 100 * major_cost")
    b.step("expense", "Warranty expense for the year (units × expected cost per unit)", "units * per_unit",
           unit="$")
    b.step("closing", "Closing provision (opening + expense − repairs paid)",
           "round(opening + expense - claims_paid, 2)", unit="$")
    b.step("dta", "Deferred tax asset: closing provision (tax base nil) × tax rate", "closing * tax_rate / 100",
           unit="$")


@template("advanced")
def deferred_tax_net_income(b: Builder) -> None:
    """Net income with current and deferred tax when tax depreciation runs ahead of book depreciation.

    Source: IAS 12, paras 15-17 and 58; ASC 740.

    Concepts: income statement to profit before tax; taxable income with accelerated tax allowances; current tax;
    deferred tax on a temporary difference.
    """
    b.company("company")
    revenue = b.money("revenue", 5_000_000, 120_000_000, step=10_000)
    b.money("cogs", 0.45 * revenue, 0.6 * revenue, step=1_000)
    b.money("opex", 0.12 * revenue, 0.2 * revenue, step=1_000)
    book = b.money("book_dep", 0.03 * revenue, 0.07 * revenue, step=1_000)
    b.money("tax_dep", 1.3 * book, 2.2 * book, step=1_000)
    b.money("interest", 0.005 * revenue, 0.025 * revenue, step=1_000)
    b.percent("tax_rate", 20, 30, decimals=0)
    b.ask(
        "{company} reports revenue of {revenue}, cost of sales of {cogs}, other operating expenses of {opex} and "
        "straight-line depreciation of {book_dep} in its financial statements. For tax purposes its equipment "
        "qualifies for accelerated allowances of {tax_dep}, which replace book depreciation in taxable income; "
        "interest expense of {interest} is deductible in both. The tax rate is {tax_rate}, enacted and "
        "unchanged, and there are no other differences. Recognizing deferred tax on the temporary difference "
        "(IAS 12), what is net income for the year after current and deferred tax?"
    )
    b.step("ebit", "Operating profit (revenue − cost of sales − other expenses − book depreciation)",
           "revenue - cogs - opex - book_dep", unit="$")
    b.step("ebt", "Profit before tax", "ebit - interest", unit="$")
    b.step("taxable", "Taxable income (profit before tax + book depreciation − tax allowances)",
           "ebt + book_dep - tax_dep", unit="$")
    b.step("current_tax", "Current tax payable", "taxable * tax_rate / 100", unit="$")
    b.step("deferred_tax", "Deferred tax expense (temporary difference × tax rate)",
           "(tax_dep - book_dep) * tax_rate / 100", unit="$")
    b.step("tax_expense", "Total income tax expense (current + deferred)", "current_tax + deferred_tax", unit="$")
    b.step("net_income", "Net income", "ebt - tax_expense", unit="$")
