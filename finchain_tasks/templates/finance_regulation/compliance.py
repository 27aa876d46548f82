"""Compliance fines and risk scoring: tiered fines, the FCA penalty steps, delay escalation, composite ratings.

Per-day penalties follow the Bank Secrecy Act's civil penalty rule that each day a violation continues
is a separate violation (31 U.S.C. 5321(a)(1)); revenue-based penalties follow the FCA's five-step
penalty framework (DEPP 6.5A); composite ratings follow the 1–5 scale of the FFIEC Uniform Financial
Institutions Rating System.
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


@template("advanced")
def composite_compliance_rating(b: Builder) -> None:
    """Weighted composite of component ratings on the FFIEC 1–5 scale, mapped to a rating band.

    Component scale and composite bands after the FFIEC Uniform Financial Institutions Rating System
    (1 best, 5 worst); the weights are the firm's stated methodology.
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
    b.ask(
        "An internal review of {firm} rates four compliance areas on a 1–5 scale to one decimal (1 = best): governance "
        "and oversight {s_governance}, AML controls {s_aml}, sanctions screening {s_sanctions} and "
        "regulatory reporting {s_reporting}. The methodology weights them {w_governance}, {w_aml}, "
        "{w_sanctions} and {w_reporting} respectively and rates the firm 'strong' if the weighted "
        "composite is below 2.0, 'satisfactory' from 2.0 up to but not including 3.0, and 'weak' at 3.0 "
        "or above. What is the firm's rating?"
    )
    b.step("first_pair", "Weight × score for governance and AML controls",
           "w_governance * s_governance + w_aml * s_aml")
    b.step("second_pair", "Weight × score for sanctions screening and regulatory reporting",
           "w_sanctions * s_sanctions + w_reporting * s_reporting")
    b.step("weighted_sum", "Sum of weight × score over the four areas", "first_pair + second_pair")
    b.step("composite", "Composite score (weights in percent, so divide by 100)", "weighted_sum / 100")
    b.step("rating", "Rating band of the composite",
           "'strong' if composite < 2 else ('satisfactory' if composite < 3 else 'weak')")
