"""Regulatory compliance risk: operational and market risk capital charges, large-exposure limit
breaches, and expected penalty exposure.

Sources: Basel II (BCBS 128, 2006) paras 649–650 (basic indicator approach); Basel Committee, Minimum
capital requirements for market risk (2009, Basel 2.5) para 718(Lxxvi) and the backtesting plus-factor
table of the 1996 Supervisory framework; Basel III: Finalising post-crisis reforms (BCBS d424, 2017),
OPE25 (standardised approach for operational risk); Large exposures framework (BCBS 283, 2014) para 16.
"""

from finchain_tasks.engine import Builder, template

PLUS_FACTORS = {5: 0.40, 6: 0.50, 7: 0.65, 8: 0.75, 9: 0.85}


@template("easy")
def basic_indicator_charge(b: Builder) -> None:
    """Operational risk capital under the basic indicator approach (BCBS 128, paras 649–650)."""
    b.company("bank", kind="bank")
    b.money("gi1", 200_000_000, 4_000_000_000, step=1_000_000)
    b.derive("gi2", 1_000_000 * round(b.values["gi1"] * b.rng.uniform(0.85, 1.2) / 1_000_000), unit="$")
    b.derive("gi3", 1_000_000 * round(b.values["gi2"] * b.rng.uniform(0.85, 1.2) / 1_000_000), unit="$")
    b.ask(
        "{bank} reported annual gross income of {gi1}, {gi2} and {gi3} over the last three years. Under the "
        "Basel II basic indicator approach, the operational risk capital charge is 15% of average annual "
        "gross income over the previous three years (all three years are positive). What is the charge?"
    )
    b.step("average", "Average annual gross income", "(gi1 + gi2 + gi3) / 3", unit="$")
    b.step("charge", "Capital charge: 15% of the average", "average * 15 / 100", unit="$")


@template("easy")
def expected_penalty_exposure(b: Builder) -> None:
    """Probability-weighted exposure to two open regulatory matters (expected value; cf. IAS 37, para 39)."""
    b.company("firm")
    b.money("fine1", 1_000_000, 80_000_000, step=100_000)
    b.percent("p1", 10, 80, decimals=0)
    b.money("fine2", 1_000_000, 80_000_000, step=100_000)
    b.percent("p2", 10, 80, decimals=0)
    b.ask(
        "{firm} faces two open regulatory investigations. Counsel estimates a fine of {fine1} with a {p1} "
        "probability for the first, and a fine of {fine2} with a {p2} probability for the second; the two "
        "outcomes are independent. What is the expected total penalty?"
    )
    b.step("expected1", "Expected fine from the first matter", "fine1 * p1 / 100", unit="$")
    b.step("expected2", "Expected fine from the second matter", "fine2 * p2 / 100", unit="$")
    b.step("total", "Expected total penalty", "expected1 + expected2", unit="$")


@template("intermediate")
def market_risk_ima_charge(b: Builder) -> None:
    """Internal-models market risk charge with the backtesting plus factor (Basel 2.5, para 718(Lxxvi))."""
    b.company("bank", kind="bank")
    b.money("avg_var", 20_000_000, 400_000_000, step=100_000)
    b.derive("avg_svar", 100_000 * round(b.values["avg_var"] * b.rng.uniform(1.5, 3) / 100_000), unit="$")
    b.integer("exceptions", 5, 9)
    b.derive("plus", PLUS_FACTORS[b.values["exceptions"]], decimals=2)
    b.ask(
        "{bank}'s 10-day 99% VaR averaged {avg_var} over the last 60 business days, and its stressed VaR "
        "averaged {avg_svar}. Backtesting found {exceptions} exceptions in the last 250 days, which puts the "
        "model in the yellow zone with a plus factor of {plus} (the table gives 0.40 for 5 exceptions up to "
        "0.85 for 9). Under Basel 2.5 the capital charge is (3 + plus factor) × average VaR + (3 + plus "
        "factor) × average stressed VaR, assuming both averages exceed the latest daily values. What are the "
        "charge's risk-weighted assets (capital × 12.5)?"
    )
    b.step("multiplier", "Multiplier: 3 + plus factor", "3 + plus")
    b.step("var_part", "VaR part of the charge", "multiplier * avg_var", unit="$")
    b.step("svar_part", "Stressed VaR part of the charge", "multiplier * avg_svar", unit="$")
    b.step("charge", "Market risk capital charge", "var_part + svar_part", unit="$")
    b.step("rwa", "Risk-weighted assets: charge × 12.5", "charge * 12.5", unit="$")


