"""vLLM on a GPU machine, offline: a tiny randomly initialised causal LM served by the REAL vLLM through
finchain's serving code, then a FinChain bench through it (``finchain bench --serve vllm``).

Figures printed:
1. building the tiny model (a Qwen3 config, 2 layers, hidden 128, the tiny PRM's byte-level BPE tokenizer
   trained in code, a ChatML chat template; saved as safetensors in a temporary folder): seconds;
2. ``VllmServer`` (what ``finchain serve vllm`` runs): seconds to a healthy /health, then N chat requests
   sent at once: requests/s and output tokens/s, then the stop: seconds, and whether the process group, its
   children and the port are gone;
3. ``finchain bench --serve vllm --gpus 1 --limit N`` in a subprocess: wall seconds, samples completed and
   scored, and the server's start-up time from the run directory's ``vllm/<model>.json``.

The answers are random tokens: the figures measure serving and plumbing, never reasoning. Nothing is
downloaded (HF_HUB_OFFLINE); the ChainEval embedder comes from its PyPI package as everywhere.

Needs vLLM and a GPU: ``pip install 'finchain-tasks[vllm]'``. Without them it stops with one line.
Run: ``python benchmarks/vllm_tiny_bench.py [--problems 20] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
REPO = Path(__file__).resolve().parents[1]
MODEL = "tiny-vllm"
CHATML = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}"
          "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def require_vllm() -> str:
    """The vllm executable, or exit with one line."""
    from finchain_tasks.models.vllm_server import VLLM_BIN_ENV

    found = shutil.which(os.environ.get(VLLM_BIN_ENV) or "vllm")
    if found is None:
        sys.exit("vllm_tiny_bench: needs vLLM and a GPU (pip install 'finchain-tasks[vllm]' on a GPU machine); "
                 "no vllm executable on PATH")
    return found


def build_tiny_model(folder: Path) -> float:
    """A seeded random Qwen3 causal LM with the tiny tokenizer and a ChatML template, saved to ``folder``."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen3Config

    from scorers.prm.tiny import tiny_tokenizer

    t0 = time.perf_counter()
    torch.manual_seed(0)
    tokenizer = tiny_tokenizer()
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    tokenizer.eos_token = "<|im_end|>"
    tokenizer.chat_template = CHATML
    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=64, max_position_embeddings=4096,
                         tie_word_embeddings=True, pad_token_id=tokenizer.pad_token_id,
                         eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.eos_token_id)
    model = AutoModelForCausalLM.from_config(config).to(torch.bfloat16)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return time.perf_counter() - t0


def write_registry(path: Path, model_dir: Path) -> Path:
    """A registry with the tiny model (served by vLLM) and a FinChain task set of canonical seed 0."""
    entry = {"name": MODEL, "display_name": "Tiny random Qwen3 (vLLM plumbing)",
             "litellm_model": f"hosted_vllm/{MODEL}", "category": "general", "params_b": 0.001,
             "open_weights": True, "hf_id": str(model_dir), "api_base_env": "FINCHAIN_TINY_VLLM_API_BASE",
             "generation": {"max_tokens": 64},
             "vllm": {"max_model_len": 4096, "dtype": "bfloat16", "gpu_memory_utilization": 0.3,
                      "args": ["--enforce-eager"]}}
    registry = {"version": 1, "models": [entry],
                "task_sets": {"tiny": {"task": "finchain", "args": {"seeds": [0]}}}}
    path.write_text(json.dumps(registry, indent=2), encoding="utf-8")  # JSON is YAML
    return path


async def _burst(base_url: str, n: int) -> tuple[float, int]:
    import httpx

    body = {"model": MODEL, "max_tokens": 64, "temperature": 0,
            "messages": [{"role": "user", "content": "What is 2 + 2?"}]}
    async with httpx.AsyncClient(timeout=120) as client:
        t0 = time.perf_counter()
        answers = await asyncio.gather(*(client.post(f"{base_url}/chat/completions", json=body) for _ in range(n)))
        wall = time.perf_counter() - t0
    tokens = sum(r.json()["usage"]["completion_tokens"] for r in answers if r.status_code == 200)
    return wall, tokens


def serve_figures(registry: Path, work: Path, n: int) -> None:
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.models.vllm_server import VllmServer

    spec = load_registry(registry).models[MODEL]
    server = VllmServer(spec, log_path=work / "serve.log", progress=lambda line: print(f"  {line}", flush=True))
    server.start()
    try:
        print(f"server: healthy in {server.startup_s:.1f} s ({' '.join(server.argv[1:4])} ...)")
        wall, tokens = asyncio.run(_burst(server.base_url, n))
        print(f"server: {n} requests at once in {wall:.2f} s: {n / wall:.1f} requests/s, {tokens / wall:.0f} output "
              f"tokens/s")
    finally:
        pid, port, t0 = server.pid, server.port, time.perf_counter()
        server.stop()
    alive = Path(f"/proc/{pid}").exists()
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        free = sock.connect_ex(("127.0.0.1", port)) != 0
    print(f"server: stopped in {time.perf_counter() - t0:.1f} s; process gone: {not alive}; port free: {free}")


def bench_figures(registry: Path, work: Path, problems: int) -> None:
    run_dir = work / "run"
    cmd = [sys.executable, "-m", "finchain_tasks.cli.main", "bench", "--registry", str(registry), "--models", MODEL,
           "--tasks", "tiny", "--limit", str(problems), "--serve", "vllm", "--gpus", "1", "--run-dir", str(run_dir),
           "--display", "none"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    summary_path = run_dir / "summary.json"
    if not summary_path.is_file():
        print(f"bench: failed (exit {done.returncode}) after {wall:.1f} s:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return
    (result,) = json.loads(summary_path.read_text())["results"]
    served = json.loads((run_dir / "vllm" / f"{MODEL}.json").read_text())
    print(f"bench: {result['completed']}/{result['requested']} samples completed and scored "
          f"({result['failed']} failed) in {wall:.1f} s wall, exit {done.returncode}; vLLM start-up "
          f"{served['startup_s']} s; chaineval {result['scores'].get('chaineval')} (random weights: meaningless)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--keep", type=Path, default=None, help="Keep the model, logs and run here.")
    args = parser.parse_args()
    print(f"vllm: {require_vllm()}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="finchain-vllm-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"tiny model: built in {build_tiny_model(work / 'model'):.1f} s")
        registry = write_registry(work / "registry.yaml", work / "model")
        serve_figures(registry, work, args.problems)
        bench_figures(registry, work, args.problems)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
