"""Which registry models can go through a provider's batch API, under which Inspect provider, at what price.

One table for the facts that `finchain bench --plan` (the bill) and `finchain bench --batch` (the sending) both
need, so the plan never promises a discount the batch path does not take. Batch mode belongs to Inspect's own
providers (``GenerateConfig.batch``: ``openai/``, ``anthropic/``, ``google/``, ``together/``, ``grok/``); our
``litellm/`` provider has none, so a batched model is addressed by its Inspect provider name instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from finchain_tasks.models.registry import ModelSpec, Price, resolve_price


@dataclass(frozen=True)
class BatchApi:
    """A provider's batch API as Inspect reaches it."""

    inspect_provider: str  # the prefix Inspect's own provider is registered under
    price_factor: float  # batch price / list price, applied where litellm's map has no batch price
    source: str  # where the factor comes from (shown beside the price)


# litellm provider prefix -> the provider's batch API (list prices halved by every one of them, late 2026)
BATCH_APIS: dict[str, BatchApi] = {
    "openai": BatchApi("openai", 0.5, "OpenAI Batch API: 50% of the list price"),
    "anthropic": BatchApi("anthropic", 0.5, "Anthropic Message Batches: 50% of the list price"),
    "gemini": BatchApi("google", 0.5, "Gemini Batch Mode: 50% of the list price"),
    "together_ai": BatchApi("together", 0.5, "Together Batch API: 50% of the list price"),
    "xai": BatchApi("grok", 0.5, "xAI Batch API: 50% of the list price"),
}


def batch_api(spec: ModelSpec) -> Optional[BatchApi]:
    """The batch API of the model's provider, or None where the provider has none (others), or where the model
    is served elsewhere under the provider's protocol (an ``api_base``: the local model, a self-hosted server)."""
    if spec.api_base or spec.api_base_env or spec.local is not None:
        return None
    provider = spec.litellm_model.partition("/")[0]
    return BATCH_APIS.get(provider)


def inspect_batch_model(spec: ModelSpec) -> Optional[str]:
    """The model's name under Inspect's own provider (``openai/gpt-4.1``), which is where batch mode lives."""
    api = batch_api(spec)
    if api is None:
        return None
    return f"{api.inspect_provider}/{spec.litellm_model.partition('/')[2]}"


def resolve_batch_price(spec: ModelSpec) -> Optional[Price]:
    """USD per 1M tokens through the batch API: litellm's own batch price where its map has one, else the list
    price times the provider's factor; None where there is no batch API or no list price (unknown stays unknown)."""
    api = batch_api(spec)
    if api is None:
        return None
    mapped = _litellm_batch_price(spec)
    if mapped is not None:
        return mapped
    price = resolve_price(spec)
    if price is None:
        return None
    return Price(price.input * api.price_factor, price.output * api.price_factor, source=api.source)


def _litellm_batch_price(spec: ModelSpec) -> Optional[Price]:
    try:
        import litellm
    except ImportError:  # pragma: no cover - litellm is an optional extra
        return None
    provider, _, bare = spec.litellm_model.partition("/")
    for key in (spec.litellm_model, bare):
        entry = litellm.model_cost.get(key)
        if not entry or (key != spec.litellm_model and entry.get("litellm_provider") != provider):
            continue
        cin, cout = entry.get("input_cost_per_token_batches"), entry.get("output_cost_per_token_batches")
        if cin and cout and cin > 0 and cout > 0:
            return Price(cin * 1e6, cout * 1e6, source="litellm's batch price map")
    return None
