"""Depreciation and amortization: straight line, sum-of-the-years'-digits, double declining balance,
time-apportioned charges with a gain or loss on disposal, and impairment with a capped reversal (IAS 16, IAS 36)."""

from finchain_tasks.engine import Builder, template

MONTHS = {"January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6, "July": 7, "August": 8,
          "September": 9, "October": 10, "November": 11, "December": 12}
ASSETS = ["a packaging machine", "a delivery truck", "a CNC lathe", "a server cluster", "a printing press",
          "a refrigeration unit", "a forklift fleet"]


@template("easy")
def straight_line_carrying_amount(b: Builder) -> None:
    """Carrying amount under straight-line depreciation.

    Source: IAS 16, paras 50-62.
    """
    b.company("company")
    asset = b.pick(ASSETS)
    cost = b.money("cost", 20_000, 2_000_000, step=500)
    b.money("residual", 0.03 * cost, 0.2 * cost, step=500)
    life = b.integer("life", 4, 15, unit="years")
    b.integer("elapsed", 1, life - 1, unit="years")
    b.ask(
        f"{{company}} buys {asset} for {{cost}}. It expects a residual value of {{residual}} at the end of a "
        "useful life of {life} and depreciates the asset on a straight-line basis, a full year's charge in "
        "each year. What is the asset's carrying amount after {elapsed} of use?"
    )
    b.step("depreciable", "Depreciable amount (cost − residual value)", "cost - residual", unit="$")
    b.step("annual", "Annual depreciation charge", "depreciable / life", unit="$")
    b.step("carrying", "Carrying amount (cost − accumulated depreciation)", "cost - depreciable / life * elapsed",
           unit="$")


@template("easy")
def sum_of_years_digits_charge(b: Builder) -> None:
    """Depreciation charge in a given year under sum-of-the-years'-digits.

    Source: Kieso, Weygandt and Warfield, Intermediate Accounting, ch. 11.
    """
    b.company("company")
    asset = b.pick(ASSETS)
    cost = b.money("cost", 30_000, 1_500_000, step=500)
    b.money("salvage", 0.02 * cost, 0.15 * cost, step=500)
    life = b.integer("life", 4, 10, unit="years")
    b.integer("year", 2, life, unit="")
    b.ask(
        f"{{company}} acquires {asset} at a cost of {{cost}} with an estimated salvage value of {{salvage}} and "
        "a useful life of {life}. Using the sum-of-the-years'-digits method, what is the depreciation expense "
        "in year {year} of the asset's life?"
    )
    b.step("digits", "Sum of the years' digits, n × (n + 1) ÷ 2", "life * (life + 1) / 2")
    b.step("remaining", "Remaining life at the start of the year (the year's digit)", "life - year + 1", unit="years")
    b.step("charge", "Depreciation for the year (cost − salvage) × digit ÷ sum of digits",
           "(cost - salvage) * remaining / digits", unit="$")


@template("intermediate")
def double_declining_balance(b: Builder) -> None:
    """Depreciation in a later year under the double-declining-balance method.

    Source: Kieso, Intermediate Accounting, ch. 11; salvage value is not deducted from the base.
    """
    b.company("company")
    asset = b.pick(ASSETS)
    cost = b.money("cost", 40_000, 3_000_000, step=1_000)
    life = b.integer("life", 5, 12, unit="years")
    year = b.integer("year", 2, 4, unit="")
    rate = 2 / life
    b.money("salvage", 0.03 * cost, 0.1 * cost, step=500)
    b.require(cost * (1 - rate) ** year > b.values["salvage"], "the charge never reaches below salvage value")
    b.ask(
        f"{{company}} depreciates {asset} costing {{cost}} over a useful life of {{life}} using the "
        "double-declining-balance method (twice the straight-line rate applied to the opening carrying amount, "
        "a full year's charge each year). Estimated salvage value is {salvage}, which the carrying amount "
        "does not reach in the early years. What is the depreciation expense for year {year}?"
    )
    b.step("ddb_rate", "Declining-balance rate (2 ÷ useful life)", "2 / life * 100", unit="%")
    b.step("opening", "Carrying amount at the start of the year", "round(cost * (1 - ddb_rate / 100) ** (year - 1), 2)",
           unit="$")
    b.step("charge", "Depreciation for the year", "opening * ddb_rate / 100", unit="$")


