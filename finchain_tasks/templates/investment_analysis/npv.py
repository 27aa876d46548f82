"""Net present value: single and multiple flows, growing perpetuities, project choice, rate sensitivity."""

from finchain_tasks.engine import Builder, template


@template("easy")
def single_future_flow(b: Builder) -> None:
    """NPV of paying a cost today for one lump sum received years later."""
    b.person("person")
    cost = b.money("cost", 5_000, 100_000, step=500)
    b.money("payoff", 1.1 * cost, 2.0 * cost, step=500)
    b.integer("years", 2, 10, unit="years")
    b.percent("rate", 3, 12)
    deal = b.pick(["a plot of land", "a zero-coupon note", "a stake in a friend's bakery"])
    b.ask(
        f"{{person}} can buy {deal} for {{cost}} today and expects to receive {{payoff}} for it in "
        "{years}. With a required return of {rate} per year (compounded annually), what is the net "
        "present value of the investment?"
    )
    b.step("pv_payoff", "Present value of the future payoff", "payoff / (1 + rate / 100) ** years", unit="$")
    b.step("npv_value", "Net present value", "pv_payoff - cost", unit="$")


@template("easy")
def growing_perpetuity_project(b: Builder) -> None:
    """NPV of a project whose cash flow grows forever at a constant rate."""
    b.company("company")
    cost = b.money("cost", 500_000, 5_000_000, step=50_000)
    b.money("cf1", 0.05 * cost, 0.1 * cost, step=5_000)
    b.percent("growth", 1, 4)
    b.percent("rate", 8, 14)
    b.ask(
        "{company} can open a new distribution centre for {cost}. It is expected to produce {cf1} of "
        "net cash flow at the end of the first year, growing at {growth} a year forever. If the "
        "discount rate is {rate}, what is the project's NPV?"
    )
    b.step("pv_perpetuity", "Present value of the growing perpetuity CF1 / (r − g)",
           "cf1 / ((rate - growth) / 100)", unit="$")
    b.step("npv_value", "Net present value", "pv_perpetuity - cost", unit="$")


@template("intermediate")
def rate_sensitivity(b: Builder) -> None:
    """Change in an annuity project's NPV when the discount rate rises."""
    b.company("company")
    b.money("cost", 100_000, 2_000_000, step=10_000)
    b.money("annual_cf", 20_000, 400_000, step=1_000)
    b.integer("years", 4, 10, unit="years")
    rate = b.percent("rate", 5, 10)
    b.percent("rate_high", rate + 1, rate + 4)
    b.ask(
        "{company} is considering a project costing {cost} today that pays {annual_cf} at the end of each "
        "year for {years}. The analysts discount at {rate}, but the treasurer warns that the rate could "
        "be {rate_high} instead. By how much would the NPV change if the higher rate applies "
        "(new NPV minus original NPV)?"
    )
    b.step("factor_base", "Annuity factor at the original rate",
           "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)")
    b.step("npv_base", "NPV at the original rate", "annual_cf * factor_base - cost", unit="$")
    b.step("factor_high", "Annuity factor at the higher rate",
           "(1 - (1 + rate_high / 100) ** (-years)) / (rate_high / 100)")
    b.step("npv_high", "NPV at the higher rate", "annual_cf * factor_high - cost", unit="$")
    b.step("npv_change", "Change in NPV", "npv_high - npv_base", unit="$")


@template("intermediate")
def project_choice(b: Builder) -> None:
    """Choose between an uneven-flow project and a level-flow project by NPV."""
    b.company("company")
    cost_a = b.money("cost_a", 100_000, 800_000, step=10_000)
    b.money("a1", 0.2 * cost_a, 0.4 * cost_a, step=1_000)
    b.money("a2", 0.35 * cost_a, 0.5 * cost_a, step=1_000)
    b.money("a3", 0.45 * cost_a, 0.65 * cost_a, step=1_000)
    cost_b = b.money("cost_b", 0.6 * cost_a, 1.4 * cost_a, step=10_000)
    b.money("level_cf", 0.35 * cost_b, 0.48 * cost_b, step=1_000)
    b.percent("rate", 6, 12)
    la, lb = b.pick([("A", "B"), ("Cedar", "Maple"), ("East", "West")])
    b.ask(
        f"{{company}} can undertake only one of two three-year projects. Project {la} costs {{cost_a}} and "
        f"returns {{a1}}, {{a2}} and {{a3}} at the ends of years 1, 2 and 3. Project {lb} costs {{cost_b}} "
        "and returns {level_cf} at the end of each of the three years. Neither project will be repeated. "
        f"At a discount rate of {{rate}}, which should be chosen (answer 'Project {la}', 'Project {lb}' "
        "or 'Neither')?"
    )
    b.step("npv_a", f"NPV of Project {la}",
           "a1 / (1 + rate / 100) + a2 / (1 + rate / 100) ** 2 + a3 / (1 + rate / 100) ** 3 - cost_a", unit="$")
    b.step("annuity_factor", "Three-year annuity factor", "(1 - (1 + rate / 100) ** (-3)) / (rate / 100)")
    b.step("npv_b", f"NPV of Project {lb}", "level_cf * annuity_factor - cost_b", unit="$")
    b.step("decision", "Project with the higher positive NPV",
           f"'Neither' if max(npv_a, npv_b) <= 0 else ('Project {la}' if npv_a >= npv_b else 'Project {lb}')")


@template("advanced")
def two_stage_growth(b: Builder) -> None:
    """NPV of a project with three years of fast growth followed by a growing-perpetuity terminal value."""
    b.company("company")
    cost = b.money("cost", 1_000_000, 10_000_000, step=50_000)
    b.money("cf1", 0.05 * cost, 0.09 * cost, step=5_000)
    b.percent("growth_high", 6, 15)
    b.percent("growth_long", 1, 3)
    b.percent("rate", 9, 13)
    b.ask(
        "{company} is weighing an acquisition of a product line for {cost}. The line should produce {cf1} "
        "of free cash flow at the end of year 1, growing at {growth_high} a year in years 2 and 3, and "
        "then at {growth_long} a year forever after year 3. With a discount rate of {rate} "
        "(annual compounding, end-of-year flows), what is the NPV of the acquisition?"
    )
    b.step("cf2", "Year-2 cash flow", "cf1 * (1 + growth_high / 100)", unit="$")
    b.step("cf3", "Year-3 cash flow", "cf2 * (1 + growth_high / 100)", unit="$")
    b.step("pv_explicit", "Present value of the year 1–3 cash flows",
           "cf1 / (1 + rate / 100) + cf2 / (1 + rate / 100) ** 2 + cf3 / (1 + rate / 100) ** 3", unit="$")
    b.step("terminal_value", "Terminal value at year 3, CF4 / (r − g)",
           "cf3 * (1 + growth_long / 100) / ((rate - growth_long) / 100)", unit="$")
    b.step("pv_terminal", "Present value of the terminal value", "terminal_value / (1 + rate / 100) ** 3", unit="$")
    b.step("npv_value", "Net present value", "pv_explicit + pv_terminal - cost", unit="$")
