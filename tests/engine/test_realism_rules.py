"""The realism rules of ``finchain verify`` (issue 41), one table row per rule: a small template with the
defect planted fails that rule with a message naming it, and the same template without the defect passes
every rule. Templates are built here, not taken from the library, so each row plants exactly one defect."""

from __future__ import annotations

import pytest

from finchain_tasks.engine.builder import Builder, TemplateError
from finchain_tasks.engine.realism import REAL_INSTRUMENTS, is_amount, same_questions
from finchain_tasks.engine.registry import Template
from finchain_tasks.engine.verify import verify


def failures_by_rule(body, seed: int = 0) -> dict[str, list[str]]:
    tpl = Template("d", "t", "x", "easy", body, 0)
    out: dict[str, list[str]] = {}
    for line in verify(tpl.generate(seed), regenerate=tpl).failures:
        rule, _, detail = line.split("rule ", 1)[1].partition(": ")
        out.setdefault(rule, []).append(detail)
    return out


# -- one template per rule, with a switch that plants the defect ---------------------------------------------
def holdings(planted: bool):
    def body(b: Builder) -> None:
        b.integer("holding1", -500 if planted else 500, -400 if planted else 900, unit="tokens")
        b.integer("bought", 100, 200, unit="tokens")
        b.ask("A wallet holds {holding1} and buys {bought}. How many tokens does it hold?")
        b.step("holding_end", "Holdings after the purchase", "holding1 + bought", unit="tokens")
    return body


def opaque_holding(planted: bool):
    """A name that says nothing ("a1"), but a unit that counts tokens."""
    def body(b: Builder) -> None:
        b.integer("a1", -500 if planted else 500, -400 if planted else 900, unit="tokens")
        b.integer("b1", 100, 200, unit="tokens")
        b.ask("A wallet holds {a1} and buys {b1}. How many tokens does it hold?")
        b.step("after", "Tokens after the purchase", "a1 + b1", unit="tokens")
    return body


def posts(planted: bool):
    def body(b: Builder) -> None:
        b.integer("bullish", 100, 900, unit="posts")
        b.integer("bearish", 100, 900, unit="posts")
        b.ask("Of the posts, {bullish} " + ("posts " if planted else "") + "are bullish and {bearish} bearish. "
              "How many posts are there?")
        b.step("total", "All posts", "bullish + bearish", unit="posts")
    return body


def retailer(planted: bool):
    def body(b: Builder) -> None:
        b.company("company", kind="pharmaceutical" if planted else "retailer")
        b.money("sales", 1_000, 9_000)
        b.money("cogs", 200, 900)
        b.ask("{company}, a retailer, had sales of {sales} and cost of goods sold of {cogs}. What is its gross "
              "profit?")
        b.step("gross_profit", "Gross profit", "sales - cogs", unit="$")
    return body


def hardcoded_name(planted: bool):
    def body(b: Builder) -> None:
        name = "Summit Pharmaceuticals" if planted else b.company("company", kind="pharmaceutical")
        b.money("sales", 1_000, 9_000)
        b.ask(f"{name} had sales of {{sales}}. What were its sales?")
        b.step("answer", "Sales", "sales * 1", unit="$")
    return body


def family_office(planted: bool):
    def body(b: Builder) -> None:
        b.company("adviser", kind="trading" if planted else "family office")
        b.integer("shares", 100, 900, unit="shares")
        b.ask("{adviser} is a family office that holds {shares}. How many shares does it hold, doubled?")
        b.step("doubled", "Twice the shares", "shares * 2", unit="shares")
    return body


def real_token(planted: bool):
    def body(b: Builder) -> None:
        b.number("supply", 897, 898, decimals=1, unit="million tokens") if planted else \
            b.number("supply", 0.88, 0.98, decimals=3, unit="million tokens")
        b.money("price", 2_000, 2_200, step=0.01)
        b.ask("MKR trades at {price} and its circulating supply is {supply}. What is its market cap?")
        b.step("market_cap", "Market cap", "price * supply * 1000000", unit="$")
    return body


