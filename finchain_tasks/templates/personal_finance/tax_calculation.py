"""Tax calculation: the foreign tax credit and its limit, capital gains by holding period, progressive
brackets after a standard deduction, marginal versus effective rate, and deductions with credits.

Where a rule picks between cases (long- or short-term gain, standard or itemized deduction, which
bracket holds the last dollar, whether the credit limit binds), the case is drawn first and the gold
step states the case in words and computes only what it needs.
"""

from finchain_tasks.engine import Builder, template

THRESHOLDS = ((10_000, 20_000, 500), (40_000, 60_000, 1_000), (95_000, 150_000, 5_000))
RATES = ((10, 12), (18, 24), (28, 33), (35, 40))


def _brackets(b: Builder, count: int) -> str:
    """Sample ``count`` brackets (thresholds t1.., rates r1.. in %) and describe them with placeholders."""
    for k, (lo, hi, step) in enumerate(THRESHOLDS[: count - 1], 1):
        b.money(f"t{k}", lo, hi, step=step)
    for k, (lo, hi) in enumerate(RATES[:count], 1):
        b.integer(f"r{k}", lo, hi, unit="%")
    middle = "".join(f"{{r{k}}} on income from {{t{k - 1}}} to {{t{k}}}, " for k in range(2, count))
    return f"{{r1}} on the first {{t1}}, {middle}and {{r{count}}} on income above {{t{count - 1}}}"


def _bracket_tax(top: int, income: str = "income") -> str:
    """Tax formula when the last dollar of ``income`` falls in bracket ``top`` (1-based)."""
    full = ["t1 * r1"] + [f"(t{k} - t{k - 1}) * r{k}" for k in range(2, top)]
    last = f"{income} * r1" if top == 1 else f"({income} - t{top - 1}) * r{top}"
    return "(" + " + ".join([*full, last] if top > 1 else [last]) + ") / 100"


@template("easy", floor=10)
def foreign_tax_credit(b: Builder) -> None:
    """US tax after the foreign tax credit, limited to the US tax on the foreign income.

    Source: the foreign tax credit limit, US tax × foreign taxable income ÷ worldwide taxable income,
    IRS Publication 514 (Foreign Tax Credit for Individuals) and Form 1116. Whether the limit binds is
    drawn first (half the draws each way).
    """
    b.person("person")
    total = b.money("total_income", 80_000, 400_000, step=1_000)
    foreign = b.money("foreign_income", 0.1 * total, 0.5 * total, step=500)
    us_rate = b.rng.uniform(14, 26)
    us_tax = b.derive("us_tax", round(total * us_rate / 100, -1), unit="$")
    limit = us_tax * foreign / total
    binds = b.pick([True, False])
    paid = limit * (b.rng.uniform(1.08, 1.5) if binds else b.rng.uniform(0.5, 0.92))
    b.derive("foreign_tax", round(paid, -1), unit="$")
    country = b.pick(["Germany", "Japan", "Canada", "France", "Australia"])
    b.ask(
        f"{{person}}, a US taxpayer, has worldwide taxable income of {{total_income}}, of which {{foreign_income}} "
        f"was earned in {country}. {{Their}} US income tax before credits is {{us_tax}}, and {{they}} paid "
        f"{{foreign_tax}} of income tax to {country} on the foreign income. The foreign tax credit is the "
        "foreign tax paid, but no more than the limit: US tax × foreign taxable income ÷ worldwide taxable "
        "income. How much US income tax does {person} owe after the credit?"
    )
    b.step("limit", "Credit limit, US tax × foreign income ÷ worldwide income",
           "round(us_tax * foreign_income / total_income, 2)", unit="$")
    if binds:
        b.step("tax_due", "US tax less the credit, capped at the limit because the foreign tax paid exceeds it",
               "us_tax - limit", unit="$")
    else:
        b.step("tax_due", "US tax less the full foreign tax paid, which is below the limit",
               "us_tax - foreign_tax", unit="$")


