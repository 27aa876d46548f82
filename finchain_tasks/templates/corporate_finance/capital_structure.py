"""Capital structure: debt-to-equity after share buybacks, bond issues, asset sales used to repay debt, a
debt-financed recapitalization at market values, and Modigliani-Miller with corporate taxes."""

from finchain_tasks.engine import Builder, template


@template("easy")
def debt_to_equity_after_buyback(b: Builder) -> None:
    """Book debt-to-equity after a cash-funded share buyback.

    Source: Brealey, Myers and Allen, ch. 16.
    """
    b.company("company")
    equity = b.money("equity", 5_000_000, 400_000_000, step=100_000)
    b.money("debt", 0.3 * equity, 1.5 * equity, step=100_000)
    b.money("buyback", 0.05 * equity, 0.25 * equity, step=50_000)
    b.ask(
        "{company} has book shareholders' equity of {equity} and total debt of {debt}. It spends {buyback} of "
        "surplus cash repurchasing and cancelling its own shares; debt is unchanged. What is its book "
        "debt-to-equity ratio after the buyback?"
    )
    b.step("new_equity", "Equity after the buyback", "equity - buyback", unit="$")
    b.step("de_ratio", "Debt-to-equity ratio", "debt / new_equity")


@template("easy")
def debt_to_capital_after_bond_issue(b: Builder) -> None:
    """Debt-to-capital ratio after a bond issue.

    Source: CFA Institute, Corporate Finance, ch. 4.
    """
    b.company("company")
    equity = b.money("equity", 10_000_000, 500_000_000, step=100_000)
    b.money("debt", 0.2 * equity, 0.9 * equity, step=100_000)
    b.money("bond", 0.1 * equity, 0.4 * equity, step=100_000)
    b.ask(
        "{company} finances a new plant by issuing {bond} of ten-year bonds. Before the issue it had equity of "
        "{equity} and debt of {debt}, both at book value. What is its debt-to-capital ratio, debt ÷ (debt + "
        "equity), after the issue, in percent?"
    )
    b.step("new_debt", "Debt after the issue", "debt + bond", unit="$")
    b.step("capital", "Total capital (debt + equity)", "new_debt + equity", unit="$")
    b.step("ratio", "Debt-to-capital ratio", "new_debt / capital * 100", unit="%")


@template("intermediate")
def asset_sale_to_repay_debt(b: Builder) -> None:
    """Deleveraging with the after-tax proceeds of an asset sale.

    Source: Brealey, Myers and Allen, ch. 16; IAS 16 para 68 for the gain.
    """
    b.company("company")
    equity = b.money("equity", 20_000_000, 600_000_000, step=100_000)
    b.money("debt", 0.8 * equity, 2 * equity, step=100_000)
    carrying = b.money("carrying", 0.05 * equity, 0.25 * equity, step=50_000)
    b.derive("proceeds", round(carrying * b.rng.uniform(1.1, 1.6), -4), unit="$")
    b.percent("tax_rate", 20, 30, decimals=0)
    b.ask(
        "{company} has book equity of {equity} and debt of {debt}. It sells a division carried at {carrying} for "
        "{proceeds} in cash, pays tax at {tax_rate} on the gain, and uses the rest of the proceeds to repay "
        "debt. What is the book debt-to-equity ratio after the transaction?"
    )
    b.step("gain", "Gain on sale (proceeds − carrying amount)", "proceeds - carrying", unit="$")
    b.step("tax", "Tax on the gain", "gain * tax_rate / 100", unit="$")
    b.step("new_debt", "Debt after repaying the net proceeds", "debt - (proceeds - tax)", unit="$")
    b.step("new_equity", "Equity after the after-tax gain", "equity + gain - tax", unit="$")
    b.step("de_ratio", "Debt-to-equity ratio", "new_debt / new_equity")


@template("intermediate")
def leveraged_recap_market_values(b: Builder) -> None:
    """Market-value leverage after a debt-financed share repurchase, no taxes, price unchanged.

    Source: Modigliani-Miller proposition I; Berk and DeMarzo, Corporate Finance, ch. 14.
    """
    b.company("company")
    b.number("shares", 20, 400, decimals=1, unit="million shares")
    b.money("price", 12, 150, step=0.01)
    equity_value = b.values["shares"] * b.values["price"] * 1e6
    b.money("debt", 0.1 * equity_value, 0.4 * equity_value, step=1_000_000)
    b.money("new_debt", 0.1 * equity_value, 0.3 * equity_value, step=1_000_000)
    b.ask(
        "{company} has {shares} outstanding at {price} a share and debt with a market value of {debt}. It "
        "borrows a further {new_debt} and uses all of it to repurchase shares at the current price. In a "
        "perfect market with no taxes the share price does not change. What is the market-value "
        "debt-to-equity ratio after the recapitalization?"
    )
    b.step("equity_value", "Market value of equity before (shares × price)", "shares * 1000000 * price", unit="$")
    b.step("total_debt", "Debt after the new borrowing", "debt + new_debt", unit="$")
    b.step("equity_after", "Equity after the repurchase", "equity_value - new_debt", unit="$")
    b.step("de_ratio", "Market debt-to-equity ratio", "total_debt / equity_after")


@template("advanced")
def recap_with_corporate_tax(b: Builder) -> None:
    """Cost of equity after a leveraged recapitalization with corporate taxes and permanent debt.

    Source: Modigliani-Miller propositions I and II with taxes; Berk and DeMarzo, Corporate Finance, ch. 15.

    Concepts: MM proposition I with taxes (tax shield on permanent debt); market debt-to-equity after a buyback; MM
    proposition II cost of equity.
    """
    b.company("company")
    b.number("shares", 20, 300, decimals=1, unit="million shares")
    b.money("price", 15, 120, step=0.01)
    value_u = b.values["shares"] * b.values["price"] * 1e6
    b.money("debt", 0.15 * value_u, 0.45 * value_u, step=1_000_000)
    b.percent("tax_rate", 20, 30, decimals=0)
    b.percent("r_unlevered", 7, 12)
    b.percent("r_debt", 3.5, 6.5)
    b.ask(
        "{company} is financed entirely by equity: {shares} at {price} a share. It announces that it will borrow "
        "{debt}, keep that debt outstanding permanently, and use the proceeds to buy back shares. The corporate "
        "tax rate is {tax_rate}; the unlevered cost of capital is {r_unlevered} and the debt is riskless at "
        "{r_debt}. Assuming Modigliani-Miller with corporate taxes (no other frictions), what is the cost of "
        "equity after the recapitalization?"
    )
    b.step("value_unlevered", "Value of the unlevered firm (shares × price)", "shares * 1000000 * price", unit="$")
    b.step("tax_shield", "Present value of the tax shield on permanent debt (tax rate × debt)",
           "tax_rate / 100 * debt", unit="$")
    b.step("value_levered", "Value of the levered firm", "value_unlevered + tax_shield", unit="$")
    b.step("equity_after", "Equity after the buyback (levered value − debt)", "value_levered - debt", unit="$")
    b.step("de_ratio", "Market debt-to-equity ratio", "debt / equity_after")
    b.step("r_equity", "Cost of equity, rU + (rU − rD)(1 − tax rate) × D/E",
           "r_unlevered + (r_unlevered - r_debt) * (1 - tax_rate / 100) * de_ratio", unit="%")
