"""Green bonds: the greenium as a yield spread and the coupon it saves, use-of-proceeds allocation,
pricing a green bond at its greenium, avoided emissions per million allocated, and the issuer's net
benefit of issuing green after review and reporting costs."""

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


@template("advanced", floor=10_000)
def issuer_net_benefit(b: Builder) -> None:
    """Present value of the issuer's greenium saving net of annual reporting and an upfront external review.

    Source: greenium (Zerbib, 2019); ICMA Green Bond Principles (2021) external review and reporting; present
    value of a level annuity (Brealey, Myers and Allen, Principles of Corporate Finance, ch. 2).
    """
    issuer = b.pick(ISSUERS)
    face = b.money("face", 200_000_000, 2_000_000_000, step=50_000_000)
    b.integer("bps", 2, 15, unit="bps")
    b.integer("years", 5, 15, unit="years")
    b.money("review", 40_000, 250_000, step=5_000)
    b.money("reporting", 30_000, 200_000, step=5_000)
    b.percent("rate", 2.5, 6, decimals=2)
    v = b.values
    annual = face * v["bps"] / 10_000 - v["reporting"]
    factor = (1 - (1 + v["rate"] / 100) ** -v["years"]) / (v["rate"] / 100)
    b.require(annual > 0.1 * face * v["bps"] / 10_000 and annual * factor - v["review"] >= 50_000,
              "a clear net benefit")
    b.ask(
        f"{issuer} can issue {{face}} of bonds as green at a greenium of {{bps}}, so every annual coupon is that "
        "much lower than on a conventional issue, for {years}. Issuing green costs {review} upfront for a "
        "second-party opinion and {reporting} at each year end for allocation and impact reporting. "
        "Discounting at {rate} a year, what is the net present value to the issuer of issuing green rather "
        "than conventional?"
    )
    b.step("saving", "Annual coupon saving (face × greenium)", "face * bps / 10000", unit="$")
    b.step("net_annual", "Annual saving after reporting costs", "saving - reporting", unit="$")
    b.step("annuity", "Annuity factor, (1 − (1 + r)^−n) ÷ r", "(1 - (1 + rate / 100) ** (-years)) / (rate / 100)")
    b.step("pv", "Present value of the annual net savings", "net_annual * annuity", unit="$")
    b.step("npv", "Net present value (PV − upfront review)", "pv - review", unit="$")
