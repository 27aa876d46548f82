"""ESG investing: weighted pillar scores, a solar project's payback after incentives, negative screening and its
effect on return, a best-over-worst tilt, and a score-tilted index after exclusions."""

from finchain_tasks.engine import Builder, template

LETTERS = "ABCD"


def _holdings(b: Builder, count: int, excluded: int = 0, threshold: int = 0) -> None:
    """Benchmark weights (percent, summing to 100), ESG scores (0-100) and one-year returns per holding.

    With ``excluded`` (1-based) and ``threshold``, that holding alone scores below the threshold, so a
    screen removes exactly one stock without rejecting draws.
    """
    cuts = sorted(round(b.rng.uniform(5, 95), 1) for _ in range(count - 1))
    weights = [hi - lo for lo, hi in zip([0.0, *cuts], [*cuts, 100.0])]
    b.require(min(weights) >= 8, "every holding weighs at least 8%")
    for k, w in enumerate(weights, 1):
        b.derive(f"w{k}", round(w, 1), unit="%", decimals=1)
        if not threshold:
            b.integer(f"s{k}", 20, 90)
        elif k == excluded:
            b.integer(f"s{k}", 15, threshold - 1)
        else:
            b.integer(f"s{k}", threshold, 92)
        b.percent(f"r{k}", -12, 28, decimals=1)


@template("easy", floor=1)
def pillar_score_gap(b: Builder) -> None:
    """Composite ESG score from weighted pillar scores and its gap to a mandate's minimum.

    Source: pillar-weighted ESG scoring as in MSCI ESG Ratings Methodology (key-issue and pillar weights);
    weights stated in the question.
    """
    b.company("company")
    we = b.integer("we", 20, 50)
    ws = b.integer("ws", 15, 45)
    b.require(100 - we - ws >= 15, "governance weighs at least 15%")
    b.derive("wg", 100 - we - ws)
    for p in ("e", "s", "g"):
        b.number(f"score_{p}", 35, 85, decimals=1)
    v = b.values
    comp = (we * v["score_e"] + ws * v["score_s"] + v["wg"] * v["score_g"]) / 100
    b.integer("minimum", round(comp) + 2, round(comp) + 15)
    b.ask(
        "An ESG data provider scores {company} {score_e} on environment, {score_s} on social and {score_g} on "
        "governance, and weights the pillars {we}%, {ws}% and {wg}% for its industry. A fund's mandate requires "
        "a composite score of at least {minimum}. What is the composite score, and by how many points does it "
        "fall short of the mandate's minimum?"
    )
    b.step("composite", "Composite score (weighted average of the pillars)",
           "(we * score_e + ws * score_s + wg * score_g) / 100")
    b.step("gap", "Shortfall from the minimum", "minimum - composite", unit="points")


@template("easy", floor=0.5)
def solar_payback_with_incentives(b: Builder) -> None:
    """Simple payback of a rooftop solar project after an investment tax credit and a utility rebate.

    Source: the federal investment tax credit for solar property (26 U.S.C. 48, 30% base credit under the
    Inflation Reduction Act of 2022), a utility rebate that reduces the cost, and simple payback = net cost ÷
    annual savings (Brealey, Myers and Allen, ch. 5; NREL, "Simple Payback" definition).
    """
    b.company("company")
    cost = b.money("cost", 200_000, 5_000_000, step=5_000)
    b.choice("itc", {"30%": 30, "40%": 40})
    b.money("rebate", 0.03 * cost, 0.1 * cost, step=1_000)
    b.money("savings", 0.06 * cost, 0.12 * cost, step=500)
    b.money("certificates", 0.005 * cost, 0.02 * cost, step=100)
    b.ask(
        "{company} installs rooftop solar panels on its warehouses for {cost}. It claims a federal investment "
        "tax credit of {itc} of the cost and receives a utility rebate of {rebate}; the credit is computed on "
        "the full cost. The panels cut its electricity bill by {savings} a year, and it sells the renewable "
        "energy certificates they generate for {certificates} a year. What is the project's simple payback "
        "period in years?"
    )
    b.bounds("net_cost", lo=0, hi="cost", why="incentives cover part of the cost")
    b.bounds("payback", lo=0, hi=25, why="within a solar panel's life")
    b.step("net_cost", "Net cost after the tax credit and the rebate", "cost * (1 - itc / 100) - rebate", unit="$")
    b.step("annual", "Annual benefit: bill savings + certificate sales", "savings + certificates", unit="$")
    b.step("payback", "Simple payback: net cost ÷ annual benefit", "net_cost / annual", unit="years")


