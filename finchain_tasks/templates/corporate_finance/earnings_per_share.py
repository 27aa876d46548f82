"""Earnings per share: earnings available to common after preferred dividends, stock splits, the
weighted average share count with issues and buybacks, and diluted EPS by the treasury-stock and
if-converted methods (IAS 33; ASC 260)."""

from finchain_tasks.engine import Builder, template

ISSUE_DATES = {"1 February": 11, "1 March": 10, "1 April": 9, "1 May": 8, "1 June": 7, "1 July": 6,
               "1 August": 5, "1 September": 4, "1 October": 3, "1 November": 2}
"""Date in a calendar financial year -> months the shares are outstanding until 31 December."""


@template("easy")
def basic_eps_with_preferred(b: Builder) -> None:
    """Basic EPS on earnings available to ordinary shareholders.

    Source: IAS 33, paras 10 and 12.
    """
    b.company("company")
    shares = b.number("shares", 5, 500, decimals=1, unit="million shares")
    b.money("net_income", 1.0 * shares * 1e6, 9 * shares * 1e6, step=10_000)
    b.money("quarterly_pref", 0.01 * b.values["net_income"], 0.04 * b.values["net_income"], step=1_000)
    b.ask(
        "{company} reports net income of {net_income} for the year. Its non-convertible cumulative preferred "
        "shares receive a dividend of {quarterly_pref} every quarter, and all four were declared this year. "
        "{shares} of common stock were outstanding all year. What is basic earnings per share?"
    )
    b.step("preferred", "Preferred dividends for the year (4 × the quarterly dividend)", "4 * quarterly_pref", unit="$")
    b.step("common_earnings", "Earnings available to common shareholders (net income − preferred dividends)",
           "net_income - preferred", unit="$")
    b.step("eps", "Basic EPS", "common_earnings / (shares * 1000000)", unit="$")


@template("easy")
def eps_after_stock_split(b: Builder) -> None:
    """EPS restated for a stock split, applied retrospectively to all periods presented.

    Source: IAS 33, para 64.
    """
    b.company("company")
    shares = b.number("shares", 5, 200, decimals=1, unit="million shares")
    b.money("net_income", 1.5 * shares * 1e6, 12 * shares * 1e6, step=10_000)
    b.choice("split", {"2-for-1": 2, "3-for-1": 3, "3-for-2": 1.5, "4-for-1": 4, "5-for-4": 1.25})
    b.ask(
        "{company} earned {net_income} last year with {shares} outstanding throughout, and has no preferred "
        "stock. Before publishing this year's report it carries out a {split} stock split. What is last year's "
        "EPS as restated in the new report?"
    )
    b.step("new_shares", "Shares after the split (millions)", "shares * split")
    b.step("eps", "Restated EPS", "net_income / (new_shares * 1000000)", unit="$")


@template("intermediate")
def weighted_average_shares_eps(b: Builder) -> None:
    """Basic EPS over a weighted average share count with a share issue and a buyback.

    Source: IAS 33, paras 19-21.
    """
    b.company("company")
    opening = b.integer("opening", 5_000_000, 200_000_000, unit="shares")
    b.integer("issued", int(0.05 * opening), int(0.3 * opening), unit="shares")
    b.choice("issue_date", {k: v for k, v in ISSUE_DATES.items() if v >= 5})
    b.integer("bought_back", int(0.02 * opening), int(0.12 * opening), unit="shares")
    b.choice("buyback_date", {k: v for k, v in ISSUE_DATES.items() if v < b.values["issue_date"]})
    b.money("net_income", 1.0 * opening, 8 * opening, step=10_000)
    b.money("preferred", 0.02 * b.values["net_income"], 0.1 * b.values["net_income"], step=1_000)
    b.ask(
        "{company} had {opening} outstanding on 1 January. It issued {issued} for cash on {issue_date} and "
        "bought back {bought_back} on {buyback_date}. Net income for the calendar year was {net_income}, and "
        "preferred dividends of {preferred} were declared. Weighting shares by the months they were outstanding, "
        "what is basic EPS for the year?"
    )
    b.step("weighted", "Weighted average shares (opening + issued × months ÷ 12 − bought back × months ÷ 12)",
           "opening + issued * issue_date / 12 - bought_back * buyback_date / 12", unit="shares")
    b.step("common_earnings", "Earnings available to common shareholders", "net_income - preferred", unit="$")
    b.step("eps", "Basic EPS", "common_earnings / weighted", unit="$")


