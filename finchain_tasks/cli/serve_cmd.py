"""``finchain serve vllm MODEL``: a registry model's vLLM server on this GPU machine, until Ctrl-C.

A command group (``finchain serve <engine>``) rather than a ``serve-vllm`` command: the engine is the varying
part, and another engine (SGLang, TGI) would be one more sub-command with the same options. ``serve-local``
(llama.cpp, no GPU) keeps its name and behaviour.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from finchain_tasks.cli.main import app, console, friendly

serve_app = typer.Typer(help="Serve a registry model for the benchmarks: `finchain serve vllm MODEL` (GPUs).",
                        no_args_is_help=True)
app.add_typer(serve_app, name="serve")

VLLM_HOST_LINES = (
    "inspect eval finchain --model litellm/hosted_vllm/{served} -M api_base={base_url}",
    "OPENAI_API_KEY=none finchain-lm-eval --tasks finchain --model local-chat-completions --apply_chat_template "
    "--model_args base_url={base_url}/chat/completions,model={served},tokenizer_backend=None,tokenized_requests=False",
)
"""What ``finchain serve vllm`` prints for both hosts, after the registry's ``export`` line (as ``serve-local``
does). litellm's hosted_vllm provider sends no OpenAI key; lm-eval's client would send OPENAI_API_KEY, hence
``none``."""


def vllm_host_lines(spec: Any, base_url: str, served: str) -> list[str]:
    """The lines to paste for a vLLM server of ``spec`` at ``base_url`` answering to ``served``."""
    base_url = base_url.rstrip("/")
    export = [f"export {spec.api_base_env}={base_url}"] if spec.api_base_env else []
    return [*export, *(line.format(base_url=base_url, served=served) for line in VLLM_HOST_LINES)]


@serve_app.command("vllm", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@friendly
def serve_vllm(
    ctx: typer.Context,
    model: str = typer.Argument(..., help="A registry model with a `vllm` block (`finchain models`)."),
    registry: Optional[Path] = typer.Option(None, "--registry", "-r", help="A registry YAML file."),
    vllm_bin: Optional[str] = typer.Option(None, "--vllm-bin", help="The vllm executable (default: "
                                           "$FINCHAIN_VLLM_BIN, else vllm on PATH)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (0.0.0.0: reachable from other hosts)."),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Port (0: a free one)."),
    tensor_parallel: Optional[int] = typer.Option(None, "--tensor-parallel-size", min=1, help="GPUs per replica "
                                                  "(default: the registry's, else by GPU memory)."),
    gpu_memory_gb: Optional[float] = typer.Option(None, "--gpu-memory-gb", min=1, help="Per-GPU memory for the "
                                                  "rule (default: $FINCHAIN_GPU_MEMORY_GB, else nvidia-smi)."),
    startup_timeout: Optional[float] = typer.Option(None, "--startup-timeout", min=0.1, help="Seconds to wait for "
                                                    "/health (default: $FINCHAIN_VLLM_STARTUP_TIMEOUT, else 1800)."),
    log: Optional[Path] = typer.Option(None, "--log", help="vLLM's log file (default: the cache folder)."),
) -> None:
    """Start `vllm serve` for MODEL with the registry's arguments, print its base URL and the lines to paste for
    both hosts, and stop it (and everything it spawned) on Ctrl-C. Arguments after `--` go to vllm serve."""
    from finchain_tasks.models.local import cache_dir
    from finchain_tasks.models.registry import load_registry, resolve_model
    from finchain_tasks.models.vllm_server import VllmServer, gpu_inventory

    spec = resolve_model(model, load_registry(registry))
    if spec.vllm is None:
        raise ValueError(f"model {spec.name!r} has no `vllm` block in the registry: it is not served by vLLM "
                         "(`finchain models` lists the open-weight ones)")
    gpus = gpu_inventory()
    memory = gpu_memory_gb or gpus.memory_gb
    extra = list(ctx.args)
    server = VllmServer(spec, log_path=log or cache_dir() / "vllm" / f"{spec.name}.log", vllm_bin=vllm_bin, host=host,
                        port=port, gpu_memory_gb=memory, tensor_parallel=tensor_parallel, extra_args=extra,
                        startup_timeout=startup_timeout, progress=lambda line: console.print(escape(line), style="dim"))
    _check_fits(spec, server.tensor_parallel, gpus, tensor_parallel is not None or _pipelined(extra))
    console.print(f"starting vLLM for {escape(spec.name)} (TP {server.tensor_parallel}, {memory:g} GB per GPU, "
                  f"{escape(gpus.source if gpu_memory_gb is None else '--gpu-memory-gb')}); log: "
                  f"{escape(str(server.log_path))}", style="dim", highlight=False, soft_wrap=True)
    console.print(" ".join(server.argv), style="dim", highlight=False, markup=False, soft_wrap=True)
    with server:
        try:
            _print_ready(spec, server)
            while server.running():
                time.sleep(0.5)
        except KeyboardInterrupt:
            console.print("stopping.", style="dim")
            return
        raise RuntimeError(f"the vLLM server exited on its own; its last log lines: {server.log_tail()}")


def _pipelined(extra: list[str]) -> bool:
    return any(a.split("=")[0] in ("--pipeline-parallel-size", "-pp") for a in extra)


def _check_fits(spec: Any, tp: int, gpus: Any, user_chose: bool) -> None:
    """Refuse, in one line, a tensor-parallel size this node cannot hold (when nvidia-smi counted its GPUs and
    the user did not choose the layout): vLLM would fail minutes later."""
    if user_chose or gpus.source != "nvidia-smi" or tp <= len(gpus.ids):
        return
    raise ValueError(f"{spec.name} needs {tp} GPUs of {gpus.memory_gb:g} GB (tensor-parallel rule) and this node has "
                     f"{len(gpus.ids)}: serve it across nodes with Ray (docs/running-the-matrix.md, beyond one node), "
                     f"e.g. --tensor-parallel-size {len(gpus.ids)} -- --pipeline-parallel-size "
                     f"{-(-tp // len(gpus.ids))} --distributed-executor-backend ray")


def _print_ready(spec: Any, server: Any) -> None:
    console.print(f"[bold]{escape(server.base_url)}[/]  (pid {server.pid}, TP {server.tensor_parallel}, "
                  f"ready in {server.startup_s:.1f} s)", highlight=False)
    for line in vllm_host_lines(spec, server.base_url, server.served_name):
        console.print(line, highlight=False, markup=False, soft_wrap=True)  # never wrapped: pasted as is
    if not spec.litellm_model.startswith("hosted_vllm/"):
        console.print(f"[yellow]{escape(spec.name)} is called through {escape(spec.litellm_model)} in the registry; to "
                      f"bench this server, give your registry an entry with litellm_model: "
                      f"hosted_vllm/{escape(server.served_name)} and api_base: {escape(server.base_url)}[/]")
    console.print("Ctrl-C stops it.", style="dim")