@template("intermediate", floor=0.05)
def negative_screen_return(b: Builder) -> None:
    """Return of a portfolio after excluding the holding that fails an ESG screen and reweighting the rest.

    Source: negative (exclusionary) screening with proportional reweighting (Eurosif, European SRI Study;
    GSIA Global Sustainable Investment Review definitions).
    """
    out = b.rng.randrange(4) + 1
    th = b.integer("threshold", 30, 50)
    _holdings(b, 4, out, th)
    v = b.values
    kept = [k for k in range(1, 5) if k != out]
    diff = sum(v[f"w{k}"] * v[f"r{k}"] for k in kept) / sum(v[f"w{k}"] for k in kept) - sum(
        v[f"w{k}"] * v[f"r{k}"] for k in range(1, 5)) / 100
    b.require(abs(diff) >= 0.1 and abs(abs(diff) - 1) > 1e-6, "the screen changes the return by 0.1 point (not 1)")
    b.ask(
        "A benchmark holds four stocks. Stock A: weight {w1}, ESG score {s1}, return {r1}. Stock B: weight {w2}, "
        "score {s2}, return {r2}. Stock C: weight {w3}, score {s3}, return {r3}. Stock D: weight {w4}, score "
        "{s4}, return {r4}. A screened version of the benchmark excludes any stock with an ESG score below "
        "{threshold} and scales the remaining weights up in proportion so they sum to 100%. By how many "
        "percentage points did the screened portfolio's return differ from the benchmark's (screened minus "
        "benchmark)?"
    )
    letter = LETTERS[out - 1]
    b.step("benchmark", "Benchmark return (weighted average of all four)",
           "(w1 * r1 + w2 * r2 + w3 * r3 + w4 * r4) / 100", unit="%")
    b.step("kept", f"Weight left after excluding stock {letter}", " + ".join(f"w{k}" for k in kept), unit="%")
    b.step("screened", f"Screened return (stock {letter} excluded, weights rescaled)",
           "(" + " + ".join(f"w{k} * r{k}" for k in kept) + ") / kept", unit="%")
    b.step("difference", "Screened minus benchmark return", "screened - benchmark", unit="pp")