def bond_vol(planted: bool):
    def body(b: Builder) -> None:
        b.percent("equity_vol", 10, 12)
        b.percent("bond_vol", 14, 16) if planted else b.percent("bond_vol", 4, 6)
        b.ask("Equities have volatility {equity_vol} and bonds {bond_vol}. What is the average volatility?")
        b.step("average", "Average", "(equity_vol + bond_vol) / 2", unit="%")
    return body


def bid_ask(planted: bool):
    def body(b: Builder) -> None:
        b.number("bid", 1.2010, 1.2020, decimals=4)
        b.number("ask", 1.2000, 1.2005, decimals=4) if planted else b.number("ask", 1.2025, 1.2030, decimals=4)
        b.ask("EUR/USD is quoted {bid} bid and {ask} ask. What is the mid rate?")
        b.step("mid", "Mid rate", "(bid + ask) / 2")
    return body


def coupon_yield(planted: bool):
    def body(b: Builder) -> None:
        b.percent("coupon_rate", 2, 3)
        b.percent("ytm", 14, 15) if planted else b.percent("ytm", 3, 4)
        b.ask("A bond pays a coupon of {coupon_rate} and yields {ytm}. By how much does the yield exceed it?")
        b.step("gap", "Yield minus coupon", "ytm - coupon_rate", unit="pp")
    return body


def part_of_whole(planted: bool):
    def body(b: Builder) -> None:
        b.integer("total_shares", 1_000, 2_000, unit="shares")
        b.integer("shares", 3_000, 4_000, unit="shares") if planted else b.integer("shares", 100, 900, unit="shares")
        b.ask("A company has {total_shares} and Ben holds {shares}. What percentage does he hold?")
        b.step("stake", "Stake", "shares / total_shares * 100", unit="%")
    return body


def dates(planted: bool):
    def body(b: Builder) -> None:
        b.integer("start_month", 8, 9) if planted else b.integer("start_month", 1, 3)
        b.integer("end_month", 5, 6)
        b.ask("A contract runs from month {start_month} to month {end_month}. How many months does it run?")
        b.step("months", "Months", "end_month - start_month + 1")
    return body


def signed_holding(planted: bool):
    """A negative price declared signed passes; undeclared it fails (the planted defect is the missing reason)."""
    def body(b: Builder) -> None:
        if not planted:
            b.signed("price", "an oil futures contract settled below zero in April 2020")
        b.money("price", -40, -30)
        b.ask("A futures contract settles at {price}. What is the loss on 3 contracts of 1,000 barrels?")
        b.step("loss", "Loss", "price * 3000", unit="$")
    return body


RULE_TABLE = [
    ("non-negative", holdings, "holding1 = "),
    ("non-negative", signed_holding, "price = "),
    ("non-negative", opaque_holding, "a1 = "),
    ("repeated word", posts, "'posts posts'"),
    ("company kind", retailer, "described as 'a retailer'"),
    ("company kind", hardcoded_name, "not drawn with b.company"),
    ("company kind", family_office, "'family office' name pool"),
    ("real instrument", real_token, "MKR's real circulating supply band"),
    ("real instrument", real_token, "above $1 trillion"),
    ("relation", bond_vol, "bonds are less volatile than equities"),
    ("relation", bid_ask, "a bid is below its ask"),
    ("relation", coupon_yield, "coupon and its yield are in the same range"),
    ("relation", part_of_whole, "a part is not larger than its whole"),
    ("relation", dates, "a period starts before it ends"),
]


@pytest.mark.parametrize(("rule", "make", "said"), RULE_TABLE, ids=[f"{r}-{m.__name__}" for r, m, _ in RULE_TABLE])
def test_realism_rule_fails_the_planted_defect_and_passes_without_it(rule, make, said):
    planted = failures_by_rule(make(True))
    assert rule in planted, planted
    assert any(said in line for line in planted[rule]), planted[rule]
    assert failures_by_rule(make(False)) == {}


