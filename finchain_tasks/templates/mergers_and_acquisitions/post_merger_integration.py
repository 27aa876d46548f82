"""Post-merger integration: combined margins, customer retention, integration-cost payback, EPS
accretion or dilution for all-stock and mixed cash-and-stock deals.

Sources: Rosenbaum and Pearl, Investment Banking (3rd ed.), ch. 7 (accretion/dilution analysis, pro
forma EPS, after-tax financing cost); DePamphilis, Mergers, Acquisitions, and Other Restructuring
Activities, ch. 6 (integration costs, retention of customers and revenue).
"""

from finchain_tasks.engine import Builder, template


def _two_companies(b: Builder) -> None:
    b.company("acquirer")
    b.company("target")
    b.require(b.values["acquirer"] != b.values["target"], "two different companies")


@template("easy")
def combined_operating_margin(b: Builder) -> None:
    """Combined operating margin with cost savings (Rosenbaum and Pearl, ch. 7, pro forma combination)."""
    _two_companies(b)
    b.money("revenue_a", 200_000_000, 3_000_000_000, step=1_000_000)
    b.derive("income_a", 100_000 * round(b.values["revenue_a"] * b.rng.uniform(0.06, 0.2) / 100_000), unit="$")
    b.derive("revenue_b", 1_000_000 * round(b.values["revenue_a"] * b.rng.uniform(0.15, 0.7) / 1_000_000),
             unit="$")
    b.derive("income_b", 100_000 * round(b.values["revenue_b"] * b.rng.uniform(0.03, 0.15) / 100_000), unit="$")
    b.derive("savings", 100_000 * round(b.values["revenue_b"] * b.rng.uniform(0.01, 0.04) / 100_000), unit="$")
    b.bounds("margin", hi=100, why="a margin below revenue")
    b.ask(
        "{acquirer} (revenue {revenue_a}, operating income {income_a}) merges with {target} (revenue "
        "{revenue_b}, operating income {income_b}). Integration is expected to remove {savings} of "
        "duplicated costs a year with no effect on revenue. What is the combined operating margin once the "
        "savings are achieved?"
    )
    b.step("revenue", "Combined revenue", "revenue_a + revenue_b", unit="$")
    b.step("income", "Combined operating income including the savings", "income_a + income_b + savings", unit="$")
    b.step("margin", "Combined operating margin (%)", "income / revenue * 100", unit="%")


@template("easy")
def customer_attrition_revenue(b: Builder) -> None:
    """Revenue kept after post-deal customer attrition (DePamphilis, ch. 6, customer retention)."""
    _two_companies(b)
    b.money("revenue_a", 100_000_000, 2_000_000_000, step=1_000_000)
    b.derive("revenue_b", 1_000_000 * round(b.values["revenue_a"] * b.rng.uniform(0.1, 0.6) / 1_000_000),
             unit="$")
    b.percent("attrition", 4, 20, decimals=1)
    b.ask(
        "After {acquirer} (annual revenue {revenue_a}) acquires {target} (annual revenue {revenue_b}), "
        "{target} customers representing {attrition} of its revenue leave for competitors during the "
        "integration; {acquirer}'s own customers stay. What is the combined annual revenue after the "
        "attrition?"
    )
    b.step("lost", "Target revenue lost to attrition", "revenue_b * attrition / 100", unit="$")
    b.step("combined", "Combined revenue after attrition", "revenue_a + revenue_b - lost", unit="$")


@template("intermediate")
def integration_cost_payback(b: Builder) -> None:
    """Payback of one-time integration costs from phased synergies (DePamphilis, ch. 6)."""
    _two_companies(b)
    b.money("run_rate", 10_000_000, 200_000_000, step=500_000)
    b.percent("phase1", 30, 60, decimals=0)
    b.derive("costs", 100_000 * round(b.values["run_rate"] * (b.values["phase1"] / 100 + b.rng.uniform(0.1, 0.9))
                                      / 100_000), unit="$")
    b.ask(
        "{acquirer} expects its merger with {target} to produce run-rate cost synergies of {run_rate} a "
        "year, of which {phase1} is achieved in the first year and 100% from the second year on. One-time "
        "integration costs are {costs}, paid at closing. Assuming synergies accrue evenly within each year, "
        "how many years after closing are the integration costs paid back (undiscounted)?"
    )
    b.step("year1", "Synergies realized in year 1", "run_rate * phase1 / 100", unit="$")
    b.step("left", "Integration cost still unrecovered after year 1", "costs - year1", unit="$")
    b.step("fraction", "Part of year 2 needed: unrecovered cost ÷ full run-rate synergies", "left / run_rate")
    b.step("payback", "Payback period", "1 + fraction", unit="years")


