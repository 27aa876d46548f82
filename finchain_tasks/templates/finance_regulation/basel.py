"""Basel III capital rules: capital ratios, buffer stacks, risk-weighted assets, the leverage ratio.

Minimums from Basel III (BCBS 189, para 50: CET1 4.5%, Tier 1 6%, total capital 8% of RWA; para 129:
capital conservation buffer 2.5% of CET1; para 137ff: countercyclical buffer), G-SIB surcharges (BCBS
255), standardised risk weights (BCBS 128, paras 53ff) and the leverage ratio (BCBS 270, paras 7ff).
Amounts are in millions of dollars; the question says so.
"""

from finchain_tasks.engine import Builder, template
from finchain_tasks.templates.finance_regulation import BANKS


@template("easy")
def cet1_buffer_stack(b: Builder) -> None:
    """CET1 ratio against the stacked requirement (Basel III, BCBS 189, paras 50, 129, 137; BCBS 255)."""
    meets = b.pick([True, False])
    b.choice("bank", BANKS)
    b.percent("ccyb", 0, 2.5, decimals=2)
    b.choice("gsib", {"1.0%": 1.0, "1.5%": 1.5, "2.0%": 2.0})
    required = 4.5 + 2.5 + b.values["ccyb"] + b.values["gsib"]
    b.money("rwa", 80_000, 600_000, step=100)
    gap = b.rng.uniform(0.15, 1.8) * (1 if meets else -1)
    b.derive("cet1", round(b.values["rwa"] * (required + gap) / 100), unit="$")
    b.ask(
        "{bank} is a global systemically important bank with a G-SIB surcharge of {gsib}. The "
        "countercyclical buffer rate that applies to its exposures is {ccyb}. Under Basel III its "
        "CET1 requirement is the 4.5% minimum plus the 2.5% capital conservation buffer plus the "
        "countercyclical buffer plus the G-SIB surcharge. With risk-weighted assets of {rwa} million and "
        "CET1 capital of {cet1} million, does it meet the requirement (answer 'meets' or 'falls short')?"
    )
    b.step("required", "CET1 requirement: 4.5% + 2.5% + countercyclical buffer + G-SIB surcharge (%)",
           "4.5 + 2.5 + ccyb + gsib", unit="%")
    b.step("ratio", "CET1 ratio: CET1 ÷ RWA (%)", "cet1 / rwa * 100", unit="%")
    b.step("verdict", "Comparison of the CET1 ratio with the requirement",
           "'meets' if ratio >= required else 'falls short'")


@template("easy")
def total_capital_ratio(b: Builder) -> None:
    """Tier 1 and total capital ratio from the capital stack (Basel III, BCBS 189, para 50)."""
    b.choice("bank", BANKS)
    b.money("rwa", 20_000, 400_000, step=100)
    b.derive("cet1", round(b.values["rwa"] * b.rng.uniform(0.09, 0.15)), unit="$")
    b.derive("at1", round(b.values["rwa"] * b.rng.uniform(0.005, 0.02)), unit="$")
    b.derive("tier2", round(b.values["rwa"] * b.rng.uniform(0.01, 0.03)), unit="$")
    b.ask(
        "{bank} reports risk-weighted assets of {rwa} million, Common Equity Tier 1 capital of {cet1} "
        "million, Additional Tier 1 instruments of {at1} million and Tier 2 capital of {tier2} million, all "
        "after regulatory deductions. What is its total capital ratio under Basel III (total capital as a "
        "percentage of RWA)?"
    )
    b.step("tier1", "Tier 1 capital: CET1 + Additional Tier 1", "cet1 + at1", unit="$")
    b.step("total_capital", "Total capital: Tier 1 + Tier 2", "tier1 + tier2", unit="$")
    b.step("ratio", "Total capital ratio (%)", "total_capital / rwa * 100", unit="%")


@template("intermediate")
def standardised_rwa(b: Builder) -> None:
    """Credit RWA under the standardised approach and the resulting ratio (BCBS 128, paras 53–79)."""
    b.choice("bank", BANKS)
    b.money("sovereign", 2_000, 30_000, step=50)
    b.money("mortgages", 5_000, 60_000, step=50)
    b.money("retail", 2_000, 25_000, step=50)
    b.money("corporate", 5_000, 70_000, step=50)
    total_rwa = 0.35 * b.values["mortgages"] + 0.75 * b.values["retail"] + b.values["corporate"]
    b.derive("capital", round(total_rwa * b.rng.uniform(0.09, 0.17)), unit="$")
    b.ask(
        "{bank}, using the Basel standardised approach for credit risk, holds {sovereign} million of "
        "AA-rated government bonds (risk weight 0%), {mortgages} million of fully secured residential "
        "mortgages (35%), {retail} million of regulatory retail loans (75%) and {corporate} million of "
        "unrated corporate loans (100%). Ignoring market and operational risk, what is its total capital "
        "ratio if total regulatory capital is {capital} million?"
    )
    b.step("rwa_mortgages", "Risk-weighted mortgages (35%)", "mortgages * 0.35", unit="$")
    b.step("rwa_retail", "Risk-weighted retail loans (75%)", "retail * 0.75", unit="$")
    b.step("rwa", "Total RWA: government bonds at 0% add nothing; corporate loans count in full",
           "rwa_mortgages + rwa_retail + corporate", unit="$")
    b.step("ratio", "Total capital ratio (%)", "capital / rwa * 100", unit="%")


