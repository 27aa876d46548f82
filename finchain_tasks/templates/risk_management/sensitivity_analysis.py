"""Sensitivity analysis: break-even volume, operating leverage, one-way NPV sensitivity, first-order
sensitivities of a book to rates, equities and volatility, and the price elasticity of NPV.

Sources: Brealey, Myers and Allen, Principles of Corporate Finance (13th ed.), ch. 10 (sensitivity
analysis, accounting and NPV break-even); Horngren, Datar and Rajan, Cost Accounting (15th ed.), ch. 3
(cost-volume-profit analysis, degree of operating leverage).
"""

from finchain_tasks.engine import Builder, template


def _annuity(rate: float, years: int) -> float:
    return (1 - (1 + rate / 100) ** -years) / (rate / 100)


@template("easy")
def break_even_volume(b: Builder) -> None:
    """Units needed to cover fixed costs (Horngren et al., ch. 3)."""
    b.company("firm")
    b.money("price", 12, 900, step=0.5)
    b.derive("variable", round(b.values["price"] * b.rng.uniform(0.35, 0.8), 2), unit="$")
    b.money("fixed", 100_000, 20_000_000, step=10_000)
    b.ask(
        "{firm} sells a product for {price} a unit; variable cost is {variable} a unit and annual fixed costs "
        "are {fixed}. What is its annual break-even volume in units (operating profit of zero; do not round "
        "to whole units)?"
    )
    b.step("margin", "Contribution margin per unit", "price - variable", unit="$")
    b.step("units", "Break-even volume: fixed costs ÷ contribution margin", "fixed / margin", unit="units")


@template("easy")
def profit_response_to_volume(b: Builder) -> None:
    """Percentage change in operating profit for a change in volume (Horngren et al., ch. 3)."""
    b.company("firm")
    b.integer("units", 20_000, 900_000, unit="units")
    b.money("price", 10, 400, step=0.5)
    b.derive("variable", round(b.values["price"] * b.rng.uniform(0.35, 0.7), 2), unit="$")
    v = b.values
    b.derive("fixed", 1_000 * round(v["units"] * (v["price"] - v["variable"]) * b.rng.uniform(0.3, 0.75) / 1_000),
             unit="$")
    b.percent("drop", 5, 25, decimals=0)
    b.ask(
        "{firm} expects to sell {units} at {price} each, with variable cost of {variable} a unit and fixed "
        "costs of {fixed}. If volume turns out {drop} lower than expected, by what percentage does operating "
        "profit fall?"
    )
    b.step("profit", "Expected operating profit", "units * (price - variable) - fixed", unit="$")
    b.step("lost", "Contribution lost with the lower volume", "units * drop / 100 * (price - variable)", unit="$")
    b.step("fall", "Fall in operating profit (%)", "lost / profit * 100", unit="%")


@template("intermediate")
def npv_one_way_sensitivity(b: Builder) -> None:
    """Change in NPV when the annual cash flow is lower than planned (Brealey et al., ch. 10)."""
    b.company("firm")
    b.money("investment", 1_000_000, 200_000_000, step=50_000)
    b.integer("years", 4, 12, unit="years")
    b.percent("rate", 6, 14, decimals=1)
    fair = b.values["investment"] / _annuity(b.values["rate"], b.values["years"])
    b.derive("cash_flow", 1_000 * round(fair * b.rng.uniform(1.15, 1.7) / 1_000), unit="$")
    b.percent("shortfall", 5, 20, decimals=0)
    v = b.values
    low = v["cash_flow"] * (1 - v["shortfall"] / 100) * _annuity(v["rate"], v["years"]) - v["investment"]
    b.require(abs(low) > 0.02 * v["investment"], "the lower NPV is not a near-zero difference")
    b.ask(
        "{firm}'s project costs {investment} today and is expected to generate {cash_flow} at the end of each "
        "of the next {years}; the discount rate is {rate}. By what percentage does the NPV fall if the annual "
        "cash flow comes in {shortfall} below plan, all else unchanged?"
    )
    b.step("factor", "Annuity factor", "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)")
    b.step("npv", "Planned NPV", "cash_flow * factor - investment", unit="$")
    b.step("npv_low", "NPV with the lower cash flow", "cash_flow * (1 - shortfall / 100) * factor - investment",
           unit="$")
    b.step("fall", "Fall in NPV (%)", "(npv - npv_low) / npv * 100", unit="%")


