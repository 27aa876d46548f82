"""The README's commands, and those of the docs pages it links, run as written (parsed out of their code blocks,
not copied into the test), offline.

Each command runs through bash in a scratch directory with the virtual environment's console scripts on PATH,
the Hugging Face/litellm offline switches, an empty temporary directory (so tiktoken's default cache holds
nothing) and a proxy on a closed port (so any download attempt fails at once instead of succeeding).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.timeouts import limit

REPO = Path(__file__).resolve().parents[1]
FIRST_PAGE = (REPO / "README.md").read_text(encoding="utf-8")
README = "\n".join([FIRST_PAGE, *(p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md")))])
"""The first page and the docs pages, read as one text: a section's heading names its commands wherever it lives."""
BIN = Path(sys.executable).parent
HEAVY = ("torch", "sentence_transformers", "transformers", "numba", "inspect_ai", "litellm", "lm_eval", "datasets",
         "pandas", "sklearn", "scipy")
"""What the core (generate, verify, list, show, models) must not import: the embedder stack and the hosts."""


# ------------------------------------------------------------------------------------------ reading the README
def blocks(text: str = README) -> list[tuple[str, str]]:
    """(nearest heading above, body) of every fenced ``bash`` block."""
    out, heading = [], ""
    for match in re.finditer(r"^(#{1,4} [^\n]*)$|^```bash\n(.*?)^```", text, re.M | re.S):
        if match.group(1):
            heading = match.group(1).lstrip("#").strip()
        else:
            out.append((heading, match.group(2)))
    return out


def block(heading: str) -> str:
    found = [body for head, body in blocks() if head == heading]
    assert len(found) == 1, f"the README has {len(found)} bash blocks under '{heading}'"
    return found[0]


def all_commands(heading: str) -> list[str]:
    """The commands of every bash block under ``heading``, in order."""
    found = [c for head, body in blocks() if head == heading for c in commands(body)]
    assert found, f"the README has no bash block under '{heading}'"
    return found


def commands(body: str) -> list[str]:
    """The commands of a block: continuation lines joined, trailing ``  # comments`` dropped."""
    joined = body.replace("\\\n", " ")
    return [re.sub(r"\s{2,}#\s.*$", "", line).strip() for line in joined.splitlines() if line.strip()]


def offline_env(tmp: Path, **extra: str) -> dict[str, str]:
    scratch = tmp / "tmpdir"
    scratch.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    dead = "http://127.0.0.1:9"
    env.update({"PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "PYTHONPATH": str(REPO), "TMPDIR": str(scratch),
                "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                "LITELLM_OFFLINE_MODE": "true", "HTTPS_PROXY": dead, "HTTP_PROXY": dead, "https_proxy": dead,
                "http_proxy": dead, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                "COLUMNS": "80", **extra})
    return env


def run(command: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=limit(timeout))
    assert done.returncode == 0, f"`{command}` failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    assert "Traceback" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-6000:]
    return done


# ------------------------------------------------------------------------------------------ smoke run
@pytest.mark.slow
def test_the_smoke_run_works_offline_as_written(tmp_path):
    from inspect_ai.log import list_eval_logs, read_eval_log

    env = offline_env(tmp_path)
    lines = commands(block("Smoke run (offline, no key)"))
    assert any(c.startswith("inspect eval finchain --model mockllm/model") for c in lines)
    for command in lines:
        run(command, tmp_path, env)
    logs = [read_eval_log(info.name) for info in list_eval_logs(str(tmp_path / "logs"))]
    ran = {log.eval.task.split("/")[-1]: log for log in logs}
    evals = [c for c in lines if c.startswith("inspect eval")]
    assert len(logs) == len(evals) and set(ran) == {c.split()[2] for c in evals}
    for log in logs:
        assert log.status == "success" and len(log.samples) == 2, (log.eval.task, log.status, log.error)
        assert all(s.error is None for s in log.samples)
    assert not (tmp_path / "tmpdir" / "data-gym-cache").exists(), "tiktoken downloaded (or tried to) its encoding"


def test_the_usage_commands_run_as_written_and_list_fits_80_columns(tmp_path):
    """`finchain list / show / generate` of the Usage block (verify with 500 seeds per template and score, which
    needs a predictions file, are exercised by tests/test_cli.py with smaller inputs)."""
    lines = [c for c in commands(block("Usage")) if c.split()[1] in ("list", "show", "generate")]
    assert len(lines) >= 5
    env = offline_env(tmp_path)
    outputs = {c: run(c, tmp_path, env).stdout for c in lines}
    for name in ("finchain.jsonl", "fresh.jsonl", "finchain.parquet"):
        assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0
    assert (tmp_path / "finchain.parquet").is_file()
    fresh = [json.loads(line) for line in (tmp_path / "fresh.jsonl").read_text(encoding="utf-8").splitlines()]
    assert fresh and {r["level"] for r in fresh} == {"advanced"} and min(r["seed"] for r in fresh) >= 10
    listing = next(out for c, out in outputs.items() if c.startswith("finchain list --domain personal_finance"))
    from finchain_tasks.engine import select

    ids = [t.id for t in select(["personal_finance"], (), (), ())]
    rendered = listing.splitlines()
    assert max(len(line) for line in rendered) <= 80
    assert all(tid in (line.strip() for line in rendered) for tid in ids), "an id was cut or wrapped at 80 columns"


# ------------------------------------------------------------------------------------------ the first page
def test_the_readme_opens_with_exactly_the_two_commands():
    title, first_block = FIRST_PAGE.split("\n\n")[:2]
    assert title.startswith("# ") and first_block.startswith("```bash\n")  # the block right under the title
    assert commands(blocks(FIRST_PAGE)[0][1]) == ["make run", "make test"]