@template("intermediate")
def leverage_exposure_ratio(b: Builder) -> None:
    """Basel III leverage ratio with off-balance-sheet items at their credit conversion factors (BCBS 270)."""
    b.choice("bank", BANKS)
    b.money("on_balance", 50_000, 900_000, step=500)
    b.derive("derivatives", round(b.values["on_balance"] * b.rng.uniform(0.02, 0.08)), unit="$")
    b.derive("commitments", round(b.values["on_balance"] * b.rng.uniform(0.05, 0.25)), unit="$")
    b.choice("ccf", {"10%": 10, "20%": 20, "40%": 40, "50%": 50})
    b.derive("cet1", round(b.values["on_balance"] * b.rng.uniform(0.03, 0.055)), unit="$")
    b.derive("at1", round(b.values["on_balance"] * b.rng.uniform(0.003, 0.01)), unit="$")
    b.ask(
        "{bank} has on-balance-sheet exposures of {on_balance} million, derivative exposures (replacement "
        "cost plus add-on) of {derivatives} million and undrawn commitments of {commitments} million, which "
        "the leverage ratio framework converts at a credit conversion factor of {ccf}. Its CET1 capital "
        "is {cet1} million and Additional Tier 1 capital is {at1} million. What is its Basel III leverage "
        "ratio (Tier 1 capital ÷ total exposure measure)?"
    )
    b.step("off_balance", "Credit equivalent of the commitments (amount × conversion factor)",
           "commitments * ccf / 100", unit="$")
    b.step("exposure", "Total exposure measure", "on_balance + derivatives + off_balance", unit="$")
    b.step("tier1", "Tier 1 capital: CET1 + Additional Tier 1", "cet1 + at1", unit="$")
    b.step("ratio", "Leverage ratio (%)", "tier1 / exposure * 100", unit="%")


@template("advanced", floor=1)
def capital_raise_after_shock(b: Builder) -> None:
    """CET1 to raise after a loss and RWA growth under the full buffer stack.

    Basel III (BCBS 189, paras 50, 129–137) for the requirement, with losses net of tax reducing CET1
    through retained earnings.
    """
    b.choice("bank", BANKS)
    b.money("rwa", 40_000, 500_000, step=100)
    b.derive("cet1", round(b.values["rwa"] * b.rng.uniform(0.085, 0.115)), unit="$")
    b.derive("loss", round(b.values["cet1"] * b.rng.uniform(0.08, 0.3)), unit="$")
    b.percent("tax", 20, 30, decimals=0)
    b.percent("rwa_growth", 3, 15, decimals=1)
    b.percent("ccyb", 0.5, 2.5, decimals=2)
    b.choice("gsib", {"1.0%": 1.0, "1.5%": 1.5, "2.0%": 2.0})
    v = b.values
    after = v["cet1"] - v["loss"] * (1 - v["tax"] / 100)
    need = (7 + v["ccyb"] + v["gsib"]) / 100 * v["rwa"] * (1 + v["rwa_growth"] / 100)
    b.require(need - after > 0.01 * v["rwa"], "the shock leaves a clear shortfall")
    b.ask(
        "{bank} has risk-weighted assets of {rwa} million and CET1 capital of {cet1} million. A stress "
        "scenario produces a pre-tax loss of {loss} million, taxed at {tax} (the tax saving offsets part "
        "of the loss), and risk-weighted assets grow by {rwa_growth}. Its CET1 requirement is the Basel III "
        "4.5% minimum plus the 2.5% conservation buffer, a {ccyb} countercyclical buffer and a {gsib} "
        "G-SIB surcharge. How much new CET1 (in millions) must it raise to meet the full requirement "
        "after the shock?"
    )
    b.step("net_loss", "Loss after tax", "loss * (1 - tax / 100)", unit="$")
    b.step("cet1_after", "CET1 after the loss", "cet1 - net_loss", unit="$")
    b.step("rwa_after", "RWA after growth", "rwa * (1 + rwa_growth / 100)", unit="$")
    b.step("requirement", "Full CET1 requirement: 4.5% + 2.5% + countercyclical + G-SIB (%)",
           "4.5 + 2.5 + ccyb + gsib", unit="%")
    b.step("required_cet1", "CET1 required on the new RWA", "requirement / 100 * rwa_after", unit="$")
    b.step("raise", "New CET1 to raise", "required_cet1 - cet1_after", unit="$")
