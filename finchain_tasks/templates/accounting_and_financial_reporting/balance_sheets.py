"""Balance sheets: the accounting equation, working capital items, inventory days, the adjusted current
ratio after reclassifications and write-downs, and consolidation of an acquired subsidiary."""

from finchain_tasks.engine import Builder, template


@template("easy")
def equity_from_accounting_equation(b: Builder) -> None:
    """Equity as assets minus liabilities.

    Source: the accounting equation; IAS 1, para 54.
    """
    b.company("company")
    cash = b.money("cash", 40_000, 600_000, step=1_000)
    receivables = b.money("receivables", 50_000, 900_000, step=1_000)
    inventory = b.money("inventory", 60_000, 1_200_000, step=1_000)
    ppe = b.money("ppe", 500_000, 6_000_000, step=5_000)
    assets = cash + receivables + inventory + ppe
    b.money("payables", 0.05 * assets, 0.15 * assets, step=1_000)
    b.money("accrued", 0.02 * assets, 0.06 * assets, step=1_000)
    b.money("debt", 0.15 * assets, 0.45 * assets, step=5_000)
    b.ask(
        "At its financial year-end {company} reports cash of {cash}, accounts receivable of {receivables}, "
        "inventory of {inventory} and property, plant and equipment (net) of {ppe}. Its liabilities are "
        "accounts payable of {payables}, accrued expenses of {accrued} and long-term bank debt of {debt}. "
        "Using the accounting equation, what is the shareholders' equity on the balance sheet?"
    )
    b.step("total_assets", "Total assets", "cash + receivables + inventory + ppe", unit="$")
    b.step("total_liabilities", "Total liabilities", "payables + accrued + debt", unit="$")
    b.step("equity", "Shareholders' equity (assets minus liabilities)", "total_assets - total_liabilities", unit="$")


