"""Know your customer: additive and weighted risk scoring, document validity, source of funds, ratings.

The risk-based approach follows the FATF Guidance for a Risk-Based Approach: The Banking Sector (2014),
paras 120–125 (customer, country, product and channel risk factors), and the FATF Recommendations
(2012, R.10 customer due diligence, R.12 politically exposed persons). Scoring tables and cut-offs are
the bank's own and are stated in each question.
"""

from finchain_tasks.engine import Builder, template

COUNTRY_POINTS = {"a low-risk": 1, "a medium-risk": 3, "a high-risk": 6}
SECTOR_POINTS = {"a software consultancy": 1, "a restaurant chain": 3, "a used-car dealership": 4,
                 "a money services business": 6}
PRODUCT_POINTS = {"a savings account": 1, "a business current account": 2, "private banking services": 4}


@template("easy")
def weighted_risk_score(b: Builder) -> None:
    """Weighted country, sector and product risk score (FATF RBA Guidance for Banks, 2014, paras 120–125)."""
    b.company("customer")
    b.number("country", 1, 9.5, decimals=1)
    b.number("sector", 1, 9.5, decimals=1)
    b.number("product", 1, 9.5, decimals=1)
    weights = b.pick([(50, 30, 20), (40, 40, 20), (45, 35, 20), (40, 30, 30), (50, 25, 25)])
    for name, w in zip(("w_country", "w_sector", "w_product"), weights, strict=True):
        b.derive(name, w, unit="%", decimals=0)
    b.ask(
        "A bank's onboarding model scores {customer} on a 0–10 scale for each risk factor: country risk "
        "{country}, sector risk {sector} and product risk {product}. The factors carry weights of "
        "{w_country}, {w_sector} and {w_product}. What is the customer's weighted risk score on the "
        "0–10 scale?"
    )
    b.step("country_part", "Country contribution", "w_country / 100 * country")
    b.step("other_parts", "Sector and product contributions", "w_sector / 100 * sector + w_product / 100 * product")
    b.step("score", "Weighted risk score", "country_part + other_parts")


@template("easy")
def document_validity(b: Builder) -> None:
    """Identity and proof-of-address documents against validity rules (FATF R.10, reliable documents)."""
    outcome = b.pick(["both acceptable", "identity document not acceptable", "proof of address not acceptable",
                      "neither acceptable"])
    id_ok = outcome in ("both acceptable", "proof of address not acceptable")
    address_ok = outcome in ("both acceptable", "identity document not acceptable")
    b.person("person")
    b.choice("document", {"passport": 10, "national identity card": 10, "driver's license": 8,
                          "residence permit": 5})
    b.integer("minimum", 3, 6, unit="months")
    total = 12 * b.values["document"]
    left = b.rng.randint(b.values["minimum"], total - 6) if id_ok else b.rng.randint(-24, b.values["minimum"] - 1)
    b.require(abs(left) > 1, "the document is not within a month of expiry")
    b.derive("age", total - left, unit="months")
    b.integer("window", 60, 120, unit="days")
    b.derive("bill_age", b.rng.randint(5, b.values["window"]) if address_ok else
             b.rng.randint(b.values["window"] + 1, 365), unit="days")
    b.ask(
        "{person} opens an account with a {document} issued {age} ago (documents of this type are issued for "
        "{document_years} years) and a utility bill dated {bill_age} before the onboarding day as proof of "
        "address. The bank accepts an identity document only if at least {minimum} of validity remain, and a "
        "proof of address only if it is dated within the last {window}. Which documents are acceptable "
        "(answer 'both acceptable', 'identity document not acceptable', 'proof of address not acceptable' or "
        "'neither acceptable')?".replace("{document_years}", str(b.values["document"]))
    )
    b.step("validity", "Validity of the identity document in months", "document * 12", unit="months")
    b.step("remaining", "Months of validity remaining", "validity - age", unit="months")
    b.step("decision", "Both documents against their rules",
           "('both acceptable' if bill_age <= window else 'proof of address not acceptable') "
           "if remaining >= minimum else "
           "('identity document not acceptable' if bill_age <= window else 'neither acceptable')")


