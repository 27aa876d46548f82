"""``--batch`` rules that test_batch_mode.py leaves open (issue 39, found by the literal pass): Inspect's batch
poll and send delay default to 15 s, what the session records per model, what a batch's journal file holds, and
a result line that carries an error beside a 200 response is a failed item. No HTTP, no batch sent."""

from __future__ import annotations

import json

import pytest

from finchain_tasks.models.registry import load_registry
from finchain_tasks.runs import batch_mode
from finchain_tasks.runs.batch_mode import JOURNAL, Journal, journaled
from finchain_tasks.runs.engine import Options


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    path = tmp_path_factory.mktemp("reg") / "registry.yaml"
    path.write_text("\n".join([
        "version: 1", "models:",
        "  - {name: gpt, display_name: gpt, litellm_model: openai/gpt-4.1, category: general, open_weights: false, "
        "api_key_env: SOME_BATCH_KEY}",
        "  - {name: self, display_name: self, litellm_model: openai/my-model, category: general, open_weights: false, "
        "api_key_env: SOME_BATCH_KEY, api_base: 'http://127.0.0.1:1/v1'}", ""]), encoding="utf-8")
    return load_registry(path)


@pytest.mark.parametrize("tick, expected", [(None, 15.0), (0.1, 0.1), (60.0, 60.0)])
def test_a_batch_is_polled_and_sent_every_15_s_unless_told_otherwise(registry, monkeypatch, tick, expected):
    monkeypatch.setenv("SOME_BATCH_KEY", "sk-test-not-a-secret")
    model = batch_mode.build_model(registry.model("gpt"), Options(batch=True, batch_tick=tick), None)
    assert (model.config.batch.tick, model.config.batch.send_delay) == (expected, expected)


def test_the_session_records_each_models_route_its_reason_and_its_batch_price(registry):
    record = batch_mode.session_record([registry.model("gpt"), registry.model("self")])
    assert sorted(record) == ["gpt", "self"]
    assert all(sorted(entry) == ["inspect_model", "price", "reason"] for entry in record.values())
    assert record["gpt"]["inspect_model"] == "openai/gpt-4.1" and record["gpt"]["reason"].startswith("batch API")
    assert record["self"] == {"inspect_model": None, "price": None,
                              "reason": "no batch API for this provider (or served at its own base URL)"}


def test_a_batchs_journal_file_holds_its_id_provider_creation_time_and_requests(tmp_path):
    Journal(tmp_path / JOURNAL).record("b1", "OpenAIBatcher", [("c1", "k1")])
    (path,) = (tmp_path / JOURNAL).iterdir()
    saved = json.loads(path.read_text())
    assert sorted(saved) == ["created", "id", "provider", "requests"]
    assert (saved["id"], saved["provider"], saved["requests"]) == ("b1", "OpenAIBatcher",
                                                                   {"c1": {"key": "k1", "state": "sent"}})


@pytest.fixture(scope="module")
def openai_batcher():
    from inspect_ai.model import BatchConfig
    from inspect_ai.model._providers._openai_batch import OpenAIBatcher
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

    client = AsyncOpenAI(api_key="sk-unused", base_url="http://127.0.0.1:9/v1")
    return OpenAIBatcher(client, BatchConfig(), {}, ChatCompletion)


@pytest.mark.parametrize("error, status", [
    ({"code": "server_error", "message": "overloaded"}, 500),  # a 200 is no status for a failed item: 500
    ({"code": 429, "message": "slow down"}, 429),              # the error's own status where it gives one
])
def test_an_error_beside_a_200_response_is_a_failed_item_with_the_errors_status(tmp_path, openai_batcher, error,
                                                                                status):
    import openai

    line = {"custom_id": "c", "response": {"status_code": 200, "body": None}, "error": error}
    with journaled(tmp_path):
        _, result = openai_batcher._parse_jsonl_line(line)
    assert isinstance(result, openai.APIStatusError) and result.status_code == status
