"""Anti-money laundering: currency transaction reports, structuring, beneficial ownership, SAR decisions.

US rules throughout: the Bank Secrecy Act's $10,000 currency transaction report (CTR) threshold with
same-day aggregation (31 CFR 1010.311 and 1010.313), FinCEN's Customer Due Diligence rule (25%
ownership prong, 31 CFR 1010.230) and the bank SAR rule (31 CFR 1020.320).
"""

from finchain_tasks.engine import Builder, template

CTR_OUTCOMES = ("cash in only", "cash out only", "both cash in and cash out", "neither")


def _split(b: Builder, total: int, parts: int) -> list[int]:
    """``parts`` amounts on a $10 grid, each 60–140% of an equal share, adding up to ``total``.

    Built without rejection, so a case drawn first (above or below a threshold) keeps its share.
    """
    weights = [b.rng.uniform(0.6, 1.4) for _ in range(parts)]
    amounts = [10 * round(total * w / sum(weights) / 10) for w in weights[:-1]]
    return amounts + [total - sum(amounts)]


@template("easy")
def currency_transaction_report(b: Builder) -> None:
    """Same-day aggregation of cash in and cash out for the CTR (31 CFR 1010.311, 1010.313)."""
    outcome = b.pick(CTR_OUTCOMES)
    over_in = outcome in ("cash in only", "both cash in and cash out")
    over_out = outcome in ("cash out only", "both cash in and cash out")
    total_in = 10 * (b.rng.randint(1_002, 1_800) if over_in else b.rng.randint(500, 999))
    total_out = 10 * (b.rng.randint(1_002, 1_600) if over_out else b.rng.randint(400, 999))
    deposits = _split(b, total_in, 3)
    withdrawals = _split(b, total_out, 2)
    b.person("person")
    for i, amount in enumerate(deposits, 1):
        b.derive(f"deposit{i}", amount, unit="$")
    for i, amount in enumerate(withdrawals, 1):
        b.derive(f"withdrawal{i}", amount, unit="$")
    b.ask(
        "On one business day {person} deposits cash at a US bank three times, {deposit1}, {deposit2} and "
        "{deposit3}, at different branches, and also makes two cash withdrawals of {withdrawal1} and "
        "{withdrawal2}. Under the Bank Secrecy Act the bank must file a currency transaction report (CTR) "
        "when cash in, or cash out, by or for one person on one business day totals more than $10,000; "
        "multiple transactions are aggregated, and cash in and cash out are aggregated separately, never "
        "netted. For which direction must a CTR be filed (cash in only, cash out only, both cash in and "
        "cash out, or neither)?"
    )
    b.step("cash_in", "Total cash deposited during the business day", "deposit1 + deposit2 + deposit3", unit="$")
    b.step("cash_out", "Total cash withdrawn during the business day", "withdrawal1 + withdrawal2", unit="$")
    b.step("ctr", "Directions whose total exceeds $10,000",
           "('both cash in and cash out' if cash_out > 10000 else 'cash in only') if cash_in > 10000 "
           "else ('cash out only' if cash_out > 10000 else 'neither')")


@template("easy")
def beneficial_ownership_stake(b: Builder) -> None:
    """Effective ownership through a holding company (FinCEN CDD rule, 31 CFR 1010.230(d))."""
    b.person("person")
    b.company("customer")
    b.percent("direct", 3, 22, decimals=1)
    b.percent("holdco_share", 20, 90, decimals=1)
    b.percent("holdco_stake", 10, 60, decimals=1)
    b.ask(
        "{customer} is opening a business account. {person} holds {direct} of its equity directly and "
        "also owns {holdco_share} of a holding company that holds {holdco_stake} of {customer}. Under "
        "FinCEN's Customer Due Diligence rule, indirect ownership counts in proportion to the ownership "
        "chain. What is {person}'s effective percentage ownership of {customer}?"
    )
    b.step("indirect", "Indirect stake through the holding company (%)",
           "holdco_share * holdco_stake / 100", unit="%")
    b.step("effective", "Effective ownership: direct plus indirect stake (%)", "direct + indirect", unit="%")


