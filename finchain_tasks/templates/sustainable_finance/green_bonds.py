"""Green bonds: the greenium as a yield spread and the coupon it saves, use-of-proceeds allocation,
pricing a green bond at its greenium, avoided emissions per million allocated, and an investor's
after-tax yield on a green tax-credit bond."""

from finchain_tasks.engine import Builder, template

ISSUERS = ["A Nordic utility", "A German state development bank", "A US water authority",
           "A Dutch real-estate company", "A Japanese railway operator", "A Canadian province"]


@template("easy", floor=10_000)
def greenium_coupon_saving(b: Builder) -> None:
    """Greenium as the yield gap to a conventional twin, and the annual interest it saves.

    Source: Zerbib, "The effect of pro-environmental preferences on bond prices: Evidence from green bonds",
    Journal of Banking and Finance 98 (2019): greenium = green yield − conventional twin yield.
    """
    issuer = b.pick(ISSUERS)
    conv = b.percent("conventional", 2, 6, decimals=3)
    b.percent("green", conv - 0.25, conv - 0.02, decimals=3)
    b.money("face", 100_000_000, 2_000_000_000, step=10_000_000)
    b.ask(
        f"{issuer} issues a green bond that yields {{green}} at issue, while its conventional bond of the same "
        "maturity and seniority yields {conventional}. If the green issue of {face} had instead been priced at "
        "the conventional yield, how much more interest a year would the issuer pay (taking the coupon equal to "
        "the yield)? Express the greenium in percentage points first."
    )
    b.step("greenium", "Greenium (conventional yield − green yield)", "conventional - green", unit="pp")
    b.step("saving", "Annual interest saved", "face * greenium / 100", unit="$")


@template("easy")
def proceeds_allocation(b: Builder) -> None:
    """Allocated and unallocated proceeds of a green bond, for its allocation report.

    Source: ICMA Green Bond Principles (2021), Management of Proceeds and Reporting (allocation reporting).
    """
    issuer = b.pick(ISSUERS)
    face = b.money("proceeds", 200_000_000, 1_500_000_000, step=50_000_000)
    # joint draw: the share allocated so far, then its split (three independent shares of 15-40% allocated
    # more than was raised in 9% of draws, a negative "unallocated")
    allocated = b.rng.uniform(0.45, 0.95)
    weights = [b.rng.uniform(0.5, 1.5) for _ in range(3)]
    names = ["solar", "buildings", "transit"]
    for name, weight in zip(names, weights):
        b.derive(name, round(face * allocated * weight / sum(weights), -5), unit="$")
    b.bounds("unallocated", lo=0, why="allocated never exceeds the proceeds raised")
    b.bounds("share", lo=0, hi=100)
    b.ask(
        f"{issuer} raised {{proceeds}} with a green bond. By the first reporting date it has allocated "
        "{solar} to solar farms, {buildings} to energy-efficient buildings and {transit} to electric transit. "
        "How much of the proceeds is still unallocated, and what share of the proceeds has been allocated? "
        "Give the share."
    )
    b.step("allocated", "Proceeds allocated so far", "solar + buildings + transit", unit="$")
    b.step("unallocated", "Proceeds not yet allocated", "proceeds - allocated", unit="$")
    b.step("share", "Share of proceeds allocated", "allocated / proceeds * 100", unit="%")


@template("intermediate")
def green_bond_price_premium(b: Builder) -> None:
    """Price of a green bond at a yield set a greenium below its issuer's conventional curve.

    Source: bond price as the present value of coupons and principal (Fabozzi, Bond Markets, Analysis and
    Strategies, ch. 2) with the greenium as a yield spread (Zerbib, 2019).
    """
    issuer = b.pick(ISSUERS)
    b.percent("coupon", 1.5, 6, decimals=2)
    b.integer("years", 5, 20, unit="years")
    b.percent("conventional", 2, 6.5, decimals=2)
    b.integer("bps", 3, 25, unit="bps")
    b.ask(
        f"{issuer} issues a green bond with a {{coupon}} annual coupon and {{years}} to maturity. Its "
        "conventional bonds of that maturity yield {conventional}, and investors accept a greenium of {bps} "
        "(the green bond yields that much less than the conventional curve). Coupons are paid once a year. "
        "What is the green bond's price per 100 of face value?"
    )
    b.step("green_yield", "Green bond yield (conventional − greenium)", "conventional - bps / 100", unit="%")
    b.step("coupons_pv", "Present value of the coupons at the green yield",
           "coupon * (1 - (1 + green_yield / 100) ** (-years)) / (green_yield / 100)")
    b.step("principal_pv", "Present value of the principal", "100 * (1 + green_yield / 100) ** (-years)")
    b.step("green_price", "Price of the green bond per 100 of face value", "coupons_pv + principal_pv")