@template("intermediate")
def source_of_funds_check(b: Builder) -> None:
    """Explained versus unexplained funds for a large deposit (FATF R.10 and R.12, source of funds)."""
    verified = b.pick([True, False])
    b.person("person")
    b.money("salary", 45_000, 220_000, step=500)
    b.percent("savings_rate", 8, 30, decimals=0)
    b.integer("years", 3, 12, unit="years")
    b.money("inheritance", 10_000, 250_000, step=1_000)
    explained = b.values["salary"] * b.values["savings_rate"] / 100 * b.values["years"] + b.values["inheritance"]
    share = b.rng.uniform(1, 8) if verified else b.rng.uniform(12, 45)  # never a negative "unexplained part"
    b.bounds("unexplained", lo=0, why="an unexplained part is a part of the deposit")
    b.derive("deposit", 100 * round(explained / (1 - share / 100) / 100), unit="$")
    b.bounds("share", lo=0, hi=100, why="a share of the deposit")
    b.ask(
        "{person} wants to deposit {deposit} and states that the money comes from savings and an "
        "inheritance. {Their} documents show a net salary of {salary} a year, of which {they} saved "
        "{savings_rate} every year for the past {years}, and an inheritance of {inheritance}. Policy: if "
        "the unexplained part of the deposit is more than 10% of the deposit, the case goes to enhanced "
        "due diligence. What is the outcome (answer 'verified' or 'enhanced due diligence')?"
    )
    b.step("saved", "Savings from salary over the period", "salary * savings_rate / 100 * years", unit="$")
    b.step("explained", "Funds explained by documents: savings plus inheritance", "saved + inheritance", unit="$")
    b.step("unexplained", "Unexplained part of the deposit", "deposit - explained", unit="$")
    b.step("share", "Unexplained part as a percentage of the deposit", "unexplained / deposit * 100", unit="%")
    b.step("decision", "Outcome against the 10% policy line",
           "'enhanced due diligence' if share > 10 else 'verified'")


@template("intermediate")
def residual_risk_after_controls(b: Builder) -> None:
    """Inherent risk as country × sector × product, reduced by control effectiveness (FATF RBA, 2014)."""
    b.company("customer")
    b.integer("country", 2, 5)
    b.integer("sector", 2, 5)
    b.integer("product", 1, 4)
    b.percent("controls", 15, 70, decimals=0)
    v = b.values
    residual = v["country"] * v["sector"] * v["product"] * (1 - v["controls"] / 100)
    if b.pick([True, False]):  # enhanced due diligence: the cut-off lies below the residual risk
        cut = b.rng.randint(max(3, int(residual * 0.6)), max(3, int(residual - 0.5)))
    else:
        cut = b.rng.randint(int(residual + 1.5), int(residual * 1.6 + 2))
    b.require(abs(residual - cut) > 0.5, "no near tie with the cut-off")
    b.derive("cut", cut)
    b.ask(
        "A bank scores the inherent money-laundering risk of {customer} as country risk × sector risk × "
        "product risk, each on a 1–5 scale: country {country}, sector {sector}, product {product}. Its "
        "monitoring controls are assessed as {controls} effective, so residual risk is inherent risk × "
        "(1 − control effectiveness). Customers with residual risk of {cut} or more go to enhanced due "
        "diligence. What is the outcome (answer 'enhanced due diligence' or 'standard due diligence')?"
    )
    b.step("inherent", "Inherent risk: country × sector × product", "country * sector * product")
    b.step("mitigated", "Share of the risk that controls do not remove", "1 - controls / 100")
    b.step("residual", "Residual risk", "inherent * mitigated")
    b.step("decision", "Comparison with the cut-off",
           "'enhanced due diligence' if residual >= cut else 'standard due diligence'")


