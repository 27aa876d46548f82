"""Due diligence: normalized EBITDA, working capital against a peg, debt-like items, price adjustments.

Sources: Rosenbaum and Pearl, Investment Banking (3rd ed.), ch. 1 (normalized financials, enterprise
value to equity value bridge); Bruner, Applied Mergers and Acquisitions, ch. 9 (due diligence); the
completion-accounts mechanism of share purchase agreements (net working capital peg, debt-like items).
"""

from finchain_tasks.engine import Builder, template


@template("easy")
def normalized_ebitda(b: Builder) -> None:
    """Reported EBITDA adjusted for one-off items (Rosenbaum and Pearl, ch. 1)."""
    b.company("target")
    b.money("reported", 5_000_000, 120_000_000, step=10_000)
    r = b.values["reported"]
    b.derive("litigation", 1_000 * round(r * b.rng.uniform(0.02, 0.08) / 1_000), unit="$")
    b.derive("restructuring", 1_000 * round(r * b.rng.uniform(0.01, 0.06) / 1_000), unit="$")
    b.derive("asset_gain", 1_000 * round(r * b.rng.uniform(0.01, 0.07) / 1_000), unit="$")
    b.ask(
        "In due diligence on {target}, the buyer finds that last year's reported EBITDA of {reported} was "
        "reduced by a one-off litigation settlement of {litigation} and restructuring costs of "
        "{restructuring}, and increased by a one-off gain of {asset_gain} on the sale of a warehouse. What "
        "is normalized EBITDA, excluding all three one-off items?"
    )
    b.step("add_backs", "One-off costs added back", "litigation + restructuring", unit="$")
    b.step("normalized", "Normalized EBITDA: reported + add-backs − one-off gain",
           "reported + add_backs - asset_gain", unit="$")


@template("easy", floor=1_000)
def working_capital_true_up(b: Builder) -> None:
    """Closing net working capital against the agreed peg (Bruner, ch. 9; completion-accounts adjustment)."""
    b.company("target")
    b.money("price", 30_000_000, 600_000_000, step=100_000)
    b.derive("peg", 10_000 * round(b.values["price"] * b.rng.uniform(0.08, 0.16) / 10_000), unit="$")
    peg = b.values["peg"]
    closing = peg * (1 + b.pick([-1, 1]) * b.rng.uniform(0.03, 0.15))
    b.derive("receivables", 1_000 * round(closing * b.rng.uniform(0.7, 0.9) / 1_000), unit="$")
    b.derive("inventory", 1_000 * round(closing * b.rng.uniform(0.5, 0.7) / 1_000), unit="$")
    b.derive("payables", b.values["receivables"] + b.values["inventory"] - 1_000 * round(closing / 1_000), unit="$")
    b.ask(
        "The purchase agreement for {target} sets a headline price of {price} and a net working capital "
        "peg of {peg}; the price moves dollar for dollar with any difference between closing net working "
        "capital and the peg. At closing, receivables are {receivables}, inventory is {inventory} and "
        "payables are {payables}. What is the adjusted purchase price?"
    )
    b.step("closing_nwc", "Closing net working capital: receivables + inventory − payables",
           "receivables + inventory - payables", unit="$")
    b.step("adjustment", "Adjustment: closing working capital − peg", "closing_nwc - peg", unit="$")
    b.step("adjusted_price", "Adjusted purchase price", "price + adjustment", unit="$")


@template("intermediate")
def equity_value_bridge(b: Builder) -> None:
    """Enterprise value to equity value with net debt and debt-like items (Rosenbaum and Pearl, ch. 1)."""
    b.company("target")
    b.money("ebitda", 10_000_000, 150_000_000, step=100_000)
    b.number("multiple", 6, 12, decimals=1)
    e = b.values["ebitda"]
    b.derive("debt", 100_000 * round(e * b.rng.uniform(1.0, 3.0) / 100_000), unit="$")
    b.derive("cash", 100_000 * round(e * b.rng.uniform(0.1, 0.6) / 100_000), unit="$")
    b.derive("pension", 100_000 * round(e * b.rng.uniform(0.1, 0.5) / 100_000), unit="$")
    b.percent("tax", 21, 30, decimals=0)
    b.ask(
        "A buyer values {target} at {multiple} times normalized EBITDA of {ebitda}. At closing {target} "
        "has financial debt of {debt} and cash of {cash}, and due diligence found an unfunded pension "
        "deficit of {pension}, which the buyer treats as a debt-like item net of tax at {tax} (the "
        "contributions are tax-deductible). What equity price should the buyer offer?"
    )
    b.step("ev", "Enterprise value: multiple × normalized EBITDA", "multiple * ebitda", unit="$")
    b.step("net_debt", "Net debt: debt − cash", "debt - cash", unit="$")
    b.step("pension_after_tax", "Pension deficit net of tax", "pension * (1 - tax / 100)", unit="$")
    b.step("equity", "Equity value: EV − net debt − debt-like items", "ev - net_debt - pension_after_tax", unit="$")


