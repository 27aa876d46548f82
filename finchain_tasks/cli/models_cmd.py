"""``finchain models`` (the registry as a table) and ``finchain serve-local`` (the local model, standalone)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
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
    from finchain_tasks.models.registry import CATEGORIES, load_registry, missing_env

    reg = load_registry(registry)
    unknown = sorted(set(category or ()) - set(CATEGORIES))
    if unknown:
        raise ValueError(f"unknown category {', '.join(unknown)} (expected {', '.join(CATEGORIES)})")
    chosen = [m for m in reg.models.values() if not category or m.category in category]
    table = Table(title=f"{len(chosen)} model{'s' * (len(chosen) != 1)} ({', '.join(reg.sources)})")
    for col in ("name", "display name", "category", "size", "open", "needs", "ready"):
        table.add_column(col)
    for m in chosen:
        needs = [v for v in (m.api_key_env, None if m.local else m.api_base_env) if v] or ["-"]
        missing = missing_env(m)
        ready = "[green]yes[/]" if not missing else f"[red]unset: {escape(', '.join(missing))}[/]"
        if m.local is not None and not missing:
            ready = "[green]yes[/] (started on demand)"
        size = "-" if m.params_b is None else f"{m.params_b:g}B"
        table.add_row(m.name, escape(m.display_name), m.category, size, "yes" if m.open_weights else "no",
                      escape(", ".join(needs)), ready)
    console.print(table)


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
        console.print(f"[bold]{server.base_url}[/]  (pid {server.pid}, {server.threads} threads, "
                      f"ready in {server.startup_s:.1f} s)")
        console.print(f"export FINCHAIN_LOCAL_API_BASE={server.base_url}", highlight=False)
        console.print(f"litellm: model=openai/{server.alias} api_base={server.base_url} api_key=none", highlight=False)
        console.print(f"[yellow]{escape(LOCAL_MODEL_NOTE)}[/]")
        console.print("Ctrl-C stops it.", style="dim")
        try:
            while server.running():
                time.sleep(0.5)
        except KeyboardInterrupt:
            console.print("stopping.", style="dim")
            return
        raise RuntimeError(f"the local model server exited on its own:\n{server.log_tail()}")

