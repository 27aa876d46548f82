"""``--batch`` rules that test_batch_mode.py leaves open (issue 39, found by the literal pass and by mutmut's
survivors): Inspect's batch poll and send delay default to 15 s, how a batched model is routed and built, what
the session records per model, when two entries are one task, request keys, what a batch's journal file holds
and how a restarted run claims from it, the batch log's status lines, a failed result line, and, on a batcher in
memory, that a resumed batch is fetched once and that a failed or missing result is marked failed. No HTTP, no
batch sent (Inspect's providers are only built)."""

from __future__ import annotations

import datetime
import decimal
import json
import re
from types import SimpleNamespace

import anyio
import pytest
from pydantic import BaseModel

from finchain_tasks.models.registry import load_registry
from finchain_tasks.runs import batch_mode
from finchain_tasks.runs.batch_mode import JOURNAL, Journal, journaled, request_key
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


# ------------------------------------------------------------------------------------------ which models, how built
@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Registry entries at the edges of routing and building (no HTTP: Inspect's providers are only built)."""
    path = tmp_path_factory.mktemp("models") / "registry.yaml"
    rows = {
        "gpt": "litellm_model: openai/gpt-4.1, api_key_env: SOME_BATCH_KEY",
        "gpt_warm": "litellm_model: openai/gpt-4.1, api_key_env: SOME_BATCH_KEY, generation: {temperature: 0.3}",
        "gpt_again": "litellm_model: openai/gpt-4.1, api_key_env: OTHER_BATCH_KEY",
        "mini": "litellm_model: openai/gpt-4.1-mini, api_key_env: SOME_BATCH_KEY",
        "gpt5": "litellm_model: openai/gpt-5, api_key_env: SOME_BATCH_KEY",
        "keyless": "litellm_model: openai/gpt-4.1",
        "llama": "litellm_model: together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo, api_key_env: SOME_BATCH_KEY",
        "extras": "litellm_model: openai/gpt-4.1, api_key_env: SOME_BATCH_KEY, "
                  "generation: {drop_params: true, extra: {foo: 1}}",
        "self": "litellm_model: openai/my-model, api_key_env: SOME_BATCH_KEY, api_base: 'http://127.0.0.1:1/v1'",
    }
    path.write_text("\n".join(["version: 1", "models:"] + [
        f"  - {{name: {name}, display_name: {name}, category: general, open_weights: false, {row}}}"
        for name, row in rows.items()]) + "\n", encoding="utf-8")
    return load_registry(path)


@pytest.mark.parametrize("name, reason", [
    ("gpt", "batch API through Inspect's openai/ provider"),
    ("llama", "batch API through Inspect's together/ provider"),  # the provider is the part before the first "/"
    ("extras", "litellm-only request parameters (drop_params, foo): runs through litellm"),
])
def test_the_route_says_why_in_words_naming_the_provider_or_every_litellm_only_parameter(models, name, reason):
    assert batch_mode.route(models.model(name))[1] == reason


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("SOME_BATCH_KEY", "sk-from-the-registry-env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-provider-env")
    monkeypatch.setenv("TOGETHER_API_KEY", "sk-together")


@pytest.mark.parametrize("options, field, expected", [
    (Options(batch=True, batch_size=7), "batch.size", 7),
    (Options(batch=True), "batch.size", None),  # Inspect's own default
    (Options(batch=True, max_retries=3), "max_retries", 3),
    (Options(batch=True), "max_retries", 6),
])
def test_the_batch_size_and_retries_are_the_runs_options(models, keys, options, field, expected):
    config = batch_mode.build_model(models.model("gpt"), options, None).config
    value = config.batch.size if field == "batch.size" else getattr(config, field)
    assert value == expected


@pytest.mark.parametrize("name, task_config, field, expected", [
    ("gpt_warm", None, "temperature", 0.3),  # the registry's generation
    ("gpt", SimpleNamespace(max_tokens=123, temperature=None, top_p=None, reasoning_effort=None), "max_tokens", 123),
])
def test_a_batched_model_generates_with_the_registrys_settings_over_the_tasks(models, keys, name, task_config,
                                                                               field, expected):
    model = batch_mode.build_model(models.model(name), Options(batch=True), task_config)
    assert getattr(model.config, field) == expected


@pytest.mark.parametrize("name, key", [
    ("gpt", "sk-from-the-registry-env"),
    ("keyless", "sk-from-the-provider-env"),  # no api_key_env: the provider's own variable
])
def test_the_key_comes_from_the_registrys_variable_else_the_providers_own(models, keys, name, key):
    assert batch_mode.build_model(models.model(name), Options(batch=True), None).api.api_key == key


@pytest.mark.parametrize("name", ["gpt", "gpt5"])  # gpt-5: Inspect's default would be the Responses API
def test_an_openai_model_is_batched_on_the_chat_completions_endpoint_litellm_uses(models, keys, name):
    assert batch_mode.build_model(models.model(name), Options(batch=True), None).api.responses_api is False


def test_a_non_openai_model_gets_no_openai_only_model_arg(models, keys):
    model = batch_mode.build_model(models.model("llama"), Options(batch=True), None)
    assert model.name == "meta-llama/Llama-3.3-70B-Instruct-Turbo"


def test_each_build_is_a_model_of_its_own_never_one_cached_by_an_earlier_build(models, keys):
    options = Options(batch=True)
    assert batch_mode.build_model(models.model("gpt"), options, None) is not batch_mode.build_model(
        models.model("gpt"), options, None)


@pytest.mark.parametrize("retry_wait, ours", [(0.5, True), (None, False)])
def test_the_first_backoff_is_the_runs_retry_wait_else_inspects_own(models, keys, retry_wait, ours):
    from finchain_tasks.inspect.litellm_provider import RetryAfterWait

    model = batch_mode.build_model(models.model("gpt"), Options(batch=True, retry_wait=retry_wait), None)
    wait = model.api.retry_wait()
    assert isinstance(wait, RetryAfterWait) is ours
    if ours:
        assert wait.initial == retry_wait


def test_the_session_records_a_batch_price_only_for_a_model_that_goes_by_batch(models):
    from dataclasses import asdict

    from finchain_tasks.models.batch import resolve_batch_price

    record = batch_mode.session_record([models.model("gpt"), models.model("extras")])
    assert record["gpt"]["price"] == asdict(resolve_batch_price(models.model("gpt"))) and record["gpt"]["price"]
    assert record["extras"]["price"] is None  # a batch API, but it runs through litellm at the list price


@pytest.mark.parametrize("names, refused", [
    (["gpt", "gpt"], True),
    (["gpt", "gpt_again"], True),  # another key variable, same model and settings: still one eval-set task
    (["self", "gpt", "gpt"], True),  # a model that does not go by batch is skipped, not the end of the check
    (["gpt", "mini"], False),
    (["gpt", "gpt_warm"], False),  # same model, other settings: two tasks
    (["gpt", "extras"], False),  # the second runs through litellm
])
def test_two_entries_are_refused_exactly_when_they_batch_as_one_model_with_the_same_settings(models, names,
                                                                                            refused):
    specs = [models.model(n) for n in names]
    if refused:
        with pytest.raises(ValueError):
            batch_mode.check_distinct(specs)
    else:
        batch_mode.check_distinct(specs)


def test_the_refusal_names_both_entries_and_what_to_do(models):
    with pytest.raises(ValueError) as info:
        batch_mode.check_distinct([models.model("gpt"), models.model("gpt_again")])
    assert str(info.value) == ("models 'gpt' and 'gpt_again' are both openai/gpt-4.1 with the same settings under "
                               "--batch: one eval-set task; run them in separate run directories")


# ------------------------------------------------------------------------------------------ request keys
def test_a_request_key_is_the_same_in_every_version_so_an_older_journal_stays_claimable():
    request = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Zinsen für 2 Jahre: €?"}], "max_tokens": 5}
    assert request_key("OpenAIBatcher", request) == "f99c26b850de6780d135d41c39471b26"


class _Tool(BaseModel):
    name: str
    at: datetime.datetime


@pytest.mark.parametrize("value, same_as", [
    (_Tool(name="t", at=datetime.datetime(2026, 1, 2, 3, 4)), {"name": "t", "at": "2026-01-02T03:04:00"}),
    (decimal.Decimal("1.5"), "1.5"),  # neither JSON nor pydantic: its text
])
def test_a_request_holding_objects_is_keyed_by_their_json_form(value, same_as):
    assert request_key("P", {"tools": [value]}) == request_key("P", {"tools": [same_as]})


def test_requests_holding_different_objects_have_different_keys():
    assert request_key("P", {"x": decimal.Decimal("1.5")}) != request_key("P", {"x": decimal.Decimal("2.5")})


# ------------------------------------------------------------------------------------------ the journal's files
def _write_batch(folder, file_name, record):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file_name).write_text(json.dumps(record), encoding="utf-8")


