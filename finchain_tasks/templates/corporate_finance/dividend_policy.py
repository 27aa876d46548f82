"""Dividend policy: a target payout ratio, stock dividends, stable growth with sustainable growth from
retention, the residual dividend policy, and Lintner's dividend smoothing with buybacks taking the rest of
a total payout."""

from finchain_tasks.engine import Builder, template


@template("easy", floor=0.1)
def target_payout_dividend(b: Builder) -> None:
    """Dividend per share under a target payout ratio.

    Source: Brealey, Myers and Allen, ch. 17.
    """
    b.company("company")
    shares = b.number("shares", 5, 400, decimals=1, unit="million shares")
    b.money("net_income", 0.8 * shares * 1e6, 8 * shares * 1e6, step=10_000)
    b.percent("payout", 20, 70, decimals=0)
    b.ask(
        "{company} earned net income of {net_income} this year and has {shares} outstanding. Its board follows a "
        "target payout ratio of {payout} of earnings. What dividend per share will it declare?"
    )
    b.step("total_dividend", "Total dividends (net income × payout ratio)", "net_income * payout / 100", unit="$")
    b.step("dps", "Dividend per share", "total_dividend / (shares * 1000000)", unit="$")


@template("easy")
def stock_dividend_price(b: Builder) -> None:
    """Share count and theoretical price after a stock dividend.

    Source: Berk and DeMarzo, Corporate Finance, ch. 17.
    """
    b.company("company")
    b.integer("shares", 2_000_000, 90_000_000, unit="shares")
    b.money("price", 10, 250, step=0.01)
    b.choice("stock_dividend", {"5%": 5, "8%": 8, "10%": 10, "12%": 12, "15%": 15, "20%": 20, "25%": 25})
    b.ask(
        "{company} has {shares} outstanding trading at {price} each when it declares a {stock_dividend} stock "
        "dividend. Assuming the total market value of the equity is unchanged by the distribution, what is the "
        "theoretical share price after the stock dividend?"
    )
    b.step("new_shares", "Shares outstanding after the stock dividend", "shares * (1 + stock_dividend / 100)",
           unit="shares")
    b.step("new_price", "Price per share (market value ÷ new share count)", "shares * price / new_shares", unit="$")


@template("intermediate")
def sustainable_growth_price(b: Builder) -> None:
    """Constant-growth (Gordon) value with growth from retention, g = ROE × (1 − payout).

    Source: Bodie, Kane and Marcus, Investments, ch. 18.
    """
    b.company("company")
    b.money("eps", 1.5, 12, step=0.01)
    b.percent("payout", 30, 70, decimals=0)
    b.percent("roe", 8, 18)
    g = b.values["roe"] * (1 - b.values["payout"] / 100)
    b.percent("required", g + 3, g + 7)
    b.ask(
        "{company} expects earnings per share of {eps} next year and pays out {payout} of earnings as dividends, "
        "reinvesting the rest at a return on equity of {roe}, which it can sustain indefinitely. Shareholders "
        "require a return of {required}. Using the constant-growth dividend discount model, what is the share "
        "worth today?"
    )
    b.step("growth", "Sustainable growth rate (ROE × retention ratio)", "roe * (1 - payout / 100)", unit="%")
    b.step("dividend", "Next year's dividend per share in dollars (EPS × payout)", "eps * payout / 100")
    b.step("spread", "Required return minus growth", "required - growth", unit="pp")
    b.step("value", "Share value, D1 ÷ (r − g)", "dividend / (spread / 100)", unit="$")


@template("intermediate", floor=0.1)
def residual_dividend(b: Builder) -> None:
    """Dividends under the residual dividend policy with a target capital structure.

    Source: Brigham and Ehrhardt, Financial Management, ch. 15.
    """
    b.company("company")
    shares = b.number("shares", 10, 300, decimals=1, unit="million shares")
    ni = b.money("net_income", 1.5 * shares * 1e6, 9 * shares * 1e6, step=100_000)
    b.percent("equity_share", 45, 75, decimals=0)
    b.money("capex", 0.4 * ni, 1.2 * ni, step=100_000)
    b.require(ni - b.values["capex"] * b.values["equity_share"] / 100 > 0.15 * ni, "a real residual dividend")
    b.ask(
        "{company}, with {shares} outstanding, keeps a target capital structure of {equity_share} equity and the "
        "rest debt, and follows a residual dividend policy. Net income this year is {net_income} and the approved "
        "capital budget is {capex}. What dividend per share does it pay?"
    )
    b.step("equity_needed", "Equity needed for the capital budget", "capex * equity_share / 100", unit="$")
    b.step("residual", "Residual earnings paid as dividends", "net_income - equity_needed", unit="$")
    b.step("dps", "Dividend per share", "residual / (shares * 1000000)", unit="$")


