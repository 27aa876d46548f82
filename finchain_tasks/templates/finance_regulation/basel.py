"""Basel III capital rules: capital ratios, buffer stacks, risk-weighted assets, the leverage ratio.

Minimums from Basel III (BCBS 189, para 50: CET1 4.5%, Tier 1 6%, total capital 8% of RWA; para 129:
capital conservation buffer 2.5% of CET1; para 137ff: countercyclical buffer), G-SIB surcharges (BCBS
255), standardised risk weights (BCBS 128, paras 53ff) and the leverage ratio (BCBS 270, paras 7ff).
Amounts are in millions of dollars; the question says so.
"""

from finchain_tasks.engine import Builder, template


@template("easy")
def cet1_buffer_stack(b: Builder) -> None:
    """CET1 ratio against the stacked requirement (Basel III, BCBS 189, paras 50, 129, 137; BCBS 255)."""
    meets = b.pick([True, False])
    b.company("bank", kind="bank")
    b.percent("ccyb", 0, 2.5, decimals=2)
    b.choice("gsib", {"1.0%": 1.0, "1.5%": 1.5, "2.0%": 2.0})
    required = 4.5 + 2.5 + b.values["ccyb"] + b.values["gsib"]
    b.money("rwa", 250_000, 1_800_000, step=100)  # G-SIBs: RWA of hundreds of billions, not $80bn
    b.bounds("rwa", lo=200_000, why="a G-SIB surcharge applies to banks with hundreds of billions of RWA")
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
def leverage_ratio(b: Builder) -> None:
    """Basel III leverage ratio: Tier 1 capital over the exposure measure (BCBS 270, paras 7-16 and 51-57).

    The exposure measure adds on-balance-sheet assets, derivative exposures and off-balance-sheet items at
    their credit conversion factor (here the 10% of BCBS 270 para 55 for unconditionally cancellable
    commitments, a 40% one for other commitments); the minimum is 3%.
    """
    b.company("bank", kind="bank")
    b.money("on_balance", 20_000, 900_000, step=100)
    v = b.values
    b.derive("derivatives", round(v["on_balance"] * b.rng.uniform(0.01, 0.06)), unit="$")
    ccf = b.choice("ccf", {"10%": 10, "40%": 40})
    b.derive("commitments", round(v["on_balance"] * b.rng.uniform(0.05, 0.2)), unit="$")
    kind = "unconditionally cancellable" if ccf == 10 else "other"
    exposure = v["on_balance"] + v["derivatives"] + v["commitments"] * ccf / 100
    b.derive("cet1", round(exposure * b.rng.uniform(0.035, 0.065)), unit="$")
    b.derive("at1", round(exposure * b.rng.uniform(0.003, 0.012)), unit="$")
    b.ask(
        "{bank} has Common Equity Tier 1 capital of {cet1} million and Additional Tier 1 instruments of {at1} "
        "million. Its leverage exposure measure comprises on-balance-sheet assets of {on_balance} million, "
        "derivative exposures of {derivatives} million and " + kind + " undrawn commitments of {commitments} "
        "million, converted at a credit conversion factor of {ccf}. What is its Basel III leverage ratio "
        "(Tier 1 capital as a percentage of the exposure measure)?"
    )
    b.bounds("ratio", lo=0, hi=100, why="Tier 1 is a part of the exposure")
    b.step("tier1", "Tier 1 capital: CET1 + Additional Tier 1", "cet1 + at1", unit="$")
    b.step("exposure", "Exposure measure: on-balance sheet + derivatives + commitments × conversion factor",
           "on_balance + derivatives + commitments * ccf / 100", unit="$")
    b.step("ratio", "Leverage ratio: Tier 1 ÷ exposure measure", "tier1 / exposure * 100", unit="%")


