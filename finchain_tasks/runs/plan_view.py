"""How a plan (:mod:`finchain_tasks.runs.plan`) is shown: three tables that fit 80 columns, or JSON.

The bill has more columns than 80 characters hold, so it is split the way the run summary splits results
and resources: requests and tokens; cost and time; then how each model's figures were obtained (exact
tokenizer or approximation, measured or default output). Numbers are compact (``1.2M``), a range sits under
its expected figure in the same cell, and an unknown cost reads ``unknown``, never ``$0``.
"""

from __future__ import annotations

import json
from typing import Any, Optional

SKIP_MARK = "‡"
"""Marks a row whose model would be skipped now (its key or base URL is not set)."""


def compact(n: float) -> str:
    """``950``, ``12.3k``, ``4.56M``, ``1.2B``, ``3T``: a count in at most six characters (``1e+18`` beyond)."""
    if n < 999.5:
        return f"{n:.0f}"
    for size, unit in ((1e3, "k"), (1e6, "M"), (1e9, "B"), (1e12, "T")):
        text = f"{n / size:.3g}"
        if "e" not in text and float(text) < 1000:
            return text + unit
    return f"{n:.0e}"


def money(usd: Optional[float]) -> str:
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0"
    if usd < 0.01:
        return "<$0.01"
    return f"${usd:,.0f}" if usd >= 1000 else f"${usd:.2f}"


def cost_cell(cost: Optional[dict[str, float]]) -> str:
    """Expected cost over its low-high range (the range only where it differs)."""
    if cost is None:
        return "unknown"
    if money(cost["low"]) == money(cost["high"]):
        return money(cost["expected"])
    return f"{money(cost['expected'])}\n{money(cost['low'])}-{money(cost['high']).lstrip('$')}"


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes = seconds / 60
    if minutes < 60:
        return f"{minutes:.0f}m"
    hours, rest = divmod(round(minutes), 60)
    return f"{hours}h{rest:02d}m" if hours < 48 else f"{hours / 24:.1f}d"


def _label(row: dict[str, Any]) -> str:
    return f"{row['model']} · {row['task_set']}" + (f" {SKIP_MARK}" if row["skip"] else "")


def _tokens_out(out: dict[str, Any]) -> str:
    """Expected output tokens over their low-high range (the range only where it differs)."""
    if compact(out["low"]) == compact(out["high"]):
        return compact(out["expected"])
    return f"{compact(out['expected'])}\n{compact(out['low'])}-{compact(out['high'])}"


def tables(plan: dict[str, Any]) -> list[Any]:
    """The rich tables of a plan (see the module docstring)."""
    from rich.markup import escape

    from finchain_tasks.runs.summary import _table

    rows, total = plan["rows"], plan["totals"]
    scope = f"--limit {plan['limit']}" if plan.get("limit") else "every sample"
    tokens = _table(f"The bill, 1/2: requests and tokens ({scope})", ["model · task", "requests", "prompt tok",
                                                                       "output tok"])
    money_table = _table("The bill, 2/2: cost (USD) and time", ["model · task", "list price", "batch", "wall"])
    for r in rows:
        label = escape(_label(r))
        exact = "" if r["tokenizer_exact"] else "≈"
        tokens.add_row(label, f"{r['requests']:,}", f"{exact}{compact(r['prompt_tokens'])}",
                       _tokens_out(r["output_tokens"]))
        batch = "-" if r["batch"] is None else cost_cell(r["batch"]["cost_usd"])
        money_table.add_row(label, cost_cell(r["cost_usd"]), batch, duration(r["wall_s"]))
    tokens.add_section()
    exact = "" if all(r["tokenizer_exact"] for r in rows) else "≈"
    tokens.add_row("total", f"{total['requests']:,}", f"{exact}{compact(total['prompt_tokens'])}",
                   _tokens_out(total["output_tokens"]))
    unknown = len(total["unknown_cost_models"])
    money_table.add_section()
    money_table.add_row(f"total (known){f' + {unknown} unknown' if unknown else ''}", cost_cell(total["cost_usd"]),
                        cost_cell(total["batch_cost_usd"]), duration(total["wall_s"]))
    money_table.caption = ("expected over low-high (output-token range); batch: the provider's batch API where it "
                           "has one, else list price; wall: models side by side")
    return [tokens, money_table, _basis_table(rows)]


