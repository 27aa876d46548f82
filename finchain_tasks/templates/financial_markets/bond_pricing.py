"""Bond pricing: current yield, present value of the coupons, price with semi-annual coupons, yield to
maturity, Macaulay and modified duration, convexity and the duration-convexity price estimate."""

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
    """Current yield, annual coupon over clean price (Fabozzi, Bond Markets, Analysis and Strategies, ch. 3)."""
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
def present_value_of_coupons(b: Builder) -> None:
    """Present value of a bond's coupons as an ordinary annuity (Fabozzi, Bond Markets, ch. 2)."""
    b.company("issuer")
    b.money("face", 1_000, 1_000)
    b.percent("coupon_rate", 2, 8, decimals=2)
    b.integer("years", 3, 20, unit="years")
    b.percent("yield_rate", 2.5, 9, decimals=2)
    b.ask(
        "A bond issued by {issuer} with a face value of {face} pays a {coupon_rate} coupon once a year and matures in "
        "{years}. Discounting at a yield of {yield_rate} a year (annual compounding), what is the present value "
        "of its coupon payments alone, excluding the repayment of face value?"
    )
    b.step("coupon", "Annual coupon", "face * coupon_rate / 100", unit="$")
    b.step("annuity", "Annuity factor, (1 − (1 + y)^−n) ÷ y",
           "(1 - (1 + yield_rate / 100) ** (-years)) / (yield_rate / 100)")
    b.step("pv_coupons", "Present value of the coupons", "coupon * annuity", unit="$")


@template("intermediate")
def semiannual_bond_price(b: Builder) -> None:
    """Price of a bond with semi-annual coupons at a yield quoted on a bond-equivalent (semi-annual) basis
    (Fabozzi, Bond Markets, ch. 2)."""
    b.company("issuer")
    b.money("face", 1_000, 1_000)
    b.percent("coupon_rate", 2, 8, decimals=2)
    b.integer("years", 2, 25, unit="years")
    b.percent("yield_rate", 2.5, 9, decimals=2)
    b.require(abs(b.values["yield_rate"] - b.values["coupon_rate"]) > 0.2, "the bond is not priced near par")
    b.ask(
        "A bond issued by {issuer} with a face value of {face} pays a {coupon_rate} annual coupon in two semi-annual "
        "installments and matures in exactly {years}. Its yield to maturity is {yield_rate}, quoted as an annual "
        "rate compounded semi-annually. What is the bond's price?"
    )
    b.step("half_coupon", "Semi-annual coupon", "face * coupon_rate / 100 / 2", unit="$")
    b.step("half_yield", "Semi-annual yield", "yield_rate / 2", unit="%")
    b.step("pv_coupons", "Present value of the coupons",
           "half_coupon * (1 - (1 + half_yield / 100) ** (-2 * years)) / (half_yield / 100)", unit="$")
    b.step("pv_face", "Present value of the face value", "face / (1 + half_yield / 100) ** (2 * years)", unit="$")
    b.step("price", "Bond price", "pv_coupons + pv_face", unit="$")


@template("intermediate")
def macaulay_and_modified_duration(b: Builder) -> None:
    """Macaulay and modified duration of an annual-coupon bond (Macaulay 1938; Fabozzi, Bond Markets, ch. 4)."""
    b.company("issuer")
    b.money("face", 1_000, 1_000)
    b.percent("coupon_rate", 2, 9, decimals=2)
    years = b.integer("years", 3, 6, unit="years")
    b.percent("ytm", 2.5, 9, decimals=2)
    b.ask(
        "A bond issued by {issuer} with a face value of {face} pays a {coupon_rate} coupon annually and matures in "
        "{years}. Its yield to maturity is {ytm} (annual compounding). What is its modified duration?"
    )
    b.step("coupon", "Annual coupon", "face * coupon_rate / 100", unit="$")
    b.step("price", "Price (present value of all cash flows)", _cash_flow_sum(years, "ytm"), unit="$")
    b.step("weighted", "Time-weighted present values, sum of t × CF ÷ (1 + y)^t",
           _cash_flow_sum(years, "ytm", lambda t: t))
    b.step("macaulay", "Macaulay duration (time-weighted sum ÷ price)", "weighted / price", unit="years")
    b.step("modified", "Modified duration (Macaulay ÷ (1 + y))", "macaulay / (1 + ytm / 100)")


@template("advanced")
def ytm_duration_convexity(b: Builder) -> None:
    """Yield to maturity from the price, then Macaulay and modified duration, convexity and the
    duration-plus-convexity estimate of the price after a yield shock (Fabozzi, Bond Markets, ch. 4;
    Hull, Options, Futures and Other Derivatives, ch. 4)."""
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
