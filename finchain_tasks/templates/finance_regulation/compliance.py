"""Compliance fines and risk scoring: tiered fines, the FCA penalty steps, delay escalation, composite ratings.

Per-day penalties follow the Bank Secrecy Act's civil penalty rule that each day a violation continues
is a separate violation (31 U.S.C. 5321(a)(1)); revenue-based penalties follow the FCA's five-step
penalty framework (DEPP 6.5A); the composite rating that adjusts a penalty uses the 1–5 scale of the
FFIEC Uniform Financial Institutions Rating System.
"""

from finchain_tasks.engine import Builder, template

RATINGS = ("strong", "satisfactory", "weak")


@template("easy")
def tiered_violation_fine(b: Builder) -> None:
    """Fine schedule with a higher rate beyond a first tier of violations (31 U.S.C. 5321 style)."""
    b.company("firm")
    b.integer("tier_limit", 5, 20)
    b.money("rate1", 1_000, 8_000, step=250)
    b.derive("rate2", b.values["rate1"] * b.pick([1.5, 2, 2.5, 3]), unit="$")
    b.derive("count", b.values["tier_limit"] + b.rng.randint(2, 40))
    b.ask(
        "A regulator finds that {firm} failed to file {count} required reports, each a separate "
        "violation. The penalty schedule charges {rate1} for each of the first {tier_limit} violations and "
        "{rate2} for each violation beyond that. What is the total fine?"
    )
    b.step("first_tier", "Fines on the first tier of violations", "tier_limit * rate1", unit="$")
    b.step("second_tier", "Fines on the violations beyond the first tier", "(count - tier_limit) * rate2", unit="$")
    b.step("total", "Total fine", "first_tier + second_tier", unit="$")


@template("easy")
def fca_penalty_steps(b: Builder) -> None:
    """Financial penalty from relevant revenue, seriousness level and settlement discount (FCA DEPP 6.5A)."""
    b.company("firm")
    b.money("revenue", 2_000_000, 400_000_000, step=10_000, unit="£")
    b.choice("level", {"level 2": 5, "level 3": 10, "level 4": 15, "level 5": 20})
    b.percent("aggravation", 5, 40, decimals=0)
    b.ask(
        "The UK Financial Conduct Authority fines {firm} for a breach that generated relevant revenue of "
        "{revenue}. Under the FCA's five-step framework (DEPP 6.5A) the breach is judged seriousness "
        "{level}, so step 2 takes {level_pct}% of relevant revenue; step 3 raises that figure by "
        "{aggravation} for aggravating factors; the firm settles early and receives the 30% settlement "
        "discount at step 5. What is the final penalty?".replace("{level_pct}", str(b.values["level"]))
    )
    b.step("step2", "Penalty base (FCA step 2): seriousness percentage × relevant revenue", "revenue * level / 100",
           unit="£")
    b.step("step3", "After the aggravating-factor uplift (FCA step 3)", "step2 * (1 + aggravation / 100)", unit="£")
    b.step("penalty", "After the 30% settlement discount (FCA step 5)", "step3 * (1 - 30 / 100)", unit="£")


@template("intermediate")
def late_filing_escalation(b: Builder) -> None:
    """Base fine plus two-tier daily late penalties and a surcharge (per-day violations, 31 U.S.C. 5321)."""
    b.company("firm")
    b.money("base_fine", 20_000, 400_000, step=1_000)
    b.money("daily1", 200, 2_000, step=50)
    b.derive("daily2", b.values["daily1"] * 2, unit="$")
    b.integer("late_days", 35, 120, unit="days")
    b.percent("surcharge", 5, 15, decimals=0)
    b.ask(
        "{firm} was assessed a base fine of {base_fine} for deficient AML reporting and then filed the "
        "corrected report {late_days} late. Each day of delay is a separate violation: the first 30 days "
        "cost {daily1} per day and every later day costs {daily2} per day. Because the filing was more "
        "than 30 days late, an administrative surcharge of {surcharge} is added on the base fine plus the "
        "daily penalties. What is the total amount due?"
    )
    b.step("tier1", "Penalty for the first 30 days", "30 * daily1", unit="$")
    b.step("tier2", "Penalty for the days beyond 30", "(late_days - 30) * daily2", unit="$")
    b.step("subtotal", "Base fine plus daily penalties", "base_fine + tier1 + tier2", unit="$")
    b.step("total", "Total with the administrative surcharge", "subtotal * (1 + surcharge / 100)", unit="$")


