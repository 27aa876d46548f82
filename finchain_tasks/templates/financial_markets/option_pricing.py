"""Option pricing: payoffs and profit at expiry, put-call parity, one- and two-step binomial trees with
risk-neutral valuation, Black-Scholes-Merton, and delta hedging of a written call."""

import math

from finchain_tasks.engine import Builder, template


@template("easy", floor=20)
def option_profit_at_expiry(b: Builder) -> None:
    """Profit on long option contracts held to expiry, payoff less premium.

    Source: Hull, Options, Futures and Other Derivatives, ch. 10.
    """
    b.person("person")
    b.company("stock", kind="listed")
    kind = b.choice("kind", ["call", "put"])
    strike = b.money("strike", 20, 300, step=5)
    b.money("premium", 0.03 * strike, 0.1 * strike, step=0.05)
    b.integer("contracts", 1, 30, unit="contracts")
    sign = 1 if kind == "call" else -1
    b.derive("spot", round(strike * (1 + sign * b.rng.uniform(0.01, 0.25)), 2), unit="$")
    v = b.values
    payoff = sign * (v["spot"] - strike)
    b.require(abs(payoff - v["premium"]) > 0.15 * v["premium"], "a clear profit or loss")
    b.ask(
        "{person} buys {contracts} of {stock} {kind} options (100 shares each) with a strike of {strike}, paying "
        "a premium of {premium} per share. At expiry the stock trades at {spot}. What is {their} total profit "
        "(negative for a loss), ignoring commissions and the time value of the premium?"
    )
    payoff_formula = "spot - strike" if kind == "call" else "strike - spot"
    b.step("payoff", "Payoff per share at expiry (the option is in the money)", payoff_formula, unit="$")
    b.step("profit_share", "Profit per share (payoff − premium)", "payoff - premium", unit="$")
    b.step("profit", "Total profit (per share × 100 × contracts)", "profit_share * 100 * contracts", unit="$")


@template("easy")
def put_from_put_call_parity(b: Builder) -> None:
    """European put price from put-call parity, p = c − S + K e^(−rT).

    Source: Hull, Options, Futures and Other Derivatives, ch. 11; no dividends, continuously compounded rate.
    """
    b.company("stock", kind="listed")
    spot = b.money("spot", 20, 300, step=0.01)
    b.money("strike", spot * 0.9, spot * 1.1, step=1)
    b.money("call", 0.04 * spot, 0.15 * spot, step=0.01)
    b.percent("rate", 2, 6, decimals=2)
    b.choice("months", {"3 months": 3, "6 months": 6, "9 months": 9, "12 months": 12})
    v = b.values
    b.require(v["call"] - spot + v["strike"] * 0.94 > 0.02 * spot, "the put has a clear positive value")
    b.ask(
        "{stock} shares trade at {spot} and pay no dividends. A European call with a strike of {strike} expiring "
        "in {months} costs {call}. The risk-free rate is {rate} a year with continuous compounding. What should a "
        "European put with the same strike and expiry cost by put-call parity?"
    )
    b.step("pv_strike", "Present value of the strike, K × e^(−rT)", "strike * exp(-rate / 100 * months / 12)",
           unit="$")
    b.step("put", "Put price (call − spot + PV of strike)", "call - spot + pv_strike", unit="$")


@template("intermediate", floor=0.2)
def one_step_binomial_call(b: Builder) -> None:
    """European call by a one-step binomial tree and risk-neutral valuation.

    Source: Cox, Ross and Rubinstein 1979; Hull, Options, Futures and Other Derivatives, ch. 13.
    """
    b.company("stock", kind="listed")
    spot = b.money("spot", 20, 200, step=0.5)
    b.percent("up", 8, 25, decimals=1)
    b.percent("down", 6, 20, decimals=1)
    b.percent("rate", 2, 6, decimals=2)
    b.choice("months", {"3 months": 3, "6 months": 6, "12 months": 12})
    v = b.values
    up_price = spot * (1 + v["up"] / 100)
    b.money("strike", spot * 1.01, up_price * 0.98, step=0.5)
    b.require(up_price - b.values["strike"] > 0.03 * spot, "the call pays clearly in the up state")
    b.ask(
        "{stock} trades at {spot} and pays no dividends. Over the next {months} its price will either rise by "
        "{up} or fall by {down}. The risk-free rate is {rate} a year, continuously compounded. Using a one-step "
        "binomial tree and risk-neutral valuation, what is a European call with a strike of {strike} expiring in "
        "{months} worth?"
    )
    b.step("up_price", "Stock price after an up move, in dollars", "spot * (1 + up / 100)")
    b.step("prob", "Risk-neutral probability of an up move, (e^(rT) − d) ÷ (u − d)",
           "(exp(rate / 100 * months / 12) - (1 - down / 100)) / ((1 + up / 100) - (1 - down / 100))")
    b.step("payoff_up", "Call payoff after an up move in dollars (the down payoff is zero)", "up_price - strike")
    b.step("value", "Call value (discounted risk-neutral expected payoff)",
           "exp(-rate / 100 * months / 12) * prob * payoff_up", unit="$")


