"""Transaction analysis: EIP-1559 gas costs, percentage plus fixed exchange fees, batched transfers,
cross-chain bridge costs, and rollup (layer-2) fees against layer-1 fees with a bridging cost."""

from finchain_tasks.engine import Builder, template


@template("easy")
def eip1559_gas_cost(b: Builder) -> None:
    """Dollar cost of an Ethereum transaction under EIP-1559 (gas used × (base fee + priority fee)).

    Source: EIP-1559, "Fee market change for ETH 1.0 chain" (2019); 1 ETH = 10⁹ gwei.
    """
    b.integer("gas", 21_000, 350_000, unit="gas")
    b.number("base", 5, 120, decimals=1, unit="gwei")
    b.number("tip", 0.5, 5, decimals=1, unit="gwei")
    b.money("eth", 1_200, 4_800, step=0.5)
    action = b.pick(["a token swap", "an NFT mint", "a lending deposit", "a stablecoin transfer"])
    b.ask(
        f"A wallet submits {action} that consumes {{gas}}. The block's base fee is {{base}} per unit of gas and "
        "the user adds a priority fee (tip) of {tip} per unit. ETH trades at {eth}. What does the transaction "
        "cost in dollars (1 ETH = 1,000,000,000 gwei)?"
    )
    b.step("gas_price", "Price paid per unit of gas (base fee + tip)", "base + tip", unit="gwei")
    b.step("cost", "Transaction cost in dollars (gas × gas price ÷ 10⁹ × ETH price)",
           "gas * gas_price / 1000000000 * eth", unit="$")


@template("easy")
def exchange_fee_percent_plus_fixed(b: Builder) -> None:
    """Effective cost of a trade that pays a percentage fee plus a fixed withdrawal fee.

    Source: fee schedules of centralized exchanges (taker fee plus flat network withdrawal fee).
    """
    b.company("exchange", kind="exchange")
    b.money("amount", 200, 60_000, step=10)
    b.number("fee", 0.1, 1.5, decimals=2, unit="%")
    b.money("withdrawal", 1, 30, step=0.5)
    b.ask(
        "A customer of {exchange} buys {amount} of bitcoin and withdraws it to a private wallet. The exchange "
        "charges a taker fee of {fee} of the trade amount, rounded to the nearest cent (half a cent rounds up), "
        "and a flat withdrawal fee equivalent to {withdrawal}. "
        "What are the total fees, and what percentage of the trade amount do they represent? Give the "
        "percentage."
    )
    b.step("taker_fee", "Taker fee, charged to the cent", "round(amount * fee / 100, 2)", unit="$")
    b.step("total_fees", "Total fees (taker fee + withdrawal fee)", "taker_fee + withdrawal", unit="$")
    b.step("effective", "Total fees as a share of the trade", "total_fees / amount * 100", unit="%")


@template("intermediate")
def batched_transfers_saving(b: Builder) -> None:
    """Gas saved by paying many recipients through one batch transaction instead of one each.

    Source: Ethereum Yellow Paper (Wood), Appendix G: 21,000 intrinsic gas per transaction; EIP-1559 fees.
    """
    b.company("company")
    b.integer("payees", 20, 400, unit="employees")
    b.integer("single", 45_000, 65_000, unit="gas")
    b.integer("overhead", 30_000, 90_000, unit="gas")
    b.integer("per_payee", 22_000, 32_000, unit="gas")
    b.number("gwei", 8, 90, decimals=1, unit="gwei")
    b.money("eth", 1_200, 4_800, step=0.5)
    b.ask(
        "{company} pays {payees} in a stablecoin. Sending each payment as its own transaction uses {single} "
        "each. A batch-payment contract instead uses {overhead} of fixed overhead plus {per_payee} per "
        "recipient, all in one transaction. The all-in gas price is {gwei} and ETH trades at {eth}. How many "
        "dollars does batching save on this payroll?"
    )
    b.step("individual", "Gas for separate transactions", "payees * single", unit="gas")
    b.step("batched", "Gas for the batch transaction", "overhead + payees * per_payee", unit="gas")
    b.step("saved_gas", "Gas saved", "individual - batched", unit="gas")
    b.step("saved", "Dollar saving (gas saved × gas price ÷ 10⁹ × ETH price)",
           "saved_gas * gwei / 1000000000 * eth", unit="$")


