"""Stress testing: shocked balance sheets, liquidity survival, the LCR under run-off rates, the economic
value of equity under a rate shock, and the stress capital buffer a stress test sets.

Sources: Basel III LCR (BCBS 238, 2013), paras 49–54 (HQLA haircuts), 73–111 (run-off rates);
Interest rate risk in the banking book (BCBS 368, 2016) and Saunders and Cornett, Financial Institutions
Management (9th ed.), ch. 9 (duration gap: ΔE = −(D_A·A − D_L·L)·Δy/(1 + y)); Federal Reserve, Dodd-Frank
Act Stress Test Methodology (2023): projected capital = starting capital + after-tax net income −
distributions, ratio on projected RWA; the stress capital buffer rule (12 CFR 225.8, 2020).
"""

from finchain_tasks.engine import Builder, template


@template("easy")
def market_shock_loss(b: Builder) -> None:
    """Loss on a trading book under prescribed shocks, as a share of capital (Fed DFAST global market shock)."""
    b.company("bank", kind="bank")
    b.money("equities", 100_000_000, 5_000_000_000, step=1_000_000)
    b.derive("bonds", 1_000_000 * round(b.values["equities"] * b.rng.uniform(1.5, 6) / 1_000_000), unit="$")
    b.percent("equity_shock", 15, 45, decimals=0)
    b.percent("bond_shock", 2, 12, decimals=1)
    b.derive("capital", 1_000_000 * round((b.values["equities"] + b.values["bonds"]) * b.rng.uniform(0.5, 1.5)
                                          / 1_000_000), unit="$")
    b.bounds("share", lo=0, hi=100, why="a share of capital")
    b.ask(
        "{bank}'s trading book holds {equities} of equities and {bonds} of corporate bonds. The supervisor's "
        "stress scenario marks equities down {equity_shock} and bonds down {bond_shock}. What loss does the "
        "scenario cause, as a percentage of the bank's {capital} of capital?"
    )
    b.step("equity_loss", "Loss on equities", "equities * equity_shock / 100", unit="$")
    b.step("bond_loss", "Loss on bonds", "bonds * bond_shock / 100", unit="$")
    b.step("share", "Total loss as a percentage of capital", "(equity_loss + bond_loss) / capital * 100", unit="%")


@template("easy")
def liquidity_survival_days(b: Builder) -> None:
    """Days a liquidity buffer lasts against a stressed net outflow (BCBS Sound Liquidity Principles, 2008)."""
    b.company("bank", kind="bank")
    b.money("buffer", 500_000_000, 40_000_000_000, step=10_000_000)
    b.derive("outflow", 100_000 * round(b.values["buffer"] * b.rng.uniform(0.015, 0.08) / 100_000), unit="$")
    b.derive("inflow", 100_000 * round(b.values["outflow"] * b.rng.uniform(0.1, 0.6) / 100_000), unit="$")
    b.ask(
        "In a severe funding stress, {bank} expects cash outflows of {outflow} a day and inflows of {inflow} a "
        "day. Its buffer of unencumbered liquid assets is {buffer}. For how many days can it meet the net "
        "outflows from the buffer alone (do not round to whole days)?"
    )
    b.step("net", "Net daily outflow", "outflow - inflow", unit="$")
    b.step("days", "Survival horizon: buffer ÷ net daily outflow", "buffer / net", unit="days")