@template("intermediate")
def structuring_pattern(b: Builder) -> None:
    """Structuring red flag: sub-threshold deposits whose average sits near the CTR line (31 CFR 1010.314)."""
    flag = b.pick([True, False])
    b.company("bank", kind="bank")
    b.person("person")
    average = 10 * (b.rng.randint(922, 975) if flag else b.rng.randint(850, 918))
    deviations = [10 * b.rng.randint(-35, 35) for _ in range(4)]
    amounts = [average + d for d in deviations] + [average - sum(deviations)]
    amounts = [min(a, 9_990) for a in amounts]
    for i, amount in enumerate(amounts, 1):
        b.derive(f"d{i}", amount, unit="$")
    b.bounds("share", lo=0, hi=100, why="a share of the threshold")
    b.ask(
        "{bank}'s transaction monitoring reviews five cash deposits that {person} made on five consecutive "
        "business days: {d1}, {d2}, {d3}, {d4} and {d5}. Each is below the $10,000 currency transaction "
        "report threshold, so none triggered a report. The bank's rule escalates a series for suspicious "
        "activity report (SAR) review when the deposits together exceed $10,000 and their average is at "
        "least 92% of the $10,000 threshold. Should the series be escalated (answer 'escalate' or "
        "'no escalation')?"
    )
    b.step("total", "Total of the five deposits", "d1 + d2 + d3 + d4 + d5", unit="$")
    b.step("average", "Average deposit", "total / 5", unit="$")
    b.step("share", "Average as a percentage of the $10,000 threshold", "average / 10000 * 100", unit="%")
    b.step("decision", "Escalation decision (total above $10,000 and average at least 92%)",
           "'escalate' if total > 10000 and share >= 92 else 'no escalation'")


@template("intermediate")
def layered_entity_owner(b: Builder) -> None:
    """Beneficial ownership through two layers of entities (FinCEN CDD rule, 31 CFR 1010.230(d)(1))."""
    owner = b.pick([True, False])
    b.person("person")
    b.company("customer")
    b.percent("layer1", 35, 90, decimals=1)
    b.percent("layer2", 30, 90, decimals=1)
    b.percent("layer3", 20, 80, decimals=1)
    b.percent("direct", 2, 15, decimals=1)
    total = b.values["layer1"] * b.values["layer2"] * b.values["layer3"] / 10_000 + b.values["direct"]
    b.require((total >= 25) == owner and abs(total - 25) > 0.3, "the owner case drawn, clear of the line")
    b.ask(
        "{person} owns {layer1} of Alder Holdings, which owns {layer2} of Brook Ventures, which in turn owns "
        "{layer3} of {customer}. {They} also holds {direct} of {customer} directly. Under FinCEN's Customer "
        "Due Diligence rule a bank must identify every individual who owns, directly or indirectly, 25% or "
        "more of a legal-entity customer, tracing ownership multiplicatively through each layer. Is "
        "{person} a beneficial owner of {customer} under the ownership prong (answer 'beneficial owner' or "
        "'not a beneficial owner')?"
    )
    b.step("through_alder", "Share of Brook Ventures held through Alder Holdings (%)",
           "layer1 * layer2 / 100", unit="%")
    b.step("indirect", "Indirect share of the customer through the chain (%)",
           "through_alder * layer3 / 100", unit="%")
    b.step("total", "Total effective ownership: indirect plus direct (%)", "indirect + direct", unit="%")
    b.step("decision", "Ownership prong at 25%",
           "'beneficial owner' if total >= 25 else 'not a beneficial owner'")


