"""Valuation methods in M&A: trading comparables (EV/Revenue and P/E), precedent transactions (EV/EBITDA),
DCF with a terminal value, and LBO returns.

Sources: Rosenbaum and Pearl, Investment Banking (3rd ed.): ch. 1 (comparable companies), ch. 2
(precedent transactions), ch. 3 (DCF, Gordon growth terminal value), ch. 5 (LBO returns: MOIC and IRR).
"""

from finchain_tasks.engine import Builder, template


@template("easy")
def ev_revenue_comparables(b: Builder) -> None:
    """Equity value of a loss-making target from the mean peer EV/Revenue multiple (Rosenbaum and Pearl, ch. 1).

    EV/Revenue is the multiple of choice when EBITDA and earnings are negative, as for early-stage software
    companies (Rosenbaum and Pearl, ch. 1, "Revenue-based multiples"); equity value = EV + net cash.
    """
    b.company("target", kind="software")
    centre = b.rng.uniform(2.5, 9)
    for i in range(1, 5):
        b.derive(f"m{i}", round(centre * b.rng.uniform(0.8, 1.2), 1), decimals=1)
    mean = sum(b.values[f"m{i}"] for i in range(1, 5)) / 4
    b.require(all(abs(mean - b.values[f"m{i}"]) > 1e-9 for i in range(1, 5)), "the mean is not one of the peers")
    revenue = b.money("revenue", 20_000_000, 800_000_000, step=100_000)
    b.derive("ebitda_loss", 100_000 * round(revenue * b.rng.uniform(0.05, 0.25) / 100_000), unit="$")
    b.derive("net_cash", 100_000 * round(revenue * b.rng.uniform(0.1, 0.8) / 100_000), unit="$")
    b.ask(
        "{target}, a fast-growing software company, had revenue of {revenue} last year and an EBITDA loss of "
        "{ebitda_loss}, so earnings-based multiples cannot value it. Four listed peers trade at EV/Revenue "
        "multiples of {m1}x, {m2}x, {m3}x and {m4}x. {target} has no debt and holds cash of {net_cash}. Using "
        "the mean peer EV/Revenue multiple, what is the implied equity value of {target}?"
    )
    b.step("mean_multiple", "Mean peer EV/Revenue multiple", "(m1 + m2 + m3 + m4) / 4")
    b.step("ev", "Implied enterprise value: multiple × revenue", "mean_multiple * revenue", unit="$")
    b.step("equity", "Implied equity value: EV + net cash", "ev + net_cash", unit="$")


@template("easy")
def pe_comparables_price(b: Builder) -> None:
    """Implied share price from the average peer P/E (Rosenbaum and Pearl, ch. 1)."""
    b.company("target")
    centre = b.rng.uniform(10, 28)
    for i in range(1, 4):
        b.derive(f"pe{i}", round(centre * b.rng.uniform(0.8, 1.2), 1), decimals=1)
    b.money("eps", 0.8, 12, step=0.01)
    # price in cents = (sum of P/Es in tenths) x (EPS in cents) / 30: a remainder of 15 is a half-cent tie, which
    # the exact price and the price redone from the rounded average P/E shown round to different cents
    tenths, cents = round(10 * sum(b.values[f"pe{i}"] for i in range(1, 4))), round(100 * b.values["eps"])
    b.require((tenths * cents) % 30 != 15, "the implied price is not a half-cent tie")
    b.ask(
        "Three comparable companies trade at price/earnings ratios of {pe1}, {pe2} and {pe3}. {target} is "
        "expected to earn {eps} per share next year, and the peers' ratios are also on next year's "
        "earnings. What share price does the average peer P/E imply for {target}?"
    )
    b.step("mean_pe", "Average peer P/E", "(pe1 + pe2 + pe3) / 3")
    b.step("price", "Implied share price: average P/E × EPS", "mean_pe * eps", unit="$")


@template("intermediate")
def precedent_transactions_price(b: Builder) -> None:
    """Per-share value from the average EV/EBITDA paid in precedent deals (Rosenbaum and Pearl, ch. 2)."""
    b.company("target")
    centre = b.rng.uniform(7, 14)
    for i in range(1, 4):
        ebitda = b.rng.randint(20, 400) * 1_000_000
        b.derive(f"ebitda{i}", ebitda, unit="$")
        b.derive(f"ev{i}", 1_000_000 * round(ebitda * centre * b.rng.uniform(0.85, 1.15) / 1_000_000), unit="$")
    b.money("ebitda", 30_000_000, 500_000_000, step=100_000)
    b.derive("net_debt", 100_000 * round(b.values["ebitda"] * b.rng.uniform(0.5, 2.5) / 100_000), unit="$")
    b.derive("shares", 1_000 * round(b.values["ebitda"] / b.rng.uniform(0.8, 4) / 1_000), unit="shares")
    b.ask(
        "Three recent acquisitions in {target}'s industry were done at enterprise values of {ev1}, {ev2} and "
        "{ev3}, for companies with EBITDA of {ebitda1}, {ebitda2} and {ebitda3} respectively. {target} has "
        "EBITDA of {ebitda}, net debt of {net_debt} and {shares} outstanding. Applying the average "
        "transaction multiple, what is the implied value per share?"
    )
    b.step("mult1", "Multiple paid in deal 1", "ev1 / ebitda1")
    b.step("mult2", "Multiple paid in deal 2", "ev2 / ebitda2")
    b.step("mult3", "Multiple paid in deal 3", "ev3 / ebitda3")
    b.step("ev", "Implied enterprise value: average multiple × EBITDA", "(mult1 + mult2 + mult3) / 3 * ebitda",
           unit="$")
    b.step("per_share", "Implied value per share: (EV − net debt) ÷ shares", "(ev - net_debt) / shares", unit="$")


