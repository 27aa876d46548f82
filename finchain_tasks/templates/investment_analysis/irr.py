"""Internal rate of return: two-period IRR, uneven flows, MIRR, comparing projects."""

from finchain_tasks.engine import Builder, template


@template("easy")
def two_period_irr(b: Builder) -> None:
    """IRR of an outlay followed by two year-end inflows, solved as a quadratic."""
    b.company("company")
    cost = b.money("cost", 20_000, 150_000, step=1_000)
    b.money("cf1", 0.45 * cost, 0.7 * cost, step=500)
    b.money("cf2", 0.65 * cost, 0.9 * cost, step=500)
    asset = b.pick(["a packaging machine", "a delivery van fleet upgrade", "new point-of-sale software"])
    b.ask(
        f"{{company}} spends {{cost}} today on {asset}. It returns {{cf1}} at the end of year 1 and "
        "{cf2} at the end of year 2, and nothing after that. What is the internal rate of return "
        "of the investment, in percent?"
    )
    b.step("discriminant", "Discriminant of cost·x² − CF1·x − CF2 = 0, with x = 1 + IRR",
           "cf1 ** 2 + 4 * cost * cf2")
    b.step("growth", "Positive root x = 1 + IRR", "(cf1 + sqrt(discriminant)) / (2 * cost)")
    b.step("irr_pct", "Internal rate of return", "(growth - 1) * 100", unit="%")


@template("easy")
def uneven_flows_vs_hurdle(b: Builder) -> None:
    """Margin of a project's IRR over its hurdle rate, with four uneven annual inflows."""
    b.company("company")
    cost = b.money("cost", 50_000, 500_000, step=5_000)
    b.money("cf1", 0.2 * cost, 0.35 * cost, step=1_000)
    b.money("cf2", 0.3 * cost, 0.45 * cost, step=1_000)
    b.money("cf3", 0.35 * cost, 0.5 * cost, step=1_000)
    b.money("cf4", 0.25 * cost, 0.4 * cost, step=1_000)
    b.percent("hurdle", 8, 15)
    project = b.pick(["a warehouse automation project", "a new product line", "a plant expansion"])
    b.ask(
        f"{{company}} is evaluating {project} that costs {{cost}} today and is expected to return "
        "{cf1}, {cf2}, {cf3} and {cf4} at the ends of years 1 to 4. The firm's hurdle rate is {hurdle}. "
        "By how many percentage points does the project's IRR exceed the hurdle rate "
        "(give a negative number if it falls short)?"
    )
    b.step("irr_pct", "Internal rate of return (rate where NPV = 0)",
           "irr(-cost, cf1, cf2, cf3, cf4) * 100", unit="%")
    b.step("margin", "IRR minus hurdle rate (percentage points)", "irr_pct - hurdle", unit="%")


@template("intermediate")
def modified_irr(b: Builder) -> None:
    """MIRR of a project with a second outlay, using separate finance and reinvestment rates."""
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
    b.step("mirr_pct", "Modified IRR over 4 years", "(value_ratio ** (1 / 4) - 1) * 100", unit="%")


@template("intermediate")
def growing_flows_with_salvage(b: Builder) -> None:
    """IRR of a project whose inflows grow each year and that ends with a salvage value."""
    b.company("company")
    cost = b.money("cost", 200_000, 2_000_000, step=10_000)
    b.money("cf1", 0.22 * cost, 0.35 * cost, step=1_000)
    b.percent("growth", 2, 8)
    b.money("salvage", 0.05 * cost, 0.2 * cost, step=1_000)
    asset = b.pick(["a fleet of electric trucks", "a bottling line", "a data-centre cooling retrofit"])
    b.ask(
        f"{{company}} buys {asset} for {{cost}}. It generates {{cf1}} at the end of year 1, and that "
        "cash flow grows by {growth} a year through year 4, when the equipment is also sold for a "
        "salvage value of {salvage}. What is the project's internal rate of return?"
    )
    b.step("cf2", "Year-2 cash flow", "cf1 * (1 + growth / 100)", unit="$")
    b.step("cf3", "Year-3 cash flow", "cf2 * (1 + growth / 100)", unit="$")
    b.step("cf4_total", "Year-4 cash flow including salvage", "cf3 * (1 + growth / 100) + salvage", unit="$")
    b.step("irr_pct", "Internal rate of return", "irr(-cost, cf1, cf2, cf3, cf4_total) * 100", unit="%")


@template("advanced")
def crossover_conflict(b: Builder) -> None:
    """Choose between two mutually exclusive projects when IRR and NPV rankings may conflict."""
    b.company("company")
    cost = b.money("cost", 50_000, 500_000, step=5_000)
    a1 = b.money("a1", 0.65 * cost, 0.8 * cost, step=1_000)
    a2 = b.money("a2", 0.4 * cost, 0.55 * cost, step=1_000)
    b1 = b.money("b1", 0.1 * cost, 0.25 * cost, step=1_000)
    # B gives up (a1 - b1) in year 1 for 3-20% more in year 2, so the crossover rate is 3-20%.
    b.money("b2", a2 + 1.03 * (a1 - b1), a2 + 1.2 * (a1 - b1), step=1_000)
    b.percent("wacc", 5, 12)
    la, lb = b.pick([("A", "B"), ("Alpha", "Beta"), ("North", "South"), ("X", "Y")])
    b.ask(
        f"{{company}} must choose between two mutually exclusive projects that each cost {{cost}} today. "
        f"Project {la} returns {{a1}} at the end of year 1 and {{a2}} at the end of year 2; Project {lb} "
        "returns {b1} at the end of year 1 and {b2} at the end of year 2. The cost of capital is {wacc}. "
        f"Work out each project's IRR and NPV and the crossover rate at which their NPVs are equal. "
        f"Which project should the firm accept (answer 'Project {la}', 'Project {lb}' or 'Neither')?"
    )
    b.step("irr_a", f"IRR of Project {la} (quadratic root)",
           "((a1 + sqrt(a1 ** 2 + 4 * cost * a2)) / (2 * cost) - 1) * 100", unit="%")
    b.step("irr_b", f"IRR of Project {lb} (quadratic root)",
           "((b1 + sqrt(b1 ** 2 + 4 * cost * b2)) / (2 * cost) - 1) * 100", unit="%")
    b.step("crossover", f"Crossover rate (IRR of {lb} − {la} flows)", "(b2 - a2) / (a1 - b1) * 100 - 100", unit="%")
    b.step("npv_a", f"NPV of Project {la}", "npv(wacc / 100, -cost, a1, a2)", unit="$")
    b.step("npv_b", f"NPV of Project {lb}", "npv(wacc / 100, -cost, b1, b2)", unit="$")
    b.step("decision", "Project with the higher positive NPV",
           f"'Neither' if max(npv_a, npv_b) <= 0 else ('Project {la}' if npv_a >= npv_b else 'Project {lb}')")
