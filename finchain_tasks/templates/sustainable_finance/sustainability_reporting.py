"""Sustainability reporting: scope 1, 2 and 3 totals, revenue intensity, location- against market-based
scope 2, progress against a linear reduction pathway, and the absolute cut an intensity target implies."""

from finchain_tasks.engine import Builder, template


@template("easy")
def scope_totals_and_share(b: Builder) -> None:
    """Total scope 1 + 2 + 3 emissions and the scope 3 share.

    Source: GHG Protocol Corporate Accounting and Reporting Standard (revised), ch. 4 (operational
    boundaries: scopes 1, 2 and 3); Corporate Value Chain (Scope 3) Standard.
    """
    b.company("company")
    s1 = b.integer("s1", 5_000, 400_000, unit="tonnes")
    b.derive("s2", round(s1 * b.rng.uniform(0.3, 2.5)), unit="tonnes")
    b.derive("s3", round((s1 + b.values["s2"]) * b.rng.uniform(1.5, 12)), unit="tonnes")
    b.bounds("share", lo=0, hi=100, why="a share of total emissions")
    b.ask(
        "In its sustainability report, {company} discloses scope 1 emissions of {s1} of CO2e, scope 2 (market-based) "
        "of {s2} and scope 3 of {s3}. What are its total emissions across the three scopes, and what share of "
        "the total comes from scope 3? Give the share."
    )
    b.step("total", "Total emissions (scope 1 + 2 + 3)", "s1 + s2 + s3", unit="tonnes")
    b.step("share", "Scope 3 share of the total", "s3 / total * 100", unit="%")


@template("easy")
def revenue_intensity(b: Builder) -> None:
    """Emissions intensity: scope 1 + 2 emissions per million dollars of revenue.

    Source: GHG Protocol Corporate Standard, ch. 9 (ratio indicators); TCFD, "Guidance on Metrics, Targets,
    and Transition Plans" (2021).
    """
    s1 = b.integer("s1", 2_000, 300_000, unit="tonnes")
    b.integer("s2", int(s1 * 0.2), int(s1 * 2), unit="tonnes")
    b.derive("revenue", round((s1 + b.values["s2"]) * b.rng.uniform(0.005, 0.2), 1), unit="million dollars",
             decimals=1)
    b.company("company", kind="large" if b.values["revenue"] > 10_000 else "any")  # $124bn is no solar firm
    b.ask(
        "{company} reports scope 1 emissions of {s1} of CO2e and scope 2 emissions of {s2}, on revenue of "
        "{revenue}. What is its scope 1 and 2 emissions intensity in tonnes of CO2e per million dollars of "
        "revenue?"
    )
    b.step("total", "Scope 1 and 2 emissions", "s1 + s2", unit="tonnes")
    b.step("intensity", "Emissions per million dollars of revenue", "total / revenue", unit="tonnes")


@template("intermediate", floor=100)
def scope2_location_vs_market(b: Builder) -> None:
    """Scope 2 emissions under the location-based and market-based methods.

    Source: GHG Protocol Scope 2 Guidance (2015), ch. 6: location-based uses the grid-average factor;
    market-based uses contractual instruments (renewable certificates at zero) and the residual mix for the rest.
    """
    b.company("company")
    mwh = b.integer("mwh", 10_000, 900_000, unit="MWh")
    b.number("grid", 0.2, 0.7, decimals=3, unit="tCO2e per MWh")
    b.integer("recs", int(mwh * 0.1), int(mwh * 0.8), unit="MWh")
    b.number("residual", 0.3, 0.8, decimals=3, unit="tCO2e per MWh")
    v = b.values
    b.require(v["residual"] > v["grid"] * 1.02, "the residual mix is dirtier than the grid average")
    b.require(mwh * v["grid"] - (mwh - v["recs"]) * v["residual"] >= 0.08 * mwh * v["grid"],
              "the certificates lower the market-based figure by at least 8%")
    b.ask(
        "The offices and data centers of {company} used {mwh} of electricity. The grid-average emission factor is "
        "{grid}. The company bought renewable energy certificates covering {recs} (counted at zero emissions), "
        "and the residual-mix factor for the rest of its consumption is {residual}. What are its scope 2 "
        "emissions under the location-based and market-based methods, and by how many tonnes is the "
        "market-based figure lower?"
    )
    b.step("location", "Location-based scope 2 (all electricity × grid factor)", "mwh * grid", unit="tonnes")
    b.step("uncovered", "Electricity not covered by certificates", "mwh - recs", unit="MWh")
    b.step("market", "Market-based scope 2 (uncovered electricity × residual mix)", "uncovered * residual",
           unit="tonnes")
    b.step("difference", "Location-based minus market-based", "location - market", unit="tonnes")


