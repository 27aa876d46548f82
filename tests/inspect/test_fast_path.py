"""The fast request path of the ``litellm/`` provider (``openai`` client for OpenAI-compatible endpoints) against
litellm's own path, on the same real HTTP server (FakeOpenAI on 127.0.0.1).

What must not change with the path: the JSON body the server receives, the cache key and the cache entry (a run
resumed on the other path hits what this one wrote), usage, cost, the exception a fault raises (class, message,
status, Retry-After) and the retry decision Inspect takes on it. The litellm path is told apart at the server by
a header only litellm sends (``x-stainless-raw-response``: it asks the openai client for the raw response).
"""

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, ModelOutput, get_model

from finchain_tasks.inspect import openai_fast
from finchain_tasks.runs.cache import ResponseCache
from tests.support.fake_openai import (
    FakeOpenAI,
    delay,
    empty_choices,
    malformed,
    null_content,
    rate_limit,
    server_error,
    status,
)

KEY = "sk-fast-path-test-0b1c"
KEY_ENV = "FINCHAIN_FAST_PATH_TEST_KEY"
PATHS = ("litellm", "openai")
MESSAGES = [ChatMessageSystem(content="You are terse."), ChatMessageUser(content="What is 6 x 7? Show the step.")]
PROMPT_WORDS = 11
"""What the fake server counts as prompt tokens for MESSAGES (words): 3 (system) + 8 (user)."""
CONFIG = GenerateConfig(max_tokens=64, temperature=0.0, top_p=0.9, stop_seqs=["\n\n\n"], seed=11,
                        frequency_penalty=0.1, presence_penalty=0.2)


@pytest.fixture
def model_api_enabled(monkeypatch):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.delenv(openai_fast.PATH_ENV, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)


def _api(server, path, name="openai/fake", **extra):
    """The provider for ``name`` on ``path`` (``litellm`` forced, or ``openai``: the automatic choice here)."""
    forced = {"request_path": "litellm"} if path == "litellm" else {}
    return get_model(f"litellm/{name}", api_base=server.base_url, api_key_env=KEY_ENV, memoize=False,
                     **forced, **extra).api


def _generate(api, messages=MESSAGES, config=CONFIG):
    async def call():
        output, _ = await api.generate(messages, [], "none", config)
        return output

    return anyio.run(call)


def _failure(api):
    """The exception one attempt raises (Inspect's retries are not involved: one generate call)."""
    try:
        _generate(api)
    except Exception as exc:
        return exc
    raise AssertionError("the call succeeded")


def _without_ids(output_json: str) -> dict:
    """A cached output with the per-output random message ids removed (they differ between any two answers)."""
    data = ModelOutput.model_validate_json(output_json).model_dump()
    for choice in data["choices"]:
        choice["message"].pop("id", None)
    return data


# ------------------------------------------------------------------------------------ the choice
@pytest.mark.parametrize("model, base, args, expected", [
    ("openai/fake", "http://127.0.0.1:1/v1", {}, "openai"),
    ("openai/local-gemma3-270m", "http://127.0.0.1:1/v1", {"extra_body": {"top_k": 1}}, "openai"),
    ("openai/fake", None, {}, "litellm"),  # OpenAI itself: litellm knows the endpoint and the model's quirks
    ("hosted_vllm/Qwen/Qwen3-8B", "http://127.0.0.1:1/v1", {}, "litellm"),
    ("anthropic/claude-sonnet-4", None, {}, "litellm"),
    ("openai/gpt-5-mini", "http://127.0.0.1:1/v1", {}, "litellm"),  # litellm rewrites its parameters
    ("openai/o3", "http://127.0.0.1:1/v1", {}, "litellm"),
    ("openai/fake", "http://127.0.0.1:1/v1", {"drop_params": True}, "litellm"),  # a litellm-only option
])
def test_choose_path(model, base, args, expected, monkeypatch):
    monkeypatch.delenv(openai_fast.PATH_ENV, raising=False)
    path, reason = openai_fast.choose_path(model, base, args)
    assert path == expected and reason


