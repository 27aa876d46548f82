"""Shared pieces of the ``finchain bench`` tests and benchmark: a registry of fake models pointing at a
FakeOpenAI server, a deterministic reply per question, and a scan of a run directory for a secret."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable
from pathlib import Path

KEY = "sk-test-DO-NOT-LEAK-1234"
KEY_ENV = "FINCHAIN_BENCH_TEST_KEY"
UNSET_ENV = "FINCHAIN_BENCH_TEST_UNSET_KEY"
TASK_SET = "mini"
WRONG = "Step 1: 1 + 1 = 2\nFinal answer: 2"


def plan_problems(n: int = 8) -> list:
    """The problems of the test task set: one template from each of the first ``n`` domains (levels
    spread as ``finchain eval`` spreads them), seed 0; small and fixed whatever the template count."""
    from finchain_tasks.engine import get
    from finchain_tasks.runs.engine import stratified_templates

    return [get(tid).generate(0) for tid in stratified_templates(1)[:n]]


def question_of(body) -> str:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    return str(messages[-1].get("content", "")) if messages else ""


def make_reply(problems: Iterable):
    """Gold solution for every other problem, a wrong one-step answer for the rest (scores differ)."""
    gold = {p.question: (p.solution if i % 2 == 0 else WRONG) for i, p in enumerate(problems)}
    return lambda body: gold.get(question_of(body), WRONG)


def write_registry(path: Path, base_url: str, models: Iterable[str], templates: list[str],
                   missing: Iterable[str] = ()) -> Path:
    """A registry with fake models (key in KEY_ENV; those in ``missing`` need UNSET_ENV) and the task set."""
    lines = ["version: 1", "models:"]
    for name in [*models, *missing]:
        env = UNSET_ENV if name in missing else KEY_ENV
        lines.append(f"  - {{name: {name}, display_name: Fake {name}, litellm_model: openai/{name}, "
                     f"category: general, open_weights: false, api_key_env: {env}, api_base: '{base_url}'}}")
    lines += ["task_sets:", f"  {TASK_SET}:", "    task: finchain",
              f"    args: {{seeds: [0], template: [{', '.join(templates)}]}}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def files_containing(root: Path, secret: str) -> list[str]:
    """Every file under ``root`` holding ``secret``: its raw bytes, every member of every zip archive, and every
    Inspect ``.eval`` log as Inspect's own reader (``read_eval_log``) parses it. A ``.eval`` log is a zip whose
    members are zstd-compressed (no secret shows in the raw bytes, and the stdlib cannot decompress them):
    importing ``inspect_ai.log`` first installs Inspect's zstd support, and the reader sees what a user sees."""
    hits = []
    needle = secret.encode()
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            data = path.read_bytes()
            if needle in data:
                hits.append(str(path))
            if path.suffix == ".eval":
                from inspect_ai.log import read_eval_log  # also teaches zipfile Inspect's zstd members

                if secret in read_eval_log(str(path)).model_dump_json():
                    hits.append(f"{path}!read_eval_log")
            if zipfile.is_zipfile(path):
                with zipfile.ZipFile(path) as archive:
                    hits += [f"{path}!{m}" for m in archive.namelist() if needle in archive.read(m)]
    return hits
