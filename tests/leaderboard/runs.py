"""Tiny real runs for the leaderboard tests: ``finchain bench`` through Inspect (two fake models) and through
lm-eval (one of them) against the FakeOpenAI server on 127.0.0.1, on the same four problems.

``fake-a`` answers every other question with the gold solution and the rest with a hostile output
(``<script>`` and ``<img onerror>``, a wrong answer), ``fake-b`` always with the gold solution, so the two
models differ, the pages have untrusted text to show, and both hosts see the same answers."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.lm_eval_helpers import gold_reply

KEY_ENV = "FINCHAIN_LB_TEST_KEY"
KEY = "sk-leaderboard-test-key-DO-NOT-PUBLISH"
TASK_SET = "lb"
LIMIT = 4
HOSTILE = ('Step 1: <script>window.__xss = 1</script> 1 + 1 = 2\n'
           'Step 2: <img src=x onerror="window.__xss = 2"> 2 + 2 = 4\nFinal answer: 4')
DOMAINS = ("personal_finance", "investment_analysis")
"""The domains whose lm-eval task files are shipped at this commit (the lm-eval run needs their leaves)."""


def reply(body) -> str:
    """fake-a: gold for questions of even length, the hostile output otherwise; fake-b: always gold."""
    gold = gold_reply(body)
    if isinstance(body, dict) and body.get("model") == "fake-a":
        users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
        if users and len(users[-1]) % 2:
            return HOSTILE
    return gold


def write_registry(path: Path, base_url: str) -> Path:
    models = [f"  - {{name: {n}, display_name: Fake {n[-1].upper()}, litellm_model: openai/{n}, category: general, "
              f"open_weights: {str(n == 'fake-b').lower()}, params_b: {1 if n == 'fake-b' else 'null'}, "
              f"hf_id: {'test/fake-b' if n == 'fake-b' else 'null'}, "
              f"api_key_env: {KEY_ENV}, api_base: '{base_url}', "
              f"price: {{input: 1.0, output: 2.0, source: test}}}}" for n in ("fake-a", "fake-b")]
    path.write_text("\n".join(["version: 1", "extends: default", "models:", *models, "task_sets:",
                               f"  {TASK_SET}: {{task: finchain, args: {{seeds: 1, domain: [{', '.join(DOMAINS)}]}}}}",
                               ""]), encoding="utf-8")
    return path


def make_runs(root: Path) -> dict[str, Path]:
    """Run both harnesses into ``root/inspect`` and ``root/lm-eval``; returns those run directories. The
    environment it sets (the key, Inspect's sample buffer under ``root``) is restored afterwards."""
    saved = {k: os.environ.get(k) for k in ("INSPECT_DISABLE_MODEL_API", KEY_ENV, "XDG_DATA_HOME")}
    os.environ.pop("INSPECT_DISABLE_MODEL_API", None)
    os.environ[KEY_ENV] = KEY
    os.environ["XDG_DATA_HOME"] = str(root / "xdg")
    try:
        return _run_both(root)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run_both(root: Path) -> dict[str, Path]:
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app
    from tests.support.fake_openai import FakeOpenAI

    out = {"inspect": root / "inspect", "lm-eval": root / "lm-eval"}
    with FakeOpenAI(reply=reply) as server:
        registry = write_registry(root / "registry.yaml", server.base_url)
        for harness, models in (("inspect", "fake-a,fake-b"), ("lm-eval", "fake-a")):
            result = CliRunner().invoke(app, ["bench", "--harness", harness, "--registry", str(registry),
                                              "--models", models, "--tasks", TASK_SET, "--limit", str(LIMIT),
                                              "--run-dir", str(out[harness]), "--display", "none"])
            assert result.exit_code == 0, f"{harness}: {result.output} {result.exception!r}"
    return out