@template("intermediate", floor=0.05)
def best_over_worst_tilt(b: Builder) -> None:
    """Active return and ESG score of a tilt that moves weight from the worst- to the best-scored holding.

    Source: ESG tilting relative to a benchmark (MSCI ESG Universal Index methodology, re-weighting by ESG
    scores); active return = portfolio return − benchmark return.
    """
    _holdings(b, 3)
    v = b.values
    scores = [v["s1"], v["s2"], v["s3"]]
    b.require(len(set(scores)) == 3, "three different scores")
    best, worst = scores.index(max(scores)) + 1, scores.index(min(scores)) + 1
    b.percent("shift", 2, 8, decimals=1)
    b.require(v["shift"] < v[f"w{worst}"], "the worst holding keeps some weight")
    active = abs(v["shift"] * (v[f"r{best}"] - v[f"r{worst}"]) / 100)
    b.require(active >= 0.06 and abs(active - 1) > 1e-9, "the tilt moves the return (and not by exactly 1 point)")
    b.bounds("best_weight", lo=0, hi=100, why="a portfolio weight")
    b.bounds("worst_weight", lo=0, hi=100, why="a portfolio weight")
    b.ask(
        "A fund tracks a three-stock benchmark: stock A weighs {w1} with an ESG score of {s1} and returned "
        "{r1}; stock B weighs {w2}, scores {s2} and returned {r2}; stock C weighs {w3}, scores {s3} and "
        "returned {r3}. An ESG-tilted version moves {shift} of portfolio weight from the lowest-scored stock to "
        "the highest-scored one. What are the tilted portfolio's weighted ESG score and its active return "
        "against the benchmark, in percentage points? Give the active return (negative if it trails the benchmark)."
    )
    lb, lw = LETTERS[best - 1], LETTERS[worst - 1]
    b.step("best_weight", f"New weight of stock {lb} (highest score)", f"w{best} + shift", unit="%")
    b.step("worst_weight", f"New weight of stock {lw} (lowest score)", f"w{worst} - shift", unit="%")
    b.step("score", "Tilted portfolio's weighted ESG score",
           f"(best_weight * s{best} + worst_weight * s{worst} + w{6 - best - worst} * s{6 - best - worst}) / 100")
    b.step("active", "Active return (shift × (best stock's return − worst stock's return))",
           f"shift * (r{best} - r{worst}) / 100", unit="pp")


@template("advanced", floor=0.05)
def score_tilted_index(b: Builder) -> None:
    """An index that excludes low scorers and weights the rest by benchmark weight × ESG score.

    Source: MSCI ESG Universal Index methodology (weights scaled by an ESG score factor) combined with
    exclusionary screening (GSIA definitions); active return against the parent benchmark.

    Concepts: exclusionary screening; score-tilted weights; index ESG score; index return; active return against the
    benchmark.
    """
    out = b.rng.randrange(4) + 1
    _holdings(b, 4, out, b.integer("threshold", 30, 50))
    v = b.values
    kept = [k for k in range(1, 5) if k != out]
    den = sum(v[f"w{k}"] * v[f"s{k}"] for k in kept)
    tilted = sum(v[f"w{k}"] * v[f"s{k}"] * v[f"r{k}"] for k in kept) / den
    bench = sum(v[f"w{k}"] * v[f"r{k}"] for k in range(1, 5)) / 100
    b.require(abs(tilted - bench) >= 0.2 and abs(abs(tilted - bench) - 1) > 1e-6,
              "the index differs from its parent by at least 0.2 point (and not by exactly 1)")
    b.ask(
        "A parent benchmark holds four stocks. Stock A: weight {w1}, ESG score {s1}, one-year return {r1}. "
        "Stock B: weight {w2}, score {s2}, return {r2}. Stock C: weight {w3}, score {s3}, return {r3}. "
        "Stock D: weight {w4}, score {s4}, return {r4}. An ESG index built on it first excludes any stock "
        "scoring below {threshold}, then weights each remaining stock in proportion to its benchmark weight "
        "times its ESG score. Find the index's ESG score (weighted by the new weights), the benchmark's "
        "return, the index's return, and the index's active return against the benchmark in percentage "
        "points (negative if it trails the benchmark)."
    )
    letter = LETTERS[out - 1]
    b.step("tilt_total", f"Sum of weight × score over the kept stocks (stock {letter} excluded)",
           " + ".join(f"w{k} * s{k}" for k in kept))
    b.step("index_score", "Index ESG score (Σ weight × score² ÷ Σ weight × score)",
           "(" + " + ".join(f"w{k} * s{k} * s{k}" for k in kept) + ") / tilt_total")
    b.step("index_return", "Index return (Σ weight × score × return ÷ Σ weight × score)",
           "(" + " + ".join(f"w{k} * s{k} * r{k}" for k in kept) + ") / tilt_total", unit="%")
    b.step("benchmark", "Benchmark return", "(w1 * r1 + w2 * r2 + w3 * r3 + w4 * r4) / 100", unit="%")
    b.step("active", "Active return (index − benchmark)", "index_return - benchmark", unit="pp")
