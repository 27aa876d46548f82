"""Liquidity ratios: current, quick and cash ratios, the effect of transactions on the current ratio, the
cash needed to meet a quick-ratio covenant, and paying down payables to reach a current-ratio covenant."""

from finchain_tasks.engine import Builder, template


@template("easy")
def quick_ratio(b: Builder) -> None:
    """Quick (acid-test) ratio, excluding inventory and prepaid expenses.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    cl = b.money("current_liabilities", 500_000, 200_000_000, step=1_000)
    b.money("cash", 0.1 * cl, 0.5 * cl, step=1_000)
    b.money("securities", 0.05 * cl, 0.3 * cl, step=1_000)
    b.money("receivables", 0.2 * cl, 0.8 * cl, step=1_000)
    b.money("inventory", 0.2 * cl, 0.9 * cl, step=1_000)
    b.money("prepaid", 0.01 * cl, 0.06 * cl, step=1_000)
    b.ask(
        "The current liabilities of {company} total {current_liabilities}. Its current assets are cash of {cash}, "
        "marketable securities of {securities}, accounts receivable of {receivables}, inventory of {inventory} "
        "and prepaid expenses of {prepaid}. What is its quick (acid-test) ratio?"
    )
    b.step("quick_assets", "Quick assets (cash + marketable securities + receivables)",
           "cash + securities + receivables", unit="$")
    b.step("quick_ratio", "Quick ratio (quick assets ÷ current liabilities)", "quick_assets / current_liabilities")


@template("easy")
def cash_ratio(b: Builder) -> None:
    """Cash ratio, the strictest liquidity ratio.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    b.money("cash", 100_000, 50_000_000, step=1_000)
    b.money("securities", 0.2 * b.values["cash"], 1.2 * b.values["cash"], step=1_000)
    b.money("receivables", 0.5 * b.values["cash"], 3 * b.values["cash"], step=1_000)
    b.money("current_liabilities", 1.5 * b.values["cash"], 6 * b.values["cash"], step=1_000)
    b.ask(
        "A credit analyst reviewing {company} notes cash and cash equivalents of {cash}, short-term marketable "
        "securities of {securities}, trade receivables of {receivables} and current liabilities of "
        "{current_liabilities}. What is the cash ratio (cash and marketable securities over current liabilities)?"
    )
    b.step("cash_like", "Cash and marketable securities", "cash + securities", unit="$")
    b.step("cash_ratio", "Cash ratio", "cash_like / current_liabilities")


@template("intermediate")
def current_ratio_after_transactions(b: Builder) -> None:
    """Current ratio after transactions that move current assets and liabilities.

    Source: Kieso, Intermediate Accounting, ch. 13 on current liabilities.
    """
    b.company("company")
    ca = b.money("current_assets", 1_000_000, 300_000_000, step=10_000)
    b.money("current_liabilities", ca / 2.2, ca / 1.2, step=10_000)
    b.money("paid_suppliers", 0.05 * ca, 0.15 * ca, step=1_000)
    b.money("credit_purchase", 0.03 * ca, 0.12 * ca, step=1_000)
    b.money("long_loan", 0.05 * ca, 0.2 * ca, step=1_000)
    b.ask(
        "At 30 November {company} has current assets of {current_assets} and current liabilities of "
        "{current_liabilities}. In December it pays {paid_suppliers} of supplier invoices in cash, buys inventory "
        "of {credit_purchase} on 60-day credit, and draws {long_loan} in cash on a five-year bank loan. What is "
        "the current ratio at 31 December, assuming nothing else changes?"
    )
    b.step("ratio_before", "Current ratio at 30 November", "current_assets / current_liabilities")
    b.step("new_assets", "Current assets (− cash paid + inventory + loan cash)",
           "current_assets - paid_suppliers + credit_purchase + long_loan", unit="$")
    b.step("new_liabilities", "Current liabilities (− invoices paid + new payable)",
           "current_liabilities - paid_suppliers + credit_purchase", unit="$")
    b.step("ratio_after", "Current ratio at 31 December", "new_assets / new_liabilities")