@template("easy", floor=10)
def capital_gains_tax(b: Builder) -> None:
    """Tax on a share sale at the long- or short-term rate depending on the holding period.

    Source: holding period and capital gains rates, IRS Publication 550, ch. 4 (more than one year is
    long-term). The holding period is drawn first (half short, half long); the sell price is drawn
    jointly as buy × (1 + g)^(months / 12), g of 4–30% a year.
    """
    b.person("person")
    b.integer("shares", 50, 2_000, unit="shares")
    buy = b.money("buy_price", 20, 150, step=0.01)
    long_term = b.pick([True, False])
    months = b.integer("holding_months", 13, 48, unit="months") if long_term else \
        b.integer("holding_months", 2, 12, unit="months")
    b.derive("sell_price", buy * (1 + b.rng.uniform(4, 30) / 100) ** (months / 12), unit="$")
    b.require(b.values["sell_price"] > buy * 1.005, "a gain on the sale")
    b.choice("lt_rate", {"15%": 15, "20%": 20})
    b.integer("st_rate", 22, 37, unit="%")
    b.ask(
        "{person} bought {shares} at {buy_price} each and sold them all {holding_months} later at "
        "{sell_price} each. Gains on assets held for more than 12 months are long-term and taxed at "
        "{lt_rate}; gains on assets held 12 months or less are short-term and taxed at {their} ordinary "
        "rate of {st_rate}. Ignoring commissions, how much tax is due on the gain?"
    )
    b.step("gain", "Capital gain, shares × (sale price − purchase price)",
           "shares * (sell_price - buy_price)", unit="$")
    if long_term:
        b.step("tax", f"Tax at the long-term rate (held {months} months, more than 12)",
               "gain * lt_rate / 100", unit="$")
    else:
        b.step("tax", f"Tax at the short-term ordinary rate (held {months} {b.plural(months, 'month')}, 12 or fewer)",
               "gain * st_rate / 100", unit="$")


@template("intermediate", floor=100)
def tax_after_standard_deduction(b: Builder) -> None:
    """Income tax on a salary after a standard deduction, under three brackets.

    Source: taxable income = gross income − standard deduction, taxed bracket by bracket, IRS
    Publication 17 (Your Federal Income Tax), ch. 9 and the tax rate schedules. Whether taxable income
    reaches the top bracket is drawn first (half each), so no step is a zero.
    """
    b.person("person")
    b.money("deduction", 12_000, 16_000, step=100)
    schedule = _brackets(b, 3)
    top = b.pick([2, 3])
    v = b.values
    lo = v["deduction"] + (v["t1"] if top == 2 else v["t2"]) + 1_000
    hi = v["deduction"] + (v["t2"] if top == 2 else 2.5 * v["t2"]) - 1_000
    b.money("gross", lo, hi, step=500)
    b.ask(
        "{person} earns a gross income of {gross} and takes the standard deduction of {deduction}. "
        f"Taxable income is taxed at {schedule}. How much income tax does {{they}} owe?"
    )
    b.step("taxable", "Taxable income", "gross - deduction", unit="$")
    b.step("tax1", "Tax in the first bracket", "t1 * r1 / 100", unit="$")
    if top == 2:
        b.step("tax2", "Tax in the second bracket, where taxable income ends", "(taxable - t1) * r2 / 100", unit="$")
        b.step("tax", "Total income tax", "tax1 + tax2", unit="$")
    else:
        b.step("tax2", "Tax on the whole second bracket", "(t2 - t1) * r2 / 100", unit="$")
        b.step("tax3", "Tax in the top bracket, on income above its threshold", "(taxable - t2) * r3 / 100", unit="$")
        b.step("tax", "Total income tax", "tax1 + tax2 + tax3", unit="$")