@template("intermediate")
def cross_chain_bridge_cost(b: Builder) -> None:
    """All-in cost of moving stablecoins across chains through a bridge.

    Source: bridge fee structure (a percentage liquidity fee plus gas on each chain), e.g. the fee model
    documented for liquidity-network bridges (Hop, Across); cost as a share of the amount sent.
    """
    b.person("person")
    b.money("amount", 1_000, 250_000, step=50)
    b.money("source_gas", 2, 45, step=0.01)
    b.number("bridge_fee", 0.04, 0.5, decimals=2, unit="%")
    b.money("dest_gas", 0.05, 3, step=0.01)
    b.bounds("cost_share", lo=0, hi=100, why="a share of the amount sent")
    b.ask(
        "{person} moves {amount} of USDC from Ethereum to an app chain through a bridge. Approving and sending "
        "on Ethereum costs {source_gas} in gas, the bridge keeps a liquidity fee of {bridge_fee} of the amount "
        "sent (rounded to the nearest cent, half a cent up), and claiming on the destination chain costs "
        "{dest_gas} in gas, which {they} pays separately. "
        "How many USDC arrive, and what is the all-in cost of the transfer as a percentage of the amount sent? "
        "Give the percentage."
    )
    b.step("fee", "Bridge liquidity fee, charged to the cent", "round(amount * bridge_fee / 100, 2)", unit="$")
    b.step("received", "USDC arriving on the destination chain", "amount - fee", unit="$")
    b.step("total_cost", "All-in cost (source gas + bridge fee + destination gas)", "source_gas + fee + dest_gas",
           unit="$")
    b.step("cost_share", "All-in cost as a share of the amount sent", "total_cost / amount * 100", unit="%")


@template("advanced", floor=5)
def rollup_vs_mainnet_payments(b: Builder) -> None:
    """Net saving from moving a series of payments to an optimistic rollup after paying to bridge in.

    Source: EIP-1559 (layer-1 fees); EIP-2028 (16 gas per non-zero calldata byte); the rollup fee model
    of the OP Stack specification (layer-2 execution fee + layer-1 data fee).

    Concepts: layer-1 gas fees; rollup execution fee plus layer-1 calldata fee; bridging cost; break-even over a
    series of payments.
    """
    b.person("person")
    b.integer("payments", 20, 250, unit="payments")
    b.integer("l1_gas", 50_000, 70_000, unit="gas")
    b.number("l1_gwei", 6, 60, decimals=1, unit="gwei")
    b.money("eth", 1_500, 4_500, step=0.5)
    b.integer("l2_gas", 50_000, 70_000, unit="gas")
    b.number("l2_gwei", 0.02, 0.25, decimals=3, unit="gwei")
    b.integer("bytes", 90, 200, unit="bytes")
    b.integer("deposit_gas", 90_000, 180_000, unit="gas")
    v = b.values
    per_l1 = v["l1_gas"] * v["l1_gwei"] * v["eth"] / 1e9
    per_l2 = (v["l2_gas"] * v["l2_gwei"] + v["bytes"] * 16 * v["l1_gwei"]) * v["eth"] / 1e9
    net = v["payments"] * (per_l1 - per_l2) - v["deposit_gas"] * v["l1_gwei"] * v["eth"] / 1e9
    b.require(abs(net) >= 5, "the saving is at least $5 either way")
    b.ask(
        "{person} plans {payments} in USDC. On Ethereum mainnet each payment uses {l1_gas} at a gas price of "
        "{l1_gwei}, with ETH at {eth}. On an optimistic rollup each payment uses {l2_gas} at a layer-2 gas "
        "price of {l2_gwei}, plus a layer-1 data fee for its {bytes} of calldata, charged at 16 gas per byte at "
        "the mainnet gas price. To use the rollup {they} must first bridge funds in with one mainnet "
        "transaction of {deposit_gas}. By how many dollars does the rollup route beat paying on mainnet "
        "(negative if it costs more)? Use 1 ETH = 1,000,000,000 gwei."
    )
    b.step("l1_fee", "Mainnet fee per payment (gas × gas price)", "l1_gas * l1_gwei", unit="gwei")
    b.step("l2_fee", "Rollup fee per payment (execution + 16 gas per byte at the mainnet price)",
           "l2_gas * l2_gwei + bytes * 16 * l1_gwei", unit="gwei")
    b.step("saving", "Saving per payment", "l1_fee - l2_fee", unit="gwei")
    b.step("bridge_in", "Cost of bridging in", "deposit_gas * l1_gwei", unit="gwei")
    b.step("net_gwei", "Net saving over all payments", "payments * saving - bridge_in", unit="gwei")
    b.step("net_saving", "Net saving in dollars (gwei ÷ 10⁹ × ETH price)", "net_gwei / 1000000000 * eth", unit="$")
