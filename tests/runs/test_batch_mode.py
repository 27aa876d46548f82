"""``runs/batch_mode.py`` without HTTP: which models go by batch, the journal, the patches on Inspect's batcher
(a resumed batch is collected by id and never created again, its early results wait for their requests), the
OpenAI result lines of failed items, and the one-line error of a summary for Inspect's ModelGenerateError."""

import json

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from finchain_tasks.models.registry import load_registry
from finchain_tasks.runs import batch_mode
from finchain_tasks.runs.batch_mode import JOURNAL, Journal, journaled, request_key, route
from finchain_tasks.runs.summary import _first_line


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    path = tmp_path_factory.mktemp("reg") / "registry.yaml"
    rows = [("gpt", "openai/gpt-4.1", ""), ("claude", "anthropic/claude-sonnet-4-5", ""),
            ("gem", "gemini/gemini-2.5-pro", ""), ("ds", "deepseek/deepseek-chat", ""),
            ("self", "openai/my-model", ", api_base: 'http://127.0.0.1:1/v1'"),
            ("dropper", "openai/gpt-4.1-mini", ", generation: {drop_params: true}")]
    lines = ["version: 1", "models:"] + [
        f"  - {{name: {n}, display_name: {n}, litellm_model: {m}, category: general, open_weights: false, "
        f"api_key_env: SOME_KEY{extra}}}" for n, m, extra in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_registry(path)


def test_only_models_of_a_batch_api_provider_without_own_base_url_or_litellm_extras_go_by_batch(registry):
    got = {name: route(spec)[0] for name, spec in registry.models.items()
           if name in ("gpt", "claude", "gem", "ds", "self", "dropper")}
    assert got == {"gpt": "openai/gpt-4.1", "claude": "anthropic/claude-sonnet-4-5", "gem": "google/gemini-2.5-pro",
                   "ds": None, "self": None, "dropper": None}
    assert "drop_params" in route(registry.models["dropper"])[1]


def test_two_entries_batched_as_one_inspect_model_with_the_same_settings_are_refused(registry):
    gpt = registry.models["gpt"]
    with pytest.raises(ValueError, match="both openai/gpt-4.1"):
        batch_mode.check_distinct([gpt, gpt])


bodies = st.dictionaries(st.sampled_from(["model", "messages", "max_tokens", "temperature"]),
                         st.one_of(st.text(), st.integers(), st.floats(allow_nan=False)), min_size=1)


@given(bodies, st.text(max_size=20))
def test_a_request_key_ignores_the_per_call_headers_and_key_order_but_not_the_body(body, request_id):
    with_headers = {**dict(reversed(list(body.items()))), "extra_headers": {"x-irid": request_id}}
    assert request_key("OpenAIBatcher", with_headers) == request_key("OpenAIBatcher", body)
    assert request_key("OpenAIBatcher", {**body, "seed": 1}) != request_key("OpenAIBatcher", body)
    assert request_key("AnthropicBatcher", body) != request_key("OpenAIBatcher", body)


def test_a_batch_id_with_a_slash_is_kept_under_a_file_name_of_its_own(tmp_path):
    Journal(tmp_path / JOURNAL).record("batches/abc/../x", "GoogleBatcher", [("c", "k")])  # Gemini ids hold "/"
    assert [p.parent for p in (tmp_path / JOURNAL).iterdir()] == [tmp_path / JOURNAL]
    assert Journal(tmp_path / JOURNAL).claim("k") == ("batches/abc/../x", "c")


def test_the_journal_survives_a_reload_claims_in_order_and_never_hands_out_a_failed_item(tmp_path):
    journal = Journal(tmp_path / JOURNAL)
    journal.record("b1", "P", [("c1", "k"), ("c2", "k"), ("c3", "other")])
    journal.record("b2", "P", [("c4", "k")])
    journal.mark("b1", {"c1": "failed", "c3": "answered"})
    files = sorted((tmp_path / JOURNAL).iterdir())
    assert len(files) == 2 and not [f for f in files if f.suffix != ".json"]  # one per batch, written then renamed
    again = Journal(tmp_path / JOURNAL)
    assert [again.claim("k"), again.claim("k"), again.claim("k")] == [("b1", "c2"), ("b2", "c4"), None]
    assert again.claim("other") == ("b1", "c3")  # answered, not yet scored maybe: collected again
    assert again.counts() == {"batches": 2, "sent": 2, "answered": 1, "failed": 1}


@pytest.mark.parametrize("text", [
    "{not json", "[]", json.dumps({"id": "b1", "requests": {"c": {}}}), "\ud800",
    json.dumps({"id": "b<script>", "requests": None}),
    # issue 40.3: wrong-typed fields and deep nesting were tracebacks (TypeError, RecursionError)
    json.dumps({"id": "b1", "created": "x", "requests": {"c": {"key": "k", "state": "sent"}}}),
    json.dumps({"id": "b1", "requests": [["c", {"key": "k", "state": "sent"}]]}),
    json.dumps({"id": "b1", "requests": {"c": {"key": ["k"], "state": "sent"}}}),
    json.dumps({"id": "b1", "requests": {"c": ["key", "state"]}}),
    json.dumps({"id": "b1", "requests": {"c": {"key": "k", "state": 5}}}),
    json.dumps({"id": 7, "requests": {}}),
    "[" * 100_000 + "]" * 100_000,
])
def test_a_damaged_batch_record_is_one_clear_line_and_is_left_as_it_was(tmp_path, text):
    Journal(tmp_path / JOURNAL).record("good", "P", [("c", "k")])
    bad = tmp_path / JOURNAL / "bad.json"
    bad.write_text(text, encoding="utf-8", errors="surrogatepass")
    with pytest.raises(ValueError, match="is not a batch record") as info:
        with journaled(tmp_path):
            pass
    assert "\n" not in str(info.value) and "bad.json" in str(info.value)
    assert bad.read_text(encoding="utf-8", errors="surrogatepass") == text


# ------------------------------------------------------------------------------------------ a batcher in memory
class Provider:
    """A batch API in memory: batches complete when ``done`` says so; every create is recorded."""

    def __init__(self):
        self.created: dict[str, list[tuple[str, dict]]] = {}
        self.done = False


def _batcher(provider: Provider):
    from inspect_ai.model import BatchConfig
    from inspect_ai.model._providers.util.batch import BatchCheckResult, Batcher
    from tenacity import stop_after_attempt

    class MemoryBatcher(Batcher):
        async def _create_batch(self, batch):
            batch_id = f"b{len(provider.created) + 1}"
            provider.created[batch_id] = [(r.custom_id, dict(r.request)) for r in batch]
            return batch_id

        async def _check_batch(self, batch):
            return BatchCheckResult(len(batch.requests), 0, 0, True if provider.done else None)

        async def _handle_batch_result(self, batch, completion_info):
            return {cid: f"answer to {req['q']}" for cid, req in provider.created[batch.id]}

    config = BatchConfig(size=3, send_delay=0.05, tick=0.01)
    return MemoryBatcher(config, {"stop": stop_after_attempt(1), "reraise": True}, 100, 1)


def test_a_resumed_batch_is_collected_by_id_and_its_early_results_wait_for_their_requests(tmp_path):
    provider = Provider()

    async def first_run():  # three requests go into one batch; the process dies before it completes
        batcher = _batcher(provider)
        async with anyio.create_task_group() as tg:
            for q in ("a", "b", "c"):
                tg.start_soon(batcher.generate_for_request, {"q": q, "extra_headers": {"x-irid": q + "1"}})
            with anyio.move_on_after(0.5):
                while not provider.created:
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()

    async def second_run():  # "a" is asked first and alone; "b" and "c" only after the batch completed
        batcher = _batcher(provider)
        provider.done = True
        a = await batcher.generate_for_request({"q": "a", "extra_headers": {"x-irid": "a2"}})
        later = [await batcher.generate_for_request({"q": q}) for q in ("c", "b")]
        return [a, *later]

    with journaled(tmp_path):
        anyio.run(first_run)
    assert list(provider.created) == ["b1"]
    with journaled(tmp_path) as journal:
        answers = anyio.run(second_run)
    assert answers == ["answer to a", "answer to c", "answer to b"]
    assert list(provider.created) == ["b1"], "the resumed batch was created again"
    assert journal.counts() == {"batches": 1, "sent": 0, "answered": 3, "failed": 0}
    assert "Resumed batch b1" in (tmp_path / batch_mode.BATCH_LOG).read_text()


def test_journaled_restores_inspects_batcher_on_exit(tmp_path):
    from inspect_ai.model._providers._openai_batch import OpenAIBatcher
    from inspect_ai.model._providers.util.batch import Batcher

    before = {n: Batcher.__dict__[n] for n in ("generate_for_request", "_wrapped_create_batch",
                                                "_resolve_inflight_batch")}
    parse = OpenAIBatcher.__dict__["_parse_jsonl_line"]
    with journaled(tmp_path):
        assert Batcher.__dict__["generate_for_request"] is not before["generate_for_request"]
    assert {n: Batcher.__dict__[n] for n in before} == before and OpenAIBatcher.__dict__["_parse_jsonl_line"] is parse


# ------------------------------------------------------------------------------------------ OpenAI result lines
@pytest.fixture(scope="module")
def openai_batcher():
    from inspect_ai.model import BatchConfig
    from inspect_ai.model._providers._openai_batch import OpenAIBatcher
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

    client = AsyncOpenAI(api_key="sk-unused", base_url="http://127.0.0.1:9/v1")
    return OpenAIBatcher(client, BatchConfig(), {}, ChatCompletion)


@pytest.mark.parametrize("line, status, words", [
    ({"custom_id": "c", "response": None, "error": {"code": 500, "message": "overloaded"}}, 500, "overloaded"),
    ({"custom_id": "c", "response": {"status_code": 400, "body": {"error": {"message": "bad <b>request</b>"}}},
      "error": None}, 400, "bad <b>request</b>"),
    ({"custom_id": "c", "response": None, "error": {"code": "batch_expired", "message": "expired"}}, 500, "expired"),
])
def test_a_failed_item_is_its_own_status_error_with_the_providers_words(tmp_path, openai_batcher, line, status, words):
    import openai

    with journaled(tmp_path):
        custom_id, result = openai_batcher._parse_jsonl_line(line)
    assert custom_id == "c" and isinstance(result, openai.APIStatusError)
    assert result.status_code == status and words in str(result) and "batch item failed" in str(result)


def test_a_successful_line_is_still_parsed_by_inspect(tmp_path, openai_batcher):
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "4"}}]}
    with journaled(tmp_path):
        custom_id, result = openai_batcher._parse_jsonl_line(
            {"custom_id": "c", "response": {"status_code": 200, "body": body}, "error": None})
    assert custom_id == "c" and result.choices[0].message.content == "4"


def test_inspects_generate_error_is_reported_by_its_error_not_by_the_request_it_sent():
    text = ("ModelGenerateError('\\nRequest:\\n{\\n  \"model\": \"m\"\\n}\\n\\nBadRequestError(\\'Error code: 400 - "
            "no\\')')")
    assert _first_line(text) == "BadRequestError('Error code: 400 - no')"


def test_our_litellm_provider_refuses_a_batch_request_in_one_line_instead_of_paying_full_price():
    from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

    api = get_model("litellm/openai/fake", api_base="http://127.0.0.1:9/v1", api_key="none").api
    with pytest.raises(NotImplementedError, match="no batch mode") as info:
        anyio.run(api.generate, [ChatMessageUser(content="2+2?")], [], "none", GenerateConfig(batch=True))
    assert "\n" not in str(info.value)


def test_batch_with_the_lm_eval_harness_is_refused_in_one_line():
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    result = CliRunner().invoke(app, ["bench", "--harness", "lm-eval", "--batch"])
    assert result.exit_code != 0 and "--batch needs --harness inspect" in result.output
