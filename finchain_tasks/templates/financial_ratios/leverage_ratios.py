"""Leverage ratios: debt-to-equity, conversion of convertible debt, net debt to EBITDA, the equity raise
needed to reach a target debt-to-equity ratio, and a debt-financing scenario tested against covenants."""

from finchain_tasks.engine import Builder, template


@template("easy")
def debt_to_equity_ratio(b: Builder) -> None:
    """Debt-to-equity with all interest-bearing debt including lease liabilities.

    Source: CFA Institute, Financial Statement Analysis, ch. 6; IFRS 16.
    """
    b.company("company")
    equity = b.money("equity", 5_000_000, 900_000_000, step=10_000)
    b.money("short_term", 0.03 * equity, 0.2 * equity, step=10_000)
    b.money("long_term", 0.2 * equity, 1.2 * equity, step=10_000)
    b.money("leases", 0.02 * equity, 0.15 * equity, step=10_000)
    b.ask(
        "{company} reports short-term borrowings of {short_term}, long-term debt of {long_term} and lease "
        "liabilities of {leases}, against shareholders' equity of {equity}. Treating all three as debt, what is "
        "its debt-to-equity ratio?"
    )
    b.step("total_debt", "Total debt", "short_term + long_term + leases", unit="$")
    b.step("de_ratio", "Debt-to-equity ratio", "total_debt / equity")


@template("easy")
def leverage_after_conversion(b: Builder) -> None:
    """Debt-to-equity after convertible bonds are converted into shares at carrying amount.

    Source: IAS 32, para AG32.
    """
    b.company("company")
    equity = b.money("equity", 10_000_000, 800_000_000, step=10_000)
    b.money("debt", 0.6 * equity, 1.8 * equity, step=10_000)
    b.money("converted", 0.1 * b.values["debt"], 0.4 * b.values["debt"], step=10_000)
    b.ask(
        "{company} has total debt of {debt}, which includes convertible bonds, and equity of {equity}. Holders "
        "convert bonds with a carrying amount of {converted} into ordinary shares; the carrying amount moves from "
        "debt to equity. What is the debt-to-equity ratio after the conversion?"
    )
    b.step("new_debt", "Debt after conversion", "debt - converted", unit="$")
    b.step("new_equity", "Equity after conversion", "equity + converted", unit="$")
    b.step("de_ratio", "Debt-to-equity ratio", "new_debt / new_equity")


@template("intermediate")
def net_debt_to_ebitda(b: Builder) -> None:
    """Net debt to EBITDA, the leverage measure of most loan covenants.

    Source: Moody's and S&P methodology; CFA Institute, Fixed Income, ch. on credit analysis.
    """
    b.company("company")
    ebit = b.money("ebit", 2_000_000, 300_000_000, step=10_000)
    b.money("depreciation", 0.2 * ebit, 0.7 * ebit, step=10_000)
    b.money("amortization", 0.03 * ebit, 0.2 * ebit, step=10_000)
    b.money("debt", 1.5 * ebit, 5 * ebit, step=10_000)
    b.money("cash", 0.1 * ebit, 0.8 * ebit, step=10_000)
    b.ask(
        "{company} reports operating profit (EBIT) of {ebit} after depreciation of {depreciation} and "
        "amortization of {amortization}. It has gross debt of {debt} and cash of {cash}. What is its net debt to "
        "EBITDA ratio?"
    )
    b.step("ebitda", "EBITDA (EBIT + depreciation + amortization)", "ebit + depreciation + amortization", unit="$")
    b.step("net_debt", "Net debt (debt − cash)", "debt - cash", unit="$")
    b.step("ratio", "Net debt ÷ EBITDA", "net_debt / ebitda")


