"""Synergies: revenue and cost synergies, phase-in, present value, and whether they justify the premium.

Sources: Damodaran, Investment Valuation (3rd ed.), ch. 25 (valuing synergy as the present value of
incremental after-tax cash flows, net of integration costs); Koller, Goedhart and Wessels, Valuation
(McKinsey, 7th ed.), ch. 31 (phase-in of synergies, value created = synergies − premium); Sirower, The
Synergy Trap (1997), ch. 3 (the premium that synergies must justify).
"""

from finchain_tasks.engine import Builder, template


def _two_companies(b: Builder) -> None:
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")


@template("easy")
def run_rate_synergies(b: Builder) -> None:
    """Annual EBITDA synergies from cost savings plus revenue synergies at a margin (Koller et al., ch. 31)."""
    _two_companies(b)
    b.money("cost_synergies", 5_000_000, 150_000_000, step=100_000)
    b.derive("revenue_synergies", 100_000 * round(b.values["cost_synergies"] * b.rng.uniform(0.5, 3) / 100_000),
             unit="$")
    b.percent("margin", 10, 40, decimals=0)
    b.ask(
        "{acquirer} expects its combination with {target} to cut costs by {cost_synergies} a year and to add "
        "{revenue_synergies} of annual revenue through cross-selling, earned at an EBITDA margin of {margin}. "
        "What are the total annual EBITDA synergies at run rate?"
    )
    b.step("revenue_part", "EBITDA from revenue synergies", "revenue_synergies * margin / 100", unit="$")
    b.step("total", "Total EBITDA synergies", "cost_synergies + revenue_part", unit="$")


@template("easy")
def synergy_perpetuity_value(b: Builder) -> None:
    """After-tax synergies valued as a growing perpetuity (Damodaran, Investment Valuation, ch. 25)."""
    _two_companies(b)
    b.money("synergies", 5_000_000, 120_000_000, step=100_000)
    b.percent("tax", 21, 30, decimals=0)
    b.percent("discount", 7, 12, decimals=1)
    b.percent("growth", 0.5, 3, decimals=1)
    b.ask(
        "{acquirer} estimates that buying {target} will yield pre-tax cost synergies of {synergies} next "
        "year, growing at {growth} a year forever. With a tax rate of {tax} and a discount rate of "
        "{discount}, what is the present value of the synergies (growing perpetuity, first cash flow in one "
        "year)?"
    )
    b.step("after_tax", "After-tax synergies next year", "synergies * (1 - tax / 100)", unit="$")
    b.step("value", "Present value: after-tax synergies ÷ (discount rate − growth)",
           "after_tax / ((discount - growth) / 100)", unit="$")


@template("intermediate")
def phased_synergy_present_value(b: Builder) -> None:
    """Present value of three years of phased-in after-tax synergies (Koller et al., ch. 31)."""
    _two_companies(b)
    b.money("run_rate", 10_000_000, 200_000_000, step=500_000)
    b.percent("phase1", 25, 50, decimals=0)
    b.percent("phase2", 60, 85, decimals=0)
    b.percent("tax", 21, 30, decimals=0)
    b.percent("discount", 7, 12, decimals=1)
    b.ask(
        "The {acquirer}–{target} merger is expected to reach run-rate pre-tax synergies of {run_rate} a year, "
        "phased in at {phase1} of run rate in year 1, {phase2} in year 2 and 100% in year 3. With a tax rate "
        "of {tax} and a discount rate of {discount} (cash flows at year end), what is the present value of "
        "the after-tax synergies of the first three years?"
    )
    b.step("after_tax", "Run-rate synergies after tax", "run_rate * (1 - tax / 100)", unit="$")
    b.step("pv1", "Present value of year 1", "round(after_tax * phase1 / 100 / (1 + discount / 100), 2)", unit="$")
    b.step("pv2", "Present value of year 2", "round(after_tax * phase2 / 100 / (1 + discount / 100) ** 2, 2)", unit="$")
    b.step("pv3", "Present value of year 3", "round(after_tax / (1 + discount / 100) ** 3, 2)", unit="$")
    b.step("total", "Present value of the three years", "pv1 + pv2 + pv3", unit="$")