def _basis_table(rows: list[dict[str, Any]]) -> Any:
    """How each figure was obtained, one row per distinct way (tokenizer, output tokens, wall time), naming its
    models: 27 models in a handful of rows."""
    from rich.markup import escape

    from finchain_tasks.runs.summary import _table

    groups: dict[tuple[str, str, str], list[str]] = {}
    for r in rows:
        key = (r["tokenizer"], r["output_tokens"]["source"], r["wall_basis"])
        if r["model"] not in groups.setdefault(key, []):
            groups[key].append(r["model"])
    table = _table("How each figure was obtained", ["models", "prompt tokens", "output tokens", "wall time"], left=4)
    for (tokenizer, source, wall), models in groups.items():
        table.add_row(escape(", ".join(models)), escape(tokenizer), escape(source), escape(wall))
    return table


def notes(plan: dict[str, Any]) -> list[str]:
    """Lines under the tables: skipped models, unknown prices, what ≈ means."""
    lines = []
    if plan["skipped"]:
        ready = plan["totals_ready"]
        lines.append(f"{SKIP_MARK} skipped now (key or base URL not set): {len(plan['skipped'])} model(s); the "
                     f"models that can run now: {ready['requests']:,} requests, known cost "
                     f"{money((ready['cost_usd'] or {}).get('expected'))}")
    answered = sum(r["answered_in_run_dir"] for r in plan["rows"])
    if answered:
        lines.append(f"{plan['run_dir']} already holds {answered:,} of these {plan['totals']['requests']:,} requests' "
                     "answers: a resumed run does not send them again")
    if plan["totals"]["unknown_cost_models"]:
        lines.append("cost unknown (no price in litellm's map or the registry): "
                     + ", ".join(plan["totals"]["unknown_cost_models"]))
    if any(not r["tokenizer_exact"] for r in plan["rows"]):
        lines.append("≈ prompt tokens approximated (the model's tokenizer is not on this machine); "
                     "see docs/running-the-matrix.md")
    return lines


def show(plan: dict[str, Any], console: Any, as_json: bool = False) -> None:
    """Print the plan: JSON on stdout (``--json``), else the tables and notes."""
    if as_json:
        print(json.dumps(plan, indent=2, ensure_ascii=False))
        return
    from rich.markup import escape

    for table in tables(plan):
        console.print(table)
    for line in notes(plan):
        console.print(f"[yellow]{escape(line)}[/]")


def skipped_table(plan: dict[str, Any]) -> Any:
    """The models that would be skipped now, grouped by what is missing (26 models stay a few lines)."""
    from rich.markup import escape

    from finchain_tasks.runs.summary import _table

    groups: dict[str, list[str]] = {}
    for item in plan["skipped"]:
        groups.setdefault(item["reason"], []).append(item["model"])
    table = _table(f"{SKIP_MARK} Would be skipped now: {len(plan['skipped'])} model(s)", ["missing", "models"],
                   left=2)
    for reason, models in groups.items():
        table.add_row(escape(reason), escape(", ".join(models)))
    return table


def print_plan(specs: Any, plans: Any, skipped: Any, limit: Optional[int], max_connections: Optional[int],
               run_dir: Any, as_json: bool, console: Any) -> None:
    """``--plan``: build the bill and print it (the commands' one call into this module)."""
    from finchain_tasks.runs.plan import build_plan

    plan = build_plan(specs, plans, skipped, limit=limit, max_connections=max_connections, run_dir=run_dir)
    show(plan, console, as_json)
    if plan["skipped"] and not as_json:
        console.print(skipped_table(plan))
