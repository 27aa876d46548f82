"""Bond pricing: current yield, zero-coupon prices, the present value of the coupons inside full (dirty) and
clean prices between coupon dates, the realized one-year return with a reinvested coupon, yield to maturity,
Macaulay and modified duration, convexity and the duration-convexity price estimate."""

from finchain_tasks.engine import Builder, template


def _cash_flow_sum(years: int, rate: str, weight=None) -> str:
    """Formula text for sum over t of weight(t) × CF_t ÷ (1 + rate)^t, annual coupons, face paid at ``years``.

    ``weight`` maps t to a whole number (t for duration, t(t + 1) for convexity); each term is written out
    with its weight as a number, so the step shows every term a reader would add.
    """
    terms = []
    for t in range(1, years + 1):
        flow = "(coupon + face)" if t == years else "coupon"
        factor = f"{weight(t)} * " if weight else ""
        terms.append(f"{factor}{flow} / (1 + {rate} / 100) ** {t}")
    return " + ".join(terms)


@template("easy")
def current_yield(b: Builder) -> None:
    """Current yield, annual coupon over clean price.

    Source: Fabozzi, Bond Markets, Analysis and Strategies, ch. 3.
    """
    b.company("issuer")
    b.percent("coupon_rate", 2, 9, decimals=3)
    b.money("price", 850, 1_150, step=0.01)
    b.ask(
        "A bond issued by {issuer} has a face value of $1,000 and pays a {coupon_rate} annual coupon. It trades at "
        "{price}. What is its current yield?"
    )
    b.step("coupon", "Annual coupon (face × coupon rate)", "1000 * coupon_rate / 100", unit="$")
    b.step("current_yield", "Current yield (coupon ÷ price)", "coupon / price * 100", unit="%")


@template("easy")
def zero_coupon_price(b: Builder) -> None:
    """Price of a zero-coupon bond at a semi-annually compounded yield (the US Treasury STRIPS convention).

    Source: Fabozzi, Bond Markets, Analysis and Strategies, ch. 2.
    """
    b.company("issuer")
    b.money("face", 1_000, 1_000)
    b.integer("years", 2, 30, unit="years")
    b.percent("yield_rate", 2, 7, decimals=2)
    b.ask(
        "A zero-coupon bond issued by {issuer} pays its face value of {face} at maturity in {years} and nothing "
        "before. Its yield is {yield_rate} a year, compounded semi-annually. What is its price?"
    )
    b.step("periods", "Number of half-year periods", "2 * years", unit="periods")
    b.step("price", "Price, face ÷ (1 + y ÷ 2)^periods", "face / (1 + yield_rate / 200) ** periods", unit="$")


@template("intermediate")
def clean_and_dirty_price(b: Builder) -> None:
    """Clean price between coupon dates: full (dirty) price less accrued interest, actual/actual.

    Source: Fabozzi, Bond Markets, Analysis and Strategies, ch. 2; SIFMA Treasury conventions.
    """
    b.company("issuer")
    b.money("face", 1_000, 1_000)
    b.percent("coupon_rate", 2, 8, decimals=2)
    b.integer("coupons_left", 2, 30, unit="coupons")
    b.percent("yield_rate", 2.5, 8, decimals=3)
    b.choice("period_days", {"181": 181, "182": 182, "183": 183, "184": 184})
    b.integer("days_since", 10, b.values["period_days"] - 10, unit="days")
    b.ask(
        "A bond issued by {issuer} with a face value of {face} pays a {coupon_rate} annual coupon semi-annually. "
        "There are {coupons_left} still to be paid, the next one due at the end of the current coupon period, the "
        "last with the face value. The current period has {period_days} days, of which {days_since} have passed since"
        " the last coupon (actual/actual). At a yield of {yield_rate}, compounded semi-annually, what is the quoted "
        "(clean) price: the full price less accrued interest?"
    )
    b.step("half_coupon", "Semi-annual coupon", "face * coupon_rate / 200", unit="$")
    b.step("value_next", "Value at the next coupon date, including that coupon: coupon + PV of the rest",
           "round(half_coupon + half_coupon * (1 - (1 + yield_rate / 200) ** (1 - coupons_left)) / (yield_rate / 200) "
           "+ face / (1 + yield_rate / 200) ** (coupons_left - 1), 2)", unit="$")
    b.step("full_price", "Full (dirty) price, discounted over the fraction of a period to the next coupon",
           "round(value_next / (1 + yield_rate / 200) ** ((period_days - days_since) / period_days), 2)", unit="$")
    b.step("accrued", "Accrued interest (coupon × days since last coupon ÷ days in period)",
           "round(half_coupon * days_since / period_days, 2)", unit="$")
    b.step("clean_price", "Clean price (full price − accrued interest)", "full_price - accrued", unit="$")


