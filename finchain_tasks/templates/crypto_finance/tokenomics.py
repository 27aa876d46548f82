"""Tokenomics: market capitalization and fully diluted valuation, a fee-funded buyback and burn,
staking inflation and dilution, halving emission schedules, and vesting unlocks against a staking lock-up and
their effect on the price."""

from finchain_tasks.engine import Builder, template
from finchain_tasks.templates.crypto_finance import price_for_cap


@template("easy")
def fdv_overhang(b: Builder) -> None:
    """Market cap, fully diluted valuation and the value of tokens not yet circulating.

    Source: CoinMarketCap methodology (market cap = price × circulating supply; fully diluted valuation =
    price × maximum supply).
    """
    mx = b.number("max_supply", 100, 10_000, decimals=0, unit="million tokens")
    price_for_cap(b, "price", mx * 1e6, 3e8, 4e10)
    b.number("circulating", mx * 0.1, mx * 0.85, decimals=1, unit="million tokens")
    b.ask(
        "A governance token trades at {price}. Its maximum supply is {max_supply}, of which {circulating} are "
        "circulating; the rest will be released over the coming years. What are the market capitalization and "
        "the fully diluted valuation (FDV), and how much of the FDV sits in tokens that are not yet "
        "circulating? Give that last amount."
    )
    b.step("market_cap", "Market capitalization (price × circulating supply)", "price * circulating * 1000000",
           unit="$")
    b.step("fdv", "Fully diluted valuation (price × maximum supply)", "price * max_supply * 1000000", unit="$")
    b.step("overhang", "Value of tokens not yet circulating", "fdv - market_cap", unit="$")


@template("easy", floor=0.01)
def buyback_and_burn(b: Builder) -> None:
    """Share of the circulating supply that a quarter's fee-funded buyback-and-burn removes.

    Source: buyback-and-burn programs funded by protocol fees (e.g. BNB's quarterly auto-burn, MakerDAO's
    surplus buffer buybacks); burned tokens leave the circulating supply (CoinMarketCap methodology).
    """
    supply = b.number("supply", 50, 900, decimals=1, unit="million tokens")
    price = price_for_cap(b, "price", supply * 1e6, 1e8, 2e10)
    cap = supply * 1e6 * price
    b.derive("revenue", round(cap * b.rng.uniform(0.002, 0.02), -3), unit="$")
    b.percent("share", 20, 100, decimals=0)
    protocol = b.pick(["A decentralized exchange", "A lending protocol", "A derivatives protocol"])
    b.ask(
        f"{protocol} earned {{revenue}} in fees last quarter and spends {{share}} of them buying its governance "
        "token on the market, at an average price of {price}, and burning what it buys. The token has {supply} "
        "in circulation before the burn. What percentage of the circulating supply does the quarter's burn "
        "remove?"
    )
    b.bounds("reduction", lo=0, hi=100, why="a burn removes part of the supply")
    b.step("spent", "Fees spent on the buyback", "revenue * share / 100", unit="$")
    b.step("burned", "Tokens bought and burned (amount ÷ price)", "spent / price", unit="tokens")
    b.step("reduction", "Share of circulating supply burned", "burned / (supply * 1000000) * 100", unit="%")


@template("intermediate")
def staking_real_yield(b: Builder) -> None:
    """Nominal staking yield from token inflation, and the yield net of dilution.

    Source: staking yield = issuance ÷ staked supply; real (dilution-adjusted) yield (1 + y)/(1 + i) − 1,
    the Fisher relation applied to supply inflation (Cong, He and Tang, "Staking, Token Pricing, and
    Crypto Carry", 2022).
    """
    b.number("supply", 200, 2_000, decimals=1, unit="million tokens")
    b.percent("inflation", 2, 12, decimals=2)
    b.percent("staked", 25, 75, decimals=1)
    b.ask(
        "A proof-of-stake network has {supply} outstanding and mints new tokens at {inflation} of supply per "
        "year, all paid to stakers in proportion to their stake. {staked} of the supply is staked, and this "
        "share stays constant through the year. What nominal yield do stakers earn, and what is their yield "
        "after allowing for the dilution of the total supply (their real growth in share of the network)? "
        "Give the dilution-adjusted yield."
    )
    b.step("minted", "Tokens minted in the year", "supply * 1000000 * inflation / 100", unit="tokens")
    b.step("staked_tokens", "Tokens staked", "supply * 1000000 * staked / 100", unit="tokens")
    b.step("nominal", "Nominal staking yield (minted ÷ staked)", "minted / staked_tokens * 100", unit="%")
    b.step("real", "Dilution-adjusted yield, (1 + inflation ÷ staked share)/(1 + inflation) − 1",
           "((1 + inflation / staked) / (1 + inflation / 100) - 1) * 100", unit="%")


