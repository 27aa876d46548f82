"""DeFi: staking APR to APY, constant-product swaps with fees, liquidity-provider fee income,
yield-farming ROI net of gas and reward-token price moves, impermanent loss against holding."""

from finchain_tasks.engine import Builder, template

FEE_TIERS = {"0.05%": 0.05, "0.30%": 0.3, "1.00%": 1.0}


@template("easy")
def staking_reward_daily_compounding(b: Builder) -> None:
    """Staking reward when a quoted APR compounds daily.

    Source: APR/APY conversion APY = (1 + APR/n)^n − 1 (Regulation DD, Truth in Savings, Appendix A;
    Bodie, Kane and Marcus, Investments, ch. 5).
    """
    b.person("person")
    b.money("stake", 1_000, 150_000, step=50)
    b.percent("apr", 3, 15, decimals=2)
    coin = b.pick(["SOL", "ETH", "ATOM", "DOT", "ADA"])
    b.ask(
        f"{{person}} stakes {{stake}} worth of {coin} with a validator that quotes an annual percentage rate "
        "(APR) of {apr}. Rewards are paid daily and restaked automatically, so they compound 365 times a year. "
        "Holding the token price constant, what is the effective annual yield (APY) and how many dollars of "
        "rewards does the position earn in one year? Give the dollar reward."
    )
    b.step("apy", "Effective annual yield, (1 + APR/365)^365 − 1", "((1 + apr / 100 / 365) ** 365 - 1) * 100",
           unit="%")
    b.step("reward", "Reward over one year (stake × APY)", "stake * apy / 100", unit="$")


@template("easy")
def constant_product_swap(b: Builder) -> None:
    """Output of a swap against a constant-product (x·y = k) pool with a fee on the input.

    Source: Adams, Zinsmeister and Robinson, Uniswap v2 Core whitepaper (2020), sec. 3.2.1.
    """
    eth = b.number("reserve_eth", 800, 20_000, decimals=2, unit="ETH")
    b.derive("reserve_usdc", eth * b.rng.uniform(1_500, 4_000), unit="USDC", decimals=2)
    b.number("amount_in", 0.5, max(2.0, eth * 0.03), decimals=2, unit="ETH")
    b.choice("fee", FEE_TIERS)
    b.ask(
        "A constant-product automated market maker (x · y = k) holds {reserve_eth} and {reserve_usdc}. "
        "A trader sells {amount_in} into the pool. The pool charges a {fee} fee, deducted from the amount "
        "sent in before the swap is priced, and the fee stays in the pool. How many USDC does the trader "
        "receive?"
    )
    b.step("net_in", "ETH that is swapped after the fee", "amount_in * (1 - fee / 100)", unit="ETH")
    b.step("usdc_out", "USDC out, y · Δx / (x + Δx)", "reserve_usdc * net_in / (reserve_eth + net_in)",
           unit="USDC")


@template("intermediate")
def liquidity_provider_fee_income(b: Builder) -> None:
    """A liquidity provider's pro-rata share of swap fees, annualized.

    Source: Uniswap v2 Core whitepaper (2020), sec. 2.2 (fees accrue pro rata to liquidity shares).
    """
    b.person("person")
    tvl = b.money("tvl", 1_000_000, 60_000_000, step=10_000)
    b.money("deposit", 5_000, 400_000, step=500)
    b.derive("volume", round(tvl * b.rng.uniform(0.05, 0.8), -3), unit="$")
    b.choice("fee", FEE_TIERS)
    b.integer("days", 7, 90, unit="days")
    v = b.values
    b.require(v["volume"] * v["fee"] / 100 * v["days"] * v["deposit"] / (tvl + v["deposit"]) >= 100,
              "the deposit earns at least $100")
    b.require(0.01 <= v["volume"] * v["fee"] / 100 * 365 / (tvl + v["deposit"]) <= 0.6, "an APR of 1-60%")
    b.bounds("apr", lo=0, hi=100, why="fee APR of a liquidity pool above 100% is not sustained (24% of draws)")
    b.ask(
        "A DEX liquidity pool holds {tvl} of liquidity when {person} adds {deposit}, receiving a pro-rata share "
        "of the pool. The pool trades {volume} a day and charges a {fee} swap fee, all of which goes to "
        "liquidity providers. Assuming the liquidity and daily volume stay constant, how much in fees does "
        "{person} earn over {days}, and what annual percentage rate (simple, 365-day year) does that represent "
        "on {their} deposit? Give the APR."
    )
    b.step("pool_fees", "Fees the pool earns per day", "volume * fee / 100", unit="$")
    b.step("pool_period", "Fees the pool earns over the period", "pool_fees * days", unit="$")
    b.step("own_fees", "Fees earned by the deposit (its share of the enlarged pool)",
           "pool_period * deposit / (tvl + deposit)", unit="$")
    b.step("apr", "Annual percentage rate on the deposit", "own_fees / deposit * 365 / days * 100", unit="%")


