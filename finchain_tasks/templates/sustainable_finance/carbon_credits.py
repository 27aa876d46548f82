"""Carbon credits: offset purchases, allowance shortfalls under an emissions trading system, carbon price
pass-through and profit, abatement against buying allowances, and a CBAM charge on imports."""

from finchain_tasks.engine import Builder, template

INDUSTRIES = ["a cement producer", "a steel mill", "a paper mill", "a chemicals plant", "a glass maker"]


@template("easy")
def offset_purchase_cost(b: Builder) -> None:
    """Cost of buying carbon credits to offset part of a company's emissions (1 credit = 1 tCO2e).

    Source: Verra Verified Carbon Standard, and ICVCM Core Carbon Principles (one credit represents one
    tonne of CO2-equivalent reduced or removed).
    """
    b.company("company")
    b.integer("emissions", 2_000, 400_000, unit="tonnes")
    b.percent("share", 20, 95, decimals=0)
    b.money("price", 4, 45, step=0.25)
    b.ask(
        "{company} emitted {emissions} of CO2-equivalent last year and commits to offset {share} of it with "
        "verified carbon credits, each representing one tonne. Credits cost {price} each. How many credits "
        "must it retire, and what do they cost? Give the cost."
    )
    b.step("credits", "Credits to retire (emissions × share offset)", "emissions * share / 100", unit="credits")
    b.step("cost", "Cost of the credits", "credits * price", unit="$")


@template("easy")
def allowance_shortfall_cost(b: Builder) -> None:
    """Allowances an installation must buy when verified emissions exceed its free allocation.

    Source: Directive 2003/87/EC (EU ETS), Art. 12(3): operators surrender allowances equal to verified
    emissions; free allocation under Art. 10a.
    """
    industry = b.pick(INDUSTRIES)
    alloc = b.integer("allocation", 50_000, 900_000, unit="allowances")
    b.integer("emissions", int(alloc * 1.05), int(alloc * 1.6), unit="tonnes")
    b.money("price", 55, 100, step=0.05, unit="€")
    b.ask(
        f"Under the EU Emissions Trading System, {industry} received a free allocation of {{allocation}} (one "
        "allowance covers one tonne of CO2). Its verified emissions for the year were {emissions}. It must "
        "surrender one allowance per tonne emitted and buys any shortfall at {price} per allowance. What does "
        "covering the shortfall cost?"
    )
    b.step("shortfall", "Allowances to buy (emissions − free allocation)", "emissions - allocation",
           unit="allowances")
    b.step("cost", "Cost of the shortfall", "shortfall * price", unit="€")


@template("intermediate", floor=1000)
def carbon_price_profit_impact(b: Builder) -> None:
    """Operating profit after a carbon price, with part of the carbon cost passed through to customers.

    Source: carbon cost pass-through (Sijm, Neuhoff and Chen, "CO2 cost pass-through and windfall profits
    in the power sector", Climate Policy 6, 2006).
    """
    maker, product = b.pick([("A cement producer", "tonnes of cement"), ("A glassworks", "tonnes of glass"),
                             ("An electric-arc steel mill", "tonnes of steel"),
                             ("A packaging firm", "tonnes of cardboard")])
    q = b.integer("output", 50_000, 2_000_000, unit=product)
    b.number("intensity", 0.3, 0.9, decimals=3, unit="tonnes of CO2")
    b.money("price", 30, 120, step=0.5)
    b.percent("pass_through", 20, 80, decimals=0)
    b.derive("profit", round(q * b.rng.uniform(10, 60), -3), unit="$")
    v = b.values
    after = v["profit"] - q * v["intensity"] * v["price"] * (1 - v["pass_through"] / 100)
    b.require(after >= 0.1 * v["profit"], "the firm stays clearly profitable")
    b.ask(
        f"{maker} makes {{output}} a year; each tonne produced emits {{intensity}}. A carbon price of {{price}} per "
        "tonne is introduced on all its emissions. The company expects to pass {pass_through} of the carbon cost "
        "on to customers through higher prices without losing volume. Its operating profit before the carbon price was "
        "{profit}. What will its operating profit be after the carbon price?"
    )
    b.step("emissions", "Annual emissions (output × intensity)", "output * intensity", unit="tonnes")
    b.step("carbon_cost", "Carbon cost", "round(emissions * price, 2)", unit="$")
    b.step("passed", "Carbon cost recovered from customers", "round(carbon_cost * pass_through / 100, 2)", unit="$")
    b.step("new_profit", "Operating profit after the carbon price", "profit - carbon_cost + passed", unit="$")