@template("intermediate")
def avoided_emissions_per_million(b: Builder) -> None:
    """Avoided emissions of a renewable project financed by a green bond, per million dollars allocated.

    Source: ICMA Handbook, Harmonised Framework for Impact Reporting (2023): annual generation = capacity ×
    8,760 h × capacity factor; avoided emissions = generation × grid emission factor; impact per 1 million.
    """
    issuer = b.pick(ISSUERS)
    mw = b.number("capacity", 20, 600, decimals=1, unit="MW")
    b.percent("factor", 14, 45, decimals=1)
    b.number("grid", 0.25, 0.85, decimals=3, unit="tCO2 per MWh")
    b.derive("allocated", round(mw * b.rng.uniform(0.9, 1.6) * 1e6, -5), unit="$")
    kind = "solar" if b.values["factor"] < 25 else "wind"
    b.ask(
        f"{issuer} allocates {{allocated}} of green bond proceeds to a {{capacity}} {kind} farm with a capacity "
        "factor of {factor}. The grid it displaces emits {grid}. Using 8,760 hours a year, how many tonnes of "
        "CO2 does the project avoid each year, and how many tonnes is that per $1 million allocated? Give the "
        "tonnes per $1 million."
    )
    b.step("generation", "Annual generation (capacity × 8,760 h × capacity factor)", "capacity * 8760 * factor / 100",
           unit="MWh")
    b.step("avoided", "Emissions avoided a year", "generation * grid", unit="tonnes")
    b.step("per_million", "Tonnes avoided per $1 million allocated", "avoided / (allocated / 1000000)",
           unit="tonnes")


@template("advanced", floor=0.05)
def tax_credit_bond_after_tax_yield(b: Builder) -> None:
    """An investor's after-tax yield on a green tax-credit bond bought off par against a conventional bond.

    Source: qualified tax credit bonds (Internal Revenue Code s.54A, used for Clean Renewable Energy Bonds
    and Qualified Energy Conservation Bonds): the holder receives a yearly federal tax credit equal to a
    credit rate times face value, the credit is included in gross income (s.54A(f)) and is used against the
    holder's income tax; current yield on the price paid (Fabozzi, Bond Markets, ch. 3).

    Concepts: price paid off par; coupon income; tax credit included in taxable income; tax liability offset
    by the credit; after-tax current yield on cost; comparison with a taxable conventional bond.
    """
    b.person("investor")
    issuer = b.pick(["A US water authority", "A state clean-energy agency", "A public power utility",
                     "A city transit authority"])
    b.money("face", 20_000, 500_000, step=1_000)
    b.percent("coupon", 0.5, 2.5, decimals=2)
    b.percent("credit", 3, 5, decimals=2)
    b.number("price", 94, 103, decimals=2)
    b.percent("tax", 22, 37, decimals=0)
    b.percent("conventional", 3.5, 6, decimals=2)
    v = b.values
    green = (v["coupon"] + v["credit"]) * (1 - v["tax"] / 100) / (v["price"] / 100)
    b.require(abs(green - v["conventional"] * (1 - v["tax"] / 100)) > 0.1, "the yields differ by 0.1 point")
    b.ask(
        f"{issuer} issues green tax-credit bonds to finance its projects. {{investor}} buys {{face}} of face "
        "value at {price} per 100 of face. The bonds pay a {coupon} annual coupon, and each year the holder "
        "also receives a federal tax credit of {credit} of face value; the credit counts as taxable income "
        "and is then subtracted from the holder's income tax. {Their} marginal tax rate is {tax}. A taxable "
        "conventional bond of similar risk yields {conventional} at par. By how many percentage points does "
        "the green bond's after-tax annual income, as a percentage of the price paid, exceed the conventional "
        "bond's after-tax yield (negative if it falls short)?"
    )
    b.bounds("tax_due", lo=0, hi="coupon_income + credit_amount", why="tax is a part of taxable income")
    b.step("cost", "Price paid (face × price ÷ 100)", "face * price / 100", unit="$")
    b.step("coupon_income", "Annual coupon (face × coupon rate)", "face * coupon / 100", unit="$")
    b.step("credit_amount", "Annual tax credit (face × credit rate)", "face * credit / 100", unit="$")
    b.step("tax_due", "Tax on coupon and credit (both taxable)",
           "round((coupon_income + credit_amount) * tax / 100, 2)",
           unit="$")
    b.step("net_income", "After-tax income: coupon + credit − tax", "coupon_income + credit_amount - tax_due",
           unit="$")
    b.step("green_yield", "After-tax yield on the price paid", "net_income / cost * 100", unit="%")
    b.step("gap", "Gap to the conventional bond's after-tax yield, its yield × (1 − tax rate)",
           "green_yield - conventional * (1 - tax / 100)", unit="pp")