@template("intermediate", floor=0.5)
def yield_farming_net_roi(b: Builder) -> None:
    """Yield-farming ROI after the reward token's price change and gas costs.

    Source: holding-period return (Bodie, Kane and Marcus, Investments, ch. 5) applied to farm rewards.
    """
    invest = b.money("invest", 2_000, 80_000, step=100)
    apr = b.percent("apr", 12, 90, decimals=1)
    months = b.integer("months", 2, 12, unit="months")
    drop = b.percent("drop", 5, 60, decimals=1)
    b.money("gas", 3, 60, step=0.5)
    n = b.integer("txs", 3, 8, unit="transactions")
    gain = invest * apr / 100 * months / 12 * (1 - drop / 100) - b.values["gas"] * n
    b.require(abs(gain / invest) >= 0.01 and abs(gain) >= 100, "ROI at least 1% and $100 away from zero")
    b.require(invest * apr / 100 * months / 12 * (1 - drop / 100) >= 100, "rewards of at least $100")
    b.ask(
        "A farmer deposits {invest} of stablecoins into a yield farm advertising {apr} APR, paid in the farm's "
        "own reward token. Rewards accrue linearly (no compounding) at the token prices of the deposit date, "
        "and the farmer harvests everything after {months}. By the harvest the reward token's price has "
        "fallen {drop}. Each on-chain action costs {gas} in gas and the farmer makes {txs} (deposit, "
        "harvests, withdrawal). The stablecoin principal is returned in full. What is the farmer's net ROI "
        "on the deposit over the period?"
    )
    b.step("rewards_at_start", "Rewards valued at the deposit-date token price",
           "round(invest * apr / 100 * months / 12, 2)",
           unit="$")
    b.step("rewards_now", "Rewards after the token's price fall", "rewards_at_start * (1 - drop / 100)", unit="$")
    b.step("gas_total", "Total gas paid", "gas * txs", unit="$")
    b.step("net_gain", "Net gain (rewards minus gas)", "rewards_now - gas_total", unit="$")
    b.step("roi", "Net ROI on the deposit", "net_gain / invest * 100", unit="%")


@template("advanced", floor=100)
def impermanent_loss_vs_hold(b: Builder) -> None:
    """Liquidity provision in a 50/50 constant-product pool against simply holding, fees included.

    Source: Uniswap v2 Core whitepaper (2020); impermanent loss 2√r/(1 + r) − 1 (Aigner and Dhaliwal,
    "Uniswap: Impermanent Loss and Risk Profile of a Liquidity Provider", 2021).

    Concepts: constant-product pool value (deposit × √r); value of holding; impermanent loss formula; trading fee
    income.
    """
    b.person("person")
    deposit = b.money("deposit", 10_000, 250_000, step=500)
    p0 = b.money("p0", 1_200, 4_500, step=0.5)
    move = b.rng.choice([-1, 1]) * b.rng.uniform(30, 70)
    p1 = b.derive("p1", p0 * (1 + move / 100), unit="$")
    fees = b.derive("fees", deposit * b.rng.uniform(0.004, 0.07), unit="$")
    r = p1 / p0
    net = deposit * r ** 0.5 + fees - deposit / 2 * (1 + r)
    b.require(abs(net) >= max(0.005 * deposit, 200), "liquidity provision and holding differ by 0.5% and $200")
    b.require(2 * r ** 0.5 / (1 + r) <= 0.99, "an impermanent loss of at least 1%")
    b.ask(
        "{person} deposits {deposit} into an ETH/USDC constant-product pool, half in ETH and half in USDC, "
        "when ETH trades at {p0}. On the day {they} withdraws, ETH trades at {p1} and the position has earned "
        "{fees} in trading fees (paid out in USDC). Compare with simply holding the original ETH and USDC. "
        "Work out the price ratio, the value of the held tokens, the pool position's value before fees, the "
        "impermanent loss in percent, and finally: by how many dollars does providing liquidity, fees "
        "included, beat holding (negative if it falls short)?"
    )
    b.step("ratio", "Price ratio r = new price ÷ entry price", "p1 / p0")
    b.step("hold_value", "Value of the held tokens (the ETH half moves with the price)",
           "round(deposit / 2 * (1 + ratio), 2)", unit="$")
    b.step("pool_value", "Value of the pool position before fees (deposit × √r)", "round(deposit * ratio ** 0.5, 2)",
           unit="$")
    b.step("impermanent_loss", "Impermanent loss, 2√r ÷ (1 + r) − 1", "(2 * ratio ** 0.5 / (1 + ratio) - 1) * 100",
           unit="%")
    b.step("advantage", "Pool position plus fees minus holding", "pool_value + fees - hold_value", unit="$")