@template("advanced")
def ctr_and_sar_on_unexpected_cash(b: Builder) -> None:
    """A week of cash deposits: which reports are due, a CTR for a day above $10,000, a SAR for unexplained excess.

    Sources: 31 CFR 1010.311 and 1010.313 (a CTR for cash over $10,000 by or for one person in one business
    day, multiple deposits aggregated); 31 CFR 1020.320(a)(2) (a SAR for suspicious activity of at least
    $5,000 when a suspect is known); the expected-activity profile kept under the CDD rule (31 CFR 1020.210).

    Foreign cash counts at its dollar equivalent (31 CFR 1010.100(m): currency includes foreign coin and
    paper money; 1010.313 aggregates it with the day's dollar deposits).

    Concepts: same-day aggregation of cash deposits for a CTR; foreign cash at its dollar equivalent;
    expected-activity profile and alert limit; documented source of funds; SAR dollar threshold on the
    unexplained excess.
    """
    ctr, sar = b.pick([True, False]), b.pick([True, False])
    b.company("bank", kind="bank")
    b.company("customer")
    heavy = b.pick(["monday", "friday"]) if ctr else None
    days = {}
    for day in ("monday", "friday"):
        total = 10 * (b.rng.randint(1_010, 1_800) if day == heavy else b.rng.randint(300, 990))
        first = 10 * round(total * b.rng.uniform(0.42, 0.58) / 10)
        days[day] = (first, total - first)
    b.require(all(a < 10_000 for pair in days.values() for a in pair), "every single deposit is below $10,000")
    b.derive("mon1", days["monday"][0], unit="$")
    b.derive("mon2", days["monday"][1], unit="$")
    b.money("wed", 2_000, 9_900, step=10)
    b.derive("fri1", days["friday"][0], unit="$")
    rate = b.number("eur_usd", 1.04, 1.16, decimals=4)
    euros = b.derive("fri2_eur", 10 * round(days["friday"][1] / rate / 10), unit="€")
    fri2 = round(euros * rate, 2)
    b.require(fri2 < 10_000, "the euro deposit is below $10,000 too")
    v = b.values
    week = v["mon1"] + v["mon2"] + v["wed"] + v["fri1"] + fri2
    b.money("documented", 0.1 * week, 0.3 * week, step=100)
    b.number("multiple", 1.2, 2.0, decimals=1)
    excess = b.rng.uniform(5_300, 0.35 * week) if sar else b.rng.uniform(-0.3 * week, 4_700)
    b.derive("expected", 100 * round((week - v["documented"] - excess) / v["multiple"] / 100), unit="$")
    b.require(v["expected"] >= 1_500, "an expected weekly amount a business would declare")
    unexplained = week - v["documented"] - v["multiple"] * v["expected"]
    b.require((unexplained >= 5_000) == sar and abs(unexplained - 5_000) > 150, "the SAR case drawn, clear of the line")
    b.ask(
        "At onboarding, {customer} told {bank} to expect about {expected} of cash deposits a week. In one week it "
        "deposits cash of {mon1} and {mon2} at two branches on Monday, {wed} on Wednesday, and {fri1} and "
        "{fri2_eur} in euro banknotes (converted at {eur_usd} dollars per euro) on Friday; no single deposit "
        "reaches $10,000. It gives the bank an invoice showing that "
        "{documented} of the week's cash came from the sale of used equipment. Under the Bank Secrecy Act a "
        "currency transaction report (CTR) is due for any business day on which the customer's cash "
        "deposits, added together, exceed $10,000. The bank's policy opens an alert when a week's cash "
        "exceeds {multiple} times the expected amount and files a suspicious activity report (SAR) when the "
        "unexplained excess (the week's cash less documented cash less that limit) is at least $5,000. "
        "Which reports are due: 'no report', 'CTR only', 'SAR only' or 'CTR and SAR'?"
    )
    b.bounds("documented", lo=0, hi="week", why="documented cash is part of the week's cash")
    b.step("monday", "Cash deposited on Monday (aggregated across branches)", "mon1 + mon2", unit="$")
    b.step("fri2", "Dollar equivalent of the euro banknotes, to the cent", "round(fri2_eur * eur_usd, 2)", unit="$")
    b.step("friday", "Cash deposited on Friday", "fri1 + fri2", unit="$")
    b.step("week", "Cash deposited during the week", "monday + wed + friday", unit="$")
    b.step("limit", "Alert limit (multiple × expected weekly cash)", "multiple * expected", unit="$")
    b.step("unexplained", "Unexplained excess (week − documented − limit)", "week - documented - limit", unit="$")
    b.step("reports", "Reports due (a CTR for a day above $10,000, a SAR for an excess of $5,000 or more)",
           "('CTR and SAR' if unexplained >= 5000 else 'CTR only') if monday > 10000 or friday > 10000 "
           "else ('SAR only' if unexplained >= 5000 else 'no report')")