@template("intermediate", floor=0.5)
def one_year_realized_return(b: Builder) -> None:
    """Realized one-year return (IRR) of a bond held its last year to maturity, the first semi-annual coupon
    reinvested until maturity.

    Source: Fabozzi, Bond Markets, Analysis and Strategies, ch. 3 (total return: coupons, reinvestment income
    and principal at the horizon against the price paid); with every cash amount collected at one date a
    year out, the IRR is total cash ÷ price − 1. The price is the bond's value at a market yield near its
    coupon, and the reinvestment rate a short rate near that yield.
    """
    b.person("investor")
    b.company("issuer")
    face = b.money("face", 5_000, 100_000, step=1_000)
    coupon_rate = b.percent("coupon_rate", 2, 9, decimals=2)
    market = coupon_rate + b.rng.uniform(-1.5, 1.5)  # not shown: the yield that prices the bond
    b.require(market > 1.5, "a positive market yield")
    half = face * coupon_rate / 200
    b.derive("price", half / (1 + market / 200) + (face + half) / (1 + market / 200) ** 2, unit="$")
    b.percent("reinvest_rate", max(0.5, market - 2.5), market + 1, decimals=2)
    b.ask(
        "{investor} buys a bond issued by {issuer} with a face value of {face} for {price}, exactly one year "
        "before it matures. It pays a {coupon_rate} annual coupon in two semi-annual installments: the first in six "
        "months, the second at maturity together with the face value. {They} deposits the first coupon for the "
        "remaining six months at {reinvest_rate} a year (simple interest for the half year). What is {their} "
        "realized one-year return, the internal rate of return of the price paid and the cash held at maturity, "
        "in percent?"
    )
    b.step("half_coupon", "Semi-annual coupon (face × coupon rate ÷ 2)", "face * coupon_rate / 200", unit="$")
    b.step("reinvested", "First coupon with six months of interest (coupon × (1 + reinvestment rate ÷ 2))",
           "half_coupon * (1 + reinvest_rate / 200)", unit="$")
    b.step("cash_at_maturity", "Cash held at maturity: face value + second coupon + reinvested first coupon",
           "face + half_coupon + reinvested", unit="$")
    b.step("realized", "Realized return, the IRR of one year: cash at maturity ÷ price − 1",
           "(cash_at_maturity / price - 1) * 100", unit="%")


@template("advanced")
def ytm_duration_convexity(b: Builder) -> None:
    """Yield to maturity, duration and convexity, and the duration-plus-convexity price after a yield shock.

    Source: Fabozzi, Bond Markets, ch. 4; Hull, Options, Futures and Other Derivatives, ch. 4.

    Concepts: yield to maturity; Macaulay and modified duration; convexity; duration-plus-convexity price
    approximation.
    """
    b.company("issuer")
    b.money("face", 1_000, 1_000)
    coupon_rate = b.percent("coupon_rate", 2, 9, decimals=2)
    years = b.integer("years", 3, 5, unit="years")
    hidden = coupon_rate + b.rng.uniform(-2, 2)
    b.require(hidden > 1.5, "a positive yield")
    c = 10 * coupon_rate
    b.derive("price", sum(c / (1 + hidden / 100) ** t for t in range(1, years + 1))
             + 1000 / (1 + hidden / 100) ** years, unit="$")
    b.integer("shock", 25, 150, unit="bps")
    direction = b.choice("direction", {"rises": 1, "falls": -1})
    b.ask(
        "A bond issued by {issuer} with a face value of {face} pays a {coupon_rate} coupon annually, matures in "
        "{years} and trades at {price}. Find its yield to maturity (annual compounding), its Macaulay and "
        "modified duration and its convexity. If its yield then {direction} by {shock}, what price do duration "
        "and convexity together predict?"
    )
    b.step("coupon", "Annual coupon", "face * coupon_rate / 100", unit="$")
    flows = ", ".join(["-price"] + ["coupon"] * (years - 1) + ["coupon + face"])
    b.step("ytm", "Yield to maturity", f"irr({flows}) * 100", unit="%")
    b.step("macaulay", "Macaulay duration (sum of t × PV of CF ÷ price)",
           f"({_cash_flow_sum(years, 'ytm', lambda t: t)}) / price", unit="years")
    b.step("modified", "Modified duration", "macaulay / (1 + ytm / 100)")
    b.step("convexity", "Convexity, sum of t × (t + 1) × CF ÷ (1 + y)^(t + 2) ÷ price",
           f"({_cash_flow_sum(years, 'ytm', lambda t: t * (t + 1))}) / (1 + ytm / 100) ** 2 / price")
    first_order = "-modified * shock / 10000" if direction == 1 else "modified * shock / 10000"
    b.step("change", "Predicted price change (−modified duration × Δy + ½ × convexity × Δy²) × price",
           f"({first_order} + 0.5 * convexity * (shock / 10000) ** 2) * price", unit="$")
    b.step("new_price", "Predicted price", "price + change", unit="$")
