"""Internal rate of return: two-period IRR as a quadratic, single-payoff IRR against a hurdle, MIRR,
after-tax IRR with selling costs, and NPV/IRR ranking conflicts between mutually exclusive projects."""

from finchain_tasks.engine import Builder, template


@template("easy", floor=1)
def two_period_irr(b: Builder) -> None:
    """IRR of an outlay followed by two year-end inflows, solved in closed form as a quadratic.

    Source: IRR as the root of −C + CF1/(1+r) + CF2/(1+r)² = 0, Brealey, Myers & Allen, Principles of
    Corporate Finance, ch. 5; with x = 1 + r this is C·x² − CF1·x − CF2 = 0.
    """
    b.company("company")
    cost = b.money("cost", 20_000, 150_000, step=1_000)
    b.money("cf1", 0.45 * cost, 0.7 * cost, step=500)
    b.money("cf2", 0.65 * cost, 0.9 * cost, step=500)
    asset = b.pick(["a packaging machine", "a delivery van fleet upgrade", "new point-of-sale software"])
    b.ask(
        f"{{company}} spends {{cost}} today on {asset}. It returns {{cf1}} at the end of year 1 and "
        "{cf2} at the end of year 2, and nothing after that. What is the internal rate of return "
        "of the investment, in percent? (Writing x = 1 + IRR, the IRR condition is the quadratic "
        "cost·x² − CF1·x − CF2 = 0.)"
    )
    b.step("discriminant", "Discriminant of the quadratic, CF1 squared plus 4 times cost times CF2",
           "cf1 ** 2 + 4 * cost * cf2")
    b.step("root", "Positive root of the quadratic, which equals one plus the IRR",
           "(cf1 + sqrt(discriminant)) / (2 * cost)")
    b.step("irr_pct", "Internal rate of return", "(root - 1) * 100", unit="%")


@template("easy", floor=0.25)
def single_payoff_vs_hurdle(b: Builder) -> None:
    """Margin, in percentage points, of a single-payoff investment's IRR over a hurdle rate.

    Source: with one inflow F after n years the IRR is (F/C)^(1/n) − 1 in closed form, Ross,
    Westerfield & Jaffe, Corporate Finance, ch. 4 (and ch. 6 for the hurdle-rate rule).
    """
    b.company("company")
    cost = b.money("cost", 50_000, 500_000, step=5_000)
    years = b.integer("years", 2, 8, unit="years")
    hurdle = b.percent("hurdle", 8, 15)
    growth = b.rng.uniform(4, 20)  # not shown: the payoff is drawn jointly as cost × (1 + g)^n
    payoff = b.derive("payoff", round(cost * (1 + growth / 100) ** years, -2), unit="$")
    irr = ((payoff / cost) ** (1 / years) - 1) * 100
    b.require(abs(irr - hurdle) > 0.5 and round(abs(irr - hurdle), 4) != 1, "IRR at least half a point from the hurdle")
    project = b.pick(["a warehouse automation project", "a licensing deal", "a land purchase"])
    b.ask(
        f"{{company}} is evaluating {project} that costs {{cost}} today and pays a single lump sum of "
        "{payoff} at the end of {years}, with nothing in between. The firm's hurdle rate is {hurdle}. "
        "By how many percentage points does the project's IRR exceed the hurdle rate "
        "(give a negative number if it falls short)?"
    )
    b.step("irr_pct", "IRR, the payoff-to-cost ratio to the power one over the years, minus one",
           "((payoff / cost) ** (1 / years) - 1) * 100", unit="%")
    b.step("margin", "IRR minus the hurdle rate", "irr_pct - hurdle", unit="pp")