@template("intermediate")
def abate_or_buy_allowances(b: Builder) -> None:
    """Compliance cost with and without an abatement project, allowances bought for the remaining shortfall.

    Source: marginal abatement cost against the allowance price (Ellerman, Convery and de Perthuis, Pricing
    Carbon: The European Union Emissions Trading Scheme, ch. 6); surrender rule of Directive 2003/87/EC.
    """
    industry = b.pick(INDUSTRIES)
    e = b.integer("emissions", 100_000, 1_500_000, unit="tonnes")
    alloc = b.integer("allocation", int(e * 0.5), int(e * 0.85), unit="allowances")
    b.integer("abated", int((e - alloc) * 0.2), int((e - alloc) * 0.9), unit="tonnes")
    b.money("cost", 20, 70, step=0.5, unit="€")
    b.money("price", 60, 100, step=0.05, unit="€")
    b.require(b.values["price"] - b.values["cost"] >= 0.2 * b.values["price"], "abatement is clearly cheaper")
    b.ask(
        f"{industry.capitalize()} expects to emit {{emissions}} next year and holds {{allocation}}. An "
        "efficiency project would cut emissions by {abated} at a cost of {cost} per tonne abated. Allowances "
        "trade at {price}. What is the compliance cost without the project, what is it with the project "
        "(project cost plus allowances for the remaining shortfall), and how much does the project save? "
        "Give the saving."
    )
    b.step("cost_without", "Compliance cost without the project (shortfall × price)",
           "(emissions - allocation) * price", unit="€")
    b.step("shortfall_with", "Shortfall with the project", "emissions - abated - allocation", unit="allowances")
    b.step("cost_with", "Compliance cost with the project", "abated * cost + shortfall_with * price", unit="€")
    b.step("saving", "Saving from the project", "cost_without - cost_with", unit="€")


@template("advanced")
def cbam_charge_on_imports(b: Builder) -> None:
    """A CBAM charge on imported steel, net of the free-allocation adjustment and the carbon price paid in the
    country of origin, and its effect on the importer's margin.

    Source: Regulation (EU) 2023/956 (Carbon Border Adjustment Mechanism), Art. 9 (carbon price paid in
    the country of origin) and Art. 31 (adjustment for free allocation under the EU ETS).

    Concepts: embedded emissions; free-allocation adjustment; certificate cost; deduction for a carbon price paid
    abroad; margin impact.
    """
    tonnes = b.integer("tonnes", 5_000, 200_000, unit="tonnes")
    b.number("intensity", 1.4, 2.4, decimals=2, unit="tCO2e per tonne")
    b.number("benchmark", 1.2, 1.4, decimals=3, unit="tCO2e per tonne")
    b.percent("free", 50, 97.5, decimals=1)
    b.money("price", 60, 100, step=0.05, unit="€")
    b.money("foreign", 3, 25, step=0.5, unit="€")
    b.derive("margin", round(tonnes * b.rng.uniform(60, 160), -3), unit="€")
    v = b.values
    emissions = tonnes * v["intensity"]
    certificates = emissions - tonnes * v["benchmark"] * v["free"] / 100
    charge = certificates * v["price"] - emissions * v["foreign"]
    b.require(charge > 0.05 * v["margin"] and charge < 0.9 * v["margin"], "a material charge the margin absorbs")
    b.ask(
        "An EU importer brings in {tonnes} of hot-rolled steel with verified embedded emissions of {intensity}. "
        "Under CBAM it must surrender certificates for the embedded emissions, reduced by the free allocation "
        "EU producers still receive: the EU benchmark of {benchmark} times the free-allocation share of "
        "{free}. Certificates cost {price} per tonne of CO2e. The producer already paid a carbon price "
        "equivalent to {foreign} per tonne of CO2e on all the embedded emissions in its home country, which is "
        "deducted from the charge. The importer's gross margin on the steel before CBAM is {margin}. By what "
        "percentage does the CBAM charge reduce that margin?"
    )
    b.step("embedded", "Embedded emissions (tonnes × intensity)", "tonnes * intensity", unit="tonnes")
    b.step("free_adjust", "Free-allocation adjustment (tonnes × benchmark × free share)",
           "tonnes * benchmark * free / 100", unit="tonnes")
    b.step("certificates", "Emissions to cover with certificates (one certificate per tonne of CO2e)",
           "embedded - free_adjust", unit="tonnes")
    b.step("gross", "Cost of the certificates", "round(certificates * price, 2)", unit="€")
    b.step("deduction", "Deduction for the carbon price paid abroad", "round(embedded * foreign, 2)", unit="€")
    b.step("charge", "Net CBAM charge", "gross - deduction", unit="€")
    b.step("reduction", "Reduction of the gross margin", "charge / margin * 100", unit="%")