def test_forcing_litellm_by_env_or_model_arg_and_a_bad_value_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(openai_fast.PATH_ENV, "litellm")
    forced = ("litellm", f"forced by {openai_fast.PATH_ENV}=litellm")
    assert openai_fast.choose_path("openai/fake", "http://x/v1") == forced
    monkeypatch.setenv(openai_fast.PATH_ENV, "auto")
    assert openai_fast.choose_path("openai/fake", "http://x/v1")[0] == "openai"
    assert openai_fast.choose_path("openai/fake", "http://x/v1", request_path="litellm")[0] == "litellm"
    with pytest.raises(ValueError, match="expected auto, litellm or openai"):
        openai_fast.choose_path("openai/fake", "http://x/v1", request_path="fastest")


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(openai_fast.BODY_PARAMS - {"model", "messages"}
                                              | openai_fast.TRANSPORT | {"top_k", "drop_params", "user"})),
                       st.integers(0, 5), max_size=6))
def test_body_leaves_out_transport_and_refuses_fields_it_does_not_reproduce(fields):
    request = {"model": "openai/m", "messages": [], **fields}
    body = openai_fast.body_of(request)
    if {"top_k", "drop_params"} & set(fields):
        assert body is None
    else:
        assert body is not None and body["model"] == "m"
        assert set(body) == {"model", "messages", *(set(fields) - openai_fast.TRANSPORT)}


# ------------------------------------------------------------------------------------ same request, same answer
def test_both_paths_send_the_same_body_and_share_cache_keys_entries_usage(model_api_enabled, tmp_path):
    bodies, entries, usages, paths, raw_header = {}, {}, {}, {}, {}
    for path in PATHS:
        cache = tmp_path / f"{path}.sqlite"
        with FakeOpenAI(reply="Step 1: 6 x 7 = 42\nFinal answer: 42") as server:
            api = _api(server, path, response_cache=str(cache), finchain_model="fake-reg",
                       extra_headers={"X-Trace": "t"}, chat_template_kwargs={"enable_thinking": False},
                       extra_body={"top_k": 1})
            output = _generate(api)
        (request,) = server.requests
        bodies[path], raw_header[path] = request.body, request.headers.get("x-stainless-raw-response")
        (entries[path],) = ResponseCache(cache).entries()
        usages[path], paths[path] = output.usage, (api.request_path, output.metadata["finchain_request_path"])
        assert request.headers["x-trace"] == "t" and request.headers["authorization"] == f"Bearer {KEY}"
    assert paths == {"litellm": ("litellm", "litellm"), "openai": ("openai", "openai")}
    assert raw_header == {"litellm": "true", "openai": None}  # two different clients did send them
    assert bodies["litellm"] == bodies["openai"]
    assert bodies["openai"]["chat_template_kwargs"] == {"enable_thinking": False} and bodies["openai"]["top_k"] == 1
    assert bodies["openai"]["model"] == "fake"
    a, b = entries["litellm"], entries["openai"]
    assert (a["key"], a["model"], a["request"]) == (b["key"], b["model"], b["request"])
    assert _without_ids(a["output"]) == _without_ids(b["output"])
    # the fake server counts words: 3 + 8 prompt words (system + user), 10 answer words; the fake model is unpriced
    assert usages["litellm"] == usages["openai"]
    usage = usages["openai"]
    assert (usage.input_tokens, usage.output_tokens, usage.total_cost) == (PROMPT_WORDS, 10, None)


@pytest.mark.parametrize("writer, reader", [("openai", "litellm"), ("litellm", "openai")])
def test_a_run_resumed_on_the_other_path_hits_the_cache(model_api_enabled, tmp_path, writer, reader):
    cache = str(tmp_path / "responses.sqlite")
    with FakeOpenAI(reply="Final answer: 42") as server:
        first = _generate(_api(server, writer, response_cache=cache))
        again = _generate(_api(server, reader, response_cache=cache))
    assert len(server.requests) == 1
    assert again.metadata["finchain_cache"] == "hit" and again.completion == first.completion == "Final answer: 42"
    assert again.usage == first.usage