@pytest.mark.parametrize("created_a, created_z, first", [
    (5, 1, "z"),  # creation order, not file or id order
    (None, 0.5, "a"),  # a record without its creation time counts as the oldest
    (0.5, None, "z"),
])
def test_a_restarted_run_claims_requests_in_the_order_their_batches_were_created(tmp_path, created_a, created_z,
                                                                                 first):
    for batch_id, created in (("a", created_a), ("z", created_z)):
        record = {"id": batch_id, "provider": "P", "requests": {f"c{batch_id}": {"key": "k", "state": "sent"}}}
        _write_batch(tmp_path / JOURNAL, f"{batch_id}.json", record | ({} if created is None else {"created": created}))
    assert Journal(tmp_path / JOURNAL).claim("k")[0] == first


@pytest.mark.parametrize("record, reason", [
    ([], "the record: expected a mapping, got a list"),
    ({"requests": {}}, "id: expected a string, got null"),
    ({"id": "b", "created": "x", "requests": {}}, "created: expected a whole number or a number, got a string"),
    ({"id": "b", "requests": []}, "requests: expected a mapping, got a list"),
    ({"id": "b", "requests": {"c": []}}, "requests.c: expected a mapping, got a list"),
    ({"id": "b", "requests": {"c": {"state": "sent"}}}, "requests.c.key: expected a string, got null"),
    ({"id": "b", "requests": {"c": {"key": "k", "state": "lost"}}},
     "requests.c.state: expected one of sent, answered, failed"),
])
def test_a_damaged_batch_record_names_its_file_its_field_and_what_to_do(tmp_path, record, reason):
    _write_batch(tmp_path / JOURNAL, "bad.json", record)
    with pytest.raises(ValueError) as info:
        Journal(tmp_path / JOURNAL)
    assert str(info.value) == (f"{tmp_path / JOURNAL / 'bad.json'}: {reason} (bad.json is not a batch record; "
                               "move it aside to resubmit its requests)")