@template("intermediate")
def diluted_eps_treasury_stock(b: Builder) -> None:
    """Diluted EPS with share options by the treasury-stock method at the average market price.

    Source: IAS 33, paras 45-46; ASC 260-10-45-23.
    """
    b.company("company")
    shares = b.number("shares", 10, 400, decimals=1, unit="million shares")
    b.money("net_income", 1.0 * shares * 1e6, 8 * shares * 1e6, step=10_000)
    b.money("avg_price", 15, 200, step=0.01)
    b.money("strike", 0.4 * b.values["avg_price"], 0.85 * b.values["avg_price"], step=0.01)
    b.number("options", 0.03 * shares, 0.12 * shares, decimals=2, unit="million shares")
    b.ask(
        "{company} earned {net_income} with {shares} outstanding all year and has no preferred stock. The average "
        "market price of its shares during the year was {avg_price}. Employees hold options over {options}, "
        "exercisable at {strike} each. Using the treasury-stock method, what is diluted EPS?"
    )
    b.step("repurchased", "Shares bought back with the exercise proceeds (millions): options × strike ÷ price",
           "options * strike / avg_price")
    b.step("incremental", "Incremental shares from the options (millions)", "options - repurchased")
    b.step("diluted_shares", "Diluted share count (millions)", "shares + incremental")
    b.step("diluted_eps", "Diluted EPS", "net_income / (diluted_shares * 1000000)", unit="$")


@template("advanced")
def diluted_eps_with_convertibles(b: Builder) -> None:
    """Diluted EPS with options (treasury-stock method) and dilutive convertible bonds (if-converted method).

    Source: IAS 33, paras 33, 41-50; ASC 260-10-45-40.

    Concepts: basic EPS after preferred dividends; treasury-stock method for options; if-converted method for
    convertible bonds; after-tax interest add-back.
    """
    b.company("company")
    shares = b.number("shares", 20, 300, decimals=1, unit="million shares")
    ni = b.money("net_income", 1.5 * shares * 1e6, 7 * shares * 1e6, step=10_000)
    b.money("preferred", 0.03 * ni, 0.1 * ni, step=1_000)
    b.money("avg_price", 20, 150, step=0.01)
    b.money("strike", 0.5 * b.values["avg_price"], 0.9 * b.values["avg_price"], step=0.01)
    b.number("options", 0.02 * shares, 0.08 * shares, decimals=2, unit="million shares")
    b.money("face", 0.1 * shares * 1e6 * b.values["avg_price"], 0.3 * shares * 1e6 * b.values["avg_price"],
            step=1_000_000)
    b.percent("coupon", 2, 6, decimals=2)
    b.percent("tax_rate", 20, 30, decimals=0)
    b.number("conversion", 0.8 * 1000 / b.values["avg_price"], 1.3 * 1000 / b.values["avg_price"], decimals=2)
    v = b.values
    basic = (ni - v["preferred"]) / (shares * 1e6)
    per_share_effect = v["face"] * v["coupon"] / 100 * (1 - v["tax_rate"] / 100) / (v["face"] / 1000 * v["conversion"])
    b.require(per_share_effect < 0.85 * basic, "the convertible bonds are dilutive")
    b.ask(
        "{company} reports net income of {net_income} and pays {preferred} of dividends on non-convertible "
        "preferred stock; {shares} of common stock were outstanding all year. Its shares averaged {avg_price} "
        "during the year. Dilutive instruments: employee options over {options} with an exercise price of {strike}, "
        "and {face} face value of convertible bonds paying a {coupon} annual coupon (interest expense equals the "
        "coupon), each $1,000 bond convertible into {conversion} shares. The tax rate is {tax_rate}. Using the "
        "treasury-stock method for the options and the if-converted method for the bonds, what is diluted EPS?"
    )
    b.step("common_earnings", "Earnings available to common shareholders", "net_income - preferred", unit="$")
    b.step("basic_eps", "Basic EPS", "common_earnings / (shares * 1000000)", unit="$")
    b.step("option_shares", "Incremental option shares (millions): options × (1 − strike ÷ price)",
           "options * (1 - strike / avg_price)")
    b.step("interest_saved", "After-tax interest added back on conversion",
           "face * coupon / 100 * (1 - tax_rate / 100)", unit="$")
    b.step("bond_shares", "Shares issued on conversion (millions)", "face / 1000 * conversion / 1000000")
    b.step("diluted_eps", "Diluted EPS (earnings + interest saved) ÷ (basic + option + conversion shares)",
           "(common_earnings + interest_saved) / ((shares + option_shares + bond_shares) * 1000000)", unit="$")