@template("intermediate")
def standardised_rwa(b: Builder) -> None:
    """Total RWA from credit, market and operational risk, and the total capital ratio on it.

    Credit RWA under the standardised approach (BCBS 128, paras 53–79); market and operational risk enter
    total RWA as their capital requirements × 12.5, the reciprocal of the 8% minimum (BCBS 128, para 44;
    Basel III framework RBC20.2).
    """
    b.company("bank", kind="bank")
    b.money("sovereign", 2_000, 30_000, step=50)
    b.money("mortgages", 5_000, 60_000, step=50)
    b.money("retail", 2_000, 25_000, step=50)
    b.money("corporate", 5_000, 70_000, step=50)
    credit = 0.35 * b.values["mortgages"] + 0.75 * b.values["retail"] + b.values["corporate"]
    b.money("market", 0.004 * credit, 0.012 * credit, step=5)
    b.money("operational", 0.006 * credit, 0.015 * credit, step=5)
    total_rwa = credit + 12.5 * (b.values["market"] + b.values["operational"])
    b.derive("capital", round(total_rwa * b.rng.uniform(0.09, 0.17)), unit="$")
    b.ask(
        "{bank}, using the Basel standardised approach for credit risk, holds {sovereign} million of "
        "AA-rated government bonds (risk weight 0%), {mortgages} million of fully secured residential "
        "mortgages (35%), {retail} million of regulatory retail loans (75%) and {corporate} million of "
        "unrated corporate loans (100%). Its capital requirements are {market} million for market risk and "
        "{operational} million for operational risk; these enter total risk-weighted assets at 12.5 times the "
        "requirement. What is its total capital ratio if total regulatory capital is {capital} million?"
    )
    b.step("rwa_mortgages", "Risk-weighted mortgages (35%)", "mortgages * 0.35", unit="$")
    b.step("rwa_retail", "Risk-weighted retail loans (75%)", "retail * 0.75", unit="$")
    b.step("rwa", "Credit RWA: government bonds at 0% add nothing; corporate loans count in full",
           "rwa_mortgages + rwa_retail + corporate", unit="$")
    b.step("total_rwa", "Total RWA: credit RWA + 12.5 × (market + operational requirements)",
           "rwa + 12.5 * (market + operational)", unit="$")
    b.step("ratio", "Total capital ratio (%)", "capital / total_rwa * 100", unit="%")


@template("intermediate", floor=1)
def capital_raise_after_shock(b: Builder) -> None:
    """CET1 to raise after a loss and RWA growth under the full buffer stack.

    Basel III (BCBS 189, paras 50, 129–137) for the requirement, with losses net of tax reducing CET1
    through retained earnings.
    """
    b.company("bank", kind="bank")
    b.money("rwa", 250_000, 1_500_000, step=100)
    b.bounds("rwa", lo=200_000, why="a G-SIB surcharge applies to banks with hundreds of billions of RWA")
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
        "scenario produces a pre-tax loss of {loss} million; the loss is carried back against taxes already "
        "paid at {tax}, so CET1 falls by the after-tax loss, and risk-weighted assets grow by {rwa_growth}. "
        "Its CET1 requirement is the Basel III "
        "4.5% minimum plus the 2.5% conservation buffer, a {ccyb} countercyclical buffer and a {gsib} "
        "G-SIB surcharge. How much new CET1 (in millions) must it raise to meet the full requirement "
        "after the shock?"
    )
    b.step("cet1_after", "CET1 after the loss net of tax", "cet1 - loss * (1 - tax / 100)", unit="$")
    b.step("rwa_after", "RWA after growth", "rwa * (1 + rwa_growth / 100)", unit="$")
    b.step("requirement", "Full CET1 requirement: 4.5% + 2.5% + countercyclical + G-SIB (%)",
           "4.5 + 2.5 + ccyb + gsib", unit="%")
    b.step("required_cet1", "CET1 required on the new RWA", "requirement / 100 * rwa_after", unit="$")
    b.step("raise", "New CET1 to raise", "required_cet1 - cet1_after", unit="$")


REQUIREMENTS = ("CET1", "Tier 1", "total capital", "leverage")