def test_a_batch_file_is_named_by_its_ids_hash_so_every_version_rewrites_the_same_file(tmp_path):
    Journal(tmp_path / JOURNAL).record("b1", "P", [("c", "k")])
    assert [p.name for p in (tmp_path / JOURNAL).iterdir()] == ["7dc96f776c8423e57a27.json"]


def test_the_journal_makes_its_folder_with_any_missing_parents(tmp_path):
    Journal(tmp_path / "run" / "nested" / JOURNAL).record("b1", "P", [("c", "k")])
    assert Journal(tmp_path / "run" / "nested" / JOURNAL).claim("k") == ("b1", "c")


def test_marking_a_batch_the_journal_does_not_hold_changes_nothing(tmp_path):
    journal = Journal(tmp_path / JOURNAL)
    journal.mark("unknown", {"c": "answered"})
    assert journal.counts() == {"batches": 0, "sent": 0, "answered": 0, "failed": 0}
    assert not (tmp_path / JOURNAL).exists()


@pytest.mark.parametrize("marks, claims", [
    ([{"c1": "failed"}], [("b1", "c2"), None]),  # its retry goes into a new batch, not back to the failed item
    ([{"c1": "failed"}, {"c1": "failed"}], [("b1", "c2"), None]),  # marked twice: no error
    ([{"c1": "answered"}], [("b1", "c1"), ("b1", "c2"), None]),  # answered: collected again (not scored yet)
    ([{"c2": "failed", "c1": "failed"}], [None]),
])
def test_a_failed_item_of_a_resumed_batch_is_no_longer_claimable_in_the_same_run(tmp_path, marks, claims):
    Journal(tmp_path / JOURNAL).record("b1", "P", [("c1", "k"), ("c2", "k")])
    resumed = Journal(tmp_path / JOURNAL)
    for states in marks:
        resumed.mark("b1", states)
    assert [resumed.claim("k") for _ in claims] == claims


