"""Scenario planning: probability-weighted outcomes, dispersion across best/base/worst cases, choosing
between projects, probability-weighted expected credit loss, and an abandonment decision in the worst case.

Sources: Brealey, Myers and Allen, Principles of Corporate Finance (13th ed.), ch. 10 (scenario
analysis) and ch. 22 (the option to abandon); Bodie, Kane and Marcus, Investments, ch. 5 (scenario
expected return and standard deviation); IFRS 9, para 5.5.17 (probability-weighted expected credit losses).
"""

from finchain_tasks.engine import Builder, template


def _probabilities(b: Builder) -> None:
    """Best, base and worst probabilities in whole percent that add up to 100."""
    b.percent("p_best", 15, 35, decimals=0)
    b.percent("p_worst", 10, 35, decimals=0)
    b.derive("p_base", 100 - b.values["p_best"] - b.values["p_worst"], unit="%", decimals=0)


@template("easy")
def expected_profit(b: Builder) -> None:
    """Expected profit from revenue scenarios with a fixed margin and fixed costs (Brealey et al., ch. 10)."""
    b.company("firm")
    b.money("rev_base", 5_000_000, 300_000_000, step=100_000)
    b.derive("rev_best", 100_000 * round(b.values["rev_base"] * b.rng.uniform(1.1, 1.4) / 100_000), unit="$")
    b.derive("rev_worst", 100_000 * round(b.values["rev_base"] * b.rng.uniform(0.6, 0.9) / 100_000), unit="$")
    _probabilities(b)
    b.percent("margin", 25, 60, decimals=0)
    b.derive("fixed", 100_000 * round(b.values["rev_base"] * b.values["margin"] / 100 * b.rng.uniform(0.3, 0.7)
                                      / 100_000), unit="$")
    b.ask(
        "{firm} plans next year with three revenue scenarios: best case {rev_best} (probability {p_best}), "
        "base case {rev_base} ({p_base}) and worst case {rev_worst} ({p_worst}). Its contribution margin is "
        "{margin} of revenue and fixed costs are {fixed}. What is the expected operating profit?"
    )
    b.step("expected_revenue", "Probability-weighted revenue",
           "p_best / 100 * rev_best + p_base / 100 * rev_base + p_worst / 100 * rev_worst", unit="$")
    b.step("profit", "Expected profit: margin × expected revenue − fixed costs",
           "margin / 100 * expected_revenue - fixed", unit="$")


@template("easy")
def scenario_return_dispersion(b: Builder) -> None:
    """Expected return and standard deviation across three scenarios (Bodie, Kane and Marcus, ch. 5)."""
    b.company("fund", kind="fund")
    b.percent("r_best", 12, 35, decimals=1)
    b.percent("r_base", 3, 11, decimals=1)
    b.derive("r_worst", -round(b.rng.uniform(5, 30), 1), unit="%", decimals=1)
    _probabilities(b)
    b.ask(
        "An analyst models {fund}'s return next year under three scenarios: boom {r_best} with probability "
        "{p_best}, normal {r_base} with probability {p_base}, and recession {r_worst} with probability "
        "{p_worst}. What is the standard deviation of the return?"
    )
    b.step("mean", "Expected return (%)", "p_best / 100 * r_best + p_base / 100 * r_base + p_worst / 100 * r_worst",
           unit="%")
    b.step("variance", "Variance: probability-weighted squared deviations",
           "p_best / 100 * (r_best - mean) ** 2 + p_base / 100 * (r_base - mean) ** 2 "
           "+ p_worst / 100 * (r_worst - mean) ** 2")
    b.step("sd", "Standard deviation (%)", "sqrt(variance)", unit="%")


@template("intermediate")
def choose_project_by_expected_npv(b: Builder) -> None:
    """Choice between two projects by expected NPV across scenarios (Brealey et al., ch. 10)."""
    winner = b.pick(["Project North", "Project South"])
    b.company("firm")
    _probabilities(b)
    base = b.rng.uniform(2, 40) * 1e6
    a = [base * b.rng.uniform(1.5, 2.5), base, -base * b.rng.uniform(0.3, 1.2)]
    c = [base * b.rng.uniform(1.1, 1.6), base * b.rng.uniform(0.8, 1.3), base * b.rng.uniform(-0.3, 0.4)]
    v = b.values
    weights = [v["p_best"] / 100, v["p_base"] / 100, v["p_worst"] / 100]
    ev_a = sum(w * x for w, x in zip(weights, a, strict=True))
    ev_c = sum(w * x for w, x in zip(weights, c, strict=True))
    b.require(abs(ev_a - ev_c) > 0.03 * base, "a clear winner")
    north, south = (a, c) if (ev_a > ev_c) == (winner == "Project North") else (c, a)
    for name, values in (("north", north), ("south", south)):
        for case, x in zip(("best", "base", "worst"), values, strict=True):
            b.derive(f"{name}_{case}", 10_000 * round(x / 10_000), unit="$")
    b.ask(
        "{firm} must choose one of two projects. Their NPVs in the best, base and worst cases are: Project "
        "North {north_best}, {north_base} and {north_worst}; Project South {south_best}, {south_base} and "
        "{south_worst}. The scenario probabilities are {p_best}, {p_base} and {p_worst}. Which project has the "
        "higher expected NPV (answer 'Project North' or 'Project South')?"
    )
    b.step("ev_north", "Expected NPV of Project North",
           "p_best / 100 * north_best + p_base / 100 * north_base + p_worst / 100 * north_worst", unit="$")
    b.step("ev_south", "Expected NPV of Project South",
           "p_best / 100 * south_best + p_base / 100 * south_base + p_worst / 100 * south_worst", unit="$")
    b.step("choice", "Project with the higher expected NPV",
           "'Project North' if ev_north > ev_south else 'Project South'")


