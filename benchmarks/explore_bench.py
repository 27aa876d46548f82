"""How fast the explorer answers "score this output" once warm: the whole action behind the button (parse,
embed, gate, align, calc, HTML) in process, and the same through the running app over HTTP (Gradio's own
client, as the page calls it). Prints milliseconds; the target is under 300 ms per output on 2 cores.

    python benchmarks/explore_bench.py [--n 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def _outputs(n: int) -> list[tuple[str, str]]:
    """(problem id, output) pairs over many templates: gold texts and gold texts with a step made wrong."""
    from finchain_tasks.engine import all_templates

    templates = list(all_templates().values())
    out = []
    for k in range(n):
        p = templates[(k * 37) % len(templates)].generate(k)
        text = p.solution if k % 2 else p.solution.replace("=", "= 1 +", 1)
        out.append((p.id, text))
    return out


def _report(name: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    print(f"{name:<34} median {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   "
          f"max {ms[-1]:7.1f} ms   (n={len(ms)})")


def in_process(cases: list[tuple[str, str]]) -> list[float]:
    from finchain_tasks.explore.actions import verdict_views, warm_up

    t0 = time.perf_counter()
    warm_up()
    print(f"warm-up (embedder load, kernel compile): {time.perf_counter() - t0:.1f} s")
    times = []
    for pid, text in cases:
        t = time.perf_counter()
        verdict_views(pid, text, "paper", "calc", "", "http://127.0.0.1")
        times.append(time.perf_counter() - t)
    return times


def over_http(cases: list[tuple[str, str]]) -> list[float]:
    from gradio_client import Client

    from finchain_tasks.explore.app import build_app
    from finchain_tasks.explore.views import CSS

    demo = build_app(warm=False)
    demo.queue().launch(prevent_thread_lock=True, quiet=True, css=CSS)
    try:
        client = Client(demo.local_url, verbose=False)
        name = next(n for n in client.view_api(print_info=False, return_format="dict")["named_endpoints"]
                    if "score" in n)
        times = []
        for pid, text in cases:
            t = time.perf_counter()
            client.predict(pid, text, "paper", "", "calc", "", api_name=name)
            times.append(time.perf_counter() - t)
        return times
    finally:
        demo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    args = parser.parse_args()
    cases = _outputs(2 * args.n)  # each half new to the scorer: no output's steps were embedded before
    _report("score one output (in process)", in_process(cases[::2]))
    _report("score one output (HTTP, the app)", over_http(cases[1::2]))


if __name__ == "__main__":
    main()
