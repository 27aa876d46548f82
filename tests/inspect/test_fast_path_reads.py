"""What the fast path records from a reply (issue 31.18, found by mutation testing): each choice's finish
reason and content as litellm's response conversion leaves them, and the cost litellm's price table gives
(cached prompt tokens at the cache price; None, never 0, for a model litellm does not price). The replies
are built the way the ``openai`` SDK builds them from the wire (``construct_type``, no validation)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

litellm = pytest.importorskip("litellm")
openai = pytest.importorskip("openai")

from openai._models import construct_type  # noqa: E402
from openai.types.chat import ChatCompletion  # noqa: E402
from openai.types.completion_usage import CompletionUsage  # noqa: E402

from finchain_tasks.inspect.openai_fast import Pricing, as_litellm_reads  # noqa: E402

TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def _reply(**choice) -> ChatCompletion:
    message = choice.pop("message", {"role": "assistant", "content": "x"})
    return construct_type(type_=ChatCompletion, value={
        "id": "r", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": message, **choice}]})


@pytest.mark.parametrize(("choice", "reason"), [
    ({"finish_reason": None}, "stop"),                                   # missing: stop
    ({"finish_reason": None, "finish_details": "max_tokens"}, "length"),  # the older field, mapped
    ({"finish_reason": "eos"}, "stop"),
    ({"finish_reason": None, "message": {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}},
     "tool_calls"),                                                      # missing with tool calls
    ({"finish_reason": "length", "message": {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}},
     "length"),                                                          # a reason sent stays
    ({"finish_reason": None, "message": None}, "stop"),                  # no message at all
])
def test_the_finish_reason_reads_as_litellm_reads_it(choice, reason):
    assert as_litellm_reads(_reply(**choice)).choices[0].finish_reason == reason


def test_think_blocks_leave_the_content_and_replies_without_choices_pass():
    reply = as_litellm_reads(_reply(finish_reason="stop",
                                    message={"role": "assistant", "content": "<think>hm</think>42"}))
    assert reply.choices[0].message.content == "42"
    plain = SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="<think>a</think>b",
                                                                             tool_calls=None),
                                                     finish_reason=None)])
    assert as_litellm_reads(plain).choices[0].message.content == "b"   # objects without model_extra
    bare = SimpleNamespace()
    assert as_litellm_reads(bare) is bare


def _usage(prompt, completion, cached=None):
    details = {"prompt_tokens_details": {"cached_tokens": cached}} if cached is not None else {}
    return CompletionUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion,
                           **details)


PRICE = litellm.model_cost["gpt-4o-mini"]


def test_a_priced_model_costs_its_tokens_and_cached_ones_at_the_cache_price():
    pricing = Pricing(litellm, "gpt-4o-mini")
    assert pricing.priced is True
    full = 1000 * PRICE["input_cost_per_token"] + 10 * PRICE["output_cost_per_token"]
    assert pricing.cost(_usage(1000, 10)) == pytest.approx(full, rel=1e-12)
    cached = 200 * PRICE["input_cost_per_token"] + 800 * PRICE["cache_read_input_token_cost"] \
        + 10 * PRICE["output_cost_per_token"]
    assert pricing.cost(_usage(1000, 10, cached=800)) == pytest.approx(cached, rel=1e-12)
    assert pricing.cost(_usage(1000, 10, cached=0)) == pytest.approx(full, rel=1e-12)
    # a server that leaves a count out: that side costs nothing
    assert pricing.cost(SimpleNamespace(prompt_tokens=None, completion_tokens=10)) == \
        pytest.approx(10 * PRICE["output_cost_per_token"], rel=1e-12)
    assert pricing.cost(SimpleNamespace(prompt_tokens=10, completion_tokens=None)) == \
        pytest.approx(10 * PRICE["input_cost_per_token"], rel=1e-12)
    assert pricing.cost(None) is None


def test_a_model_litellm_does_not_price_costs_none_and_its_price_is_never_asked():
    asked = []

    class NoPrices:
        """litellm's surface as the fast path uses it, for a model absent from the table."""

        def get_model_info(self, model):
            raise ValueError(f"unknown model {model}")

        def cost_per_token(self, **kwargs):
            asked.append(kwargs)
            return 1.0, 1.0

    pricing = Pricing(NoPrices(), "acme/unknown")
    assert pricing.priced is False
    assert pricing.cost(_usage(10, 10)) is None and asked == []
    assert Pricing(litellm, "acme/no-such-model").cost(_usage(10, 10)) is None
