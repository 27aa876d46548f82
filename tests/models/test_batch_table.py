"""The batch table: which registry models may be batched, under which Inspect provider, at what price."""

from finchain_tasks.models.batch import batch_api, inspect_batch_model, resolve_batch_price
from finchain_tasks.models.registry import load_registry, resolve_price


def test_batch_price_is_below_list_price_and_self_hosted_models_have_none():
    models = load_registry().models
    for spec in models.values():
        batch, listed = resolve_batch_price(spec), resolve_price(spec)
        if batch is None:
            continue
        assert listed is not None, spec.name
        assert 0 < batch.input < listed.input and 0 < batch.output < listed.output, spec.name
    assert inspect_batch_model(models["gemini-2.5-pro"]) == "google/gemini-2.5-pro"
    assert inspect_batch_model(models["grok-4-fast"]) == "grok/grok-4-fast-reasoning"
    # the local model speaks OpenAI's protocol at a local address: no batch API behind it
    assert batch_api(models["local-gemma3-270m"]) is None
    assert batch_api(models["fin-r1"]) is None