@template("intermediate")
def owner_compensation_normalization(b: Builder) -> None:
    """Normalizing owner pay and related-party rent, and its effect on value (Rosenbaum and Pearl, ch. 1)."""
    b.company("target")
    b.money("reported", 3_000_000, 40_000_000, step=10_000)
    r = b.values["reported"]
    b.derive("owner_pay", 10_000 * round(r * b.rng.uniform(0.08, 0.18) / 10_000), unit="$")
    b.derive("market_pay", 10_000 * round(b.values["owner_pay"] * b.rng.uniform(0.3, 0.6) / 10_000), unit="$")
    b.derive("rent_paid", 10_000 * round(r * b.rng.uniform(0.03, 0.08) / 10_000), unit="$")
    b.derive("market_rent", 10_000 * round(b.values["rent_paid"] * b.rng.uniform(1.15, 1.6) / 10_000), unit="$")
    v = b.values
    b.require(v["owner_pay"] - v["market_pay"] - (v["market_rent"] - v["rent_paid"]) > 0.01 * r,
              "normalization raises EBITDA by a visible amount")
    b.number("multiple", 5, 9, decimals=1)
    b.ask(
        "{target} is owner-managed. Reported EBITDA is {reported}. The owner draws a salary of {owner_pay}, "
        "while a hired chief executive would cost {market_pay}; the company rents its premises from the "
        "owner for {rent_paid} a year, below the market rent of {market_rent}. After the sale both will be "
        "at market rates. At an EV/EBITDA multiple of {multiple}, by how much does normalization change "
        "enterprise value?"
    )
    b.step("pay_add_back", "Excess owner pay added back", "owner_pay - market_pay", unit="$")
    b.step("rent_charge", "Extra rent at market rates", "market_rent - rent_paid", unit="$")
    b.step("net_adjustment", "Net EBITDA adjustment", "pay_add_back - rent_charge", unit="$")
    b.step("ev_change", "Change in enterprise value: multiple × net adjustment", "multiple * net_adjustment",
           unit="$")


@template("advanced")
def completion_accounts_price(b: Builder) -> None:
    """Equity purchase price from normalized EBITDA, net debt with trapped cash, tax-effected debt-like items and a
    working capital peg.

    Rosenbaum and Pearl, ch. 1 (normalization, EV to equity bridge) and the completion-accounts
    mechanism of share purchase agreements: cash that can only reach the buyer after a withholding tax counts
    net of that tax (trapped cash), and a debt-like item the target may deduct counts net of its tax saving.

    Concepts: EBITDA normalization; enterprise value from a multiple; net debt with trapped cash; tax-effected
    debt-like items; working capital peg adjustment.
    """
    b.company("target")
    b.money("reported", 8_000_000, 90_000_000, step=10_000)
    r = b.values["reported"]
    b.derive("one_offs", 10_000 * round(r * b.rng.uniform(0.03, 0.12) / 10_000), unit="$")
    b.number("multiple", 6, 11, decimals=1)
    b.derive("debt", 100_000 * round(r * b.rng.uniform(1.0, 3.0) / 100_000), unit="$")
    b.derive("cash", 100_000 * round(r * b.rng.uniform(0.1, 0.5) / 100_000), unit="$")
    b.derive("trapped", 10_000 * round(b.values["cash"] * b.rng.uniform(0.2, 0.6) / 10_000), unit="$")
    b.percent("withholding", 5, 15, decimals=0)
    b.derive("bonuses", 10_000 * round(r * b.rng.uniform(0.02, 0.06) / 10_000), unit="$")
    b.percent("tax", 19, 28, decimals=0)
    b.derive("peg", 100_000 * round(r * b.rng.uniform(0.8, 1.5) / 100_000), unit="$")
    b.derive("closing_nwc", 10_000 * round(b.values["peg"] * (1 + b.pick([-1, 1]) * b.rng.uniform(0.04, 0.15))
                                           / 10_000), unit="$")
    b.ask(
        "A buyer agrees to pay {multiple} times normalized EBITDA for {target}, on a cash-free, debt-free "
        "basis with a net working capital peg of {peg}. Reported EBITDA is {reported}, after one-off costs "
        "of {one_offs} that will not recur. At closing the completion accounts show debt of {debt}, cash of "
        "{cash}, of which {trapped} sits in a foreign subsidiary and can only be paid up after a {withholding} "
        "withholding tax (the agreement counts that cash net of the tax), accrued but unpaid bonuses for the "
        "prior year of {bonuses} (a debt-like item, counted net of the {tax} tax deduction the target will take "
        "when it pays them) and net working capital of {closing_nwc}. What equity purchase price does the buyer "
        "pay?"
    )
    b.bounds("trapped", hi="cash", why="trapped cash is part of the cash")
    b.step("normalized", "Normalized EBITDA: reported + one-off costs", "reported + one_offs", unit="$")
    b.step("ev", "Enterprise value: multiple × normalized EBITDA", "multiple * normalized", unit="$")
    b.step("leakage", "Withholding tax on repatriating the trapped cash", "trapped * withholding / 100", unit="$")
    b.step("net_debt", "Net debt: debt − (cash − withholding tax)", "debt - (cash - leakage)", unit="$")
    b.step("bonuses_net", "Bonuses net of their tax deduction: bonuses × (1 − tax rate)",
           "bonuses * (1 - tax / 100)", unit="$")
    b.step("before_nwc", "EV less net debt and the tax-effected bonuses", "ev - net_debt - bonuses_net", unit="$")
    b.step("nwc_adjustment", "Working capital adjustment: closing − peg", "closing_nwc - peg", unit="$")
    b.step("price", "Equity purchase price after the working capital adjustment", "before_nwc + nwc_adjustment",
           unit="$")
