"""Shared pieces of the lm-eval tests: a gold-answering reply for the fake server, run readers."""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from finchain_tasks.engine import all_templates
from finchain_tasks.finchain import prompts
from finchain_tasks.finchain.generate import CANONICAL_SEEDS, iter_problems

VENV_BIN = Path(sys.executable).parent


@lru_cache(maxsize=1)
def _book() -> dict[str, str]:
    """What a perfect model writes after each prompt: the chat user message (the question) or the
    completion prompt (which already wrote "Step 1:") -> the gold solution."""
    book = {}
    for p in iter_problems(all_templates().values(), CANONICAL_SEEDS):
        book[p.question] = p.solution
        book[prompts.completion_prompt(p.question)] = p.solution.removeprefix("Step 1:")
    return book


def gold_reply(body: Any) -> str:
    """The fake server's answer to a chat or completions request body."""
    if not isinstance(body, dict):
        return ""
    if "messages" in body:
        users = [m.get("content", "") for m in body["messages"] if m.get("role") == "user"]
        return _book().get(users[-1] if users else "", "")
    prompt = body.get("prompt", "")
    prompt = prompt[0] if isinstance(prompt, list) and prompt else prompt
    return _book().get(prompt, "") if isinstance(prompt, str) else ""


def cli_env() -> dict[str, str]:
    """The environment for a command-line run: offline, quiet, the venv's scripts first."""
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}")
    env.pop("OPENAI_API_KEY", None)
    return env


def read_run(out_dir: Path) -> tuple[dict, dict[str, list[dict]]]:
    """The one results file and the samples (by task) that an lm-eval run wrote under ``out_dir``."""
    results_files = sorted(out_dir.rglob("results_*.json"))
    assert len(results_files) == 1, f"expected one results file, found {results_files}"
    samples = {}
    for path in out_dir.rglob("samples_*.jsonl"):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return json.loads(results_files[0].read_text("utf-8")), samples