@template("advanced")
def pep_owner_risk_rating(b: Builder) -> None:
    """Risk rating of a company: a PEP beneficial owner traced through a holding company, else a weighted score.

    Beneficial ownership at 25% traced through the chain (FinCEN CDD rule, 31 CFR 1010.230(d); FATF R.10
    and R.24); a politically exposed person among the beneficial owners requires enhanced due diligence
    (FATF R.12), which the bank's policy maps to a high rating; otherwise risk factors per FATF RBA
    Guidance for Banks (2014), paras 120–125, with source-of-funds scrutiny per FATF R.10.

    Concepts: effective ownership through a holding company; the 25% beneficial-ownership prong; PEP
    override to high risk; weighted four-factor score; uplift for unexplained funds.
    """
    band = b.pick(["low", "medium", "high"])
    route = b.pick(["high by score", "high as a PEP owner"]) if band == "high" else band
    score_band = b.pick(["low", "medium"]) if route == "high as a PEP owner" else band
    b.company("customer")
    b.person("pep")
    centre = {"low": 1.3, "medium": 2.3, "high": 3.4}[score_band]
    for name in ("country", "sector", "product", "channel"):
        b.derive(name, min(5, max(1, round(b.rng.gauss(centre, 0.8)))))
    v = b.values
    composite = 0.35 * v["country"] + 0.25 * v["sector"] + 0.2 * v["product"] + 0.2 * v["channel"]
    b.require(all(abs(composite - v[n]) > 1e-9 for n in ("country", "sector", "product", "channel")),
              "the weighted score is not one of the factor scores")
    low, high = {"low": (1.0, 2.45), "medium": (2.55, 3.45), "high": (3.55, 4.8)}[score_band]
    target = b.rng.uniform(max(low, composite + 0.1), max(high, composite + 0.15))
    b.money("deposit", 100_000, 2_000_000, step=5_000)
    b.derive("explained", 1_000 * round(v["deposit"] * (1 - (target - composite) * 20 / 100) / 1_000), unit="$")
    b.require(v["explained"] > 0.5 * v["deposit"], "most of the deposit is documented")
    adjusted = composite + (v["deposit"] - v["explained"]) / v["deposit"] * 100 / 20
    got = "low" if adjusted < 2.5 else ("medium" if adjusted < 3.5 else "high")
    b.require(got == score_band and min(abs(adjusted - 2.5), abs(adjusted - 3.5)) > 0.02,
              "the score band drawn, clear of the cut-offs")
    b.percent("direct", 2, 15, decimals=1)
    b.percent("holdco_share", 30, 90, decimals=1)
    wanted = b.rng.uniform(26, 45) if route == "high as a PEP owner" else b.rng.uniform(8, 24)
    b.derive("holdco_stake", (wanted - v["direct"]) / v["holdco_share"] * 100, unit="%", decimals=1)
    b.require(5 <= v["holdco_stake"] <= 95, "a holding company stake between 5% and 95%")
    stake = v["holdco_share"] * v["holdco_stake"] / 100 + v["direct"]
    b.require((stake >= 25) == (route == "high as a PEP owner") and abs(stake - 25) > 0.3,
              "the PEP's stake on the drawn side of 25%, clear of the line")
    b.ask(
        "A bank is onboarding {customer}. {pep}, a politically exposed person, holds {direct} of {customer} "
        "directly and owns {holdco_share} of a holding company that holds {holdco_stake} of it; indirect "
        "ownership counts in proportion along the chain. The bank's policy rates a customer high risk "
        "whenever a politically exposed person owns 25% or more of it. Otherwise it scores four factors "
        "1–5: country {country}, sector {sector}, product {product} and delivery channel {channel}, weighted "
        "35%, 25%, 20% and 20%, and adds 0.05 points for each percentage point of the first deposit that "
        "documents do not explain; the first deposit is {deposit}, of which documents explain {explained}. "
        "An adjusted score below 2.5 is low risk, from 2.5 up to but not including 3.5 is medium risk, and "
        "3.5 or more is high risk. What is the customer's risk rating (low, medium or high)?"
    )
    b.bounds("pep_stake", lo=0, hi=100, why="an ownership share")
    b.bounds("share", lo=0, hi=100, why="the unexplained part of a deposit")
    b.step("indirect", "Indirect stake through the holding company (%)", "holdco_share * holdco_stake / 100",
           unit="%")
    b.step("pep_stake", "The PEP's effective ownership: direct + indirect (%)", "direct + indirect", unit="%")
    b.step("weighted_sum", "Weighted score: 0.35 × country + 0.25 × sector + 0.20 × product + 0.20 × channel",
           "0.35 * country + 0.25 * sector + 0.2 * product + 0.2 * channel")
    b.step("share", "Unexplained share of the deposit (%)", "(deposit - explained) / deposit * 100", unit="%")
    b.step("adjusted", "Adjusted score: weighted score + 0.05 × unexplained share", "weighted_sum + 0.05 * share")
    b.step("rating", "Rating: high for a PEP owning 25% or more, otherwise the band of the adjusted score",
           "'high' if pep_stake >= 25 else ('low' if adjusted < 2.5 else ('medium' if adjusted < 3.5 else 'high'))")
