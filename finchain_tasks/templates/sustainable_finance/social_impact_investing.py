"""Social impact investing: social return on investment (SROI) with deadweight, attribution, displacement and
drop-off, cost per outcome, and the blended return of a layered (first-loss, mezzanine, senior) impact fund."""

from finchain_tasks.engine import Builder, template

PROGRAMS = [("a job-training program", "participants placed in jobs"),
            ("a youth mentoring program", "students who graduate"),
            ("a housing-first program", "people housed for a year"),
            ("a diabetes prevention program", "patients who avoid diabetes")]
RESULTS = {"participants placed in jobs": "are placed in jobs", "students who graduate": "graduate",
           "people housed for a year": "stay housed for a year", "patients who avoid diabetes": "avoid diabetes"}
"""What the successful participants of each program do, as a verb phrase ("... of them graduate")."""


@template("easy")
def simple_sroi(b: Builder) -> None:
    """Social return on investment: monetized outcomes ÷ investment.

    Source: Cabinet Office (UK), "A Guide to Social Return on Investment" (2012), stage 5 (SROI ratio = value
    of outcomes ÷ value of inputs).
    """
    program, outcome = b.pick(PROGRAMS)
    b.money("investment", 100_000, 3_000_000, step=10_000)
    n = b.integer("outcomes", 40, 2_000)
    b.derive("proxy", round(b.values["investment"] / n * b.rng.uniform(0.8, 4.5), -1), unit="$")
    b.ask(
        f"An impact investor puts {{investment}} into {program}. Over the evaluation period it records "
        f"{{outcomes}} {outcome}, and an evaluator values each outcome at {{proxy}} using a financial proxy. "
        "What is the program's SROI ratio (social value created per dollar invested)?"
    )
    b.step("value", "Social value created (outcomes × proxy value)", "outcomes * proxy", unit="$")
    b.step("sroi", "SROI ratio (value ÷ investment)", "value / investment")


@template("easy")
def cost_per_outcome(b: Builder) -> None:
    """Cost per successful outcome of a social program.

    Source: cost-effectiveness as cost per outcome (Social Finance, "A Technical Guide to Developing a Social
    Impact Bond", 2013; outcome-based contracting).
    """
    program, outcome = b.pick(PROGRAMS)
    b.money("cost", 50_000, 5_000_000, step=5_000)
    # joint draw: whole enrollments of 100s and a whole-percent success rate give a whole number of people
    # (enrolled 80-5,000 with a one-decimal rate gave 312.6 graduates in 99% of draws)
    b.choice("enrolled", {f"{100 * k:,} participants": 100 * k for k in range(1, 51)})
    b.percent("success", 15, 80, decimals=0)
    b.bounds("successes", lo=1, whole=True, why="outcomes are counted in whole people")
    b.ask(
        f"A foundation spends {{cost}} on {program} that enrolls {{enrolled}}; {{success}} of them "
        f"{RESULTS[outcome]}. What is the cost per successful outcome?"
    )
    b.step("successes", "Successful outcomes (enrolled × success rate)", "enrolled * success / 100",
           unit="people")
    b.step("per_outcome", "Cost per successful outcome", "cost / successes", unit="$")


@template("intermediate", floor=0.05)
def blended_fund_return(b: Builder) -> None:
    """Blended cost of capital of a layered impact fund and its margin over the portfolio yield.

    Source: blended finance structures with concessional first-loss capital (OECD, "Making Blended Finance
    Work for the Sustainable Development Goals", 2018; Convergence, "The State of Blended Finance").
    """
    b.money("first_loss", 2_000_000, 20_000_000, step=500_000)
    b.percent("r1", 0, 2, decimals=1)
    b.money("mezz", 5_000_000, 40_000_000, step=500_000)
    b.percent("r2", 3, 6, decimals=1)
    b.money("senior", 20_000_000, 150_000_000, step=1_000_000)
    b.percent("r3", 5, 9, decimals=1)
    b.percent("portfolio", 6, 12, decimals=2)
    v = b.values
    blended = (v["first_loss"] * v["r1"] + v["mezz"] * v["r2"] + v["senior"] * v["r3"]) / (
        v["first_loss"] + v["mezz"] + v["senior"])
    b.require(abs(v["portfolio"] - blended) >= 0.1 and abs(abs(v["portfolio"] - blended) - 1) > 1e-6,
              "the margin is at least 0.1 point (and not exactly 1)")
    b.ask(
        "A blended-finance fund lending to small farmers is funded by {first_loss} of first-loss capital from a "
        "development agency expecting {r1} a year, {mezz} of mezzanine capital from foundations expecting {r2}, "
        "and {senior} of senior capital from commercial investors expecting {r3}. The loan portfolio is "
        "expected to yield {portfolio} after credit losses. What is the fund's weighted average cost of "
        "capital, and by how many percentage points does the portfolio yield exceed it (negative if it falls "
        "short)?"
    )
    b.step("capital", "Total capital", "first_loss + mezz + senior", unit="$")
    b.step("cost", "Weighted average cost of capital",
           "(first_loss * r1 + mezz * r2 + senior * r3) / capital", unit="%")
    b.step("margin", "Portfolio yield minus cost of capital", "portfolio - cost", unit="pp")