@template("intermediate")
def stressed_lcr(b: Builder) -> None:
    """Liquidity coverage ratio with a Level 2A haircut and regulatory run-off rates (BCBS 238)."""
    b.company("bank", kind="bank")
    b.money("stable", 2_000_000_000, 60_000_000_000, step=10_000_000)
    s = b.values["stable"]
    b.derive("less_stable", 10_000_000 * round(s * b.rng.uniform(0.3, 0.9) / 10_000_000), unit="$")
    b.derive("wholesale", 10_000_000 * round(s * b.rng.uniform(0.2, 0.6) / 10_000_000), unit="$")
    b.derive("inflows", 10_000_000 * round(s * b.rng.uniform(0.02, 0.06) / 10_000_000), unit="$")
    outflows = 0.05 * s + 0.10 * b.values["less_stable"] + 0.40 * b.values["wholesale"] - b.values["inflows"]
    b.derive("level1", 10_000_000 * round(outflows * b.rng.uniform(0.6, 1.1) / 10_000_000), unit="$")
    b.derive("level2a", 10_000_000 * round(outflows * b.rng.uniform(0.1, 0.35) / 10_000_000), unit="$")
    b.ask(
        "{bank} holds Level 1 assets of {level1} and Level 2A assets of {level2a} (15% haircut). Its funding "
        "includes stable retail deposits of {stable} (5% run-off), less stable retail deposits of "
        "{less_stable} (10% run-off) and non-operational unsecured wholesale funding of {wholesale} (40% "
        "run-off). Contractual inflows over the next 30 days are {inflows} (below the 75% cap). What is its "
        "liquidity coverage ratio?"
    )
    b.step("hqla", "High-quality liquid assets after the haircut", "level1 + level2a * (1 - 15 / 100)", unit="$")
    b.step("outflows", "Stressed outflows",
           "stable * 5 / 100 + less_stable * 10 / 100 + wholesale * 40 / 100", unit="$")
    b.step("net", "Net cash outflows: outflows − inflows", "outflows - inflows", unit="$")
    b.step("lcr", "LCR: HQLA ÷ net cash outflows (%)", "hqla / net * 100", unit="%")


@template("intermediate", floor=0.5)
def eve_rate_shock(b: Builder) -> None:
    """Change in economic value of equity under a parallel rate shock, by duration gap (Saunders and Cornett, ch. 9)."""
    b.company("bank", kind="bank")
    b.money("assets", 5_000_000_000, 200_000_000_000, step=100_000_000)
    b.derive("liabilities", 100_000_000 * round(b.values["assets"] * b.rng.uniform(0.88, 0.94) / 100_000_000),
             unit="$")
    b.number("dur_assets", 1.5, 3.5, decimals=2)
    b.number("dur_liabilities", 1.0, 3, decimals=2)
    v = b.values
    b.require(v["dur_liabilities"] != 1, "no '1.00 years'")
    b.require(0.3 < v["dur_assets"] - v["dur_liabilities"] * v["liabilities"] / v["assets"] < 1.5,
              "a positive duration gap, so rising rates cost equity value")
    b.percent("market_yield", 2.5, 6, decimals=2)
    b.choice("shock", {"200 basis points": 200, "150 basis points": 150, "250 basis points": 250})
    b.derive("tier1", 10_000_000 * round(b.values["assets"] * b.rng.uniform(0.08, 0.11) / 10_000_000), unit="$")
    b.ask(
        "{bank} has assets of {assets} with a duration of {dur_assets} years and liabilities of {liabilities} "
        "with a duration of {dur_liabilities} years. Market yields are {market_yield}. Rates rise in parallel by "
        "{shock}. Using the duration approximation ΔE = −(D_A × A − D_L × L) × Δy ÷ (1 + y), what is the change "
        "in the economic value of equity as a percentage of the bank's Tier 1 capital of {tier1} (negative for a fall)?"
    )
    b.step("asset_change", "Change in asset value",
           "round(-dur_assets * assets * shock / 10000 / (1 + market_yield / 100), 2)",
           unit="$")
    b.step("liability_change", "Change in liability value",
           "round(-dur_liabilities * liabilities * shock / 10000 / (1 + market_yield / 100), 2)", unit="$")
    b.step("equity_change", "Change in economic value of equity", "asset_change - liability_change", unit="$")
    b.step("share", "Change as a percentage of Tier 1 capital", "equity_change / tier1 * 100", unit="%")


