"""``finchain explore``: the explorer web app on 127.0.0.1 (see :mod:`finchain_tasks.explore`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from finchain_tasks.cli.main import app, console, friendly


@app.command("explore")
@friendly
def explore(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to serve on (127.0.0.1: this machine only; "
                             "any other needs --share-on-network)."),
    port: int = typer.Option(7860, "--port", min=1, max=65535, help="Port to serve on."),
    runs: Optional[list[Path]] = typer.Option(None, "--runs", "-r", help="Run directories or logs to browse "
                                              "in the Runs tab (repeatable)."),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in a browser."),
    share_on_network: bool = typer.Option(False, "--share-on-network", help="Serve to other machines (with "
                                          "--host 0.0.0.0); the page then needs the random token in the URL "
                                          "it prints."),
    export_space: Optional[Path] = typer.Option(None, "--export-space", help="Write a Hugging Face Space "
                                                "(app.py, requirements.txt, README.md, the wheel) into this folder "
                                                "and exit."),
    space_from: Optional[str] = typer.Option(None, "--space-from", help="What the Space installs: a "
                                             "finchain_tasks-*.whl file (copied into the Space) or a git+https:// "
                                             "URL; default: a wheel built from this checkout."),
) -> None:
    """A problem, a model's reasoning and ChainEval's verdict side by side, in a local web app (Gradio)."""
    if export_space is not None:
        from finchain_tasks.explore.space import write_space

        for path in write_space(export_space, space_from):
            console.print(f"wrote {path}")
        return
    from finchain_tasks.explore.guard import local_policy, network_policy

    policy = network_policy(port) if share_on_network else local_policy(host, port)  # before any import
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # offline: no usage pings
    import gradio  # noqa: F401  (a missing [explore] extra is one line, before anything loads)

    from finchain_tasks.explore.app import build_app, serve

    demo = build_app([str(p) for p in runs or []])
    serve(demo, host, port, open_browser, announce=lambda url: console.print(
        f"FinChain explorer on {url}  (Ctrl-C stops it)", highlight=False, soft_wrap=True), policy=policy)