@template("intermediate", floor=1)
def modified_irr(b: Builder) -> None:
    """MIRR of a project with a second outlay, using separate finance and reinvestment rates.

    Source: MIRR = (terminal value of inflows ÷ present value of outflows)^(1/n) − 1, Brigham &
    Ehrhardt, Financial Management: Theory and Practice, ch. 11.
    """
    b.company("company")
    cost = b.money("cost", 100_000, 1_000_000, step=10_000)
    b.money("outlay1", 0.1 * cost, 0.3 * cost, step=5_000)
    b.money("cf2", 0.3 * cost, 0.5 * cost, step=5_000)
    b.money("cf3", 0.4 * cost, 0.6 * cost, step=5_000)
    b.money("cf4", 0.5 * cost, 0.8 * cost, step=5_000)
    b.percent("finance_rate", 5, 9)
    b.percent("reinvest_rate", 6, 12)
    b.ask(
        "{company} invests {cost} today and must spend a further {outlay1} at the end of year 1. "
        "The project then returns {cf2}, {cf3} and {cf4} at the ends of years 2, 3 and 4. Outflows "
        "are discounted to today at the finance rate of {finance_rate}, and inflows are reinvested "
        "to the end of year 4 at {reinvest_rate} (annual compounding). What is the project's modified "
        "internal rate of return (MIRR)?"
    )
    b.step("pv_outflows", "Present value of the outflows at the finance rate",
           "cost + outlay1 / (1 + finance_rate / 100)", unit="$")
    b.step("fv_inflows", "Terminal value of the inflows at the reinvestment rate",
           "cf2 * (1 + reinvest_rate / 100) ** 2 + cf3 * (1 + reinvest_rate / 100) + cf4", unit="$")
    b.step("value_ratio", "Terminal value ÷ present value of outflows", "fv_inflows / pv_outflows")
    b.step("mirr_pct", "Modified IRR, the fourth root of the ratio minus one", "(value_ratio ** (1 / 4) - 1) * 100",
           unit="%")


@template("intermediate", floor=1)
def after_tax_irr_with_sale(b: Builder) -> None:
    """After-tax IRR of a property held four years: taxed income, selling costs and capital gains tax.

    Source: after-tax cash flows and IRR, Brueggeman & Fisher, Real Estate Finance and Investments,
    ch. 11 (after-tax IRR on equity); gain = net sale proceeds − purchase price (no depreciation here).
    """
    b.person("person")
    cost = b.money("cost", 200_000, 1_500_000, step=5_000)
    b.money("income", 0.05 * cost, 0.09 * cost, step=500)
    b.integer("income_tax", 22, 37, unit="%")
    growth = b.rng.uniform(2, 7)  # not shown: the sale price is drawn jointly as cost × (1 + g)^4
    b.derive("sale_price", round(cost * (1 + growth / 100) ** 4, -3), unit="$")
    b.percent("selling_pct", 4, 7)
    b.choice("cg_rate", {"15%": 15, "20%": 20})
    b.require(b.values["sale_price"] * (1 - b.values["selling_pct"] / 100) > cost * 1.01, "a gain on the sale")
    b.ask(
        "{person} buys a small commercial unit for {cost} in cash. It earns net operating income of {income} "
        "at the end of each year for 4 years, taxed at {their} income tax rate of {income_tax}. At the end of "
        "year 4 {they} sells it for {sale_price}, paying selling costs of {selling_pct} of the sale price; "
        "the gain (net sale proceeds minus the purchase price) is taxed at the long-term capital gains rate "
        "of {cg_rate}. What is the after-tax internal rate of return, in percent?"
    )
    b.step("after_tax_income", "Yearly income after income tax", "income * (1 - income_tax / 100)", unit="$")
    b.step("net_sale", "Sale proceeds after selling costs", "sale_price * (1 - selling_pct / 100)", unit="$")
    b.step("cg_tax", "Capital gains tax on the gain", "(net_sale - cost) * cg_rate / 100", unit="$")
    b.step("final_flow", "Year-4 cash flow: income plus net sale proceeds minus capital gains tax",
           "after_tax_income + net_sale - cg_tax", unit="$")
    b.step("irr_pct", "After-tax IRR",
           "irr(-cost, after_tax_income, after_tax_income, after_tax_income, final_flow) * 100", unit="%")


