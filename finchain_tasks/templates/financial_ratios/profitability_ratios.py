"""Profitability ratios: the gross profit margin, ROE on average equity, the three-step DuPont
identity, the price needed for a target net margin, and a five-step DuPont analysis of a recapitalization."""

from finchain_tasks.engine import Builder, template


@template("easy", floor=5)
def gross_profit_margin(b: Builder) -> None:
    """Gross profit margin of a retailer whose cost of goods sold comes from its inventory records.

    Source: CFA Institute, Financial Statement Analysis, ch. 6 (gross profit margin = gross profit ÷ revenue)
    and ch. 9 (cost of goods sold = opening inventory + purchases − closing inventory).
    """
    b.company("company", kind="retailer")
    revenue = b.money("revenue", 1_000_000, 500_000_000, step=10_000)
    cogs = revenue * b.rng.uniform(0.45, 0.8)
    opening = b.money("inventory_open", 0.08 * cogs, 0.2 * cogs, step=1_000)
    closing = b.derive("inventory_close", round(opening * b.rng.uniform(0.85, 1.2), -3), unit="$")
    b.derive("purchases", round(cogs - opening + closing, -3), unit="$")
    b.bounds("cogs", lo=0, hi="revenue", why="goods sold cost less than the sales they made")
    b.bounds("margin", lo=0, hi=100, why="a gross margin is a part of net sales")
    b.ask(
        "{company}, a retailer, had net sales of {revenue} last year. It began the year with inventory of "
        "{inventory_open}, bought {purchases} of goods during the year and ended it with inventory of "
        "{inventory_close}. What was its gross profit margin?"
    )
    b.step("cogs", "Cost of goods sold (opening inventory + purchases − closing inventory)",
           "inventory_open + purchases - inventory_close", unit="$")
    b.step("gross_profit", "Gross profit (net sales − cost of goods sold)", "revenue - cogs", unit="$")
    b.step("margin", "Gross profit margin (gross profit ÷ net sales)", "gross_profit / revenue * 100", unit="%")