@template("intermediate")
def halving_emission_supply(b: Builder) -> None:
    """Circulating supply after a block-reward halving.

    Source: Nakamoto, "Bitcoin: A Peer-to-Peer Electronic Cash System" (2008), sec. 6, and the halving
    schedule of the reference client: the block subsidy halves at fixed intervals.
    """
    supply = b.number("supply", 10, 80, decimals=2, unit="million coins")
    blocks = b.integer("blocks", 144, 1_440, unit="blocks")
    # joint draw: a mature proof-of-work coin issues 1-9% of its supply a year, so the reward follows the supply
    # (independent ranges let supply more than double within six years in 58% of draws)
    issuance = supply * 1e6 / (blocks * 365)
    b.number("reward", max(0.05, 0.01 * issuance), 0.09 * issuance, decimals=2, unit="coins")
    h = b.number("until_halving", 0.5, 3, decimals=1, unit="years")
    b.number("horizon", h + 0.5, h + 3, decimals=1, unit="years")
    b.bounds("new_supply", hi="supply * 1000000 * 1.5", why="issuance of a few percent a year, halving on schedule")
    b.ask(
        "A proof-of-work coin has {supply} in circulation. Miners receive a block reward of {reward} and the "
        "chain produces {blocks} a day (use a 365-day year). The next halving, which cuts the reward in half, "
        "happens in {until_halving}, and the one after it comes four years later. Assuming no coins are lost "
        "or burned, what will the circulating supply be "
        "{horizon} from now?"
    )
    b.step("per_year", "Blocks per year", "blocks * 365", unit="blocks")
    b.step("before", "Coins mined before the halving", "reward * per_year * until_halving", unit="coins")
    b.step("after", "Coins mined after the halving (half the reward)",
           "reward / 2 * per_year * (horizon - until_halving)", unit="coins")
    b.step("new_supply", "Circulating supply at the horizon", "supply * 1000000 + before + after", unit="coins")


@template("advanced", floor=1)
def vesting_unlock_dilution(b: Builder) -> None:
    """Tradable supply after a cliff-and-linear vesting unlock, staking emissions and a staking lock-up, and the
    price change that keeps the market value of the tradable supply unchanged.

    Source: cliff-and-linear vesting as used in token warrants and SAFTs (Cooley, "Token Vesting", practice
    note); market cap = price × circulating supply (CoinMarketCap methodology), where tokens locked in staking
    are not circulating while the lock lasts; holding the float's dollar value fixed, the price moves by
    old tradable supply ÷ new tradable supply − 1, so a lock-up supports the price as unlocks dilute it.

    Concepts: cliff-and-linear vesting; staking emissions; staking lock-up removing tokens from circulation;
    net change in tradable supply; price change that keeps the tradable market value.
    """
    circ = b.number("circ", 100, 900, decimals=1, unit="million tokens")
    b.number("team", circ * 0.2, circ * 0.8, decimals=1, unit="million tokens")
    b.percent("cliff_share", 10, 30, decimals=0)
    cliff = b.integer("cliff", 6, 12, unit="months")
    vest = b.integer("vest", 18, 36, unit="months")
    months = b.integer("months", cliff + 1, cliff + vest - 1, unit="months")
    b.percent("locked_share", 8, 40, decimals=0)
    b.percent("emission", 3, 10, decimals=1)
    v = b.values
    added = (v["team"] * (v["cliff_share"] / 100 + (1 - v["cliff_share"] / 100) * (months - cliff) / vest)
             + circ * v["emission"] / 100 * months / 12)
    tradable = circ + added - circ * v["locked_share"] / 100
    b.require(abs(circ / tradable - 1) > 0.015, "a price change of more than 1.5% either way")
    b.ask(
        "A token has {circ} circulating. The team holds {team}, locked under a vesting plan: "
        "{cliff_share} of the team tokens unlock at the cliff, {cliff} after today, and the remainder unlocks "
        "in equal monthly amounts over the {vest} that follow the cliff. Separately, a staking program opens "
        "today: holders lock {locked_share} of today's circulating supply in it, and locked tokens cannot be "
        "sold for longer than the period considered here. Its rewards add new tokens at {emission} of today's "
        "circulating supply per year, accruing evenly month by month and paid out unlocked. Counting as tradable "
        "every token that is unlocked and not staked, by what percentage will the tradable supply have changed "
        "{months} from today, and by what percentage must the price change over that time for the market value "
        "of the tradable supply to stay at its current level? Give the percentage change of the price, negative "
        "for a fall."
    )
    b.step("cliff_tokens", "Tokens unlocked at the cliff", "team * 1000000 * cliff_share / 100", unit="tokens")
    b.step("linear_tokens", "Tokens vested monthly since the cliff",
           "team * 1000000 * (1 - cliff_share / 100) * (months - cliff) / vest", unit="tokens")
    b.step("emitted", "Staking rewards over the period", "circ * 1000000 * emission / 100 * months / 12",
           unit="tokens")
    b.step("staked", "Tokens locked in staking, out of circulation", "circ * 1000000 * locked_share / 100",
           unit="tokens")
    b.step("tradable_supply", "Tradable supply at that date: today's + unlocked + rewards − staked",
           "circ * 1000000 + cliff_tokens + linear_tokens + emitted - staked", unit="tokens")
    b.step("supply_change", "Change in tradable supply",
           "(tradable_supply / (circ * 1000000) - 1) * 100", unit="%")
    b.step("price_change", "Price change that keeps the tradable market value (old supply ÷ new supply − 1)",
           "(circ * 1000000 / tradable_supply - 1) * 100", unit="%")