@template("intermediate")
def probability_weighted_ecl(b: Builder) -> None:
    """Twelve-month expected credit loss weighted over macro scenarios (IFRS 9, para 5.5.17)."""
    b.company("lender", kind="bank")
    b.money("ead", 10_000_000, 900_000_000, step=100_000)
    b.percent("lgd", 20, 60, decimals=0)
    b.percent("pd_base", 0.5, 3, decimals=2)
    b.derive("pd_up", round(b.values["pd_base"] * b.rng.uniform(0.5, 0.85), 2), unit="%", decimals=2)
    b.derive("pd_down", round(b.values["pd_base"] * b.rng.uniform(1.6, 3.5), 2), unit="%", decimals=2)
    b.percent("p_up", 10, 30, decimals=0)
    b.percent("p_down", 10, 35, decimals=0)
    b.derive("p_base", 100 - b.values["p_up"] - b.values["p_down"], unit="%", decimals=0)
    b.ask(
        "{lender} measures the 12-month expected credit loss of a loan book with exposure at default of {ead} "
        "and loss given default of {lgd} under IFRS 9, weighting three macroeconomic scenarios. The "
        "12-month probability of default is {pd_up} in the upside scenario (weight {p_up}), {pd_base} in the "
        "base scenario (weight {p_base}) and {pd_down} in the downside scenario (weight {p_down}). What is "
        "the expected credit loss?"
    )
    b.step("pd", "Probability-weighted PD (%)",
           "p_up / 100 * pd_up + p_base / 100 * pd_base + p_down / 100 * pd_down", unit="%")
    b.step("loss_if_default", "Loss on default of the whole book: EAD × LGD", "ead * lgd / 100", unit="$")
    b.step("ecl", "Expected credit loss: weighted PD × EAD × LGD", "pd / 100 * loss_if_default", unit="$")


@template("advanced")
def abandonment_in_worst_case(b: Builder) -> None:
    """Expected NPV when management can abandon in the worst case (Brealey et al., ch. 10 and 22).

    Cash flows are level annuities; in the worst case the project is sold for its salvage value at the
    end of year 1, after the year-1 cash flow, whenever that beats continuing.

    Concepts: annuity-factor NPV by scenario; abandonment option at salvage value; probability-weighted expected
    NPV.
    """
    b.company("firm")
    b.money("investment", 5_000_000, 200_000_000, step=100_000)
    b.integer("years", 5, 10, unit="years")
    b.percent("rate", 7, 12, decimals=1)
    v = b.values
    factor = (1 - (1 + v["rate"] / 100) ** -v["years"]) / (v["rate"] / 100)
    fair = v["investment"] / factor
    b.derive("cf_best", 10_000 * round(fair * b.rng.uniform(1.4, 1.9) / 10_000), unit="$")
    b.derive("cf_base", 10_000 * round(fair * b.rng.uniform(1.05, 1.3) / 10_000), unit="$")
    b.derive("cf_worst", 10_000 * round(fair * b.rng.uniform(0.2, 0.6) / 10_000), unit="$")
    b.derive("salvage", 100_000 * round(v["investment"] * b.rng.uniform(0.45, 0.8) / 100_000), unit="$")
    _probabilities(b)
    keep = -v["investment"] + v["cf_worst"] * factor
    sell = -v["investment"] + (v["cf_worst"] + v["salvage"]) / (1 + v["rate"] / 100)
    b.require(sell - keep > 0.03 * v["investment"], "abandoning clearly beats continuing in the worst case")
    npv = [v[f"cf_{c}"] * factor - v["investment"] for c in ("best", "base")] + [sell]
    expected = sum(v[f"p_{c}"] / 100 * x for c, x in zip(("best", "base", "worst"), npv, strict=True))
    b.require(abs(expected) > 0.05 * v["investment"], "an expected NPV clearly away from zero")
    b.ask(
        "{firm} is considering a project costing {investment} today with a life of {years}. The level annual "
        "cash flow (at each year end) is {cf_best} in the best case (probability {p_best}), {cf_base} in the "
        "base case ({p_base}) and {cf_worst} in the worst case ({p_worst}); the scenario is known after the "
        "first year. In the worst case management can sell the assets for {salvage} at the end of year 1, "
        "after collecting that year's cash flow. At a discount rate of {rate}, what is the project's expected "
        "NPV when the abandonment option is used where it pays?"
    )
    b.step("factor", "Annuity factor for the project's life", "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)")
    b.step("npv_best", "NPV in the best case", "round(cf_best * factor - investment, 2)", unit="$")
    b.step("npv_base", "NPV in the base case", "round(cf_base * factor - investment, 2)", unit="$")
    b.step("npv_keep", "Worst-case NPV when the project continues", "cf_worst * factor - investment", unit="$")
    b.step("npv_sell", "Worst-case NPV when abandoned after year 1",
           "round((cf_worst + salvage) / (1 + rate / 100) - investment, 2)", unit="$")
    b.step("expected", "Expected NPV, abandoning in the worst case",
           "p_best / 100 * npv_best + p_base / 100 * npv_base + p_worst / 100 * npv_sell", unit="$")
