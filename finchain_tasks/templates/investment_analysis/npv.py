"""Net present value: a single future flow, growing perpetuities, sensitivity to the discount rate,
project choice with salvage values and clean-up costs, and a two-stage growth valuation."""

from finchain_tasks.engine import Builder, template


@template("easy", floor=50)
def single_future_flow(b: Builder) -> None:
    """NPV of paying a cost today for one lump sum received years later.

    Source: NPV = −C + F/(1 + r)^n, Brealey, Myers & Allen, Principles of Corporate Finance, ch. 2.
    """
    b.person("person")
    cost = b.money("cost", 5_000, 100_000, step=500)
    payoff = b.money("payoff", 1.1 * cost, 2.0 * cost, step=500)
    years = b.integer("years", 2, 10, unit="years")
    rate = b.percent("rate", 3, 12)
    b.require(abs(payoff / (1 + rate / 100) ** years - cost) > 0.02 * cost, "NPV at least 2% of the cost away from 0")
    deal = b.pick(["a plot of land", "a zero-coupon note", "a stake in a friend's bakery"])
    b.ask(
        f"{{person}} can buy {deal} for {{cost}} today and expects to receive {{payoff}} for it in "
        "{years}. With a required return of {rate} per year (compounded annually), what is the net "
        "present value of the investment? Round to the nearest cent."
    )
    b.step("pv_payoff", "Present value of the future payoff", "payoff / (1 + rate / 100) ** years", unit="$")
    b.step("npv_value", "Net present value", "pv_payoff - cost", unit="$")


@template("easy", floor=1_000)
def growing_perpetuity_project(b: Builder) -> None:
    """NPV of a project whose cash flow grows forever at a constant rate.

    Source: growing perpetuity PV = CF1 / (r − g), Brealey, Myers & Allen, Principles of Corporate
    Finance, ch. 2.
    """
    b.company("company")
    cost = b.money("cost", 500_000, 5_000_000, step=50_000)
    cf1 = b.money("cf1", 0.05 * cost, 0.1 * cost, step=5_000)
    growth = b.percent("growth", 1, 4)
    rate = b.percent("rate", 8, 14)
    b.require(abs(cf1 / ((rate - growth) / 100) - cost) > 0.03 * cost, "NPV at least 3% of the cost away from 0")
    site = b.pick(["a new distribution center", "a rooftop solar array", "a regional service hub"])
    b.ask(
        f"{{company}} can build {site} for {{cost}}. It is expected to produce {{cf1}} of net cash flow "
        "at the end of the first year, growing at {growth} a year forever. If the discount rate is "
        "{rate}, what is the project's NPV? Round to the nearest cent."
    )
    b.step("pv_perpetuity", "Present value of the growing perpetuity, first cash flow ÷ (rate − growth)",
           "cf1 / ((rate - growth) / 100)", unit="$")
    b.step("npv_value", "Net present value", "pv_perpetuity - cost", unit="$")


@template("intermediate", floor=100)
def rate_sensitivity(b: Builder) -> None:
    """Change in an annuity project's NPV when the discount rate rises.

    Source: NPV = CF × [1 − (1 + r)^−n] / r − C, Ross, Westerfield & Jaffe, Corporate Finance, ch. 4
    and ch. 6 (sensitivity analysis). The yearly cash flow is drawn as a fraction of the cost, set by
    a project IRR of 8–24%.
    """
    b.company("company")
    cost = b.money("cost", 100_000, 2_000_000, step=10_000)
    years = b.integer("years", 4, 10, unit="years")
    project_irr = b.rng.uniform(0.08, 0.24)  # not shown: sets the cash flow as a fraction of the cost
    b.derive("annual_cf", round(cost * project_irr / (1 - (1 + project_irr) ** -years), -2), unit="$")
    rate = b.percent("rate", 5, 10)
    rate_high = b.percent("rate_high", rate + 1, rate + 4)
    cf = b.values["annual_cf"]
    npvs = [cf * (1 - (1 + r / 100) ** -years) / (r / 100) - cost for r in (rate, rate_high)]
    b.require(min(abs(x) for x in npvs) > 0.01 * cost, "both NPVs at least 1% of the cost away from 0")
    b.ask(
        "{company} is considering a project costing {cost} today that pays {annual_cf} at the end of each "
        "year for {years}. The analysts discount at {rate}, but the treasurer warns that the rate could "
        "be {rate_high} instead. By how much would the NPV change if the higher rate applies "
        "(new NPV minus original NPV)? Round to the nearest cent."
    )
    b.step("factor_base", "Annuity factor at the original rate",
           "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)")
    b.step("npv_base", "NPV at the original rate", "round(annual_cf * factor_base - cost, 2)", unit="$")
    b.step("factor_high", "Annuity factor at the higher rate",
           "(1 - (1 + rate_high / 100) ** (-years)) / (rate_high / 100)")
    b.step("npv_high", "NPV at the higher rate", "round(annual_cf * factor_high - cost, 2)", unit="$")
    b.step("npv_change", "Change in NPV", "npv_high - npv_base", unit="$")


def _npvs(v: dict, r: float) -> tuple[float, float]:
    """NPVs of the two projects of :func:`project_choice`, to draw the case before writing it."""
    d = 1 + r / 100
    npv_a = v["a1"] / d + v["a2"] / d ** 2 + (v["a3"] + v["salvage"]) / d ** 3 - v["cost_a"]
    annuity = (1 - d ** -3) / (r / 100)
    return npv_a, v["level_cf"] * annuity - v["cleanup"] / d ** 3 - v["cost_b"]


