"""The request path alone: our ``litellm/`` Inspect provider against Inspect's own ``openai-api/``.

No task, no scorer, no log: ``--requests`` concurrent ``generate`` calls (8 connections) through each
provider to a zero-latency FakeOpenAI server in this process, after one warm-up call, repeated
``--repeats`` times in alternation so all see the same machine load. Printed: requests/s of each (median
and range) and the ratio to Inspect's own provider, for both request paths of ours (``litellm``, forced with
``request_path=litellm``, and the fast ``openai`` client path it takes for this OpenAI-compatible server),
each with and without our response cache (a fresh SQLite file, so every request misses and is written).
This isolates the provider's own cost from scoring and Inspect's eval loop, which
``harness_overhead_bench.py`` measures whole.

Run: ``python benchmarks/provider_overhead_bench.py [--requests 80] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for name, value in {"HF_HUB_OFFLINE": "1", "LITELLM_OFFLINE_MODE": "true", "FAKE_API_KEY": "sk-bench",
                    "FINCHAIN_BENCH_KEY": "sk-bench"}.items():
    os.environ.setdefault(name, value)
os.environ.pop("INSPECT_DISABLE_MODEL_API", None)


async def rate(server, name: str, count: int, **model_args) -> tuple[float, float]:
    """(requests per second, CPU milliseconds per request) of ``count`` concurrent generate calls through a fresh
    model object. The CPU time is the whole process's (the in-process server's share is the same for every
    provider): on a loaded machine it moves far less than the rate does."""
    import anyio
    from inspect_ai.model import GenerateConfig, get_model

    model = get_model(name, config=GenerateConfig(max_connections=8), memoize=False, **model_args)
    await model.generate("warm up")
    start, cpu = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as group:
        for k in range(count):
            group.start_soon(model.generate, f"question {k} {start}")  # distinct: never a cache hit
    return count / (time.perf_counter() - start), (time.process_time() - cpu) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=80)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import anyio

    import finchain_tasks._registry  # noqa: F401  (registers the litellm/ provider)
    from tests.support.fake_openai import FakeOpenAI

    rates: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="provider-bench-") as tmp, \
            FakeOpenAI(reply="Step 1: 1 + 1 = 2\nFinal answer: 2") as server:
        ours = {"api_base": server.base_url, "api_key_env": "FINCHAIN_BENCH_KEY"}
        runs = {
            "inspect openai-api/": ("openai-api/fake/fake", {"base_url": server.base_url}),
            "finchain litellm/ (litellm)": ("litellm/openai/fake", {**ours, "request_path": "litellm"}),
            "finchain litellm/ (litellm) + cache": ("litellm/openai/fake", {**ours, "request_path": "litellm"}),
            "finchain litellm/ (fast)": ("litellm/openai/fake", ours),
            "finchain litellm/ (fast) + cache": ("litellm/openai/fake", ours),
        }
        for repeat in range(args.repeats):
            for n, (label, (name, model_args)) in enumerate(runs.items()):
                if label.endswith("cache"):
                    model_args = {**model_args, "response_cache": str(Path(tmp) / f"r{repeat}-{n}.sqlite")}
                value, ms = anyio.run(functools.partial(rate, server, name, args.requests, **model_args))
                rates.setdefault(label, []).append(value)
                cpu.setdefault(label, []).append(ms)
    base = statistics.median(rates["inspect openai-api/"])
    print(f"{args.requests} concurrent requests x {args.repeats}, 8 connections, zero-latency server, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'provider':36} {'req/s (median)':>15} {'range':>15} {'openai-api/ / this':>19} {'CPU ms/req':>11}")
    for label, values in rates.items():
        med = statistics.median(values)
        print(f"{label:36} {med:15.1f} {min(values):7.1f}-{max(values):<7.1f} {base / med:19.2f} "
              f"{statistics.median(cpu[label]):11.2f}")

if __name__ == "__main__":
    main()