@template("advanced")
def binding_requirement_after_shock(b: Builder) -> None:
    """Four Basel III requirements after a stress loss and RWA growth: which one binds.

    Ratios and buffers per BCBS 189 (paras 50, 129: CET1 7%, Tier 1 8.5%, total 10.5% with the
    conservation buffer) and the leverage ratio per BCBS 270 (3% of the exposure measure, off-balance
    items at their credit conversion factor). New CET1 counts towards every requirement, so the
    requirement with the largest shortfall decides how much must be raised.

    Concepts: after-tax stress loss on CET1; RWA growth; CET1, Tier 1 and total capital ratios with the conservation
    buffer; leverage exposure with credit conversion factors; binding constraint.
    """
    binding = b.pick(REQUIREMENTS)
    b.company("bank", kind="bank")
    rwa_after = b.rng.uniform(60_000, 500_000)
    top = b.rng.uniform(0.004, 0.015) * rwa_after
    shortfall = {name: top - (0 if name == binding else b.rng.uniform(0.002, 0.012) * rwa_after)
                 for name in REQUIREMENTS}
    cet1_after = 0.07 * rwa_after - shortfall["CET1"]
    at1 = 0.085 * rwa_after - shortfall["Tier 1"] - cet1_after
    tier2 = 0.105 * rwa_after - shortfall["total capital"] - cet1_after - at1
    exposure = (shortfall["leverage"] + cet1_after + at1) / 0.03
    b.require(at1 > 0.003 * rwa_after and tier2 > 0.003 * rwa_after, "every capital layer exists")
    b.percent("rwa_growth", 3, 12, decimals=1)
    b.percent("tax", 21, 30, decimals=0)
    loss = b.rng.uniform(0.01, 0.03) * rwa_after
    b.derive("rwa", round(rwa_after / (1 + b.values["rwa_growth"] / 100)), unit="$")
    b.derive("loss", round(loss), unit="$")
    b.derive("cet1", round(cet1_after + loss * (1 - b.values["tax"] / 100)), unit="$")
    b.derive("at1", round(at1), unit="$")
    b.derive("tier2", round(tier2), unit="$")
    b.choice("ccf", {"10%": 10, "20%": 20, "40%": 40})
    commitments = exposure * b.rng.uniform(0.08, 0.3)
    b.derive("commitments", round(commitments), unit="$")
    b.derive("on_balance", round(exposure - commitments * b.values["ccf"] / 100), unit="$")
    v = b.values
    c1 = v["cet1"] - v["loss"] * (1 - v["tax"] / 100)
    r1 = v["rwa"] * (1 + v["rwa_growth"] / 100)
    gaps = {"CET1": 0.07 * r1 - c1, "Tier 1": 0.085 * r1 - c1 - v["at1"],
            "total capital": 0.105 * r1 - c1 - v["at1"] - v["tier2"],
            "leverage": 0.03 * (v["on_balance"] + v["commitments"] * v["ccf"] / 100) - c1 - v["at1"]}
    b.require(max(gaps, key=gaps.get) == binding and gaps[binding] > 0, "the drawn requirement binds after rounding")
    b.require(all(abs(g) > 0.002 * r1 for g in gaps.values()), "no shortfall is a near-zero difference")
    b.ask(
        "{bank} has CET1 capital of {cet1} million, Additional Tier 1 of {at1} million and Tier 2 of {tier2} "
        "million, against risk-weighted assets of {rwa} million. Its leverage exposure measure comprises "
        "{on_balance} million of on-balance-sheet exposures and {commitments} million of undrawn commitments "
        "converted at {ccf}. A stress scenario brings a pre-tax loss of {loss} million (carried back against "
        "taxes paid at {tax}, so CET1 falls by the after-tax loss) and RWA growth of {rwa_growth}; the "
        "exposure measure is unchanged. "
        "The requirements are CET1 of 7%, Tier 1 of 8.5% and total capital of 10.5% of RWA (minimums plus the "
        "conservation buffer) and a 3% leverage ratio. New CET1 counts towards all four (a negative "
        "shortfall is a surplus). Which requirement has the largest shortfall after the shock and so "
        "determines the capital to raise (answer 'CET1', 'Tier 1', 'total capital' or 'leverage')?"
    )
    b.step("cet1_after", "CET1 after the after-tax loss", "cet1 - loss * (1 - tax / 100)", unit="$")
    b.step("rwa_after", "RWA after growth", "round(rwa * (1 + rwa_growth / 100), 2)", unit="$")
    b.step("gap_cet1", "CET1 shortfall: 7% of RWA − CET1", "7 / 100 * rwa_after - cet1_after", unit="$")
    b.step("gap_tier1", "Tier 1 shortfall: 8.5% of RWA − (CET1 + AT1)", "8.5 / 100 * rwa_after - cet1_after - at1",
           unit="$")
    b.step("gap_total", "Total capital shortfall: 10.5% of RWA − (CET1 + AT1 + Tier 2)",
           "10.5 / 100 * rwa_after - cet1_after - at1 - tier2", unit="$")
    b.step("exposure", "Leverage exposure measure", "on_balance + commitments * ccf / 100", unit="$")
    b.step("gap_leverage", "Leverage shortfall: 3% of exposure − Tier 1", "3 / 100 * exposure - cet1_after - at1",
           unit="$")
    b.step("binding", "Requirement with the largest shortfall",
           "('CET1' if gap_cet1 >= gap_leverage else 'leverage') "
           "if gap_cet1 >= gap_tier1 and gap_cet1 >= gap_total else "
           "(('Tier 1' if gap_tier1 >= gap_leverage else 'leverage') if gap_tier1 >= gap_total else "
           "('total capital' if gap_total >= gap_leverage else 'leverage'))")