@template("intermediate", floor=1)
def all_stock_eps_effect(b: Builder) -> None:
    """EPS accretion or dilution of an all-stock deal (Rosenbaum and Pearl, ch. 7)."""
    _two_companies(b)
    b.money("income_a", 100_000_000, 2_000_000_000, step=1_000_000)
    b.integer("shares_a", 50_000_000, 800_000_000, unit="shares")
    pe_a = b.rng.uniform(12, 30)
    b.derive("income_b", 1_000_000 * round(b.values["income_a"] * b.rng.uniform(0.1, 0.5) / 1_000_000), unit="$")
    b.number("pe_paid", 10, 32, decimals=1)
    v = b.values
    price_a = round(pe_a * v["income_a"] / v["shares_a"], 2)
    new = v["pe_paid"] * v["income_b"] / price_a
    change = ((v["income_a"] + v["income_b"]) / (v["shares_a"] + new)) / (v["income_a"] / v["shares_a"]) - 1
    b.require(abs(change) > 0.02, "the effect on EPS is clearly visible")
    b.derive("price_a", round(price_a, 2), unit="$")
    b.ask(
        "{acquirer} earns net income of {income_a} on {shares_a}; its shares trade at {price_a}. It buys "
        "{target}, whose net income is {income_b}, for {pe_paid} times {target}'s earnings, paid entirely in "
        "new {acquirer} shares issued at {price_a}. Ignoring synergies and deal costs, by what percentage "
        "does the deal change {acquirer}'s EPS (positive if accretive, negative if dilutive)?"
    )
    b.step("new_shares", "New shares issued: purchase price ÷ share price", "pe_paid * income_b / price_a",
           unit="shares")
    b.step("income_growth", "Net income growth factor: combined ÷ standalone", "(income_a + income_b) / income_a")
    b.step("share_growth", "Share count growth factor: pro forma ÷ existing", "(shares_a + new_shares) / shares_a")
    b.step("change", "Change in EPS: income factor ÷ share factor − 1 (%)",
           "(income_growth / share_growth - 1) * 100", unit="%")


@template("advanced", floor=1)
def mixed_financing_eps_effect(b: Builder) -> None:
    """Pro forma EPS of a deal paid partly with new debt and partly with new shares, with synergies.

    Rosenbaum and Pearl, ch. 7: pro forma net income = acquirer + target + after-tax synergies −
    after-tax interest on acquisition debt; pro forma shares = existing + newly issued.

    Concepts: debt and share financing of a deal; after-tax synergies and acquisition interest; pro forma net income
    and share count; accretion or dilution.
    """
    _two_companies(b)
    b.money("income_a", 200_000_000, 2_000_000_000, step=1_000_000)
    b.integer("shares_a", 100_000_000, 900_000_000, unit="shares")
    b.derive("price_a", round(b.values["income_a"] / b.values["shares_a"] * b.rng.uniform(12, 25), 2), unit="$")
    b.derive("income_b", 1_000_000 * round(b.values["income_a"] * b.rng.uniform(0.1, 0.4) / 1_000_000), unit="$")
    b.derive("price_paid", 10_000_000 * round(b.values["income_b"] * b.rng.uniform(12, 22) / 10_000_000), unit="$")
    b.percent("debt_share", 30, 70, decimals=0)
    b.percent("rate", 4, 9, decimals=2)
    b.derive("synergies", 1_000_000 * round(b.values["income_b"] * b.rng.uniform(0.05, 0.25) / 1_000_000), unit="$")
    b.percent("tax", 21, 28, decimals=0)
    v = b.values
    debt = v["price_paid"] * v["debt_share"] / 100
    income = v["income_a"] + v["income_b"] + (v["synergies"] - debt * v["rate"] / 100) * (1 - v["tax"] / 100)
    shares = v["shares_a"] + (v["price_paid"] - debt) / v["price_a"]
    b.require(abs(income / shares / (v["income_a"] / v["shares_a"]) - 1) > 0.02,
              "the effect on EPS is clearly visible")
    b.ask(
        "{acquirer} has net income of {income_a}, {shares_a} outstanding and a share price of {price_a}. It "
        "agrees to buy {target} (net income {income_b}) for {price_paid}, funding {debt_share} of the price "
        "with new debt at {rate} a year and the rest with new shares issued at {price_a}. Pre-tax cost "
        "synergies of {synergies} a year are expected, and the tax rate is {tax}. What is the percentage "
        "change in {acquirer}'s EPS in the first full year (positive if accretive)?"
    )
    b.step("debt", "New acquisition debt", "price_paid * debt_share / 100", unit="$")
    b.step("new_shares", "New shares issued for the rest of the price", "(price_paid - debt) / price_a",
           unit="shares")
    b.step("after_tax_items", "After-tax synergies less after-tax interest",
           "(synergies - debt * rate / 100) * (1 - tax / 100)", unit="$")
    b.step("income", "Pro forma net income", "income_a + income_b + after_tax_items", unit="$")
    b.step("income_growth", "Net income growth factor: pro forma ÷ standalone", "income / income_a")
    b.step("share_growth", "Share count growth factor: pro forma ÷ existing", "(shares_a + new_shares) / shares_a")
    b.step("change", "Change in EPS: income factor ÷ share factor − 1 (%)",
           "(income_growth / share_growth - 1) * 100", unit="%")