@template("intermediate")
def project_choice(b: Builder) -> None:
    """Choose between a project with a salvage value and one with a clean-up cost, by NPV.

    Source: salvage value and end-of-life clean-up (remediation) costs as terminal cash flows,
    Brealey, Myers & Allen, Principles of Corporate Finance, ch. 6. The ranges make each outcome
    reachable (measured over 1,000 seeds: A 30%, B 40%, neither 30%).
    """
    b.company("company")
    cost_a = b.money("cost_a", 100_000, 800_000, step=10_000)
    b.money("a1", 0.2 * cost_a, 0.4 * cost_a, step=1_000)
    b.money("a2", 0.3 * cost_a, 0.45 * cost_a, step=1_000)
    b.money("a3", 0.3 * cost_a, 0.5 * cost_a, step=1_000)
    b.money("salvage", 0.05 * cost_a, 0.15 * cost_a, step=1_000)
    cost_b = b.money("cost_b", 0.6 * cost_a, 1.4 * cost_a, step=10_000)
    b.money("level_cf", 0.36 * cost_b, 0.5 * cost_b, step=1_000)
    b.money("cleanup", 0.05 * cost_b, 0.2 * cost_b, step=1_000)
    rate = b.percent("rate", 6, 12)
    npv_a, npv_b = _npvs(b.values, rate)
    b.require(abs(npv_a - npv_b) > 1_000 and min(abs(npv_a), abs(npv_b)) > 1_000, "a clear choice")
    # the annuity factor is shown to 6 decimals, about ±0.2 on a level flow's present value: an NPV this
    # far from zero keeps "level flow × factor" within 0.01% of the NPV shown when a reader redoes it
    b.require(min(abs(npv_a), abs(npv_b)) > 5_000, "an NPV the shown annuity factor reproduces")
    la, lb = b.pick([("A", "B"), ("Cedar", "Maple"), ("East", "West")])
    b.ask(
        f"{{company}} can undertake only one of two three-year projects. Project {la} costs {{cost_a}}, "
        "returns {a1}, {a2} and {a3} at the ends of years 1, 2 and 3, and its equipment is sold for a "
        f"salvage value of {{salvage}} at the end of year 3. Project {lb} costs {{cost_b}} and returns "
        "{level_cf} at the end of each of the three years, but the site must then be cleaned up at a cost "
        "of {cleanup}, paid at the end of year 3. Neither project will be repeated. At a discount rate of "
        f"{{rate}}, which should be chosen (answer 'Project {la}', 'Project {lb}' or 'Neither')?"
    )
    b.step("npv_a", f"NPV of Project {la}, with the salvage value added to the year-3 flow",
           "npv(rate / 100, -cost_a, a1, a2, a3 + salvage)", unit="$")
    b.step("annuity_factor", "Three-year annuity factor", "(1 - (1 + rate / 100) ** (-3)) / (rate / 100)")
    b.step("npv_b", f"NPV of Project {lb}: level flows less the discounted clean-up cost",
           "level_cf * annuity_factor - cleanup / (1 + rate / 100) ** 3 - cost_b", unit="$")
    b.step("decision", "Project with the higher positive NPV",
           f"'Neither' if max(npv_a, npv_b) <= 0 else ('Project {la}' if npv_a > npv_b else 'Project {lb}')")


@template("advanced", floor=10_000)
def two_stage_growth(b: Builder) -> None:
    """NPV of a project with three years of fast growth followed by a growing-perpetuity terminal value.

    Source: two-stage discounted cash flow with a Gordon terminal value, Koller, Goedhart & Wessels,
    Valuation (McKinsey), ch. 10.

    Concepts: growing cash flows in an explicit period; discounting; Gordon growing-perpetuity terminal value; net
    present value.
    """
    b.company("company")
    cost = b.money("cost", 1_000_000, 10_000_000, step=50_000)
    cf1 = b.money("cf1", 0.05 * cost, 0.09 * cost, step=5_000)
    gh = b.percent("growth_high", 6, 15)
    gl = b.percent("growth_long", 1, 3)
    r = b.percent("rate", 9, 13)
    d = 1 + r / 100
    cfs = [cf1, cf1 * (1 + gh / 100), cf1 * (1 + gh / 100) ** 2]
    value = sum(cf / d ** t for t, cf in enumerate(cfs, 1)) + cfs[2] * (1 + gl / 100) / ((r - gl) / 100) / d ** 3
    b.require(abs(value - cost) > 0.02 * cost, "NPV at least 2% of the cost away from 0")
    b.ask(
        "{company} is weighing an acquisition of a product line for {cost}. The line should produce {cf1} "
        "of free cash flow at the end of year 1, growing at {growth_high} a year in years 2 and 3, and "
        "then at {growth_long} a year forever after year 3. With a discount rate of {rate} "
        "(annual compounding, end-of-year flows), what is the NPV of the acquisition? Round to the nearest cent."
    )
    b.step("cf2", "Year-2 cash flow", "cf1 * (1 + growth_high / 100)", unit="$")
    b.step("cf3", "Year-3 cash flow", "round(cf2 * (1 + growth_high / 100), 2)", unit="$")
    b.step("pv_explicit", "Present value of the year 1–3 cash flows",
           "round(cf1 / (1 + rate / 100) + cf2 / (1 + rate / 100) ** 2 + cf3 / (1 + rate / 100) ** 3, 2)",
           unit="$")
    b.step("terminal_value", "Terminal value at year 3, the year-4 cash flow ÷ (rate − long-run growth)",
           "round(cf1 * (1 + growth_high / 100) ** 2 * (1 + growth_long / 100) / ((rate - growth_long) / 100), 2)",
           unit="$")
    b.step("pv_terminal", "Present value of the terminal value", "round(terminal_value / (1 + rate / 100) ** 3, 2)",
           unit="$")
    b.step("npv_value", "Net present value", "pv_explicit + pv_terminal - cost", unit="$")
