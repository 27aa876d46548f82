"""Harness overhead: requests per second that each way of running FinChain drives through a zero-latency
OpenAI-compatible server (FakeOpenAI on 127.0.0.1, in this process; every client in its own subprocess).

    .venv/bin/python benchmarks/harness_overhead_bench.py [--seeds 1] [--domain personal_finance] [--connections 8]
        [--repeats 1] [--only "finchain bench (,openai-api/)"] [--profile]

``--only`` keeps the harnesses whose name contains one of the comma-separated strings; ``--profile`` runs
``finchain bench`` (Inspect, fast path) under cProfile and prints where its event loop spends its time (the thread
that sends requests; scoring runs in a worker thread, whose cost shows as the loop waiting).

Every row sends the same requests: every template (of ``--domain``, default all 290) at seeds ``0..seeds-1``,
selected the way each harness selects problems (``-T seeds=K``, lm-eval's ``finchain_seeds``, a registry task set
with ``seeds: K``) and never by ``--limit``, whose meaning differs between hosts (lm-eval's is per leaf task: the two
lm-eval rows once sent 33 and 1,185 requests). The table says how many each row sent and flags a mismatch.

Compared, on the same server, the same problems and the same concurrency:
- ``finchain bench`` (eval-set + our ``litellm/`` provider + the response cache + ChainEval scoring), on the
  provider's fast path (the ``openai`` client, which it takes for this OpenAI-compatible server) and with
  ``FINCHAIN_REQUEST_PATH=litellm`` (through ``litellm.acompletion``)
- ``finchain bench --harness lm-eval`` (``finchain-lm-eval`` per model with ``local-chat-completions``)
- ``inspect eval`` with Inspect's own ``openai-api/`` provider (same task and scorer)
- ``inspect eval`` with Inspect's own ``openai/`` provider (OPENAI_BASE_URL pointed at the server)
- ``finchain-lm-eval`` with lm-eval's ``local-chat-completions`` backend
- for reference, Inspect's ``openai-api/`` without scoring (``--no-score``): Inspect's own floor per request,
  since the Inspect runs score each sample while requests are in flight and lm-eval scores after them

Throughput is measured at the server from request arrival times, so process start-up and the final report
are left out: ``req/s`` over the whole request loop (first to last arrival) and ``steady`` over its second
half (after one-off costs inside the loop, such as a scorer loading its model on the first sample). Printed as
ratios on the steady rate: ``fastest/this`` and ``inspect/this`` (Inspect's own ``openai-api/`` provider with
scoring, measured in the same run, over this one: the issue's target for ``finchain bench`` is <= 1.2). Beside the
rates: the wall time, the CPU time (user + system) of each whole command and its CPU milliseconds per request,
which a rate measured at the server hides (a harness can keep the server busy while burning twice the CPU).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.bench_helpers import KEY, KEY_ENV, make_reply, write_registry  # noqa: E402
from tests.support.fake_openai import FakeOpenAI  # noqa: E402

BIN = Path(sys.executable).parent
CLI = "from finchain_tasks.cli.main import app; app(prog_name='finchain')"
FAST = "finchain bench (fast path)"
SLOW = "finchain bench (litellm path)"
INSPECT = "inspect eval (openai-api/)"
EXTRA_ENV = {SLOW: {"FINCHAIN_REQUEST_PATH": "litellm"}, FAST: {"FINCHAIN_REQUEST_PATH": "auto"}}
"""Per-harness environment: the two request paths of ``finchain bench`` differ only in it."""
PROFILED = ("import cProfile, os; from finchain_tasks.cli.main import app; "
            "cProfile.run(\"app(prog_name='finchain')\", os.environ['FINCHAIN_PROFILE_OUT'])")


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1", LITELLM_OFFLINE_MODE="true",
               TOKENIZERS_PARALLELISM="false", PYTHONPATH=str(ROOT), FAKE_API_KEY=KEY, OPENAI_API_KEY=KEY)
    out[KEY_ENV] = KEY
    out.pop("INSPECT_DISABLE_MODEL_API", None)
    return out


def bench_problems(domain: str | None = None) -> list:
    """Every template (of ``domain``) at seed 0: the set each row draws its problems from."""
    from finchain_tasks.engine import select

    return [t.generate(0) for t in select([domain] if domain else [], (), (), ())]


def expected_requests(domain: str | None, seeds: int) -> int:
    """What every row must send: one request per template and seed."""
    return len(bench_problems(domain)) * seeds


def commands(base_url: str, work: Path, seeds: int, conns: int, domain: str | None = None) -> dict[str, list[str]]:
    """Each harness's command for every template (of ``domain``) at seeds ``0..seeds-1``; no ``--limit``."""
    task_args = f"{{seeds: {seeds}{f', domain: {domain}' if domain else ''}}}"
    registry = write_registry(work / "registry.yaml", base_url, ["fake"], [p.template_id for p in bench_problems()])
    registry.write_text(registry.read_text() + f"  every:\n    task: finchain\n    args: {task_args}\n")
    inspect_args = ["finchain_tasks/finchain", "-T", f"seeds={seeds}", *(["-T", f"domain={domain}"] if domain else []),
                    "--max-connections", str(conns), "--display", "none"]
    lm_args = (f"base_url={base_url}/chat/completions,model=fake,num_concurrent={conns},"
               "tokenized_requests=False,tokenizer_backend=None,max_retries=1")
    lm_tasks = f"finchain_{domain}" if domain else "finchain"
    bench = [sys.executable, "-c", CLI, "bench", "--registry", str(registry), "--models", "fake", "--tasks", "every",
             "--max-connections", str(conns), "--run-dir"]
    return {
        FAST: [*bench, str(work / "bench"), "--display", "none"],
        SLOW: [*bench, str(work / "bench-litellm"), "--display", "none"],
        "finchain bench --harness lm-eval": [*bench, str(work / "bench-lm-eval"), "--harness", "lm-eval"],
        INSPECT: [str(BIN / "inspect"), "eval", *inspect_args, "--model", "openai-api/fake/fake",
                  "--log-dir", str(work / "openai-api")],
        "inspect eval (openai/)": [str(BIN / "inspect"), "eval", *inspect_args, "--model", "openai/fake", "-M",
                                   "responses_api=false", "--model-base-url", base_url,
                                   "--log-dir", str(work / "openai")],
        "inspect eval (openai-api/) no score": [str(BIN / "inspect"), "eval", *inspect_args, "--no-score", "--model",
                                                "openai-api/fake/fake", "--log-dir", str(work / "no-score")],
        "lm-eval (local-chat-completions)": [str(BIN / "finchain-lm-eval"), "--tasks", lm_tasks, "--model",
                                             "local-chat-completions", "--model_args", lm_args,
                                             "--apply_chat_template", "--metadata", f'{{"finchain_seeds": {seeds}}}',
                                             "--output_path", str(work / "lm-eval")],
    }