@template("advanced")
def crossover_conflict(b: Builder) -> None:
    """Mutually exclusive projects whose IRR and NPV rankings conflict; NPV decides.

    Source: the crossover rate and the NPV-IRR ranking conflict for mutually exclusive projects,
    Brigham & Ehrhardt, Financial Management: Theory and Practice, ch. 11. Every draw has the
    conflict (the cost of capital lies below the crossover rate) and either label may hold the
    early-paying project, so neither answer dominates.

    Concepts: IRR of two-period projects; crossover rate of the incremental flows; NPV at the cost of capital; NPV-
    IRR ranking conflict for mutually exclusive projects.
    """
    b.company("company")
    cost = b.money("cost", 50_000, 500_000, step=5_000)
    early_first = b.pick([True, False])
    late_key, early_key = ("b", "a") if early_first else ("a", "b")
    e1 = b.money(f"{early_key}1", 0.65 * cost, 0.8 * cost, step=1_000)
    e2 = b.money(f"{early_key}2", 0.4 * cost, 0.55 * cost, step=1_000)
    l1 = b.money(f"{late_key}1", 0.1 * cost, 0.25 * cost, step=1_000)
    # the late project gives up (e1 - l1) in year 1 for 8-22% more in year 2: the crossover rate
    l2 = b.money(f"{late_key}2", e2 + 1.08 * (e1 - l1), e2 + 1.22 * (e1 - l1), step=1_000)
    wacc = b.percent("wacc", 5, 12)
    crossover = ((l2 - e2) / (e1 - l1) - 1) * 100
    irr_e = ((e1 + (e1 ** 2 + 4 * cost * e2) ** 0.5) / (2 * cost) - 1) * 100
    irr_l = ((l1 + (l1 ** 2 + 4 * cost * l2) ** 0.5) / (2 * cost) - 1) * 100
    b.require(wacc < crossover - 0.5 and irr_e > irr_l + 0.3, "IRR and NPV rankings conflict")
    la, lb = b.pick([("A", "B"), ("Alpha", "Beta"), ("North", "South"), ("X", "Y")])
    b.ask(
        f"{{company}} must choose between two mutually exclusive projects that each cost {{cost}} today. "
        f"Project {la} returns {{a1}} at the end of year 1 and {{a2}} at the end of year 2; Project {lb} "
        "returns {b1} at the end of year 1 and {b2} at the end of year 2. The cost of capital is {wacc}. "
        "Work out each project's IRR and NPV and the crossover rate at which their NPVs are equal. "
        f"Which project should the firm accept (answer 'Project {la}', 'Project {lb}' or 'Neither')?"
    )
    b.step("irr_a", f"IRR of Project {la}, the positive root of cost·x² − CF1·x − CF2 = 0 minus one",
           "((a1 + sqrt(a1 ** 2 + 4 * cost * a2)) / (2 * cost) - 1) * 100", unit="%")
    b.step("irr_b", f"IRR of Project {lb}, the positive root of cost·x² − CF1·x − CF2 = 0 minus one",
           "((b1 + sqrt(b1 ** 2 + 4 * cost * b2)) / (2 * cost) - 1) * 100", unit="%")
    b.step("crossover", f"Crossover rate, the IRR of the difference between the flows of {lb} and {la}",
           "((b2 - a2) / (a1 - b1) - 1) * 100", unit="%")
    b.step("npv_a", f"NPV of Project {la} at the cost of capital", "npv(wacc / 100, -cost, a1, a2)", unit="$")
    b.step("npv_b", f"NPV of Project {lb} at the cost of capital", "npv(wacc / 100, -cost, b1, b2)", unit="$")
    b.step("decision", "Project with the higher positive NPV (the IRR ranking is the opposite)",
           f"'Project {la}' if npv_a >= npv_b else 'Project {lb}'")
