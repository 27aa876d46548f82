"""How long ``finchain bench --plan`` takes on the paper's matrix (every registry model x the ``finchain`` task set,
2,900 problems): rendering the prompts through the real task, then counting them per tokenizer.

    python -m benchmarks.plan_bench            # prints seconds per phase and the totals

Prints figures; asserts nothing (timings belong here, not in tests).
"""

from __future__ import annotations

import time


def main() -> None:
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs import engine
    from finchain_tasks.runs.plan import build_plan
    from finchain_tasks.runs.rendered import render_task_set
    from finchain_tasks.runs.tokens import Counters

    reg = load_registry()
    plan = engine.plan_task_set(reg, "finchain", profile="paper")
    t0 = time.perf_counter()
    rendered = render_task_set(plan)
    t1 = time.perf_counter()
    counters = Counters()
    for spec in reg.models.values():
        counters.for_model(spec).total(rendered.prompts)
    t2 = time.perf_counter()
    ready, skipped = engine.split_ready(list(reg.models.values()))
    bill = build_plan(list(reg.models.values()), [plan], skipped)
    t3 = time.perf_counter()
    total = bill["totals"]
    print(f"render {len(rendered.prompts)} prompts through the task: {t1 - t0:.1f} s")
    print(f"count them for {len(reg.models)} models: {t2 - t1:.2f} s")
    print(f"whole plan (render, count, price, {len(bill['rows'])} rows): {t3 - t2:.1f} s")
    print(f"requests {total['requests']:,}, prompt tokens {total['prompt_tokens']:,}, "
          f"known cost ${total['cost_usd']['expected']:.2f}, unknown: {len(total['unknown_cost_models'])} models")


if __name__ == "__main__":
    main()