@template("intermediate", floor=1_000)
def multi_factor_position_sensitivity(b: Builder) -> None:
    """One-way sensitivities of a book to rates, the equity market and volatility, added up.

    Bond: ΔP ≈ −modified duration × P × Δy (Fabozzi, Bond Markets, ch. 4); equities: ΔE ≈ β × E × market
    return (Bodie, Kane and Marcus, ch. 8); options: ΔO ≈ vega × change in implied volatility (Hull,
    Options, Futures and Other Derivatives, ch. 19).
    """
    b.company("fund", kind="fund")
    b.money("bonds", 5_000_000, 300_000_000, step=100_000)
    b.number("duration", 2, 9, decimals=2)
    b.integer("rate_move", 5, 40)  # one day: +100-150 bp with a 10-20% equity fall was a crash in 60% of draws
    b.money("equities", 5_000_000, 300_000_000, step=100_000)
    b.number("beta", 0.6, 1.6, decimals=2)
    b.percent("market_fall", 1, 7, decimals=1)
    b.bounds("market_fall", hi=10, why="a one-day equity fall beyond 10% is a crash, not a scenario")
    b.bounds("rate_move", hi=50, why="a one-day yield move beyond 50 bp is a crisis")
    b.money("vega", 20_000, 900_000, step=1_000)
    b.number("vol_rise", 1, 12, decimals=1)
    v = b.values
    total = (-v["duration"] * v["bonds"] * v["rate_move"] / 10_000 - v["beta"] * v["equities"] * v["market_fall"] / 100
             + v["vega"] * v["vol_rise"])
    b.require(abs(total) > 0.01 * (v["bonds"] + v["equities"]), "a clear net move")
    b.ask(
        "{fund} holds {bonds} of bonds with modified duration {duration}, {equities} of equities with beta "
        "{beta}, and a long options book with vega of {vega} per volatility point. In a one-day scenario, "
        "yields rise by {rate_move} basis points, the equity market falls {market_fall}, and implied volatility "
        "rises by {vol_rise} points. Using first-order sensitivities only, what is the book's total change in "
        "value (negative for a loss)?"
    )
    b.step("bond_change", "Bonds: −duration × value × yield change", "-duration * bonds * rate_move / 10000", unit="$")
    b.step("equity_change", "Equities: −beta × value × market fall", "-beta * equities * market_fall / 100", unit="$")
    b.step("option_change", "Options: vega × rise in volatility", "vega * vol_rise", unit="$")
    b.step("total", "Total change in value", "bond_change + equity_change + option_change", unit="$")


@template("advanced")
def npv_price_elasticity(b: Builder) -> None:
    """Elasticity of NPV to the selling price in a taxed project with straight-line depreciation.

    Brealey et al., ch. 6 and 10: cash flow = (revenue − variable − fixed costs)(1 − t) + t × depreciation;
    the elasticity is the percentage change in NPV for a 1% change in price, all else fixed.

    Concepts: after-tax operating cash flow; depreciation tax shield; annuity-factor NPV; elasticity of NPV to
    price.
    """
    b.company("firm")
    b.money("investment", 2_000_000, 100_000_000, step=50_000)
    b.integer("years", 4, 10, unit="years")
    b.percent("rate", 7, 13, decimals=1)
    b.percent("tax", 21, 30, decimals=0)
    b.money("price", 20, 500, step=0.5)
    b.derive("variable", round(b.values["price"] * b.rng.uniform(0.4, 0.7), 2), unit="$")
    v = b.values
    factor = _annuity(v["rate"], v["years"])
    needed = v["investment"] / factor * b.rng.uniform(1.25, 1.8)
    b.derive("fixed", 1_000 * round(needed * b.rng.uniform(0.3, 0.8) / 1_000), unit="$")
    shield = v["tax"] / 100 * v["investment"] / v["years"]
    units = ((needed - shield) / (1 - v["tax"] / 100) + v["fixed"]) / (v["price"] - v["variable"])
    b.derive("units", 100 * round(units / 100), unit="units")
    b.require(v["units"] >= 1_000, "a realistic volume")
    b.ask(
        "{firm} is evaluating a project that lasts {years} and costs {investment} today, depreciated "
        "straight-line to zero. It expects to sell {units} a year at {price} each, with variable cost of "
        "{variable} a unit and fixed costs of {fixed} a year; the tax rate is {tax} and the discount rate is "
        "{rate}, with cash flows at year end. What is the elasticity of NPV with respect to price (the "
        "percentage change in NPV for a 1% rise in price)?"
    )
    b.step("factor", "Annuity factor", "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)")
    b.step("shield", "Depreciation tax shield per year", "tax / 100 * investment / years", unit="$")
    b.step("cash_flow", "Annual after-tax cash flow",
           "(units * (price - variable) - fixed) * (1 - tax / 100) + shield", unit="$")
    b.step("npv", "NPV", "((units * (price - variable) - fixed) * (1 - tax / 100) + tax / 100 * investment / years) "
           "* factor - investment", unit="$")
    b.step("delta", "Rise in NPV from a 1% price rise", "units * price / 100 * (1 - tax / 100) * factor", unit="$")
    b.step("elasticity", "Elasticity: % change in NPV per 1% change in price", "delta / npv * 100")
