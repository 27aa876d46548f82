"""Representative limits: one seeded order of FinChain problems in which every prefix is stratified.

Why an order and not a sampler: both hosts already have a ``--limit N`` that takes the first N
problems of a task's dataset. Template order made ``--limit 50`` all compound interest; ordering the
dataset so that any prefix is spread over domain × level × template makes each host's own ``--limit``
a representative sample, identical for every model that runs the same task (so their samples stay
paired), with nothing to pass around.

The order is a nested round-robin: over domains, then within each domain over its levels, then within
each (domain, level) over its templates, then over the template's seeds in the given order. The order
of the children of every node is a shuffle seeded by ``seed`` and the node's path, so the order inside a
(domain, level) is the same whether it is computed for the whole benchmark or for that leaf alone
(lm-eval's leaves are domain × level): the first N problems overall restricted to a leaf are a prefix of
that leaf's own order. A prefix of N ≥ number of domains covers every domain; within a domain, levels
and templates take turns.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import zip_longest
from typing import Any, TypeVar

T = TypeVar("T")
Stratum = tuple[str, str, str]
DEFAULT_SEED = 0
METHOD = "stratified: seeded round-robin over domain, then level, then template (seeds in order)"
"""How a limited run chooses its problems, as recorded in run metadata."""

_GAP = object()


def stratified_order(items: Sequence[T], key: Callable[[T], Stratum], seed: int = DEFAULT_SEED) -> list[T]:
    """``items`` reordered so that every prefix is spread over the strata ``key(item) = (domain, level, template)``.

    Items of one template keep their given order (their seeds). Deterministic for a given ``seed``.
    """
    tree: dict[str, Any] = {}
    for item in items:
        domain, level, template = (str(part) for part in key(item))
        tree.setdefault(domain, {}).setdefault(level, {}).setdefault(template, []).append(item)
    return _order(tree, seed, ())


def _order(node: Any, seed: int, path: tuple[str, ...]) -> list[Any]:
    """A node's items: its children's orders, interleaved in a seeded order of the children."""
    if isinstance(node, list):
        return node
    children = sorted(node)
    random.Random(f"{seed}/{'/'.join(path)}").shuffle(children)  # str seeds are hashed stably (sha512)
    return round_robin([_order(node[c], seed, (*path, c)) for c in children])


def round_robin(lists: Sequence[Sequence[T]]) -> list[T]:
    """First element of each list, then the second of each, ...; a list that runs out is skipped."""
    return [x for row in zip_longest(*lists, fillvalue=_GAP) for x in row if x is not _GAP]


def problem_stratum(domain: str, level: str, template_id: str) -> Stratum:
    """The stratum of a problem: its domain, level and template id (``domain/topic/name``)."""
    return (domain, level, template_id)


def template_id_of(problem_id: str) -> str:
    """``finchain/<domain>/<topic>/<template>/<seed>`` -> ``<domain>/<topic>/<template>``."""
    parts = str(problem_id).split("/")
    return "/".join(parts[1:-1]) if len(parts) >= 3 else str(problem_id)


def record(seed: int, limit: int | None = None) -> dict[str, Any]:
    """What a run records about its sample: the method, its seed and the limit applied to the ordered problems."""
    return {"method": METHOD, "seed": seed, "limit": limit}


def leaf_counts(order: Sequence[T], leaf: Callable[[T], str], limit: int) -> dict[str, int]:
    """How many of the first ``limit`` items of ``order`` fall in each leaf (for hosts that limit per leaf)."""
    counts: dict[str, int] = {}
    for item in order[:limit]:
        name = leaf(item)
        counts[name] = counts.get(name, 0) + 1
    return counts