@template("intermediate")
def black_scholes_call(b: Builder) -> None:
    """European call by Black-Scholes-Merton (no dividends, continuous rate, annual volatility).

    Source: Black and Scholes 1973; Hull, Options, Futures and Other Derivatives, ch. 15.
    """
    b.company("stock", kind="listed")
    spot = b.money("spot", 20, 300, step=0.01)
    b.money("strike", spot * 0.85, spot * 1.15, step=1)
    b.percent("rate", 2, 6, decimals=2)
    b.percent("vol", 15, 55, decimals=1)
    b.choice("months", {"3 months": 3, "6 months": 6, "9 months": 9, "12 months": 12, "18 months": 18})
    v = b.values
    t, sigma = v["months"] / 12, v["vol"] / 100
    d1 = (math.log(spot / v["strike"]) + (v["rate"] / 100 + sigma**2 / 2) * t) / (sigma * math.sqrt(t))
    b.require(abs(d1) > 0.01 and abs(d1 - sigma * math.sqrt(t)) > 0.01, "d1 and d2 are not vanishingly small")
    b.ask(
        "{stock} trades at {spot} and pays no dividends. Its volatility is {vol} a year and the risk-free rate is "
        "{rate} a year with continuous compounding. Using the Black-Scholes-Merton model, what is the value of a "
        "European call with a strike of {strike} expiring in {months}?"
    )
    b.step("d1", "d1 = (ln(S ÷ K) + (r + σ² ÷ 2) × T) ÷ (σ × √T)",
           "(ln(spot / strike) + (rate / 100 + (vol / 100) ** 2 / 2) * months / 12) / (vol / 100 * sqrt(months / 12))")
    b.step("d2", "d2 = d1 − σ × √T", "d1 - vol / 100 * sqrt(months / 12)")
    b.step("nd1", "N(d1)", "norm_cdf(d1)")
    b.step("nd2", "N(d2)", "norm_cdf(d2)")
    b.step("call", "Call value, S × N(d1) − K × e^(−rT) × N(d2)",
           "spot * nd1 - strike * exp(-rate / 100 * months / 12) * nd2", unit="$")


@template("advanced")
def two_step_tree_delta_hedge(b: Builder) -> None:
    """Net cost of delta-hedging written calls valued on a two-step Cox-Ross-Rubinstein tree.

    Source: Cox, Ross and Rubinstein 1979; Hull, Options, Futures and Other Derivatives, ch. 13 and 19.

    Concepts: Cox-Ross-Rubinstein up factor and risk-neutral probability; backward induction on a two-step tree;
    option delta; hedge cost net of premium.
    """
    b.company("dealer", kind="trading")  # who writes calls and hedges them: a dealer, not a textile mill
    b.company("stock", kind="listed")
    b.require(b.values["dealer"] != b.values["stock"], "the dealer writes calls on another company")
    spot = b.money("spot", 20, 200, step=0.5)
    vol = b.percent("vol", 15, 45, decimals=1)
    b.percent("rate", 2, 6, decimals=2)
    b.choice("months", {"6 months": 6, "12 months": 12})
    top = spot * math.exp(2 * vol / 100 * math.sqrt(b.values["months"] / 24))
    b.money("strike", spot * 1.01, top * 0.97, step=0.5)
    b.integer("contracts", 5, 200, unit="contracts")
    b.ask(
        "{dealer} writes {contracts} of European calls on {stock} (100 shares each) with a strike of {strike} "
        "expiring in {months}. The stock trades at {spot}, pays no dividends and has a volatility of {vol} a year; "
        "the risk-free rate is {rate} a year, continuously compounded. Model the stock with a two-step "
        "Cox-Ross-Rubinstein tree (u = e^(σ√Δt), d = 1/u). The dealer receives the tree value of the calls and "
        "buys delta shares to hedge. What is the net cash it pays out to set up the hedged position?"
    )
    b.step("u", "Up factor per step, u = e^(σ√Δt)", "exp(vol / 100 * sqrt(months / 24))")
    b.step("prob", "Risk-neutral up probability, (e^(rΔt) − 1/u) ÷ (u − 1/u)",
           "(exp(rate / 100 * months / 24) - 1 / u) / (u - 1 / u)")
    b.step("payoff_uu", "Payoff in dollars at the up-up node (the other two nodes finish out of the money)",
           "spot * u ** 2 - strike")
    b.step("value_u", "Call value in dollars at the up node", "exp(-rate / 100 * months / 24) * prob * payoff_uu")
    b.step("value_0", "Call value in dollars today", "exp(-rate / 100 * months / 24) * prob * value_u")
    b.step("delta", "Delta at the first step, (C up − C down) ÷ (S × u − S ÷ u)", "value_u / (spot * u - spot / u)")
    b.step("net_cost", "Net cash paid (delta shares × price − premium received, × 100 × contracts)",
           "(delta * spot - value_0) * 100 * contracts", unit="$")