@template("intermediate", floor=400)
def linear_pathway_gap(b: Builder) -> None:
    """Gap between this year's emissions and a linear reduction pathway to a target.

    Source: Science Based Targets initiative, "SBTi Criteria and Recommendations" (linear annual reduction
    from the base year; 4.2% of base-year emissions a year for 1.5°C), GHG Protocol Corporate Standard, ch. 11.
    """
    b.company("company")
    base = b.integer("base", 50_000, 2_000_000, unit="tonnes")
    b.percent("cut", 30, 55, decimals=0)
    start = b.pick([2018, 2019, 2020, 2021])
    horizon = b.integer("horizon", 9, 15, unit="years")
    elapsed = b.integer("elapsed", 2, min(6, 2025 - start), unit="years")
    v = b.values
    path = base * (1 - v["cut"] / 100 * elapsed / horizon)
    b.derive("actual", round(path * b.rng.uniform(0.85, 1.15)), unit="tonnes")
    b.require(abs(v["actual"] - path) >= 0.01 * base, "the company is clearly off the pathway")
    b.ask(
        f"{{company}} set a target to cut its scope 1 and 2 emissions {{cut}} from {{base}} of CO2e in its {start} "
        f"base year by {start + horizon}, {{horizon}} after the base year, following a straight-line pathway (the "
        f"same tonnage reduction every year). In {start + elapsed}, {{elapsed}} after the base year, it emitted "
        "{actual}. By how many tonnes is it above (positive) or below (negative) the pathway for that year?"
    )
    b.step("target", "Target-year emissions", "base * (1 - cut / 100)", unit="tonnes")
    b.step("per_year", "Reduction per year on the pathway", "(base - target) / horizon", unit="tonnes")
    b.step("pathway", "Pathway emissions for the reporting year", "base - per_year * elapsed", unit="tonnes")
    b.step("gap", "Actual minus pathway", "actual - pathway", unit="tonnes")


@template("advanced", floor=0.3)
def intensity_target_absolute_rate(b: Builder) -> None:
    """Absolute emissions and annual rate of change implied by an intensity target when revenue grows.

    Source: GHG Protocol Corporate Standard, ch. 11 (intensity against absolute targets); SBTi, "Target
    Validation Protocol" (intensity targets must be checked for the absolute emissions they imply).

    Concepts: scope 1 and 2 emissions; emissions intensity; intensity target; revenue growth; implied annual rate of
    absolute emissions change.
    """
    s1 = b.integer("s1", 20_000, 800_000, unit="tonnes")
    b.derive("s2", round(s1 * b.rng.uniform(0.3, 1.5)), unit="tonnes")
    b.derive("revenue", round((s1 + b.values["s2"]) * b.rng.uniform(0.004, 0.05), 1), unit="million dollars",
             decimals=1)
    b.company("company", kind="large" if b.values["revenue"] > 10_000 else "any")
    b.percent("cut", 30, 65, decimals=0)
    b.percent("growth", 2, 9, decimals=1)
    b.integer("years", 5, 10, unit="years")
    v = b.values
    ratio = (1 - v["cut"] / 100) * (1 + v["growth"] / 100) ** v["years"]
    b.require(abs(ratio ** (1 / v["years"]) - 1) >= 0.004, "absolute emissions change by at least 0.4% a year")
    b.ask(
        "{company} reports base-year scope 1 emissions of {s1} of CO2e and scope 2 emissions of {s2}, on revenue "
        "of {revenue}. It targets a {cut} cut in scope 1 and 2 emissions per million dollars of revenue over "
        "{years}, while it expects revenue to grow {growth} a year, compounded. If it just meets the intensity "
        "target, what are its absolute scope 1 and 2 emissions in the target year, and at what constant annual "
        "rate must absolute emissions change from the base year to get there (negative for a fall)?"
    )
    b.step("base", "Base-year scope 1 and 2 emissions", "s1 + s2", unit="tonnes")
    b.step("base_intensity", "Base-year intensity (tonnes per million dollars)", "base / revenue")
    b.step("target_intensity", "Target intensity", "base_intensity * (1 - cut / 100)")
    b.step("target_revenue", "Target-year revenue (million dollars)", "revenue * (1 + growth / 100) ** years")
    b.step("target_emissions", "Target-year emissions (target intensity × revenue)",
           "target_intensity * target_revenue", unit="tonnes")
    b.step("rate", "Constant annual rate of change of absolute emissions",
           "((target_emissions / base) ** (1 / years) - 1) * 100", unit="%")
