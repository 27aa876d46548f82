"""Tax calculation: progressive brackets, deductions and credits, effective vs marginal rate, capital gains."""

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


@template("easy")
def two_bracket_tax(b: Builder) -> None:
    """Income tax under a two-bracket progressive schedule."""
    b.person("person")
    b.money("income", 20_000, 150_000, step=500)
    b.money("threshold", 30_000, 60_000, step=1_000)
    b.integer("low_rate", 10, 20, unit="%")
    b.integer("high_rate", 25, 35, unit="%")
    place = b.pick(["A small country", "A province", "An island state"])
    b.ask(
        f"{place} taxes income at {{low_rate}} on the first {{threshold}} and at {{high_rate}} on every "
        "dollar above {threshold}. {person} has taxable income of {income}. How much income tax does "
        "{person} owe?"
    )
    b.step("low_tax", "Tax on income in the lower bracket", "min(income, threshold) * low_rate / 100", unit="$")
    b.step("high_tax", "Tax on income in the upper bracket",
           "max(0, income - threshold) * high_rate / 100", unit="$")
    b.step("tax", "Total income tax", "low_tax + high_tax", unit="$")


@template("easy")
def capital_gains_tax(b: Builder) -> None:
    """Tax on a share sale, taxed at the long- or short-term rate depending on the holding period."""
    b.person("person")
    b.integer("shares", 50, 2_000, unit="shares")
    b.money("buy_price", 20, 60, step=0.25)
    b.money("sell_price", 65, 150, step=0.25)
    b.integer("holding_months", 2, 36, unit="months")
    b.choice("lt_rate", {"15%": 15, "20%": 20})
    b.integer("st_rate", 22, 37, unit="%")
    b.ask(
        "{person} bought {shares} at {buy_price} each and sold them all {holding_months} later at "
        "{sell_price} each. Gains on assets held for more than 12 months are long-term and taxed at "
        "{lt_rate}; gains on assets held 12 months or less are short-term and taxed at {person}'s ordinary "
        "rate of {st_rate}. Ignoring commissions, how much tax is due on the gain?"
    )
    b.step("gain", "Capital gain (shares × (sale price − purchase price))",
           "shares * (sell_price - buy_price)", unit="$")
    b.step("rate_applied", "Applicable tax rate (%)", "lt_rate if holding_months > 12 else st_rate", unit="%")
    b.step("tax", "Capital gains tax", "gain * rate_applied / 100", unit="$")


@template("intermediate")
def tax_after_standard_deduction(b: Builder) -> None:
    """Income tax on a salary after a standard deduction, under three brackets."""
    b.person("person")
    b.money("gross", 35_000, 250_000, step=500)
    b.money("deduction", 12_000, 16_000, step=100)
    schedule = _brackets(b, 3)
    b.ask(
        "{person} earns a gross income of {gross} and takes the standard deduction of {deduction}. "
        f"Taxable income is taxed at {schedule}. How much income tax does {{person}} owe?"
    )
    b.step("taxable", "Taxable income", "gross - deduction", unit="$")
    b.step("tax1", "Tax in the first bracket", "min(taxable, t1) * r1 / 100", unit="$")
    b.step("tax2", "Tax in the second bracket", "max(0, min(taxable, t2) - t1) * r2 / 100", unit="$")
    b.step("tax3", "Tax in the top bracket", "max(0, taxable - t2) * r3 / 100", unit="$")
    b.step("tax", "Total income tax", "tax1 + tax2 + tax3", unit="$")


@template("intermediate")
def marginal_vs_effective(b: Builder) -> None:
    """Gap, in percentage points, between the marginal and the effective tax rate."""
    b.person("person")
    b.money("income", 20_050, 200_050, step=100)
    schedule = _brackets(b, 4)
    b.ask(
        f"Taxable income is taxed at {schedule}. {{person}} has taxable income of {{income}}. By how many "
        "percentage points does {person}'s marginal tax rate exceed the effective (average) tax rate, "
        "tax divided by taxable income?"
    )
    b.step("tax", "Total tax across the brackets",
           "(min(income, t1) * r1 + max(0, min(income, t2) - t1) * r2 + max(0, min(income, t3) - t2) * r3"
           " + max(0, income - t3) * r4) / 100", unit="$")
    b.step("effective_rate", "Effective tax rate (%)", "tax / income * 100", unit="%")
    b.step("marginal_rate", "Marginal rate (bracket of the last dollar, %)",
           "r4 if income > t3 else (r3 if income > t2 else (r2 if income > t1 else r1))", unit="%")
    b.step("rate_gap", "Marginal minus effective rate (percentage points)",
           "marginal_rate - effective_rate", unit="%")


@template("advanced")
def tax_with_deductions_and_credits(b: Builder) -> None:
    """Effective tax rate on salary after pre-tax saving, the larger deduction and a child credit."""
    b.person("person")
    b.money("salary", 70_000, 250_000, step=1_000)
    b.money("pretax", 2_000, 20_000, step=500)
    b.money("standard", 13_000, 15_000, step=100)
    b.money("itemized", 8_050, 30_050, step=100)
    b.choice("children", {"one child": 1, "two children": 2, "three children": 3})
    b.money("credit_per_child", 1_500, 2_500, step=500)
    schedule = _brackets(b, 3)
    b.ask(
        "{person} earns a salary of {salary} and contributes {pretax} to a pre-tax retirement plan, which is "
        "excluded from income. {person} may take either the standard deduction of {standard} or itemized "
        "deductions totalling {itemized}, whichever is larger. Taxable income is taxed at "
        f"{schedule}. {{person}} has {{children}} and claims a non-refundable credit of {{credit_per_child}} "
        "per child (it cannot reduce tax below zero). What is {person}'s effective tax rate, "
        "tax owed after credits as a percentage of salary?"
    )
    b.step("agi", "Income after the pre-tax contribution", "salary - pretax", unit="$")
    b.step("deduction", "Deduction taken (larger of standard and itemized)", "max(standard, itemized)", unit="$")
    b.step("taxable", "Taxable income", "max(0, agi - deduction)", unit="$")
    b.step("tax_before", "Tax before credits (sum over the three brackets)",
           "(min(taxable, t1) * r1 + max(0, min(taxable, t2) - t1) * r2 + max(0, taxable - t2) * r3) / 100", unit="$")
    b.step("credit", "Total child credit", "children * credit_per_child", unit="$")
    b.step("tax_after", "Tax owed after the non-refundable credit", "max(0, tax_before - credit)", unit="$")
    b.step("effective_rate", "Effective tax rate on salary (%)", "tax_after / salary * 100", unit="%")
