"""Seeded Best-of-N pools for the curve tests: problems whose candidates differ in answer, correctness,
ChainEval and reward, in three clusters (templates ``t0``..``t2``)."""

from __future__ import annotations

import random

from scorers.prm.curves import Pool
from scorers.prm.selectors import Candidate


def random_pools(seed: int, n_pools: int = 12, k: int = 5) -> list[Pool]:
    rng = random.Random(seed)
    pools = []
    for i in range(n_pools):
        cands = []
        for _ in range(k):
            answer = rng.choice(["a", "b", "c", None])
            cands.append(Candidate(answer, answer == "a", round(rng.random(), 2), rng.choice([0.0, 0.5, 1.0, 1.5])))
        pools.append(Pool(f"t{i % 3}", cands))
    return pools