def test_a_priced_model_costs_the_same_on_both_paths_and_as_the_price_table_says(model_api_enabled):
    from finchain_tasks.inspect.litellm_provider import import_litellm

    usages = {}
    with FakeOpenAI(reply="one two three four five") as server:
        for path in PATHS:
            api = _api(server, path, name="openai/gpt-4o-mini")
            assert api.request_path == path
            usages[path] = _generate(api).usage
    assert usages["litellm"] == usages["openai"]
    # a second computation: tokens x the per-token prices of litellm's table
    price = import_litellm().model_cost["gpt-4o-mini"]
    expected = PROMPT_WORDS * price["input_cost_per_token"] + 5 * price["output_cost_per_token"]
    assert usages["openai"].total_cost == pytest.approx(expected, rel=1e-9) and expected > 0


# ------------------------------------------------------------------------------------ faults
FAULTS = {
    "429 with Retry-After": rate_limit(retry_after=7),
    "500": server_error(500),
    "503": server_error(503),
    "401": status(401),
    "400": status(400),
    "malformed JSON": malformed(),
    "empty choices": empty_choices(),
    "null content": null_content(),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_fault_raises_the_same_error_and_retry_decision_on_both_paths(model_api_enabled, fault):
    seen = {}
    for path in PATHS:
        with FakeOpenAI(script={1: FAULTS[fault]}) as server:
            api = _api(server, path)
            exc = _failure(api)
        decision = api.should_retry(exc)
        decision = (decision.retry, decision.kind, decision.retry_after) if hasattr(decision, "kind") else decision
        seen[path] = (type(exc), str(exc), getattr(exc, "status_code", None), decision, api.is_auth_failure(exc))
    assert seen["litellm"] == seen["openai"]
    if fault.startswith("429"):
        assert seen["openai"][3] == (True, "rate_limit", 7)
    if fault in ("400", "401"):
        assert not seen["openai"][3][0]
    if fault in ("500", "503", "malformed JSON", "empty choices", "null content"):
        assert seen["openai"][3][:2] == (True, "transient")


def test_a_timeout_raises_litellms_timeout_on_both_paths(model_api_enabled):
    seen = {}
    for path in PATHS:
        # the server answers after 5 s: a path that lost its timeout fails here in 5 s instead of hanging
        with FakeOpenAI(script={1: delay(5)}) as server:
            api = _api(server, path, timeout=0.5)
            exc = _failure(api)
        # the message ends in the measured time taken, which differs by milliseconds between two calls
        seen[path] = (type(exc).__name__, str(exc).split(", time taken=")[0], exc.status_code,
                      api.should_retry(exc).kind)
        taken = float(str(exc).split(", time taken=")[1].split()[0])
        assert 0.4 <= taken < 5, taken  # the time this call waited, not a clock reading
    assert seen["litellm"] == seen["openai"]
    assert seen["openai"] == ("Timeout", "litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request "
                              "timed out. - timeout value=0.5", 408, "transient")


def test_an_eval_on_the_fast_path_survives_chaos_and_records_its_path(model_api_enabled, tmp_path):
    """Seeded random faults of every kind (retried), and the path in every sample's output metadata."""
    from inspect_ai import eval as inspect_eval

    from finchain_tasks.engine import all_templates
    from finchain_tasks.inspect.tasks import finchain
    from tests.support.fake_openai import Chaos

    templates = sorted(all_templates())[:6]
    task = finchain(template=templates, seeds=[0])
    with FakeOpenAI(chaos=Chaos(rate=0.4, seed=3, stall=600)) as server:
        log = inspect_eval(task, model="litellm/openai/fake", log_dir=str(tmp_path), display="none", score=False,
                           model_args=dict(api_base=server.base_url, api_key_env=KEY_ENV, retry_wait=0.01, timeout=3),
                           max_retries=10)[0]
    assert log.status == "success", log.error
    assert any(r.fault for r in server.requests)
    assert {s.output.metadata["finchain_request_path"] for s in log.samples} == {"openai"}
    assert len(log.samples) == len(templates)


# ------------------------------------------------------------------------------------ finchain bench's models
def test_bench_models_take_the_path_of_their_provider_and_the_run_records_it(tmp_path, monkeypatch):
    """The shipped registry: the local model (served here, OpenAI-compatible) takes the fast path, a hosted vLLM
    model and a frontier model stay on litellm; FINCHAIN_REQUEST_PATH=litellm moves the local model too."""
    from types import SimpleNamespace

    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import Options, build_model, request_paths

    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.delenv(openai_fast.PATH_ENV, raising=False)
    monkeypatch.setenv("FINCHAIN_QWEN3_8B_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused")
    registry = load_registry()
    local, vllm = registry.models["local-gemma3-270m"], registry.models["qwen3-8b"]
    frontier = next(m for m in registry.models.values() if m.litellm_model.startswith("openai/gpt-4"))

    def paths():
        built = [(spec, build_model(spec, Options(), "http://127.0.0.1:9/v1" if spec is local else None))
                 for spec in (local, vllm, frontier)]
        tasks = [SimpleNamespace(model=model, metadata={"finchain_model": spec.name}) for spec, model in built]
        return {name: p["path"] for name, p in request_paths(tasks).items()}

    assert paths() == {local.name: "openai", vllm.name: "litellm", frontier.name: "litellm"}
    monkeypatch.setenv(openai_fast.PATH_ENV, "litellm")
    assert paths() == {local.name: "litellm", vllm.name: "litellm", frontier.name: "litellm"}


# ------------------------------------------------------------------------------------ reading the reply
READINGS = [
    # (content sent, finish_reason sent, extra message fields) -> (completion, Inspect stop reason), by litellm's rules
    ("<think>weigh it</think>Final answer: 4", "stop", {}, "Final answer: 4", "stop"),
    ("Final answer: 4 <think>late</think>", "stop", {}, "Final answer: 4 <think>late</think>", "stop"),
    ("<think>kept</think>ans", "stop", {"reasoning_content": "apart"}, "<think>kept</think>ans", "stop"),
    ("ok", "eos", {}, "ok", "stop"),
    ("ok", None, {}, "ok", "stop"),
    ("ok", "max_tokens", {}, "ok", "max_tokens"),
    ("ok", "length", {}, "ok", "max_tokens"),
]


@pytest.mark.parametrize("content, finish, extra, completion, stop", READINGS)
def test_the_reply_is_read_as_litellm_reads_it(model_api_enabled, monkeypatch, content, finish, extra, completion,
                                               stop):
    """A server's ``<think>`` block and its own finish reasons (llama.cpp, vLLM...) come out as litellm's path gives
    them; the server's answer shape is set by wrapping FakeOpenAI's body builder."""
    import tests.support.fake_openai as fake

    build = fake.completion_body

    def body(path, request, text, model):
        out = build(path, request, text, model)
        out["choices"][0]["finish_reason"] = finish
        out["choices"][0]["message"].update(extra)
        return out

    monkeypatch.setattr(fake, "completion_body", body)
    seen = {}
    for path in PATHS:
        with FakeOpenAI(reply=content) as server:
            output = _generate(_api(server, path))
        seen[path] = (output.completion, output.choices[0].stop_reason)
    assert seen["litellm"] == seen["openai"] == (completion, stop)


@pytest.mark.parametrize("name, args", [
    ("openai/fake", {}),  # the fast path's model (OpenAI-compatible endpoint)
    ("openai/fake", {"request_path": "litellm"}),  # the same model forced onto litellm
    ("deepseek/deepseek-chat", {}),  # a provider only litellm serves
], ids=["openai-path", "litellm-forced", "litellm-provider"])
def test_a_model_without_its_key_fails_at_once_naming_the_variable(model_api_enabled, monkeypatch, name, args):
    """Issue 31: litellm reports a missing key as a 500, which Inspect retried for 9+ minutes. The provider
    refuses before any request, in one line that names the variable, as Inspect's plain (no traceback) error."""
    from inspect_ai._util.error import PrerequisiteError

    for var in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with FakeOpenAI() as server:
        with pytest.raises(PrerequisiteError) as caught:  # a server elsewhere (one here needs no key: issue 45)
            get_model(f"litellm/{name}", api_base="http://192.0.2.1:9/v1", memoize=False, **args)
        assert not server.requests
        line = str(caught.value)
        assert "\n" not in line and ("DEEPSEEK_API_KEY" if "deepseek" in name else "OPENAI_API_KEY") in line
        keyless = get_model(f"litellm/{name}", api_base=server.base_url, api_key="none", memoize=False, **args)
        assert keyless.api is not None  # a keyless server's placeholder is a key: accepted
