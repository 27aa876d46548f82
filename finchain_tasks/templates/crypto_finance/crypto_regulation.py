"""Crypto regulation: late-filing and accuracy penalties on crypto gains, interest on underpaid tax,
exchange listing costs, compliance budgets, and a MiCA multi-factor compliance cost."""

from finchain_tasks.engine import Builder, template
from finchain_tasks.templates.crypto_finance import price_for_cap


@template("easy")
def late_filing_penalty(b: Builder) -> None:
    """Tax on a crypto gain and the failure-to-file penalty on it.

    Source: Internal Revenue Code §6651(a)(1) (5% of the unpaid tax per month or part of a month, at most 25%).
    """
    b.person("person")
    b.money("gain", 3_000, 250_000, step=10)
    b.choice("rate", {"15%": 15, "20%": 20, "24%": 24, "32%": 32, "35%": 35})
    b.integer("months", 1, 4, unit="months")
    coin = b.pick(["bitcoin", "ether", "a basket of altcoins"])
    b.ask(
        f"{{person}} realized a capital gain of {{gain}} selling {coin}; the gain is taxed at {{their}} "
        "applicable rate of {rate}. "
        "{They} filed the return {months} late (counting each part month as a full month) and paid nothing "
        "until then. The failure-to-file penalty is 5% of the unpaid tax for each month late, capped at 25% "
        "in total. What is the tax due and the failure-to-file penalty? Give the penalty."
    )
    b.step("tax", "Tax due on the gain", "gain * rate / 100", unit="$")
    b.step("penalty", "Failure-to-file penalty (5% per month late)", "tax * 0.05 * months", unit="$")


@template("easy")
def exchange_listing_cost(b: Builder) -> None:
    """Total cost of listing a token on a centralized exchange: cash fee plus a token allocation.

    Source: listing-fee disclosures of centralized exchanges (e.g., the fee structure described in the
    U.S. SEC complaint SEC v. Binance, 2023); cost of tokens valued at market price.
    """
    b.money("fee", 50_000, 1_500_000, step=5_000)
    supply = b.number("supply", 100, 5_000, decimals=0, unit="million tokens")
    b.percent("allocation", 0.5, 3, decimals=2)
    price_for_cap(b, "price", supply * 1e6, 1e8, 3e9)
    b.ask(
        "The foundation behind a new token negotiates a listing on a large centralized exchange. "
        "The exchange asks for a cash listing fee of {fee} plus a marketing allocation of tokens. The token "
        "has a total supply of {supply}, and the allocation is {allocation} of that supply, valued at the "
        "expected listing price of {price} per token. What is the total cost of the listing in dollars?"
    )
    b.step("token_cost", "Value of the token allocation", "supply * 1000000 * allocation / 100 * price", unit="$")
    b.step("total", "Total listing cost (cash fee + tokens)", "fee + token_cost", unit="$")


@template("intermediate")
def exchange_compliance_budget(b: Builder) -> None:
    """An exchange's annual compliance cost and its share of trading revenue.

    Source: cost build-up by driver (activity-based costing, Kaplan and Cooper, Cost and Effect, ch. 5)
    applied to KYC and transaction-monitoring obligations (FATF Recommendations 10 and 16).
    """
    b.company("company", kind="exchange")
    b.money("license", 100_000, 2_000_000, step=10_000)
    b.integer("users", 20_000, 900_000, unit="customers")
    b.money("kyc", 2, 15, step=0.25)
    vol = b.number("volume", 1, 80, decimals=1, unit="billion dollars")
    b.number("bps", 0.1, 1.5, decimals=2, unit="bps")
    b.derive("revenue", round(vol * 1e9 * b.rng.uniform(0.0008, 0.002), -3), unit="$")
    v = b.values
    cost = v["license"] + v["users"] * v["kyc"] + vol * 1e9 * v["bps"] / 10_000
    b.require(cost <= 0.4 * v["revenue"], "compliance takes at most 40% of revenue (it exceeded revenue in 4%)")
    b.bounds("total", hi="revenue", why="an exchange's compliance budget stays below its revenue")
    b.bounds("share", lo=0, hi=100, why="a share of revenue")
    b.ask(
        "{company} is a crypto exchange. This year it pays {license} in licensing and registration fees, "
        "onboards {users}, each costing {kyc} in identity verification (KYC), and screens {volume} of trading "
        "volume through a blockchain-analytics vendor that charges {bps} of the volume screened. Its trading "
        "revenue for the year is {revenue}. What is the total compliance cost, and what percentage of trading "
        "revenue does it consume? Give the percentage."
    )
    b.step("kyc_cost", "Identity verification cost", "users * kyc", unit="$")
    b.step("monitoring", "Transaction monitoring cost (basis points of volume)", "volume * 1000000000 * bps / 10000",
           unit="$")
    b.step("total", "Total compliance cost", "license + kyc_cost + monitoring", unit="$")
    b.step("share", "Compliance cost as a share of revenue", "total / revenue * 100", unit="%")