@template("intermediate")
def adjusted_sroi(b: Builder) -> None:
    """SROI after deadweight, attribution and displacement.

    Source: Cabinet Office (UK), "A Guide to Social Return on Investment" (2012), stage 4 (establishing
    impact: deadweight, displacement, attribution).
    """
    program, outcome = b.pick(PROGRAMS)
    b.money("investment", 200_000, 4_000_000, step=10_000)
    n = b.integer("outcomes", 50, 2_500)
    b.derive("proxy", round(b.values["investment"] / n * b.rng.uniform(1.5, 6), -1), unit="$")
    b.percent("deadweight", 10, 45, decimals=0)
    b.percent("attribution", 5, 35, decimals=0)
    b.percent("displacement", 0, 20, decimals=0)
    b.require(b.values["displacement"] > 0, "some displacement")
    b.ask(
        f"A social investor funds {program} with {{investment}}. It records {{outcomes}} {outcome}, each valued "
        "at {proxy}. The evaluation estimates that {deadweight} of these outcomes would have happened anyway "
        "(deadweight), that {attribution} of what remains is due to other organizations (attribution), and that "
        "{displacement} of the rest merely displaces outcomes elsewhere (displacement). What is the SROI ratio "
        "after these adjustments?"
    )
    b.step("gross", "Gross value of outcomes", "outcomes * proxy", unit="$")
    b.step("net", "Net impact after deadweight, attribution and displacement",
           "gross * (1 - deadweight / 100) * (1 - attribution / 100) * (1 - displacement / 100)", unit="$")
    b.step("sroi", "Adjusted SROI ratio (net impact ÷ investment)", "net / investment")


@template("advanced")
def multi_year_sroi(b: Builder) -> None:
    """Three-year SROI with deadweight, attribution, drop-off and discounting.

    Source: Cabinet Office (UK), "A Guide to Social Return on Investment" (2012), stages 4 and 5: impact
    net of deadweight and attribution, drop-off in later years, present value at a discount rate (the HM
    Treasury Green Book rate, 3.5%, is typical).

    Concepts: deadweight and attribution; drop-off in later years; discounting; SROI ratio.
    """
    program, outcome = b.pick(PROGRAMS)
    b.money("investment", 200_000, 4_000_000, step=10_000)
    n = b.integer("outcomes", 50, 2_500)
    b.derive("proxy", round(b.values["investment"] / n * b.rng.uniform(0.6, 3), -1), unit="$")
    b.percent("deadweight", 10, 45, decimals=0)
    b.percent("attribution", 5, 35, decimals=0)
    b.percent("dropoff", 10, 50, decimals=0)
    b.percent("rate", 3, 6, decimals=1)
    b.ask(
        f"An impact fund invests {{investment}} in {program}, which produces {{outcomes}} {outcome} in each of "
        "the next three years, each valued at {proxy} a year. Deadweight is {deadweight} and attribution to "
        "other organizations is {attribution}. The net impact drops off by {dropoff} a year after the first year "
        "(year 2 is that much below year 1, year 3 that much below year 2). Valuing each year's impact at the "
        "year end and discounting at {rate}, what is the SROI ratio (present value of net impact ÷ investment)?"
    )
    b.step("gross", "Gross annual value of outcomes", "outcomes * proxy", unit="$")
    b.step("year1", "Year-1 net impact (after deadweight and attribution)",
           "round(gross * (1 - deadweight / 100) * (1 - attribution / 100), 2)", unit="$")
    b.step("year2", "Year-2 net impact after drop-off", "round(year1 * (1 - dropoff / 100), 2)", unit="$")
    b.step("year3", "Year-3 net impact after drop-off", "round(year2 * (1 - dropoff / 100), 2)", unit="$")
    b.step("pv", "Present value of the three years",
           "year1 / (1 + rate / 100) + year2 / (1 + rate / 100) ** 2 + year3 / (1 + rate / 100) ** 3", unit="$")
    b.step("sroi", "SROI ratio (present value ÷ investment)", "pv / investment")