def measure(server: FakeOpenAI, cmd: list[str], extra_env: dict[str, str]) -> tuple[int, float, float, float, float]:
    """(requests, requests per second over the loop, over its second half, wall seconds of the command, CPU
    seconds of the command). The CPU time (user + system of the child and its children) moves far less than the
    rates on a machine shared with other work."""
    start = len(server.requests)
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, cwd=ROOT, env={**env(), **extra_env}, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{cmd[:3]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    arrivals = sorted(r.received for r in server.requests[start:])
    if len(arrivals) < 4:
        raise RuntimeError(f"{cmd[:3]} sent {len(arrivals)} request(s):\n{proc.stderr[-3000:]}")
    mid = len(arrivals) // 2
    whole = (len(arrivals) - 1) / max(arrivals[-1] - arrivals[0], 1e-9)
    steady = (len(arrivals) - 1 - mid) / max(arrivals[-1] - arrivals[mid], 1e-9)
    return len(arrivals), whole, steady, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="seeds per template (every row: templates x seeds)")
    parser.add_argument("--domain", default=None, help="one domain's templates only (a quicker run)")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1, help="runs per harness; the best is kept")
    parser.add_argument("--only", default="", help="comma-separated parts of harness names to run")
    parser.add_argument("--profile", action="store_true", help="profile finchain bench (Inspect) with cProfile")
    args = parser.parse_args()
    wanted = [w for w in args.only.split(",") if w]
    problems = bench_problems(args.domain)
    best: dict[str, tuple[int, float, float, float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp, FakeOpenAI(reply=make_reply(problems)) as server:
        for repeat in range(args.repeats):
            work = Path(tmp) / f"r{repeat}"
            work.mkdir()
            for name, cmd in commands(server.base_url, work, args.seeds, args.connections, args.domain).items():
                if wanted and not any(w in name for w in wanted):
                    continue
                extra = {"FAKE_BASE_URL": server.base_url, **EXTRA_ENV.get(name, {})}
                if args.profile and name == FAST:
                    cmd = [cmd[0], "-c", PROFILED, *cmd[3:]]
                    extra["FINCHAIN_PROFILE_OUT"] = str(work / "bench.prof")
                result = measure(server, cmd, extra)
                if name not in best or result[2] > best[name][2]:
                    best[name] = result
                if args.profile and name == FAST:
                    print_profile(work / "bench.prof")
    report(best, expected_requests(args.domain, args.seeds), args.connections)


def report(best: dict[str, tuple[int, float, float, float, float]], expected: int, connections: int) -> None:
    """The table (absolute rates, CPU time, CPU per request and ratios on the steady rate) and the verdict on the
    1.2x target. A row that sent another number of requests than ``expected`` is flagged: it did other work."""
    fastest = max(row[2] for row in best.values())
    inspect = best.get(INSPECT, (0, 0.0, 0.0, 0.0, 0.0))[2]
    print(f"{expected} requests per row (the same problems), {connections} connections, zero-latency server, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'harness':36} {'requests':>8} {'req/s':>7} {'steady':>7} {'wall s':>7} {'CPU s':>7} {'CPU ms/req':>10} "
          f"{'fastest/this':>12} {'inspect/this':>12}")
    for name, (count, rps, steady, wall, cpu) in best.items():
        versus = f"{inspect / steady:12.2f}" if inspect else f"{'-':>12}"
        flag = "" if count == expected else f"  (!) {count} requests, not {expected}: other work"
        print(f"{name:36} {count:8d} {rps:7.1f} {steady:7.1f} {wall:7.1f} {cpu:7.1f} {1000 * cpu / count:10.1f} "
              f"{fastest / steady:12.2f} {versus}{flag}")
    for name in (FAST, SLOW):
        if name in best and inspect:
            print(f"{name}: Inspect's own openai-api/ provider (scoring too) runs at {inspect / best[name][2]:.2f}x "
                  "its steady rate (target <= 1.2)")
    if "finchain bench --harness lm-eval" in best:
        ours_lm = best["finchain bench --harness lm-eval"][2]
        print(f"finchain bench --harness lm-eval: the fastest is {fastest / ours_lm:.2f}x faster (target <= 1.2)")


def print_profile(path: Path, top: int = 25) -> None:
    """The functions where the event loop's thread spent most of its own time, and the costliest call trees."""
    import pstats

    if not path.exists():
        print(f"(no profile written at {path})")
        return
    stats = pstats.Stats(str(path))
    stats.sort_stats("tottime").print_stats(top)
    # the request path, without the one-off imports that dominate a short run
    stats.sort_stats("cumulative").print_stats(r"litellm_provider|openai_fast|_base_client|runs/cache|litellm/main|"
                                               r"litellm/utils|litellm_logging|inspect/scorer|batcher|_model\.py", top)
    stats.print_callers(r"copy\.py.*\(deepcopy\)", 12)


if __name__ == "__main__":
    main()