def test_realism_rule_non_negative_reads_names_not_values():
    """Amounts by name; a change of one may be negative (edges of the vocabulary)."""
    amounts = ("price", "start_price", "bond_vol", "holding3", "supply", "shares_end")
    changes = ("price_change", "net_flow", "npv", "rate", "vol_shock", "alpha")
    assert [is_amount(n) for n in amounts] == [True] * len(amounts)
    assert [is_amount(n) for n in changes] == [False] * len(changes)


def test_realism_rule_signed_needs_a_reason():
    with pytest.raises(TemplateError, match="needs a reason"):
        Builder(0).signed("price", "  ")


def test_realism_rule_company_kind_trusts_a_record_with_no_draw_record():
    """A record read from a file cannot say how its names were drawn: only descriptions are checked."""
    from dataclasses import replace

    tpl = Template("d", "t", "x", "easy", hardcoded_name(True), 0)
    record = replace(tpl.generate(0), companies=None)
    assert not [f for f in verify(record).failures if "company kind" in f]


def test_realism_rule_real_instrument_bands_are_ordered():
    for keys, band in REAL_INSTRUMENTS.items():
        assert 0 < band.price[0] < band.price[1] and 0 < band.supply[0] < band.supply[1], keys


def test_realism_rule_same_question_flags_a_reworded_copy_and_not_a_different_question():
    a = ["Maya puts 46% of her savings in a stock fund with volatility 14.6% and the rest in a bond fund with "
         "volatility 5%; the correlation is 0.2. By how many percentage points is the portfolio's volatility "
         "below the weighted average of the two funds' volatilities?"]
    copy = ["Ben holds 64% of a portfolio in asset A (volatility 23.1%) and the rest in asset B (volatility 22%); "
            "the correlation is 0.59. By how many percentage points is the portfolio's volatility below the "
            "weighted average of the two volatilities?"]
    other = ["Ben holds 64% of a portfolio in asset A (volatility 23.1%) and the rest in asset B (volatility 22%); "
             "the correlation is 0.59. What is the portfolio's one-day 99% value at risk on $1,000,000?"]
    flagged = same_questions({"p/a/x": a, "r/m/y": copy, "r/v/z": other})
    assert len(flagged) == 1 and flagged[0].startswith("p/a/x and r/m/y, rule same question:"), flagged


def test_realism_rule_depth_fails_an_advanced_template_shallower_than_its_domains_median_intermediate():
    from finchain_tasks.engine.standard import depth, depth_failures

    def steps(n: int, extra_labels: int = 0):
        def body(b: Builder) -> None:
            b.money("amount", 100, 900)
            b.ask("What is {amount} doubled " + "again " * n + "?")
            previous = "amount"
            for k in range(n):
                b.step(f"s{k}", "Double it", f"{previous} * 2", unit="$")
                previous = f"s{k}"
            b.step("pct", "As a percentage", f"{previous} * 100")  # a unit change: no substance
            for k in range(extra_labels):
                b.step(f"label{k}", "Label", f"'big' if {previous} > 0 else 'small'")
        return body

    def tpl(name: str, level: str, n: int, labels: int = 0) -> Template:
        return Template("d", "t", name, level, steps(n, labels), 0)

    middle = [tpl("i1", "intermediate", 3), tpl("i2", "intermediate", 4), tpl("i3", "intermediate", 5)]
    shallow, deep = tpl("a1", "advanced", 3, labels=3), tpl("a2", "advanced", 4)
    assert depth(shallow.generate(0)) == 3  # labels and the unit change do not count
    lines = depth_failures([shallow, deep], population=[*middle, shallow, deep])
    assert len(lines) == 1 and lines[0].startswith("d/t/a1, seed 0, rule depth:") and "(4)" in lines[0], lines