@template("easy")
def inventory_days(b: Builder) -> None:
    """Days inventory outstanding on average inventory.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    opening = b.money("opening", 200_000, 2_000_000, step=1_000)
    b.derive("closing", round(opening * b.rng.uniform(0.8, 1.25), -3), unit="$")
    b.money("cogs", 4 * opening, 12 * opening, step=1_000)
    b.ask(
        "{company} began the year with inventory of {opening} and ended it with {closing}. Cost of goods sold "
        "for the year was {cogs}. Using average inventory and a 365-day year, how many days of inventory "
        "does {company} hold on average (days inventory outstanding)?"
    )
    b.step("average_inventory", "Average inventory", "(opening + closing) / 2", unit="$")
    b.step("turnover", "Inventory turnover (cost of goods sold ÷ average inventory)", "cogs / average_inventory")
    b.step("days", "Days inventory outstanding (365 ÷ turnover)", "365 / turnover", unit="days")


@template("intermediate")
def adjusted_current_ratio(b: Builder) -> None:
    """Current ratio after an inventory write-down, a bad debt and reclassified debt.

    Source: IAS 1, paras 69-76.
    """
    b.company("company")
    ca = b.money("current_assets", 400_000, 4_000_000, step=5_000)
    b.money("current_liabilities", ca / 2.4, ca / 1.3, step=5_000)
    b.money("writedown", 0.02 * ca, 0.06 * ca, step=500)
    b.money("bad_debt", 0.01 * ca, 0.04 * ca, step=500)
    b.money("reclassified", 0.05 * ca, 0.15 * ca, step=1_000)
    b.ask(
        "Before its auditors' adjustments, {company} shows current assets of {current_assets} and current "
        "liabilities of {current_liabilities}. The auditors require three corrections: obsolete inventory of "
        "{writedown} is written off, a customer balance of {bad_debt} is judged uncollectible and written off, "
        "and {reclassified} of long-term bank debt falls due within twelve months, so it is reclassified as a "
        "current liability. What is the current ratio after the adjustments?"
    )
    b.step("original_ratio", "Current ratio before the adjustments",
           "current_assets / current_liabilities")
    b.step("adjusted_assets", "Current assets after the two write-offs",
           "current_assets - writedown - bad_debt", unit="$")
    b.step("adjusted_liabilities", "Current liabilities including the reclassified debt",
           "current_liabilities + reclassified", unit="$")
    b.step("adjusted_ratio", "Adjusted current ratio", "adjusted_assets / adjusted_liabilities")


@template("intermediate", floor=10)
def cash_conversion_cycle(b: Builder) -> None:
    """Cash conversion cycle from year-end working capital items.

    Source: Brealey, Myers and Allen, ch. 30.
    """
    b.company("company")
    sales = b.money("sales", 2_000_000, 40_000_000, step=10_000)
    cogs = b.money("cogs", 0.55 * sales, 0.8 * sales, step=10_000)
    b.money("receivables", sales * 25 / 365, sales * 70 / 365, step=1_000)
    b.money("inventory", cogs * 35 / 365, cogs * 90 / 365, step=1_000)
    b.money("payables", cogs * 15 / 365, cogs * 45 / 365, step=1_000)
    b.ask(
        "{company} had revenue of {sales} and cost of goods sold of {cogs} last year, all sales on credit. "
        "Its year-end balance sheet shows accounts receivable of {receivables}, inventory of {inventory} and "
        "accounts payable of {payables}. Using year-end balances and a 365-day year, and measuring inventory "
        "and payables days against cost of goods sold, what is the cash conversion cycle in days?"
    )
    b.step("dso", "Days sales outstanding (receivables ÷ revenue × 365)", "receivables / sales * 365", unit="days")
    b.step("dio", "Days inventory outstanding (inventory ÷ cost of goods sold × 365)",
           "inventory / cogs * 365", unit="days")
    b.step("dpo", "Days payables outstanding (payables ÷ cost of goods sold × 365)",
           "payables / cogs * 365", unit="days")
    b.step("ccc", "Cash conversion cycle (DSO + DIO − DPO)", "dso + dio - dpo", unit="days")


@template("advanced")
def acquisition_consolidation(b: Builder) -> None:
    """Goodwill, non-controlling interest and consolidated equity after an acquisition.

    Source: IFRS 3, paras 19 and 32, NCI at its proportionate share of identifiable net assets; IFRS 10.

    Concepts: purchase consideration in cash and shares; fair-value uplift of net assets; proportionate non-
    controlling interest; goodwill; consolidated balance sheet.
    """
    b.company("parent")
    b.company("target")
    b.require(b.values["parent"] != b.values["target"], "two different companies")
    stake = b.percent("stake", 55, 90, decimals=0)
    sub_assets = b.money("sub_assets", 4_000_000, 30_000_000, step=50_000)
    sub_liabilities = b.money("sub_liabilities", 0.25 * sub_assets, 0.6 * sub_assets, step=50_000)
    uplift = b.money("uplift", 0.03 * sub_assets, 0.15 * sub_assets, step=10_000)
    share_of_net = (sub_assets + uplift - sub_liabilities) * stake / 100
    cash = b.money("cash_paid", 0.3 * share_of_net, 0.6 * share_of_net, step=10_000)
    price = b.money("share_price", 8, 60, step=0.01)
    b.integer("shares_issued", int((1.1 * share_of_net - cash) / price) + 1, int((1.5 * share_of_net - cash) / price),
              unit="shares")
    parent_assets = b.money("parent_assets", 2.5 * sub_assets, 8 * sub_assets, step=100_000)
    b.require(cash < 0.2 * parent_assets, "the parent pays the cash from its own assets")
    b.money("parent_liabilities", 0.3 * parent_assets, 0.6 * parent_assets, step=100_000)
    b.ask(
        "{parent} acquires {stake} of the ordinary shares of {target}. It pays {cash_paid} in cash and issues "
        "{shares_issued} of its own with a fair value of {share_price} each. At the acquisition date the "
        "identifiable assets of {target} have a carrying amount of {sub_assets} and its liabilities "
        "{sub_liabilities}; a valuation puts the assets {uplift} above their carrying amount (land carried at "
        "old cost), while the liabilities are at fair value. Immediately before the deal {parent} reported total "
        "assets of {parent_assets} and total liabilities of {parent_liabilities}. Measuring the non-controlling "
        "interest at its proportionate share of the identifiable net assets (IFRS 3), what is total equity, "
        "including the non-controlling interest, in the consolidated balance sheet immediately after the "
        "acquisition?"
    )
    b.step("consideration", "Consideration transferred (cash plus shares issued at fair value)",
           "cash_paid + shares_issued * share_price", unit="$")
    b.step("fair_net_assets", "Fair value of the identifiable net assets acquired",
           "sub_assets + uplift - sub_liabilities", unit="$")
    b.step("nci", "Non-controlling interest (its share of the fair net assets)",
           "(1 - stake / 100) * fair_net_assets", unit="$")
    b.step("goodwill", "Goodwill (consideration plus NCI minus fair net assets)",
           "consideration + nci - fair_net_assets", unit="$")
    b.step("group_assets", "Consolidated total assets (parent after the cash paid, subsidiary at fair value, "
           "goodwill)", "parent_assets - cash_paid + sub_assets + uplift + goodwill", unit="$")
    b.step("group_liabilities", "Consolidated total liabilities", "parent_liabilities + sub_liabilities", unit="$")
    b.step("group_equity", "Consolidated total equity including NCI", "group_assets - group_liabilities", unit="$")