@template("easy")
def roe_on_average_equity(b: Builder) -> None:
    """Return on equity on average shareholders' equity.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    opening = b.money("equity_open", 5_000_000, 900_000_000, step=10_000)
    b.derive("equity_close", round(opening * b.rng.uniform(0.9, 1.25), -4), unit="$")
    b.money("net_income", 0.04 * opening, 0.25 * opening, step=1_000)
    b.ask(
        "The shareholders' equity of {company} was {equity_open} at the start of the year and {equity_close} at the "
        "end; net income for the year was {net_income}. What is its return on average equity?"
    )
    b.step("average_equity", "Average equity", "(equity_open + equity_close) / 2", unit="$")
    b.step("roe", "Return on equity (net income ÷ average equity)", "net_income / average_equity * 100", unit="%")


@template("intermediate")
def dupont_three_step(b: Builder) -> None:
    """ROE by the three-step DuPont identity: net margin × asset turnover × equity multiplier.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.
    """
    b.company("company")
    revenue = b.money("revenue", 5_000_000, 900_000_000, step=10_000)
    b.money("net_income", 0.03 * revenue, 0.15 * revenue, step=1_000)
    b.money("assets", 0.5 * revenue, 2 * revenue, step=10_000)
    b.money("equity", 0.3 * b.values["assets"], 0.7 * b.values["assets"], step=10_000)
    b.bounds("net_margin", hi=100, why="a margin below revenue")
    b.ask(
        "{company} reports revenue of {revenue}, net income of {net_income}, total assets of {assets} and "
        "shareholders' equity of {equity} (use year-end balances). Decompose its return on equity with the "
        "three-step DuPont identity: what is ROE?"
    )
    b.step("net_margin", "Net profit margin (net income ÷ revenue)", "net_income / revenue * 100", unit="%")
    b.step("turnover", "Asset turnover (revenue ÷ total assets)", "revenue / assets")
    b.step("multiplier", "Equity multiplier (total assets ÷ equity)", "assets / equity")
    b.step("roe", "ROE (net margin × turnover × multiplier)", "net_margin * turnover * multiplier", unit="%")


@template("intermediate")
def price_for_target_margin(b: Builder) -> None:
    """Selling price that delivers a target net profit margin after tax.

    Source: cost-volume-profit analysis; Horngren, Cost Accounting, ch. 3.
    """
    b.company("company")
    product = b.pick(["smart thermostats", "office chairs", "water filters", "bike helmets", "LED panels"])
    b.integer("units", 10_000, 500_000, unit="")
    b.money("variable_cost", 8, 120, step=0.5)
    v = b.values
    b.money("fixed_costs", 0.2 * v["units"] * v["variable_cost"], 0.8 * v["units"] * v["variable_cost"],
            step=10_000)
    b.percent("tax_rate", 20, 30, decimals=0)
    b.percent("target", 5, 15, decimals=0)
    b.ask(
        f"{{company}} plans to sell {{units}} {product} next year at a variable cost of {{variable_cost}} a unit, "
        "with fixed costs of {fixed_costs}. Income tax is {tax_rate} of profit before tax. What unit price gives "
        "a net profit margin (net income ÷ revenue) of {target}?"
    )
    b.step("total_cost", "Total costs at the planned volume", "units * variable_cost + fixed_costs", unit="$")
    b.step("kept", "Share of pre-tax profit kept after tax", "1 - tax_rate / 100")
    b.step("revenue", "Revenue R solving kept × (R − costs) = target × R: kept × costs ÷ (kept − target)",
           "kept * total_cost / (kept - target / 100)", unit="$")
    b.step("price", "Unit price (revenue ÷ units)", "revenue / units", unit="$")


@template("advanced")
def dupont_recapitalization(b: Builder) -> None:
    """ROE by the five-step (extended) DuPont decomposition after a debt-financed buyback.

    Source: CFA Institute, Financial Statement Analysis, ch. 6.

    Concepts: interest cost of a debt-financed buyback; tax and interest burdens; EBIT margin and asset turnover;
    equity multiplier; five-step DuPont ROE.
    """
    b.company("company")
    revenue = b.money("revenue", 20_000_000, 900_000_000, step=10_000)
    b.money("ebit", 0.08 * revenue, 0.2 * revenue, step=10_000)
    assets = b.money("assets", 0.6 * revenue, 1.5 * revenue, step=10_000)
    b.money("debt", 0.1 * assets, 0.3 * assets, step=10_000)
    b.percent("old_rate", 3.5, 6, decimals=2)
    b.money("buyback", 0.1 * assets, 0.25 * assets, step=10_000)
    b.percent("new_rate", 5, 8, decimals=2)
    b.percent("tax_rate", 20, 30, decimals=0)
    v = b.values
    interest = v["debt"] * v["old_rate"] / 100 + v["buyback"] * v["new_rate"] / 100
    b.require(interest < 0.6 * v["ebit"] and assets - v["debt"] - v["buyback"] > 0.3 * assets, "sound leverage")
    b.bounds("ebit_margin", hi=100, why="a margin below revenue")
    b.ask(
        "{company} has revenue of {revenue}, EBIT of {ebit} and total assets of {assets}, financed by {debt} of "
        "debt at {old_rate} and equity (the rest). It borrows a further {buyback} at {new_rate} and uses it to buy "
        "back shares, leaving total assets, revenue and EBIT unchanged. The tax rate is {tax_rate}. Using the "
        "five-step DuPont decomposition with year-end balances, what is ROE after the recapitalization?"
    )
    b.step("tax_burden", "Tax burden (net income ÷ EBT)", "1 - tax_rate / 100")
    b.step("interest_burden", "Interest burden (EBT ÷ EBIT) with the new interest bill",
           "(ebit - debt * old_rate / 100 - buyback * new_rate / 100) / ebit")
    b.step("ebit_margin", "EBIT margin", "ebit / revenue * 100", unit="%")
    b.step("turnover", "Asset turnover", "revenue / assets")
    b.step("multiplier", "Equity multiplier after the buyback (assets ÷ remaining equity)",
           "assets / (assets - debt - buyback)")
    b.step("roe", "ROE (product of the five factors)",
           "tax_burden * interest_burden * ebit_margin * turnover * multiplier", unit="%")