@template("intermediate")
def cash_for_quick_covenant(b: Builder) -> None:
    """Long-term funding needed to restore a minimum quick ratio covenant.

    Source: CFA Institute, Fixed Income, ch. on credit analysis.
    """
    b.company("company")
    cl = b.money("current_liabilities", 1_000_000, 200_000_000, step=10_000)
    b.money("cash", 0.1 * cl, 0.3 * cl, step=1_000)
    b.money("receivables", 0.3 * cl, 0.6 * cl, step=1_000)
    b.money("inventory", 0.3 * cl, 0.9 * cl, step=1_000)
    v = b.values
    quick = (v["cash"] + v["receivables"]) / cl
    b.number("covenant", quick + 0.1, quick + 0.5, decimals=2)
    b.ask(
        "{company} has cash of {cash}, receivables of {receivables}, inventory of {inventory} and current "
        "liabilities of {current_liabilities}. Its loan agreement requires a quick ratio of at least {covenant}. "
        "How much cash must it raise from long-term borrowing (which adds to cash but not to current "
        "liabilities) to just meet the covenant?"
    )
    b.step("quick_assets", "Quick assets (cash + receivables)", "cash + receivables", unit="$")
    b.step("quick_ratio", "Current quick ratio", "quick_assets / current_liabilities")
    b.step("needed", "Cash needed ((covenant − current quick ratio) × current liabilities)",
           "(covenant - quick_ratio) * current_liabilities", unit="$")


@template("advanced")
def payables_paydown_for_covenant(b: Builder) -> None:
    """Quick ratio after paying down payables to lift the current ratio to a covenant level.

    Paying x from both sides solves (CA − x) ÷ (CL − x) = target.
    Source: CFA Institute, Financial Statement Analysis, ch. 6.

    Concepts: current ratio; solving for the payables paydown that meets a covenant; quick ratio after the paydown.
    """
    b.company("company")
    cl = b.money("current_liabilities", 2_000_000, 300_000_000, step=10_000)
    b.money("cash", 0.25 * cl, 0.6 * cl, step=1_000)
    b.money("receivables", 0.3 * cl, 0.6 * cl, step=1_000)
    b.money("inventory", 0.3 * cl, 0.8 * cl, step=1_000)
    v = b.values
    ca = v["cash"] + v["receivables"] + v["inventory"]
    b.number("target", ca / cl + 0.1, ca / cl + 0.5, decimals=2)
    t = v["target"]
    paydown = (t * cl - ca) / (t - 1)
    b.require(ca / cl > 1.05 and paydown < 0.85 * v["cash"], "the paydown is feasible from cash")
    b.ask(
        "Just before its year-end {company} has current liabilities of {current_liabilities}, all trade payables, "
        "and current assets of cash {cash}, receivables {receivables} and inventory {inventory}. A covenant "
        "requires a current ratio of at least {target} at the year-end, so it will use cash to pay suppliers "
        "early. If it pays exactly enough to reach the covenant level, what will its quick ratio (cash plus "
        "receivables over current liabilities) be?"
    )
    b.step("current_assets", "Current assets", "cash + receivables + inventory", unit="$")
    b.step("ratio_before", "Current ratio before the payment", "current_assets / current_liabilities")
    b.step("paydown", "Payment x solving (CA − x) ÷ (CL − x) = target: CL × (target − current ratio) ÷ "
           "(target − 1)", "current_liabilities * (target - ratio_before) / (target - 1)", unit="$")
    b.step("new_liabilities", "Current liabilities after the payment", "current_liabilities - paydown", unit="$")
    b.step("quick_after", "Quick ratio after the payment", "(cash + receivables - paydown) / new_liabilities")