@template("intermediate")
def escalating_daily_penalty(b: Builder) -> None:
    """A daily penalty that rises by a fixed amount each day: an arithmetic series (31 U.S.C. 5321)."""
    b.company("firm")
    b.money("first_day", 500, 5_000, step=100)
    b.money("increment", 50, 500, step=25)
    b.integer("days", 10, 60, unit="days")
    b.ask(
        "A consent order requires {firm} to remediate its transaction-monitoring backlog by a deadline. "
        "It misses the deadline by {days}. The penalty is {first_day} for the first day late and rises by "
        "{increment} for each further day (day 2 costs the first-day amount plus one increment, and so "
        "on). What is the total penalty?"
    )
    b.step("flat", "Penalty at the first-day rate for every day", "days * first_day", unit="$")
    b.step("escalation", "Escalation: increment × (0 + 1 + … + (days − 1))",
           "increment * days * (days - 1) / 2", unit="$")
    b.step("total", "Total penalty", "flat + escalation", unit="$")


RECORD = {  # FCA step 3 adjustment by compliance record: how the band reads in a step, and its factor
    "strong": ("below 2.0", 0.9), "satisfactory": ("from 2.0 to under 3.0", 1.1), "weak": ("3.0 or more", 1.3),
}


@template("advanced")
def penalty_with_compliance_record(b: Builder) -> None:
    """FCA penalty whose step 3 adjustment follows a weighted compliance rating, with disgorgement at step 1.

    FCA DEPP 6.5A: step 1 disgorgement of the benefit derived, step 2 a seriousness percentage of relevant
    revenue, step 3 adjustment for aggravating and mitigating factors (the firm's compliance history among
    them, DEPP 6.5A.3), step 5 the 30% settlement discount, which does not apply to disgorgement
    (DEPP 6.7.3). Component scores on the 1–5 scale of the FFIEC Uniform Financial Institutions Rating System.

    Concepts: weighted composite compliance rating; disgorgement of the benefit (step 1); seriousness
    percentage of relevant revenue (step 2); rating-based adjustment (step 3); settlement discount that
    excludes disgorgement (step 5).
    """
    band = b.pick(RATINGS)
    centre = {"strong": 1.5, "satisfactory": 2.5, "weak": 3.5}[band]
    b.company("firm")
    weights = b.pick([(35, 25, 25, 15), (30, 30, 20, 20), (40, 20, 20, 20), (25, 25, 30, 20), (30, 25, 25, 20)])
    names = ("governance", "aml", "sanctions", "reporting")
    for name, w in zip(names, weights, strict=True):
        b.derive(f"w_{name}", w, unit="%", decimals=0)
    for name in names:
        b.derive(f"s_{name}", min(5.0, max(1.0, round(b.rng.gauss(centre, 0.9), 1))), decimals=1)
    v = b.values
    composite = sum(v[f"w_{n}"] * v[f"s_{n}"] for n in names) / 100
    got = "strong" if composite < 2 else ("satisfactory" if composite < 3 else "weak")
    b.require(got == band, "the band drawn is the band the scores give")
    revenue = b.money("revenue", 5_000_000, 400_000_000, step=10_000, unit="£")
    b.choice("level", {"level 2": 5, "level 3": 10, "level 4": 15, "level 5": 20})
    b.money("benefit", 0.005 * revenue, 0.04 * revenue, step=1_000, unit="£")
    rule, factor = RECORD[band]
    b.ask(
        "The UK Financial Conduct Authority fines {firm} for a breach that generated relevant revenue of "
        "{revenue} and brought the firm a benefit of {benefit}. Under its five-step framework (DEPP 6.5A) "
        "step 1 disgorges the benefit; step 2 takes a percentage of relevant revenue for the breach's "
        "seriousness, {level_pct}% at {level}; step 3 adjusts that figure for the firm's compliance record, "
        "measured by a composite of four areas rated 1–5 (1 = best): governance and oversight "
        "{s_governance}, AML controls {s_aml}, sanctions screening {s_sanctions} and regulatory reporting "
        "{s_reporting}, weighted {w_governance}, {w_aml}, {w_sanctions} and {w_reporting}. A composite below "
        "2.0 lowers the step 2 figure by 10%, one from 2.0 up to but not including 3.0 raises it by 10%, and "
        "one of 3.0 or more raises it by 30%. The firm settles, so step 5 takes 30% off the adjusted step 3 "
        "figure but not off the disgorgement. What is the total the firm pays?".replace("{level_pct}", str(v["level"]))
    )
    b.bounds("composite", lo=1, hi=5, why="a composite of 1–5 ratings")
    b.step("composite", "Composite rating: Σ weight × score ÷ 100",
           "(w_governance * s_governance + w_aml * s_aml + w_sanctions * s_sanctions + w_reporting * s_reporting)"
           " / 100")
    b.step("step2", "Seriousness percentage × relevant revenue (FCA step 2)", "revenue * level / 100", unit="£")
    b.step("step3", f"Adjustment for the record (FCA step 3): the composite is {rule}, so multiply by {factor}",
           f"step2 * {factor}", unit="£")
    b.step("step5", "30% settlement discount on the adjusted figure (FCA step 5)", "step3 * (1 - 30 / 100)", unit="£")
    b.step("total", "Total paid: disgorged benefit (FCA step 1) + discounted penalty", "benefit + step5", unit="£")