@template("intermediate", floor=200)
def disposal_gain_or_loss(b: Builder) -> None:
    """Time-apportioned straight-line depreciation and the gain or loss on disposal.

    Source: IAS 16, paras 55, 67-72.
    """
    b.company("company")
    asset = b.pick(ASSETS)
    cost = b.money("cost", 50_000, 2_000_000, step=1_000)
    b.money("residual", 0.05 * cost, 0.15 * cost, step=500)
    life = b.integer("life", 5, 10, unit="years")
    b.choice("month_in", {k: v for k, v in MONTHS.items() if v > 1})
    b.integer("sale_year", 2, life - 1, unit="")
    b.choice("month_out", MONTHS)
    v = b.values
    months = (v["sale_year"] - 1) * 12 + v["month_out"] - v["month_in"] + 1
    carrying = cost - (cost - v["residual"]) / life * months / 12
    b.derive("proceeds", round(carrying * b.rng.uniform(0.75, 1.25), -2), unit="$")
    b.require(abs(v["proceeds"] - carrying) > 0.03 * carrying, "a clear gain or loss")
    b.require(v["proceeds"] < 0.95 * cost, "a used asset sells below what it cost new (it did not in 4% of draws)")
    b.bounds("proceeds", hi="cost", why="used machinery does not sell above its original cost")
    b.ask(
        f"{{company}} brought {asset} into use on 1 {{month_in}} of year 1 at a cost of {{cost}}, with a "
        "residual value of {residual} and a useful life of {life}. It depreciates on a straight-line basis, "
        "charged monthly from the month of acquisition to the month of disposal. The asset is sold at the "
        "end of {month_out} in year {sale_year} for {proceeds}. What is the gain on disposal (negative for a "
        "loss)?"
    )
    b.step("annual", "Annual depreciation ((cost − residual) ÷ life)", "(cost - residual) / life", unit="$")
    b.step("months", "Months in use (from the month of acquisition to the month of sale, inclusive)",
           "(sale_year - 1) * 12 + month_out - month_in + 1", unit="months")
    b.step("accumulated", "Accumulated depreciation at disposal ((cost − residual) ÷ life × months ÷ 12)",
           "round((cost - residual) / life * months / 12, 2)", unit="$")
    b.step("carrying", "Carrying amount at disposal", "cost - accumulated", unit="$")
    b.step("gain", "Gain on disposal (proceeds − carrying amount)", "proceeds - carrying", unit="$")


@template("advanced")
def impairment_and_reversal(b: Builder) -> None:
    """Impairment, revised depreciation, and a reversal capped at the no-impairment carrying amount.

    Source: IAS 36, paras 59, 63, 117.

    Concepts: straight-line depreciation; recoverable amount (higher of fair value less costs of disposal and value
    in use); revised depreciation after impairment; reversal ceiling.
    """
    b.company("company")
    asset = b.pick(ASSETS)
    cost = b.money("cost", 200_000, 5_000_000, step=1_000)
    life = b.integer("life", 6, 12, unit="years")
    k = b.integer("impaired_after", 2, life - 4, unit="years")
    carrying = cost - cost / life * k
    b.money("fvlcd", 0.45 * carrying, 0.85 * carrying, step=1_000)
    b.money("viu", 0.45 * carrying, 0.85 * carrying, step=1_000)
    b.integer("later", 1, min(3, life - k - 2), unit="years")
    v = b.values
    recoverable = max(v["fvlcd"], v["viu"])
    m = k + v["later"]
    carrying_m = recoverable - recoverable / (life - k) * v["later"]
    cap = cost - cost / life * m
    b.derive("new_recoverable", round(b.rng.uniform(carrying_m * 1.08, cap * 1.3), -3), unit="$")
    b.require(b.values["new_recoverable"] > 1.05 * carrying_m, "the recovery is real")
    b.ask(
        f"{{company}} bought {asset} for {{cost}}, depreciated straight-line to a zero residual value over "
        "{life}. At the end of {impaired_after} of use a downturn triggers an impairment test: the asset's fair "
        "value less costs of disposal is {fvlcd} and its value in use is {viu}. The company writes it down to its "
        "recoverable amount and depreciates the new carrying amount straight-line over the remaining life. "
        "{later} later the market recovers and the recoverable amount is estimated at {new_recoverable}. Under "
        "IAS 36, what impairment reversal does the company recognize in profit or loss?"
    )
    b.step("annual", "Original annual depreciation", "cost / life", unit="$")
    b.step("carrying_test", "Carrying amount at the impairment test", "cost - cost / life * impaired_after", unit="$")
    b.step("loss", "Impairment loss (carrying amount − the larger of fair value less costs of disposal "
           "and value in use)", "carrying_test - max(fvlcd, viu)", unit="$")
    b.step("revised", "Revised annual depreciation over the remaining life",
           "(carrying_test - loss) / (life - impaired_after)", unit="$")
    b.step("carrying_later", "Carrying amount at the recovery date",
           "round(carrying_test - loss - (carrying_test - loss) / (life - impaired_after) * later, 2)", unit="$")
    b.step("ceiling", "Carrying amount had no impairment been recognized (the reversal ceiling)",
           "round(cost - cost / life * (impaired_after + later), 2)", unit="$")
    b.step("reversal", "Impairment reversal (the lower of the new recoverable amount and the ceiling, less "
           "the carrying amount)", "min(new_recoverable, ceiling) - carrying_later", unit="$")