@template("intermediate")
def large_exposure_breach(b: Builder) -> None:
    """Exposure to a group of connected counterparties against 25% of Tier 1 (BCBS 283, paras 16, 31)."""
    b.company("bank", kind="bank")
    b.company("borrower")
    b.money("tier1", 2_000_000_000, 30_000_000_000, step=10_000_000)
    limit = b.values["tier1"] / 4
    exposure = limit * b.rng.uniform(1.06, 1.35)
    b.derive("loans", 1_000_000 * round(exposure * b.rng.uniform(0.7, 0.9) / 1_000_000), unit="$")
    b.choice("ccf", {"20%": 20, "40%": 40, "50%": 50})
    b.derive("undrawn", 1_000_000 * round((exposure - b.values["loans"]) / (b.values["ccf"] / 100) / 1_000_000),
             unit="$")
    b.ask(
        "{bank} has Tier 1 capital of {tier1}. Its exposures to {borrower} and the companies it controls, "
        "which form a group of connected counterparties, are drawn loans of {loans} and undrawn committed "
        "facilities of {undrawn}, which the large-exposures framework converts at a credit conversion factor "
        "of {ccf}. The limit on exposure to one group is 25% of Tier 1 capital. By how much does the exposure "
        "exceed the limit?"
    )
    b.step("converted", "Exposure value of the undrawn facilities", "undrawn * ccf / 100", unit="$")
    b.step("exposure", "Total exposure to the group", "loans + converted", unit="$")
    b.step("limit", "Large-exposure limit: 25% of Tier 1", "tier1 * 25 / 100", unit="$")
    b.step("excess", "Excess over the limit", "exposure - limit", unit="$")


@template("advanced")
def standardised_operational_risk(b: Builder) -> None:
    """Operational risk capital under the Basel III standardised approach (BCBS d424, OPE25).

    BI = ILDC + SC + FC; BIC = 12% of BI up to €1bn plus 15% of BI from €1bn to €30bn; LC = 15 × average
    annual operational losses over ten years; ILM = ln(e − 1 + (LC/BIC)^0.8); ORC = BIC × ILM; RWA = 12.5 × ORC.

    Concepts: business indicator; marginal-coefficient business indicator component; loss component; internal loss
    multiplier; operational risk capital and RWA.
    """
    b.company("bank", kind="bank")
    b.money("ildc", 800_000_000, 9_000_000_000, step=1_000_000, unit="€")
    b.derive("services", 1_000_000 * round(b.values["ildc"] * b.rng.uniform(0.3, 0.9) / 1_000_000), unit="€")
    b.derive("financial", 1_000_000 * round(b.values["ildc"] * b.rng.uniform(0.05, 0.3) / 1_000_000), unit="€")
    v = b.values
    bi = v["ildc"] + v["services"] + v["financial"]
    b.require(1e9 < bi < 30e9, "the business indicator sits in the second bucket")
    bic = 0.12e9 + 0.15 * (bi - 1e9)
    b.derive("losses", 100_000 * round(bic / 15 * b.rng.uniform(0.4, 2.5) / 100_000), unit="€")
    b.require(abs(15 * b.values["losses"] / bic - 1) > 0.05, "the loss component differs from the BIC")
    b.ask(
        "{bank}'s business indicator components, averaged over three years, are an interest, leases and "
        "dividend component of {ildc}, a services component of {services} and a financial component of "
        "{financial}. Its average annual operational risk losses over the past ten years are {losses}. "
        "Under the Basel III standardised approach the business indicator component is 12% of the business "
        "indicator up to €1bn plus 15% of the part between €1bn and €30bn; the loss component is 15 times "
        "average annual losses; the internal loss multiplier is ln(e − 1 + (loss component ÷ business "
        "indicator component)^0.8). What are the operational risk RWA (capital × 12.5)?"
    )
    b.step("bi", "Business indicator", "ildc + services + financial", unit="€")
    b.step("bic", "Business indicator component: 12% of €1bn + 15% of the rest",
           "0.12 * 1000000000 + 0.15 * (bi - 1000000000)", unit="€")
    b.step("lc", "Loss component: 15 × average annual losses", "15 * losses", unit="€")
    b.step("ilm", "Internal loss multiplier", "ln(exp(1) - 1 + (lc / bic) ** 0.8)")
    b.step("capital", "Operational risk capital: BIC × ILM", "bic * ilm", unit="€")
    b.step("rwa", "Operational risk RWA: 12.5 × BIC × ILM", "12.5 * bic * ilm", unit="€")
