"""Hand checks for crypto_finance/whale_detection, recomputed from the question's numbers."""

import re

import pytest

from finchain_tasks.engine import get

T = "crypto_finance/whale_detection/"
SEEDS = [0, 21, 600, 31337]


def nums(text: str) -> list[float]:
    """Every number in the question, in order (thousands separators removed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("seed", SEEDS + list(range(1, 9)))
def test_whale_label_by_tokens_needed(seed):
    p = get(T + "wallet_share_threshold").generate(seed)
    supply_m, threshold, holding = nums(p.question)[:3]
    needed = supply_m * 1e6 * threshold / 100  # compare token counts instead of shares
    assert p.answer == ("whale" if holding >= needed else "not a whale")


@pytest.mark.parametrize("seed", SEEDS)
def test_transfer_share_of_volume(seed):
    p = get(T + "large_transfer_vs_volume").generate(seed)
    coins, price, volume = nums(p.question.replace("24 hours", ""))[:3]
    assert p.answer == pytest.approx(coins / (volume / price) * 100, rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS + list(range(1, 9)))
def test_split_transfers_compared_in_eth(seed):
    p = get(T + "split_transfers_threshold").generate(seed)
    threshold, *rest = nums(p.question.replace("24 hours", ""))
    transfers, price = rest[:4], rest[4]
    assert p.answer == ("review" if sum(transfers) >= threshold / price else "no review")


@pytest.mark.parametrize("seed", SEEDS)
def test_netflow_per_exchange(seed):
    p = get(T + "exchange_netflow").generate(seed)
    values = nums(p.question)
    pairs, price = [values[0:2], values[2:4], values[4:6]], values[6]
    assert p.answer == pytest.approx(sum((i - o) * price for i, o in pairs), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS + [7, 8])
def test_cluster_whale_signal_from_end_balances(seed):
    p = get(T + "cluster_whale_signal").generate(seed)
    a1, a2, a3, supply_m, w1, p1, w2, p2, d1, p3, line = nums(p.question)[:11]
    assert line == 1
    end = a1 + a2 + a3 + w1 + w2 - d1
    whale = end >= supply_m * 1e6 / 100
    label = "accumulating whale" if w1 * p1 + w2 * p2 > d1 * p3 else "distributing whale"
    expected = label if whale else "not a whale"
    assert p.answer == expected


def test_cluster_whale_signal_is_balanced():
    answers = [get(T + "cluster_whale_signal").generate(s).answer for s in range(120)]
    assert set(answers) == {"accumulating whale", "distributing whale", "not a whale"}
    assert max(map(answers.count, set(answers))) < 0.5 * len(answers)
