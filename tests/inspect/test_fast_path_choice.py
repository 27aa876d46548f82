"""Why a model takes its path, in the words the run records (issue 31.18, found by mutation testing), and how
a nested model id (``openai/org/model``) is split: the provider is the first segment, the rest is the model."""

from __future__ import annotations

import pytest

from finchain_tasks.inspect import openai_fast

BASE = "http://127.0.0.1:1/v1"


@pytest.mark.parametrize("model, base, args, forced, expected", [
    ("openai/fake", BASE, {}, None, ("openai", "OpenAI-compatible endpoint: openai client")),
    ("openai/fake", None, {}, None, ("litellm", "no base URL: litellm resolves OpenAI's endpoint")),
    ("openai/fake", BASE, {"drop_params": True, "api_version": "1"}, None,
     ("litellm", "model args api_version, drop_params are litellm's")),
    ("openai/fake", BASE, {}, "litellm", ("litellm", "forced by request_path=litellm")),
    ("openai/org/fake", BASE, {}, None, ("openai", "OpenAI-compatible endpoint: openai client")),
    ("hosted_vllm/org/fake", BASE, {}, None, ("litellm", "provider 'hosted_vllm' is served by litellm")),
])
def test_the_path_and_its_reason(model, base, args, forced, expected, monkeypatch):
    monkeypatch.delenv(openai_fast.PATH_ENV, raising=False)
    assert openai_fast.choose_path(model, base, args, request_path=forced) == expected


def test_a_nested_model_id_keeps_all_but_its_provider_in_the_body():
    assert openai_fast.body_of({"model": "openai/org/fake", "messages": []}) == {"model": "org/fake",
                                                                                 "messages": []}


def test_a_client_keeps_its_model_and_its_timeout_or_the_default():
    client = openai_fast.FastClient("openai/fake", BASE, None, timeout=5.0)
    assert (client.model, client.base_url, client.timeout) == ("openai/fake", BASE, 5.0)
    assert openai_fast.FastClient("openai/fake", BASE, None).timeout == openai_fast.DEFAULT_TIMEOUT