@template("intermediate")
def dcf_enterprise_value(b: Builder) -> None:
    """DCF with three explicit years and a Gordon-growth terminal value (Rosenbaum and Pearl, ch. 3)."""
    b.company("target")
    b.money("fcf1", 10_000_000, 300_000_000, step=100_000)
    b.derive("fcf2", 100_000 * round(b.values["fcf1"] * b.rng.uniform(1.03, 1.15) / 100_000), unit="$")
    b.derive("fcf3", 100_000 * round(b.values["fcf2"] * b.rng.uniform(1.03, 1.15) / 100_000), unit="$")
    b.percent("wacc", 7, 12, decimals=1)
    b.percent("growth", 1, 3.5, decimals=1)
    b.ask(
        "An acquirer projects {target}'s unlevered free cash flow at {fcf1}, {fcf2} and {fcf3} for the next "
        "three years (received at year end). After year 3 cash flow grows at {growth} a year forever. With a "
        "WACC of {wacc}, what is {target}'s enterprise value today?"
    )
    b.step("pv_flows", "Present value of the three projected cash flows",
           "round(fcf1 / (1 + wacc / 100) + fcf2 / (1 + wacc / 100) ** 2 + fcf3 / (1 + wacc / 100) ** 3, 2)", unit="$")
    b.step("terminal", "Terminal value at the end of year 3: FCF₃ × (1 + g) ÷ (WACC − g)",
           "round(fcf3 * (1 + growth / 100) / ((wacc - growth) / 100), 2)", unit="$")
    b.step("pv_terminal", "Present value of the terminal value", "round(terminal / (1 + wacc / 100) ** 3, 2)", unit="$")
    b.step("ev", "Enterprise value", "pv_flows + pv_terminal", unit="$")


@template("advanced")
def lbo_sponsor_returns(b: Builder) -> None:
    """Sponsor MOIC and IRR of a leveraged buyout with EBITDA growth and debt paydown (Rosenbaum and Pearl, ch. 5).

    With a single equity outflow at entry and a single inflow at exit, IRR = MOIC^(1/n) − 1.

    Concepts: entry enterprise value and leverage; EBITDA growth; debt paydown and exit equity; MOIC; IRR from MOIC.
    """
    b.company("target")
    b.money("ebitda", 20_000_000, 400_000_000, step=100_000)
    b.number("entry_multiple", 7, 12, decimals=1)
    b.number("leverage", 3.5, 6, decimals=1)
    b.percent("growth", 2, 10, decimals=1)
    b.integer("years", 4, 7, unit="years")
    b.derive("paydown", 100_000 * round(b.values["ebitda"] * b.rng.uniform(0.2, 0.5) / 100_000), unit="$")
    b.number("exit_multiple", b.values["entry_multiple"] - 1.5, b.values["entry_multiple"] + 1, decimals=1)
    v = b.values
    b.require(v["paydown"] * v["years"] < v["leverage"] * v["ebitda"], "debt is not fully repaid")
    b.ask(
        "A private equity fund buys {target} for {entry_multiple}x its EBITDA of {ebitda}, funding the price "
        "with debt of {leverage}x EBITDA and equity for the rest (ignore fees). EBITDA grows {growth} a year, "
        "and the company repays {paydown} of debt each year from free cash flow. The fund exits after "
        "{years} at {exit_multiple}x that year's EBITDA. What is the fund's IRR on its equity?"
    )
    b.step("entry_ev", "Purchase price: entry multiple × EBITDA", "entry_multiple * ebitda", unit="$")
    b.step("debt", "Debt at entry: leverage × EBITDA", "leverage * ebitda", unit="$")
    b.step("equity_in", "Sponsor equity at entry", "entry_ev - debt", unit="$")
    b.step("exit_ebitda", "EBITDA in the exit year", "ebitda * (1 + growth / 100) ** years", unit="$")
    b.step("exit_equity", "Equity at exit: exit multiple × EBITDA − remaining debt",
           "exit_multiple * ebitda * (1 + growth / 100) ** years - (debt - paydown * years)", unit="$")
    b.step("moic", "Multiple of invested capital", "exit_equity / equity_in")
    b.step("irr", "IRR: MOIC^(1/n) − 1 with n the years held (%)", "(moic ** (1 / years) - 1) * 100", unit="%")
