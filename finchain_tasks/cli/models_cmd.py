"""``finchain models`` (the registry as a table) and ``finchain serve-local`` (the local model, standalone)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from finchain_tasks.cli.main import app, console, friendly

RegistryOpt = typer.Option(None, "--registry", "-r", help="A registry YAML file (default: the shipped one).")


@app.command("models")
@friendly
def models(
    registry: Optional[Path] = RegistryOpt,
    category: Optional[list[str]] = typer.Option(None, "--category", "-c", help="Only these categories."),
) -> None:
    """List the registry's models and whether their key is set (keys themselves are never printed)."""
    from finchain_tasks.models.registry import CATEGORIES, load_registry

    reg = load_registry(registry)
    unknown = sorted(set(category or ()) - set(CATEGORIES))
    if unknown:
        raise ValueError(f"unknown category {', '.join(unknown)} (expected {', '.join(CATEGORIES)})")
    chosen = [m for m in reg.models.values() if not category or m.category in category]
    title = f"{len(chosen)} model{'s' * (len(chosen) != 1)} ({', '.join(reg.sources)})"
    console.print(_models_table(chosen, title, wide=console.width >= WIDE_MODELS))


WIDE_MODELS = 130
"""Below this many columns ``finchain models`` drops the display name and the variable names of set keys,
so that every name and every variable still to set is printed whole at 80 columns."""


def _ready(spec: Any) -> str:
    """``yes``, or what to set: the one column a user acts on (the key itself is never printed)."""
    from finchain_tasks.models.registry import missing_env

    missing = missing_env(spec)
    if missing:
        return f"[red]set {escape(', '.join(missing))}[/]"
    return "[green]yes[/] (started on demand)" if spec.local is not None else "[green]yes[/]"


def _models_table(chosen: list[Any], title: str, *, wide: bool) -> Table:
    """The registry as a table; narrow terminals get the five columns that decide what to do next."""
    table = Table(title=title) if wide else Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False,
                                                  collapse_padding=True)
    table.add_column("name", no_wrap=True)
    if wide:
        table.add_column("display name")
    for col in ("category", "size", "open"):
        table.add_column(col, no_wrap=not wide)
    if wide:
        table.add_column("needs")
    table.add_column("ready", overflow="fold")
    for m in chosen:
        size = "-" if m.params_b is None else f"{m.params_b:g}B"
        needs = [v for v in (m.api_key_env, None if m.local else m.api_base_env) if v] or ["-"]
        cells = [m.name, *([escape(m.display_name)] if wide else []), m.category, size,
                 "yes" if m.open_weights else "no", *([escape(", ".join(needs))] if wide else []), _ready(m)]
        table.add_row(*cells)
    return table


HOST_LINES = (
    "export FINCHAIN_LOCAL_API_BASE={base_url}",
    "inspect eval finchain --model litellm/openai/{alias} -M api_base={base_url} -M api_key=none",
    "OPENAI_API_KEY=none finchain-lm-eval --tasks finchain --model local-chat-completions --apply_chat_template "
    "--model_args base_url={base_url}/chat/completions,model={alias},tokenizer_backend=None,tokenized_requests=False",
)
"""What ``finchain serve-local`` prints for a running server: the registry's variable, then one command per host
(the litellm model string for Inspect, ``--model_args`` for lm-eval). The README shows the same lines; a test
holds them equal. ``api_key=none`` / ``OPENAI_API_KEY=none``: the server needs no key, and a user's real
OPENAI_API_KEY (which lm-eval's local-chat-completions would otherwise send) must not travel to it."""


def host_lines(base_url: str, alias: str) -> list[str]:
    """The ready-to-paste lines of :data:`HOST_LINES` for a server at ``base_url`` answering to ``alias``."""
    return [line.format(base_url=base_url.rstrip("/"), alias=alias) for line in HOST_LINES]


@app.command("serve-local")
@friendly
def serve_local(
    model: Optional[str] = typer.Option(None, "--model", "-m", help="A registry model with a `local` block."),
    registry: Optional[Path] = RegistryOpt,
    gguf: Optional[Path] = typer.Option(None, "--gguf", help="A GGUF file (default: the bundled Gemma 3 270M)."),
    port: int = typer.Option(0, "--port", help="Port on 127.0.0.1 (0: a free one)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="CPU threads (default: half the CPUs, 1-4)."),
    n_ctx: int = typer.Option(4096, "--ctx", help="Context size in tokens."),
    chat_template: Optional[str] = typer.Option(
        None, "--chat-template", help="llama.cpp template name or Jinja text (default: gemma for the bundled "
        "model, the GGUF's own otherwise)."),
    alias: str = typer.Option("local", "--alias", help="The model name the server answers to."),
) -> None:
    """Run the local model until Ctrl-C and print its OpenAI-compatible base URL."""
    from finchain_tasks.models.local import BUNDLED, LOCAL_MODEL_NOTE, LocalModelServer
    from finchain_tasks.models.registry import load_registry, resolve_model

    if gguf is not None and not gguf.is_file():
        raise OSError(f"{gguf}: no such GGUF file")
    if model is not None and gguf is not None:
        raise ValueError("give --model (a registry entry) or --gguf, not both")
    if model is not None:
        server = LocalModelServer.for_spec(resolve_model(model, load_registry(registry)), threads=threads, port=port)
    else:
        template = chat_template if chat_template is not None else BUNDLED
        server = LocalModelServer(gguf, alias=alias, chat_template=template, n_ctx=n_ctx, threads=threads, port=port)
    console.print("starting the local model ...", style="dim")
    with server:
        try:  # from the first line printed: a Ctrl-C at any point after start-up is a clean stop
            console.print(f"[bold]{server.base_url}[/]  (pid {server.pid}, {server.threads} threads, "
                          f"ready in {server.startup_s:.1f} s)")
            for line in host_lines(str(server.base_url), server.alias):
                console.print(line, highlight=False, markup=False, soft_wrap=True)  # never wrapped: pasted as is
            console.print(f"[yellow]{escape(LOCAL_MODEL_NOTE)}[/]")
            console.print("Ctrl-C stops it.", style="dim")
            while server.running():
                time.sleep(0.5)
        except KeyboardInterrupt:
            console.print("stopping.", style="dim")
            return
        raise RuntimeError(f"the local model server exited on its own:\n{server.log_tail()}")

