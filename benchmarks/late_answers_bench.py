"""Answers near the attempt timeout: what our ``litellm/`` provider sends and uses, against Inspect's ``openai-api/``.

Issue 40.4's slow machine, reproduced on the server side: ``--requests`` distinct requests, ``--connections``
at a time, go to a FakeOpenAI server in this process that answers each send of a request after that request's
own latency (drawn once per request, seeded: a share ``--slow`` of them between 1.2 and 2.4 attempt timeouts for
every send, a uniformly slow server; a share ``--stalled`` never answer their first send and answer later ones
fast; the rest well within one timeout). Inspect's attempt timeout is
``--attempt`` seconds, with ``--retries`` retries (a 0.05 s first backoff for ours; Inspect's provider keeps its
own, 3 s, so compare its sends and answers, not its wall time). Each provider runs the same requests in
alternation, ``--repeats`` times.

Inspect's own provider cancels the send at the attempt timeout and sends again, as ours did before: a slow
request never completes, each of its sends is abandoned. Ours races the open send against the new one (see
:mod:`finchain_tasks.inspect.open_sends`). Printed per provider (medians): requests that got an answer, sends
per request, sends abandoned (the client closed them: their answer, paid or not, was thrown away), answers the
server delivered, late answers used, the most sends of one request open at once, and the wall time.

Run: ``python benchmarks/late_answers_bench.py [--requests 48] [--repeats 2]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for name, value in {"HF_HUB_OFFLINE": "1", "LITELLM_OFFLINE_MODE": "true", "FAKE_API_KEY": "sk-bench",
                    "FINCHAIN_BENCH_KEY": "sk-bench"}.items():
    os.environ.setdefault(name, value)
os.environ.pop("INSPECT_DISABLE_MODEL_API", None)


def latencies(count: int, attempt: float, slow: float, stalled: float, seed: int) -> dict[str, list[float]]:
    """prompt -> the latency of its first send and of every later one (seconds; 600 = never)."""
    rng = random.Random(seed)
    out = {}
    for k in range(count):
        draw = rng.random()
        if draw < stalled:
            first, later = 600.0, rng.uniform(0.05, 0.5) * attempt
        elif draw < stalled + slow:
            first = later = rng.uniform(1.2, 2.4) * attempt
        else:
            first = later = rng.uniform(0.05, 0.5) * attempt
        out[f"question {k}"] = [first, later]
    return out


async def run(server, name: str, plan: dict[str, list[float]], args, **model_args) -> dict[str, float]:
    import anyio
    from inspect_ai.model import GenerateConfig, get_model

    config = GenerateConfig(max_connections=args.connections, max_retries=args.retries)
    config.attempt_timeout = args.attempt  # type: ignore[assignment]  # whole seconds only through the constructor
    model = get_model(name, config=config, memoize=False, **model_args)
    await model.generate("warm up")
    first = len(server.requests)
    done: list[bool] = []

    async def ask(prompt: str) -> None:
        try:
            await model.generate(prompt)
            done.append(True)
        except Exception:
            done.append(False)

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for prompt in plan:
            group.start_soon(ask, prompt)
    wall = time.perf_counter() - start
    await anyio.sleep(0.2)  # the server sees the last closes
    sends = server.requests[first:]
    return {"answered": sum(done), "sends/request": len(sends) / len(plan),
            "abandoned": sum(r.dropped for r in sends), "delivered": sum(r.answered for r in sends),
            "late used": getattr(model.api, "late_answers", 0),
            "most open": max(r.open_with for r in sends), "wall s": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--attempt", type=float, default=0.5)
    parser.add_argument("--retries", type=int, default=4)
    parser.add_argument("--slow", type=float, default=0.25)
    parser.add_argument("--stalled", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import anyio

    import finchain_tasks._registry  # noqa: F401  (registers the litellm/ provider)
    from tests.support.fake_openai import FakeOpenAI, delay

    plan = latencies(args.requests, args.attempt, args.slow, args.stalled, args.seed)
    seen: dict[str, int] = {}

    def rule(body):
        prompt = body["messages"][-1]["content"] if isinstance(body, dict) and body.get("messages") else ""
        if prompt not in plan:
            return None
        n = seen.get(prompt, 0)
        seen[prompt] = n + 1
        return delay(plan[prompt][min(n, 1)])

    results: dict[str, list[dict[str, float]]] = {}
    with FakeOpenAI(rule=rule, reply="Step 1: 1 + 1 = 2\nFinal answer: 2") as server:
        ours = {"api_base": server.base_url, "api_key_env": "FINCHAIN_BENCH_KEY", "retry_wait": 0.05}
        runs = {"inspect openai-api/ (cancel, send again)": ("openai-api/fake/fake", {"base_url": server.base_url}),
                "finchain litellm/ (race)": ("litellm/openai/fake", ours)}
        for _ in range(args.repeats):
            for label, (name, model_args) in runs.items():
                seen.clear()
                results.setdefault(label, []).append(anyio.run(functools.partial(run, server, name, plan, args,
                                                                                  **model_args)))
    kinds = [sum(1 for v in plan.values() if v[0] >= 600), sum(1 for v in plan.values() if args.attempt < v[0] < 600)]
    print(f"{args.requests} requests ({kinds[1]} slow: first answer after 1.2-2.4 attempt timeouts; {kinds[0]} "
          f"stalled first send), attempt timeout {args.attempt} s, {args.retries} retries, {args.connections} "
          f"connections, {args.repeats} repeats (medians); {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    keys = list(next(iter(results.values()))[0])
    print(f"{'provider':42}" + "".join(f"{k:>14}" for k in keys))
    for label, rows in results.items():
        print(f"{label:42}" + "".join(f"{statistics.median(r[k] for r in rows):14.2f}" for k in keys))


if __name__ == "__main__":
    main()