@template("advanced", floor=0.25)
def stress_capital_buffer_headroom(b: Builder) -> None:
    """Headroom over the CET1 requirement set by the stress capital buffer a stress test produces.

    Federal Reserve stress capital buffer rule (12 CFR 225.8 and 217.11, 2020): SCB = start CET1 ratio −
    lowest projected CET1 ratio + planned common dividends for four quarters as a percentage of RWA, with a
    floor of 2.5%; the CET1 requirement is the 4.5% minimum plus the SCB (no G-SIB surcharge for a bank of
    this size). Projection per the Dodd-Frank Act Stress Test methodology (2023): capital plus after-tax
    net income, the ratio on projected RWA.

    Concepts: stressed pre-tax result from PPNR, credit losses and a market shock; after-tax loss with a tax
    benefit; projected CET1 ratio on grown RWA; stress capital buffer with dividend add-on and 2.5% floor;
    headroom over the 4.5% minimum plus buffer.
    """
    b.company("bank", kind="bank")
    b.money("rwa", 20_000_000_000, 95_000_000_000, step=100_000_000)
    r = b.values["rwa"]
    b.derive("cet1", 10_000_000 * round(r * b.rng.uniform(0.095, 0.135) / 10_000_000), unit="$")
    b.derive("ppnr", 10_000_000 * round(r * b.rng.uniform(0.01, 0.02) / 10_000_000), unit="$")
    b.derive("loans", 100_000_000 * round(r * b.rng.uniform(0.6, 0.9) / 100_000_000), unit="$")
    b.percent("loss", 3, 8, decimals=1)
    b.derive("market", 10_000_000 * round(r * b.rng.uniform(0.001, 0.008) / 10_000_000), unit="$")
    b.percent("tax", 21, 25, decimals=0)
    b.percent("rwa_growth", 1, 6, decimals=1)
    b.derive("dividends", 10_000_000 * round(r * b.rng.uniform(0.002, 0.01) / 10_000_000), unit="$")
    v = b.values
    start = v["cet1"] / r * 100
    after_tax = (v["ppnr"] - v["loans"] * v["loss"] / 100 - v["market"]) * (1 - v["tax"] / 100)
    trough = (v["cet1"] + after_tax) / (r * (1 + v["rwa_growth"] / 100)) * 100
    buffer = start - trough + v["dividends"] / r * 100
    b.require(buffer > 2.7, "the stress loss, not the 2.5% floor, sets the buffer")
    b.require(abs(start - 4.5 - buffer) > 0.3, "a headroom clear of zero")
    b.ask(
        "In the supervisory stress test {bank} starts with CET1 capital of {cet1} and risk-weighted assets "
        "of {rwa}. Over the scenario it earns pre-provision net revenue of {ppnr}, loses {loss} of its {loans} "
        "loan book to credit losses and {market} to a market shock; taxes are {tax} of pre-tax income, a "
        "pre-tax loss earning a tax benefit at the same rate. CET1 moves only by the after-tax result, and "
        "RWA grow by {rwa_growth}; the ratio is lowest at the end of the scenario. The bank plans common "
        "dividends of {dividends} over the next four quarters. Its stress capital buffer is the fall from the "
        "starting to the lowest projected CET1 ratio plus those dividends as a percentage of starting RWA, "
        "and at least 2.5%; its CET1 requirement is the 4.5% minimum plus the buffer. By how many percentage "
        "points does its starting CET1 ratio exceed the requirement (negative if it falls short)?"
    )
    b.bounds("trough_ratio", lo=0, hi="start_ratio", why="the stress lowers a positive capital ratio")
    b.step("start_ratio", "Starting CET1 ratio", "cet1 / rwa * 100", unit="%")
    b.step("after_tax", "After-tax result: (PPNR − credit losses − market loss) × (1 − tax rate)",
           "(ppnr - loans * loss / 100 - market) * (1 - tax / 100)", unit="$")
    b.step("trough_ratio", "Lowest projected CET1 ratio: (CET1 + after-tax result) ÷ grown RWA",
           "(cet1 + after_tax) / (rwa * (1 + rwa_growth / 100)) * 100", unit="%")
    b.step("decline", "Fall in the CET1 ratio", "start_ratio - trough_ratio", unit="pp")
    b.step("addon", "Dividend add-on: planned dividends ÷ RWA", "dividends / rwa * 100", unit="pp")
    b.step("buffer", "Stress capital buffer: fall + add-on, at least 2.5", "max(2.5, decline + addon)", unit="pp")
    b.step("headroom", "Headroom: starting ratio − (4.5% minimum + buffer)", "start_ratio - (4.5 + buffer)",
           unit="pp")