# ------------------------------------------------------------------------------------------ Inspect's batcher
@pytest.mark.parametrize("statuses, lines", [
    ([(2, 3, 4, 5)], ["batches 2, requests pending/completed/failed 3/4/5"]),
    ([(1, 2, 0, 0), (1, 2, 0, 0), (1, 1, 1, 0)],  # a status like the last one is not written again
     ["batches 1, requests pending/completed/failed 2/0/0", "batches 1, requests pending/completed/failed 1/1/0"]),
])
def test_the_batch_log_gets_a_timed_line_per_change_of_status(tmp_path, statuses, lines):
    from inspect_ai.model._providers.util.batch_log import BatchStatus, emit_batch_status

    with journaled(tmp_path):
        for status in statuses:
            emit_batch_status(BatchStatus(*status, oldest_created_at=None))
    written = (tmp_path / batch_mode.BATCH_LOG).read_text().splitlines()
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d .*", line) for line in written)
    assert [line[9:] for line in written] == lines


@pytest.mark.parametrize("line, status", [
    ({"custom_id": "c9", "response": "gateway timeout", "error": {"code": "x"}}, 500),  # a response not a mapping
    ({"custom_id": "c9", "response": {"status_code": 404, "body": {"error": {"message": "gone"}}}}, 404),
])
def test_a_failed_items_error_names_the_item_in_its_request(tmp_path, openai_batcher, line, status):
    with journaled(tmp_path):
        custom_id, result = openai_batcher._parse_jsonl_line(line)
    assert (custom_id, result.status_code) == ("c9", status)
    assert (result.request.method, str(result.request.url)) == ("POST", "https://batch.invalid/c9")


def test_a_failed_line_without_a_custom_id_is_attributed_to_no_request(tmp_path, openai_batcher):
    with journaled(tmp_path):
        custom_id, _ = openai_batcher._parse_jsonl_line({"response": None, "error": {"code": 500, "message": "x"}})
    assert custom_id == ""


class _Provider:
    """A batch API in memory: a batch completes when ``done``; its results leave out the requests in ``lost``
    and fail those in ``failing``; every create and every fetch of results is counted."""

    def __init__(self):
        self.created: dict[str, list[tuple[str, dict]]] = {}
        self.fetched: list[str] = []
        self.done = False
        self.lost: set[str] = set()
        self.failing: set[str] = set()

    def batcher(self):
        from inspect_ai.model import BatchConfig
        from inspect_ai.model._providers.util.batch import BatchCheckResult, Batcher
        from tenacity import stop_after_attempt

        provider = self

        class MemoryBatcher(Batcher):
            async def _create_batch(self, batch):
                batch_id = f"b{len(provider.created) + 1}"
                provider.created[batch_id] = [(r.custom_id, dict(r.request)) for r in batch]
                return batch_id

            async def _check_batch(self, batch):
                return BatchCheckResult(len(batch.requests), 0, 0, True if provider.done else None)

            async def _handle_batch_result(self, batch, completion_info):
                provider.fetched.append(batch.id)
                return {cid: RuntimeError(f"{req['q']} failed") if req["q"] in provider.failing
                        else f"answer to {req['q']}" for cid, req in provider.created[batch.id]
                        if req["q"] not in provider.lost}

        return MemoryBatcher(BatchConfig(size=3, send_delay=0.05, tick=0.01),
                             {"stop": stop_after_attempt(1), "reraise": True}, 100, 1)