def test_run_your_model_and_read_the_report_are_on_the_first_screen():
    """The two-minute test: a newcomer with a key finds the command for their model and the report without
    scrolling (the first 50 lines), and a screenshot of the board that exists."""
    screen = "\n".join(FIRST_PAGE.splitlines()[:50])
    assert "## Run your model" in screen and "## Read the report" in screen and "report.html" in screen
    assert any(c.split()[1:3] == ["eval", "--model"] for c in commands(block("Run your model")) if "finchain" in c)
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", FIRST_PAGE)
    assert pictures and all((REPO / p).is_file() for p in pictures)


def test_every_local_link_of_the_readme_and_docs_resolves():
    for page in [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://")):
                assert (page.parent / target).exists(), f"{page.name} links {target}, which does not exist"


# ------------------------------------------------------------------------------------------ installing
def test_installing_from_source_comes_first_with_torch_cpu_and_lm_eval_uninstall_before_pip_uninstall():
    """The package is not on an index yet: the source install comes before any ``pip install finchain-tasks``."""
    lines = all_commands("Installing")
    torch_cpu = [i for i, c in enumerate(lines) if c.startswith("pip install torch")]
    source = [i for i, c in enumerate(lines) if c.startswith("pip install '.")]
    ours = [i for i, c in enumerate(lines) if c.startswith("pip install") and "finchain-tasks" in c]
    assert torch_cpu and source and torch_cpu[0] < min(source)
    assert not ours or min(source) < min(ours)
    prose = FIRST_PAGE[FIRST_PAGE.index("## Installing"):]
    assert "not on PyPI yet" in prose and prose.index("not on PyPI yet") < prose.index("finchain-tasks[")
    assert lines[torch_cpu[0]].endswith("--index-url https://download.pytorch.org/whl/cpu")
    assert lines.index("finchain lm-eval uninstall") < lines.index("pip uninstall finchain-tasks")


def test_the_core_commands_never_import_torch_or_a_host(tmp_path):
    """`import finchain_tasks` and `finchain list / show / generate / verify / models`, in a fresh process (verify on
    one template: every rule runs, and its variety rule's 1,000 draws per template made all 290 cost a minute)."""
    code = f"""
import sys
import finchain_tasks
from finchain_tasks.cli.main import app
for args in (["list"], ["show", "finchain/investment_analysis/irr/modified_irr/3"], ["models"],
             ["generate", "-n", "2", "-o", {str(tmp_path / "g.jsonl")!r}],
             ["verify", "--seeds", "2", "--template", "investment_analysis/irr/modified_irr"]):
    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:
        assert not exc.code, (args, exc.code)
print("LOADED", sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r})))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit(300),
                          env=offline_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "LOADED []"


# ------------------------------------------------------------------------------------------ hosts
def _serve_local_block() -> tuple[str, list[str]]:
    lines = commands(block("The local model for both hosts"))
    return lines[0], lines[1:]


def test_serve_local_prints_the_readme_lines():
    from finchain_tasks.cli.models_cmd import host_lines

    command, shown = _serve_local_block()
    port = int(command.split("--port")[1].split()[0])
    assert command == f"finchain serve-local --port {port}"
    assert shown == host_lines(f"http://127.0.0.1:{port}/v1", "local")  # the default --alias is "local"


@pytest.mark.slow
def test_the_readme_host_lines_reach_a_keyless_server_without_the_users_key(tmp_path):
    """The README's Inspect and lm-eval lines, pointed at a fake OpenAI-compatible server in place of the
    local model (one sample per task), send the placeholder key, never the user's OPENAI_API_KEY."""
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.lm_eval_helpers import gold_reply

    command, shown = _serve_local_block()
    readme_url = shown[0].split("=", 1)[1]
    env = offline_env(tmp_path, OPENAI_API_KEY="sk-users-own-key-must-not-travel")
    env.pop("INSPECT_DISABLE_MODEL_API", None)  # the tests' guard against real APIs: this server is a local fake
    with FakeOpenAI(reply=gold_reply) as server:
        for line in shown[1:]:
            run(line.replace(readme_url, server.base_url) + " --limit 1", tmp_path, env)
        requests = list(server.requests)
    assert len({r.path for r in requests}) == 1 and len(requests) >= 2
    assert {r.headers.get("authorization") for r in requests} == {"Bearer none"}
    assert {r.body.get("model") for r in requests} == {"local"}


def test_finchain_tasks_lists_what_each_host_finds():
    import inspect_ai
    from lm_eval.tasks import TaskManager

    from finchain_tasks.cli.lm_eval_cmd import inspect_task_names, lm_eval_task_names
    from finchain_tasks.lm_eval import TASKS_DIR

    found = inspect_ai.list_tasks(root_dir=REPO / "finchain_tasks" / "inspect")
    assert inspect_task_names() == sorted(t.name for t in found)
    manager = TaskManager(include_path=str(TASKS_DIR), include_defaults=False)
    groups, leaves = lm_eval_task_names()
    assert groups == sorted(manager.all_groups) and leaves == sorted(manager.all_subtasks)


@pytest.mark.slow
def test_lm_evals_own_listing_line_runs_as_written(tmp_path):
    (line,) = [c for c in all_commands("In the evaluation hosts") if c.startswith("lm_eval ls")]
    out = run(line, tmp_path, offline_env(tmp_path)).stdout
    from finchain_tasks.cli.lm_eval_cmd import lm_eval_task_names

    assert all(re.search(rf"\b{g}\b", out) for g in lm_eval_task_names()[0])