@template("intermediate", floor=0.5)
def marginal_vs_effective(b: Builder) -> None:
    """Gap, in percentage points, between the marginal and the effective tax rate.

    Source: marginal rate (the rate on the last dollar) and effective rate (tax ÷ taxable income), IRS
    Publication 17 and the tax rate schedules. The bracket of the last dollar is drawn first (second,
    third or top bracket equally often).
    """
    b.person("person")
    schedule = _brackets(b, 4)
    top = b.pick([2, 3, 4])
    v = b.values
    lo = v[f"t{top - 1}"] + 1_000
    hi = v[f"t{top}"] - 1_000 if top < 4 else 2 * v["t3"]
    b.money("income", lo, hi, step=100)
    b.ask(
        f"Taxable income is taxed at {schedule}. {{person}} has taxable income of {{income}}. By how many "
        "percentage points does {their} marginal tax rate exceed {their} effective (average) tax rate, "
        "tax divided by taxable income?"
    )
    b.step("tax", "Total tax across the brackets", _bracket_tax(top), unit="$")
    b.step("effective_rate", "Effective tax rate, tax ÷ taxable income", "tax / income * 100", unit="%")
    b.step("rate_gap", f"Marginal rate (the bracket above {b.displays[f't{top - 1}']}, where the last dollar "
           "falls) minus the effective rate", f"r{top} - effective_rate", unit="pp")


@template("advanced", floor=0.5)
def tax_with_deductions_and_credits(b: Builder) -> None:
    """Effective tax rate on salary after pre-tax saving, the larger deduction and a child credit.

    Source: adjusted gross income, standard versus itemized deduction, bracket tax and the
    non-refundable child tax credit, IRS Publication 17, ch. 9–11 and Publication 972. Whether the
    standard or the itemized deduction is larger is drawn first (half each).

    Concepts: pre-tax contributions; standard against itemized deduction; progressive brackets; non-refundable child
    credit; effective tax rate.
    """
    b.person("person")
    b.money("salary", 70_000, 250_000, step=1_000)
    b.money("pretax", 2_000, 20_000, step=500)
    standard = b.money("standard", 13_000, 15_000, step=100)
    itemize = b.pick([True, False])
    if itemize:
        b.money("itemized", standard + 500, 30_000, step=50)
    else:
        b.money("itemized", 8_000, standard - 500, step=50)
    b.choice("children", {"two children": 2, "three children": 3})
    b.money("credit_per_child", 1_500, 2_500, step=500)
    schedule = _brackets(b, 3)
    v = b.values
    taxable = v["salary"] - v["pretax"] - max(standard, v["itemized"])
    b.require(taxable > v["t2"] + 1_000, "taxable income reaches the top bracket")
    before = (v["t1"] * v["r1"] + (v["t2"] - v["t1"]) * v["r2"] + (taxable - v["t2"]) * v["r3"]) / 100
    b.require(before - v["children"] * v["credit_per_child"] > 0.01 * v["salary"], "tax left after the credit")
    b.ask(
        "{person} earns a salary of {salary} and contributes {pretax} to a pre-tax retirement plan, which is "
        "excluded from income. {They} may take either the standard deduction of {standard} or itemized "
        "deductions totaling {itemized}, whichever is larger. Taxable income is taxed at "
        f"{schedule}. {{person}} has {{children}} and claims a non-refundable credit of {{credit_per_child}} "
        "per child (it cannot reduce tax below zero). What is {their} effective tax rate, "
        "tax owed after credits as a percentage of salary?"
    )
    b.step("agi", "Income after the pre-tax contribution", "salary - pretax", unit="$")
    if itemize:
        b.step("taxable", "Taxable income, less the itemized deductions (larger than the standard deduction)",
               "agi - itemized", unit="$")
    else:
        b.step("taxable", "Taxable income, less the standard deduction (larger than the itemized deductions)",
               "agi - standard", unit="$")
    b.step("tax_before", "Tax before credits, summed over the three brackets", _bracket_tax(3, "taxable"),
           unit="$")
    b.step("credit", "Total child credit", "children * credit_per_child", unit="$")
    b.step("tax_after", "Tax owed after the credit (the credit is smaller than the tax)", "tax_before - credit",
           unit="$")
    b.step("effective_rate", "Effective tax rate on salary", "tax_after / salary * 100", unit="%")
