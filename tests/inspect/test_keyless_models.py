"""Failing fast on a missing key, and not refusing a model that needs none (issue 45, item 4).

``finchain eval`` / ``bench`` check the keys of the models asked for before Inspect, litellm or torch load (the
behaviour is tested, not the time: those modules are not loaded when the error is raised). The Inspect
provider's own check lets through what needs no key: litellm's ``mock_response`` (no request is sent) and a
base URL on this machine (a keyless local server gets the placeholder key)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from finchain_tasks.models.provider_keys import LOOPBACK, MOCK, is_loopback, keyless_reason, missing_provider_key
from tests.support.timeouts import limit

HEAVY = ("inspect_ai", "litellm", "torch", "sentence_transformers", "transformers", "lm_eval", "pandas")


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8000/v1", True), ("http://127.9.9.9/v1", True), ("http://localhost:1/v1", True),
    ("http://[::1]:80/v1", True), ("127.0.0.1:9", True), ("http://api.localhost/v1", True),
    ("https://api.openai.com/v1", False), ("http://10.0.0.2:8000/v1", False), ("http://128.0.0.1/v1", False),
    ("http://localhost.example.com/v1", False), ("", False), (None, False),
])
def test_rule_only_a_loopback_base_url_is_this_machine(url, local):
    assert is_loopback(url) is local


@pytest.mark.parametrize("base, args, reason", [
    (None, {"mock_response": "x"}, MOCK), ("https://api.example.com/v1", {"mock_response": ""}, MOCK),
    ("http://127.0.0.1:5/v1", {}, LOOPBACK), ("https://api.example.com/v1", {}, None), (None, {}, None),
])
def test_rule_a_mock_response_or_a_local_server_needs_no_key(base, args, reason):
    assert keyless_reason(base, args) == reason


@pytest.mark.parametrize("model, env, missing", [
    ("openai/gpt-4o", {}, ["OPENAI_API_KEY"]), ("openai/gpt-4o", {"OPENAI_API_KEY": "k"}, []),
    ("gemini/g", {"GOOGLE_API_KEY": "k"}, []), ("gemini/g", {}, ["GEMINI_API_KEY", "GOOGLE_API_KEY"]),
    ("hosted_vllm/m", {}, []), ("someprovider/m", {}, None),
])
def test_rule_the_provider_table_names_the_keys_any_one_will_do(model, env, missing, monkeypatch):
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert missing_provider_key(model) == missing


_FAIL_FAST = """
import sys
from finchain_tasks.cli.main import app
codes = []
for args in (["eval", "--model", "openai/gpt-4o", "--limit", "3"], ["eval", "--model", "gpt-4.1-mini"],
             ["bench", "--models", "gpt-4.1-mini,openai/gpt-4o"]):
    try:
        codes.append(app(args, standalone_mode=False))
    except SystemExit as exc:
        codes.append(exc.code)
print("CODES", codes)
print("LOADED", sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY)))
"""


def test_a_missing_key_fails_before_inspect_litellm_or_torch_load(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{_FAIL_FAST}"], capture_output=True,
                          text=True, timeout=limit(300), env=env, cwd=tmp_path)
    out = done.stdout + done.stderr
    assert "CODES [2, 2, 2]" in out, out[-3000:]
    assert "cannot run: set OPENAI_API_KEY" in out and "no model can run" in out
    assert done.stdout.strip().splitlines()[-1] == "LOADED []", out[-3000:]
    assert not (tmp_path / "finchain-runs").exists()


@pytest.fixture
def no_key(monkeypatch):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)  # a local fake server, or no request at all
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.slow
def test_inspect_eval_with_litellms_mock_response_runs_without_a_key(no_key, tmp_path):
    """The issue's own command: `inspect eval ... --model litellm/openai/always-a -M 'mock_response=...'`."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    from finchain_tasks.cflue.loader import SAMPLE_PATH

    inspect = Path(sys.executable).with_name("inspect")
    done = subprocess.run([str(inspect), "eval", "finchain_tasks/cflue", "-T", f"path={SAMPLE_PATH}", "--model",
                           "litellm/openai/always-a", "-M", 'mock_response="答案：A"', "--limit", "2", "--log-dir",
                           str(tmp_path / "logs"), "--display", "plain"], cwd=Path(__file__).resolve().parents[2],
                          env=dict(os.environ), capture_output=True, text=True, timeout=limit(300))
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "needs an API key" not in out, out[-3000:]
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0].name)
    assert log.status == "success" and [s.output.completion for s in log.samples] == ["答案：A"] * 2


def test_a_local_base_url_runs_without_a_key_and_sends_the_placeholder(no_key):
    import anyio
    from inspect_ai.model import get_model

    from tests.support.fake_openai import FakeOpenAI

    with FakeOpenAI(reply="42") as server:
        assert is_loopback(server.base_url)
        model = get_model("litellm/openai/local", api_base=server.base_url, memoize=False)
        output = anyio.run(model.generate, "What is six times seven?")
        requests = list(server.requests)
    assert output.completion == "42"
    assert requests and {r.headers.get("authorization") for r in requests} == {"Bearer none"}
