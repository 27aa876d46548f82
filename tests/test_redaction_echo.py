"""Issue 31: a provider (or proxy) that echoes the request's key in an error body must not put it in any file.

The fake server answers every request with a 401 whose message quotes the ``Authorization`` header whole. Nothing
written afterwards (Inspect's log, the response cache, summary.json, report.md and report.html) may hold the key
or its last 12 characters, on either request path of the ``litellm/`` provider.
"""

from __future__ import annotations

import pytest

from finchain_tasks.plumbing.redaction import REDACTED, configured_secrets, redact
from tests.support.bench_helpers import files_containing
from tests.support.fake_openai import FakeOpenAI, echo_key

KEY = "sk-echo-test-4c1d9e7f20b3a5d86e"
KEY_ENV = "FINCHAIN_ECHO_TEST_KEY"


def test_redact_takes_the_whole_key_and_its_tail_and_leaves_placeholders(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("OTHER_API_KEY", "none")  # a placeholder, not a secret
    secrets = configured_secrets()
    assert KEY in secrets and KEY[-12:] in secrets and "none" not in secrets
    text = f'key {KEY}, shown as sk-...{KEY[-12:]}, escaped "{KEY}", and none'
    assert redact(text) == f'key {REDACTED}, shown as sk-...{REDACTED}, escaped "{REDACTED}", and none'


@pytest.mark.slow
@pytest.mark.parametrize("path", ["openai", "litellm"])
def test_an_echoed_key_reaches_no_file(monkeypatch, tmp_path, path):
    from inspect_ai import eval as inspect_eval

    from finchain_tasks.engine import all_templates
    from finchain_tasks.inspect.tasks import finchain
    from finchain_tasks.runs.cache import ResponseCache
    from finchain_tasks.runs.report import write_reports
    from finchain_tasks.runs.summary import write_summary
    from tests.runs.test_runs_units import _rich_summary

    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    template = next(iter(all_templates().values()))
    forced = {"request_path": "litellm"} if path == "litellm" else {}
    cache = tmp_path / "responses.sqlite"
    with FakeOpenAI(rule=lambda body: echo_key()) as server:
        log = inspect_eval(finchain(template=template.id, seeds=[0]), model="litellm/openai/fake",
                           model_args=dict(api_base=server.base_url, api_key_env=KEY_ENV, response_cache=str(cache),
                                           **forced),
                           log_dir=str(tmp_path / "logs"), display="none", score=False, max_retries=0)[0]
    assert server.requests and server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert log.status == "error" and REDACTED in log.error.message  # the echo arrived, and was redacted
    ResponseCache(cache).put("k", "m", {"model": "m"}, f"a reply quoting {KEY}")  # the cache stores replies
    summary = _rich_summary()
    summary["results"][0]["failures"] = [{"id": "x", "epoch": 1, "reason": f"401 Incorrect API key: {KEY}"}]
    write_summary(tmp_path, summary)
    write_reports(tmp_path, summary)
    for secret in (KEY, KEY[-12:]):
        assert files_containing(tmp_path, secret) == []