@template("intermediate")
def maximum_justified_premium(b: Builder) -> None:
    """Largest premium that synergies net of integration costs can justify (Sirower, ch. 3; Damodaran, ch. 25)."""
    _two_companies(b)
    b.money("market_cap", 300_000_000, 8_000_000_000, step=10_000_000)
    b.derive("synergies", 100_000 * round(b.values["market_cap"] * b.rng.uniform(0.01, 0.04) / 100_000), unit="$")
    b.percent("tax", 21, 30, decimals=0)
    b.percent("discount", 8, 12, decimals=1)
    b.derive("costs", 100_000 * round(b.values["synergies"] * b.rng.uniform(0.8, 2.0) / 100_000), unit="$")
    b.ask(
        "{target} has a market capitalization of {market_cap}. {acquirer} expects pre-tax synergies of "
        "{synergies} a year in perpetuity (no growth, first year in one year), taxed at {tax} and discounted "
        "at {discount}, and one-time integration costs of {costs} paid now, deductible at the same tax rate. "
        "What is the largest premium, as a percentage of {target}'s market capitalization, that {acquirer} "
        "can pay without destroying value for its own shareholders?"
    )
    b.step("synergy_value", "Value of the synergies: after-tax synergies ÷ discount rate",
           "synergies * (1 - tax / 100) / (discount / 100)", unit="$")
    b.step("cost_after_tax", "Integration costs after tax", "costs * (1 - tax / 100)", unit="$")
    b.step("net_value", "Net value of the synergies", "synergy_value - cost_after_tax", unit="$")
    b.step("premium", "Largest premium as a percentage of market capitalization", "net_value / market_cap * 100",
           unit="%")


@template("advanced", floor=1_000_000)
def value_created_after_premium(b: Builder) -> None:
    """Phased cost and revenue synergies, terminal value, integration costs, less the premium paid.

    Koller et al., ch. 31 (value created for the acquirer = PV of synergies − integration costs −
    premium); Damodaran, ch. 25 (terminal value of synergies as a growing perpetuity).

    Concepts: after-tax cost and revenue synergies; phase-in and discounting; growing-perpetuity terminal value;
    integration costs; premium paid.
    """
    _two_companies(b)
    b.money("market_cap", 500_000_000, 6_000_000_000, step=10_000_000)
    b.percent("premium_pct", 15, 40, decimals=0)
    b.derive("cost_synergies", 100_000 * round(b.values["market_cap"] * b.rng.uniform(0.015, 0.05) / 100_000),
             unit="$")
    b.derive("revenue_synergies", 100_000 * round(b.values["cost_synergies"] * b.rng.uniform(0.5, 2) / 100_000),
             unit="$")
    b.percent("margin", 15, 35, decimals=0)
    b.percent("phase1", 40, 60, decimals=0)
    b.percent("tax", 21, 28, decimals=0)
    b.percent("discount", 8, 11, decimals=1)
    b.percent("growth", 1, 3, decimals=1)
    b.derive("costs", 100_000 * round(b.values["cost_synergies"] * b.rng.uniform(1, 2) / 100_000), unit="$")
    v = b.values
    full = (v["cost_synergies"] + v["revenue_synergies"] * v["margin"] / 100) * (1 - v["tax"] / 100)
    r, g = v["discount"] / 100, v["growth"] / 100
    pv = full * v["phase1"] / 100 / (1 + r) + (full + full * (1 + g) / (r - g)) / (1 + r) ** 2
    created = pv - v["costs"] * (1 - v["tax"] / 100) - v["market_cap"] * v["premium_pct"] / 100
    b.require(abs(created) > 0.05 * v["market_cap"] * v["premium_pct"] / 100, "a clear verdict on the premium")
    b.ask(
        "{acquirer} pays a {premium_pct} premium over {target}'s market capitalization of {market_cap}. It "
        "expects run-rate pre-tax cost synergies of {cost_synergies} a year plus revenue synergies of "
        "{revenue_synergies} a year earned at an EBITDA margin of {margin}. Synergies reach {phase1} of run "
        "rate in year 1 and 100% in year 2, then grow at {growth} a year forever after year 2. The tax rate "
        "is {tax}, the discount rate is {discount} (year-end cash flows), and one-time integration costs of "
        "{costs} are paid now and are tax-deductible. What value does the deal create for {acquirer}'s "
        "shareholders (present value of synergies − after-tax integration costs − premium; negative if it "
        "destroys value)?"
    )
    b.step("full", "Run-rate after-tax synergies: (cost + revenue × margin) × (1 − tax)",
           "(cost_synergies + revenue_synergies * margin / 100) * (1 - tax / 100)", unit="$")
    b.step("pv1", "Present value of year 1 at the phase-in share",
           "round(full * phase1 / 100 / (1 + discount / 100), 2)",
           unit="$")
    b.step("terminal", "Value at the end of year 2 of the synergies from year 3 on",
           "round(full * (1 + growth / 100) / ((discount - growth) / 100), 2)", unit="$")
    b.step("pv2", "Present value of year 2 and the terminal value",
           "round((full + terminal) / (1 + discount / 100) ** 2, 2)", unit="$")
    b.step("costs_after_tax", "Integration costs after tax", "costs * (1 - tax / 100)", unit="$")
    b.step("premium", "Premium paid", "market_cap * premium_pct / 100", unit="$")
    b.step("created", "Value created: PV of synergies − integration costs − premium",
           "pv1 + pv2 - costs_after_tax - premium", unit="$")