@template("advanced", floor=1_000)
def lintner_dividend_with_buyback(b: Builder) -> None:
    """Shares repurchased when dividends follow Lintner's smoothing and buybacks take the rest of a total payout.

    Source: Lintner, American Economic Review 46(2), 1956 (partial adjustment, D1 = D0 + c × (p × EPS1 − D0));
    Brav, Graham, Harvey and Michaely, "Payout policy in the 21st century", Journal of Financial Economics
    77 (2005) (dividends smoothed, repurchases the flexible residual of total payout); Brealey, Myers and
    Allen, ch. 17.

    Concepts: Lintner partial adjustment of the dividend; total payout policy split into dividends and
    repurchases; buyback size in dollars; shares repurchased at the market price.
    """
    b.company("company")
    b.percent("payout", 30, 50, decimals=0)
    b.percent("total_payout", b.values["payout"] + 15, 85, decimals=0)
    b.number("speed", 0.2, 0.6, decimals=2)
    eps0 = b.money("eps0", 2, 10, step=0.01)
    b.money("d0", 0.6 * eps0 * b.values["payout"] / 100, 0.9 * eps0 * b.values["payout"] / 100, step=0.01)
    eps1 = b.derive("eps1", round(eps0 * b.rng.uniform(0.92, 1.3), 2), unit="$")
    b.number("shares", 20, 300, decimals=1, unit="million shares")
    b.money("price", eps1 * 10, eps1 * 25, step=0.01)
    v = b.values
    exact = v["d0"] + v["speed"] * (v["payout"] / 100 * eps1 - v["d0"])
    # a dividend on a half cent would round one way from the exact target and the other from the shown one
    b.require(abs(exact * 100 % 1 - 0.5) > 1e-6, "no half-cent tie")
    b.ask(
        "{company} sets its dividend by Lintner's model: each year it closes a fraction c = {speed} of the gap "
        "between its target dividend (a payout ratio of {payout} of that year's EPS) and last year's dividend, "
        "declared in whole cents (rounded to the nearest cent). Last year EPS was {eps0} and the dividend {d0} "
        "a share. This year EPS is {eps1} on {shares} outstanding. The board pays out {total_payout} of this "
        "year's earnings in total, dividends first and the rest as an open-market share repurchase at "
        "{price} a share. How many whole shares will the company buy back?"
    )
    b.bounds("buyback", lo=0, hi="distribution", why="dividends come out of the total payout")
    b.bounds("repurchased", lo=0, hi="shares * 1000000", whole=True, why="whole shares, fewer than outstanding")
    b.step("target", "Target dividend in dollars (payout ratio × EPS)", "payout / 100 * eps1")
    b.step("dividend", "Lintner dividend, D0 + c × (target − D0), to the cent", "round(d0 + speed * (target - d0), 2)",
           unit="$")
    b.step("distribution", "Total payout (share of earnings × EPS × shares)",
           "total_payout / 100 * eps1 * shares * 1000000", unit="$")
    b.step("dividends_paid", "Dividends paid (dividend per share × shares)", "dividend * shares * 1000000", unit="$")
    b.step("buyback", "Amount left for the repurchase", "distribution - dividends_paid", unit="$")
    quotient = b.values["buyback"] / b.values["price"]
    # a quotient a hair below a whole number would floor one way exactly and the other from the cents shown
    b.require(abs(quotient - round(quotient)) > 1e-4, "the shares bought are not a whole number on the nose")
    b.step("repurchased", "Whole shares repurchased (amount ÷ price, rounded down)", "floor(buyback / price)",
           unit="shares")
