"""The FinChain taxonomy (12 domains, 58 topics), read once from package data."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml


@dataclass(frozen=True, slots=True)
class Topic:
    id: str
    name: str
    scope: str
    domain: str


@dataclass(frozen=True, slots=True)
class Domain:
    id: str
    name: str
    topics: tuple[Topic, ...]


@lru_cache(maxsize=1)
def domains() -> dict[str, Domain]:
    """Domain id -> Domain, in the taxonomy file's order."""
    raw = yaml.safe_load(resources.files("finchain_tasks.data").joinpath("taxonomy.yaml").read_text("utf-8"))
    result = {}
    for dom_id, dom in raw.items():
        topics = tuple(
            Topic(tid, t["name"], t.get("scope", ""), dom_id) for tid, t in dom["topics"].items()
        )
        result[dom_id] = Domain(dom_id, dom["name"], topics)
    return result


def topics() -> dict[tuple[str, str], Topic]:
    """(domain id, topic id) -> Topic."""
    return {(d.id, t.id): t for d in domains().values() for t in d.topics}