@template("intermediate")
def underpayment_penalty_and_interest(b: Builder) -> None:
    """Unreported crypto income: tax, accuracy-related penalty and daily-compounded interest.

    Source: Internal Revenue Code §6662 (20% accuracy-related penalty) and §6622 (interest compounded daily).
    """
    b.person("person")
    b.money("income", 5_000, 300_000, step=10)
    b.choice("rate", {"22%": 22, "24%": 24, "32%": 32, "35%": 35, "37%": 37})
    b.percent("interest", 4, 8, decimals=0)
    b.integer("days", 120, 900, unit="days")
    b.ask(
        "{person} failed to report {income} of staking and trading income, which is taxed at a marginal rate "
        "of {rate}. An audit assesses the unpaid tax, a 20% accuracy-related penalty on that tax, and interest "
        "on the unpaid tax at an annual rate of {interest}, compounded daily on a 365-day year, for {days}. "
        "Ignoring interest on the penalty, what is the total amount {they} must pay?"
    )
    b.step("tax", "Unpaid tax", "income * rate / 100", unit="$")
    b.step("penalty", "Accuracy-related penalty (20% of the unpaid tax)", "tax * 0.20", unit="$")
    b.step("interest_due", "Interest, tax × ((1 + r/365)^days − 1)", "tax * ((1 + interest / 100 / 365) ** days - 1)",
           unit="$")
    b.step("total", "Total payable (tax + penalty + interest)", "tax + penalty + interest_due", unit="$")


@template("advanced")
def mica_compliance_cost(b: Builder) -> None:
    """Annual cost of compliance for an EU crypto-asset service provider, capital charge included.

    Source: Regulation (EU) 2023/1114 (MiCA), Art. 67 and Annex IV: own funds are the higher of the
    permanent minimum capital (€150,000 for class 3) and one quarter of the previous year's fixed overheads.

    Concepts: MiCA own-funds requirement (higher of minimum capital and a quarter of fixed overheads); cost of
    holding capital; per-customer KYC cost; expected enforcement fine; cost as a share of revenue.
    """
    b.company("company", kind="exchange")
    over = b.money("overheads", 700_000, 12_000_000, step=10_000, unit="€")
    b.require(over / 4 > 150_000, "the overheads requirement binds")
    b.percent("coc", 8, 20, decimals=1)
    b.money("supervision", 20_000, 300_000, step=1_000, unit="€")
    b.integer("users", 10_000, 600_000, unit="customers")
    b.money("kyc", 2, 12, step=0.25, unit="€")
    b.percent("probability", 2, 25, decimals=1)
    b.money("fine", 200_000, 5_000_000, step=10_000, unit="€")
    b.derive("revenue", round(over * b.rng.uniform(1.2, 4), -3), unit="€")
    v = b.values
    cost = (over / 4 * v["coc"] / 100 + v["supervision"] + v["users"] * v["kyc"]
            + v["probability"] / 100 * v["fine"])
    b.require(cost <= 0.4 * v["revenue"], "compliance takes at most 40% of revenue (it exceeded revenue in 5%)")
    b.bounds("total", hi="revenue", why="expected compliance cost stays below revenue")
    b.bounds("share", lo=0, hi=100, why="a share of revenue")
    b.ask(
        "{company} is authorized as a class 3 crypto-asset service provider under MiCA. Its own funds must be "
        "the higher of the €150,000 permanent minimum capital and one quarter of the previous year's fixed "
        "overheads, which were {overheads}; holding that capital costs {company} {coc} a year (its cost of "
        "equity). It also pays {supervision} in supervisory fees, verifies {users} at {kyc} each, and its "
        "compliance team puts the probability of an enforcement fine this year at {probability}, with an "
        "expected fine of {fine} if it happens. Annual revenue is {revenue}. What is the expected total "
        "annual compliance cost as a percentage of revenue?"
    )
    b.step("own_funds", "Own funds required (a quarter of fixed overheads, which exceeds €150,000)",
           "overheads / 4", unit="€")
    b.step("capital_cost", "Annual cost of holding the own funds", "own_funds * coc / 100", unit="€")
    b.step("kyc_cost", "Identity verification cost", "users * kyc", unit="€")
    b.step("expected_fine", "Expected fine (probability × fine)", "probability / 100 * fine", unit="€")
    b.step("total", "Expected total compliance cost",
           "capital_cost + supervision + kyc_cost + expected_fine", unit="€")
    b.step("share", "Compliance cost as a share of revenue", "total / revenue * 100", unit="%")
