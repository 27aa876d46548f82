"""Efficiency ratios: total and fixed asset turnover, receivables and inventory turnover on average
balances, days measures, and a working capital scenario that frees cash and lifts asset turnover."""

from finchain_tasks.engine import Builder, template


@template("easy")
def asset_turnover_average(b: Builder) -> None:
    """Total asset turnover on average total assets.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    opening = b.money("assets_open", 2_000_000, 900_000_000, step=10_000)
    b.derive("assets_close", round(opening * b.rng.uniform(0.85, 1.3), -4), unit="$")
    b.money("revenue", 0.4 * opening, 2.5 * opening, step=10_000)
    b.ask(
        "{company} had total assets of {assets_open} at the start of the year and {assets_close} at the end. "
        "Revenue for the year was {revenue}. What is its total asset turnover, measured on average total assets?"
    )
    b.step("average_assets", "Average total assets", "(assets_open + assets_close) / 2", unit="$")
    b.step("turnover", "Total asset turnover (revenue ÷ average assets)", "revenue / average_assets")


@template("easy")
def receivables_turnover_days(b: Builder) -> None:
    """Receivables turnover and days sales outstanding on average receivables.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    sales = b.money("credit_sales", 1_000_000, 300_000_000, step=10_000)
    b.money("ar_open", sales * 20 / 365, sales * 75 / 365, step=1_000)
    b.derive("ar_close", round(b.values["ar_open"] * b.rng.uniform(0.8, 1.25), -3), unit="$")
    b.ask(
        "{company} made credit sales of {credit_sales} during the year. Accounts receivable were {ar_open} at "
        "the start of the year and {ar_close} at the end. Using average receivables and a 365-day year, how many "
        "days does it take on average to collect a receivable?"
    )
    b.step("average_ar", "Average receivables", "(ar_open + ar_close) / 2", unit="$")
    b.step("turnover", "Receivables turnover (credit sales ÷ average receivables)", "credit_sales / average_ar")
    b.step("dso", "Days sales outstanding (365 ÷ turnover)", "365 / turnover", unit="days")


@template("intermediate")
def inventory_turnover_from_purchases(b: Builder) -> None:
    """Inventory turnover and days with cost of goods sold derived from purchases.

    Source: Kieso, Intermediate Accounting, ch. 8; CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    opening = b.money("inv_open", 100_000, 40_000_000, step=1_000)
    b.money("purchases", 3 * opening, 10 * opening, step=1_000)
    b.derive("inv_close", round(opening * b.rng.uniform(0.8, 1.3), -3), unit="$")
    b.require(b.values["inv_close"] != opening, "inventory changes over the year")
    b.ask(
        "{company} started the year with inventory of {inv_open}, bought goods costing {purchases} during the "
        "year and counted closing inventory of {inv_close}. What is its inventory turnover in days, using average "
        "inventory and a 365-day year?"
    )
    b.step("cogs", "Cost of goods sold (opening + purchases − closing)", "inv_open + purchases - inv_close", unit="$")
    b.step("average_inv", "Average inventory", "(inv_open + inv_close) / 2", unit="$")
    b.step("turnover", "Inventory turnover (cost of goods sold ÷ average inventory)", "cogs / average_inv")
    b.step("days", "Days inventory outstanding (365 ÷ turnover)", "365 / turnover", unit="days")


@template("intermediate")
def fixed_asset_turnover_plan(b: Builder) -> None:
    """Fixed asset turnover next year under a growth plan with capital spending and depreciation.

    Source: Brealey, Myers and Allen, ch. 28.
    """
    b.company("company")
    revenue = b.money("revenue", 5_000_000, 500_000_000, step=10_000)
    ppe = b.money("ppe", 0.3 * revenue, 1.2 * revenue, step=10_000)
    b.percent("growth", 4, 18)
    b.money("capex", 0.1 * ppe, 0.3 * ppe, step=10_000)
    b.money("depreciation", 0.06 * ppe, 0.15 * ppe, step=10_000)
    b.ask(
        "{company} had revenue of {revenue} this year and ends the year with net property, plant and equipment "
        "of {ppe}. Next year it plans revenue growth of {growth}, capital spending of {capex} and depreciation of "
        "{depreciation}. What will its fixed asset turnover be next year, on average net PP&E?"
    )
    b.step("next_revenue", "Next year's revenue", "revenue * (1 + growth / 100)", unit="$")
    b.step("closing_ppe", "Net PP&E at the end of next year (opening + capex − depreciation)",
           "ppe + capex - depreciation", unit="$")
    b.step("average_ppe", "Average net PP&E", "(ppe + closing_ppe) / 2", unit="$")
    b.step("turnover", "Fixed asset turnover", "next_revenue / average_ppe")


@template("advanced")
def working_capital_release(b: Builder) -> None:
    """Asset turnover after shorter collection and inventory periods release cash that repays debt.

    Source: CFA Institute, Corporate Finance, ch. on working capital management.

    Concepts: days sales outstanding; days inventory outstanding; cash released by shorter working capital cycles;
    total asset turnover after debt repayment.
    """
    b.company("company")
    sales = b.money("sales", 10_000_000, 800_000_000, step=10_000)
    cogs = b.money("cogs", 0.5 * sales, 0.75 * sales, step=10_000)
    b.money("receivables", sales * 45 / 365, sales * 90 / 365, step=1_000)
    b.money("inventory", cogs * 50 / 365, cogs * 120 / 365, step=1_000)
    v = b.values
    b.money("total_assets", 2.5 * (v["receivables"] + v["inventory"]), 5 * (v["receivables"] + v["inventory"]),
            step=10_000)
    dso, dio = v["receivables"] / sales * 365, v["inventory"] / cogs * 365
    b.integer("target_dso", round(0.6 * dso), round(0.9 * dso), unit="days")
    b.integer("target_dio", round(0.6 * dio), round(0.9 * dio), unit="days")
    b.ask(
        "{company} has annual sales of {sales} and cost of goods sold of {cogs}, with receivables of "
        "{receivables} and inventory of {inventory} on a balance sheet totaling {total_assets}. A working capital "
        "program aims to cut days sales outstanding to {target_dso} and days inventory outstanding to "
        "{target_dio}, with sales and costs unchanged, and to use all the cash released to repay debt. Using a "
        "365-day year and year-end balances, what would total asset turnover be after the program?"
    )
    b.step("dso", "Current days sales outstanding", "receivables / sales * 365", unit="days")
    b.step("dio", "Current days inventory outstanding", "inventory / cogs * 365", unit="days")
    b.step("ar_release", "Cash released from receivables (daily sales × days saved)",
           "round(sales / 365 * (dso - target_dso), 2)", unit="$")
    b.step("inv_release", "Cash released from inventory (daily cost of goods sold × days saved)",
           "round(cogs / 365 * (dio - target_dio), 2)", unit="$")
    b.step("released", "Total cash released", "ar_release + inv_release", unit="$")
    b.step("new_assets", "Total assets after repaying debt with the cash", "total_assets - released", unit="$")
    b.step("turnover", "Total asset turnover after the program", "sales / new_assets")