def _killed_first_run(tmp_path, provider, questions):
    """A run that submits ``questions`` in one batch and dies before the batch completes."""
    async def run():
        batcher = provider.batcher()
        async with anyio.create_task_group() as tg:
            for q in questions:
                tg.start_soon(batcher.generate_for_request, {"q": q, "extra_headers": {"x-irid": q + "1"}})
            with anyio.fail_after(20):
                while not provider.created:
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()

    with journaled(tmp_path):
        anyio.run(run)


async def _ask(batcher, q):
    """One request of a restarted run (no request-id header: none is needed to collect), its answer or error."""
    with anyio.fail_after(20):  # a request never answered fails here instead of hanging the suite
        try:
            return await batcher.generate_for_request({"q": q})
        except RuntimeError as exc:
            return f"error: {exc}"


def test_a_resumed_batch_asked_for_concurrently_is_fetched_once_and_answers_every_request(tmp_path):
    provider = _Provider()
    _killed_first_run(tmp_path, provider, "abc")

    async def second_run():
        batcher = provider.batcher()
        answers = {}

        async def ask(q):
            answers[q] = await _ask(batcher, q)

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, "a")
            tg.start_soon(ask, "b")
            await anyio.sleep(0.05)
            provider.done = True
        answers["c"] = await _ask(batcher, "c")  # asked after the batch completed: its result was kept for it
        return answers

    with journaled(tmp_path) as journal:
        answers = anyio.run(second_run)
    assert answers == {q: f"answer to {q}" for q in "abc"}
    assert provider.fetched == ["b1"] and list(provider.created) == ["b1"]
    assert journal.stash == {}  # a result is kept only until its request asks for it
    log = (tmp_path / batch_mode.BATCH_LOG).read_text()
    assert log.count("Resumed batch b1") == 1 and "Batch b1 failed" not in log
    assert json.loads(next((tmp_path / JOURNAL).iterdir()).read_text())["provider"] == "MemoryBatcher"


def test_a_failed_item_is_marked_failed_and_its_retry_goes_into_a_new_batch(tmp_path):
    provider = _Provider()
    provider.done, provider.failing = True, {"b"}

    async def run():
        batcher = provider.batcher()
        return [await _ask(batcher, "a"), await _ask(batcher, "b")]

    with journaled(tmp_path) as journal:
        answers = anyio.run(run)
    assert answers == ["answer to a", "error: b failed"]
    assert journal.counts() == {"batches": 2, "sent": 0, "answered": 1, "failed": 1}


def test_a_request_the_resumed_batch_has_no_result_for_gets_an_error_and_is_not_claimed_again(tmp_path):
    provider = _Provider()
    _killed_first_run(tmp_path, provider, "ab")
    provider.done, provider.lost = True, {"b"}

    async def second_run():
        batcher = provider.batcher()
        return [await _ask(batcher, "a"), await _ask(batcher, "b")]

    with journaled(tmp_path) as journal:
        answers = anyio.run(second_run)
    (lost,) = [cid for cid, request in provider.created["b1"] if request["q"] == "b"]
    assert answers == ["answer to a", f"error: batch b1 returned no result for request {lost}"]
    assert journal.counts() == {"batches": 1, "sent": 0, "answered": 1, "failed": 1}
    assert (tmp_path / batch_mode.BATCH_LOG).read_text().count("Resumed batch b1") == 1
    assert Journal(tmp_path / JOURNAL).claim(request_key("MemoryBatcher", {"q": "b"})) is None