@template("intermediate")
def equity_raise_to_target(b: Builder) -> None:
    """Gross equity raise, net of issue costs, needed to repay debt down to a target debt-to-equity ratio.

    Source: Brealey, Myers and Allen, ch. 15 on issue costs.
    """
    b.company("company")
    equity = b.money("equity", 10_000_000, 600_000_000, step=10_000)
    b.money("debt", 1.3 * equity, 2.5 * equity, step=10_000)
    b.number("target", 0.5, 1.0, decimals=2)
    b.percent("fees", 2, 6)
    b.ask(
        "{company} has debt of {debt} and book equity of {equity}. Its lenders want the debt-to-equity ratio "
        "brought down to {target}. It will issue new shares and use the net proceeds to repay debt. Issue costs "
        "are {fees} of the gross amount raised and are charged against the proceeds. How much must it raise "
        "gross?"
    )
    b.step("current", "Current debt-to-equity ratio", "debt / equity")
    b.step("net_needed", "Net proceeds x solving (debt − x) ÷ (equity + x) = target, x = (debt − target × equity) "
           "÷ (1 + target)", "round((debt - target * equity) / (1 + target), 2)", unit="$")
    b.step("gross", "Gross amount to raise (net ÷ (1 − issue cost rate))", "net_needed / (1 - fees / 100)", unit="$")


@template("advanced")
def acquisition_financing_covenants(b: Builder) -> None:
    """Debt-financed acquisition tested against a maximum debt/EBITDA and a minimum interest cover covenant.

    Source: Loan Market Association facility terms; CFA Institute, Fixed Income, ch. on credit analysis.

    Concepts: combined EBITDA after an acquisition; debt/EBITDA covenant; interest cost of new debt; EBIT interest
    cover covenant.
    """
    b.company("company")
    ebitda = b.money("ebitda", 20_000_000, 500_000_000, step=100_000)
    b.money("depreciation", 0.15 * ebitda, 0.35 * ebitda, step=100_000)
    b.money("debt", 1 * ebitda, 2.5 * ebitda, step=100_000)
    b.percent("old_rate", 4, 7, decimals=2)
    b.money("target_ebitda", 0.1 * ebitda, 0.4 * ebitda, step=100_000)
    b.money("price", 6 * b.values["target_ebitda"], 11 * b.values["target_ebitda"], step=1_000_000)
    b.percent("new_rate", 5.5, 9, decimals=2)
    v = b.values
    total_ebitda = ebitda + v["target_ebitda"]
    leverage = (v["debt"] + v["price"]) / total_ebitda
    interest = v["debt"] * v["old_rate"] / 100 + v["price"] * v["new_rate"] / 100
    cover = (total_ebitda - v["depreciation"]) / interest
    passes = b.rng.random() < 0.5
    if passes:
        b.number("max_leverage", leverage + 0.05, leverage + 1.0, decimals=1)
        b.number("min_cover", max(1.5, cover - 3), cover - 0.05, decimals=1)
    elif b.rng.random() < 0.5:
        b.number("max_leverage", max(2.0, leverage - 1.0), leverage - 0.05, decimals=1)
        b.number("min_cover", max(1.5, cover - 3), cover + 1, decimals=1)
    else:
        b.number("max_leverage", leverage - 0.5, leverage + 1.0, decimals=1)
        b.number("min_cover", cover + 0.05, cover + 2, decimals=1)
    ok = leverage <= v["max_leverage"] and cover >= v["min_cover"]
    b.require(ok == passes and v["min_cover"] > 1 and v["max_leverage"] > 1, "the drawn case holds after rounding")
    b.ask(
        "{company} has EBITDA of {ebitda}, depreciation of {depreciation} and debt of {debt} at an average rate of "
        "{old_rate}. It plans to buy a business with EBITDA of {target_ebitda} for {price}, financed entirely "
        "with a new term loan at {new_rate}. Its facility agreement allows at most {max_leverage} times "
        "debt/EBITDA and requires EBIT interest cover of at least {min_cover} times, both tested on the combined "
        "figures for a full year (the target's depreciation is negligible). Can the deal be financed with debt "
        "without breaching a covenant (answer 'debt' if both tests pass, otherwise 'equity' is needed)?"
    )
    b.step("combined_ebitda", "Combined EBITDA", "ebitda + target_ebitda", unit="$")
    b.step("leverage", "Debt ÷ EBITDA after the deal", "(debt + price) / combined_ebitda")
    b.step("interest", "Annual interest (existing debt + term loan)", "debt * old_rate / 100 + price * new_rate / 100",
           unit="$")
    b.step("cover", "EBIT interest cover ((combined EBITDA − depreciation) ÷ interest)",
           "(combined_ebitda - depreciation) / interest")
    b.step("decision", "Financing decision",
           "'debt' if leverage <= max_leverage and cover >= min_cover else 'equity'")
