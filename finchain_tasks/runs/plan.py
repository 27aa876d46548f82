"""The bill before the first request: ``finchain bench --plan`` and ``finchain eval --plan``.

Per model x task set: the requests the run will send (samples x epochs x Best-of-N candidates, after
``--limit``), the prompt tokens of the real rendered prompts (:mod:`finchain_tasks.runs.rendered`) counted with
the model's tokenizer where this machine has it (:mod:`finchain_tasks.runs.tokens`), the expected output tokens
(from the model's earlier runs in the run directory, else a stated default with its range:
:mod:`finchain_tasks.runs.plan_defaults`), the cost at list price (``resolve_price``; unknown stays unknown,
never 0) and through the provider's batch API (``resolve_batch_price``), and the wall time. Nothing is sent, no
server starts, nothing is written. The result is a plain dict (the ``--json`` output; schema in
docs/running-the-matrix.md); :mod:`finchain_tasks.runs.plan_view` prints it.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.runs import CACHE, SUMMARY
from finchain_tasks.runs.plan_defaults import DEFAULT_CONNECTIONS, output_guess, throughput
from finchain_tasks.runs.rendered import RenderedTaskSet, render_task_set

SCHEMA = "finchain-plan/1"


@dataclass(frozen=True)
class Earlier:
    """What a model's earlier answers measured: output tokens and (from a summary) seconds per request."""

    output_per_request: float
    seconds_per_request: Optional[float]
    answers: int
    source: str


# ------------------------------------------------------------------------------------------ earlier runs
def earlier_from_summary(run_dir: Optional[Path], candidates: dict[str, int]) -> dict[tuple[str, str], Earlier]:
    """(model, task set) -> Earlier from the run directory's summary.json (rows that recorded tokens)."""
    path = Path(run_dir) / SUMMARY if run_dir else None
    if path is None or not path.is_file():
        return {}
    from finchain_tasks.plumbing.safe_files import load_json

    try:
        summary = load_json(path)  # a regular file only; bad JSON, UTF-8 or nesting is a ValueError
    except (OSError, ValueError):
        return {}
    results = summary.get("results") if isinstance(summary, dict) else None
    if not isinstance(results, list):
        return {}
    out = {}
    for r in results:
        if not isinstance(r, dict) or not isinstance(r.get("model"), str) or not isinstance(r.get("task_set"), str):
            continue
        answers = int(sum(_count(r.get(k)) or 0 for k in ("completed", "failed")))
        tokens, wall = _count(r.get("output_tokens")), _count(r.get("wall_s"))
        if not answers or tokens is None:
            continue
        n = candidates.get(r.get("task_set"), 1)
        requests = max(_count(r.get("requested")) or answers, answers) * n
        out[(r.get("model"), r.get("task_set"))] = Earlier(
            tokens / (answers * n), wall / requests if wall else None, answers * n, f"earlier run ({SUMMARY})")
    return out


def _count(value: Any) -> Optional[float]:
    """A recorded count or duration, or None for anything else (a summary edited by hand: NaN, text, negative,
    absurd), so that a bad figure falls back to the defaults instead of poisoning the bill."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value < 1e15 else None


def earlier_from_cache(run_dir: Optional[Path]) -> dict[str, Earlier]:
    """Registry name (else litellm id) -> Earlier from the run directory's response cache, read-only. A cache
    that cannot be read gives nothing: a plan never fails on it (the run sets a bad cache aside)."""
    path = Path(run_dir) / CACHE if run_dir else None
    if path is None or not path.is_file():
        return {}
    tokens: dict[str, list[int]] = defaultdict(list)
    try:
        db = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT model, request, output FROM responses").fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return {}
    for model, request, output in rows:
        try:
            name = json.loads(request).get("finchain_model") or model
            used = (json.loads(output).get("usage") or {}).get("output_tokens")
        except (ValueError, AttributeError):
            continue
        if isinstance(used, int):
            tokens[str(name)].append(used)
    return {name: Earlier(sum(v) / len(v), None, len(v), f"response cache ({len(v)} answers)")
            for name, v in tokens.items() if v}


# ------------------------------------------------------------------------------------------ one row
def _max_tokens(spec: Any, task_default: Optional[int]) -> Optional[int]:
    return spec.generation.max_tokens or task_default


def _price_dict(price: Any) -> Optional[dict[str, Any]]:
    return asdict(price) if price is not None else None


def _cost(price: Any, prompt: int, output: dict[str, float]) -> Optional[dict[str, float]]:
    """USD at ``price`` (per 1M tokens) for the expected, low and high output; None when the price is unknown."""
    if price is None:
        return None
    return {k: round((prompt * price.input + output[k] * price.output) / 1e6, 6) for k in ("expected", "low", "high")}


def _output(spec: Any, rendered: RenderedTaskSet, earlier: Optional[Earlier]) -> dict[str, Any]:
    requests = rendered.requests
    if earlier is not None:
        per = earlier.output_per_request
        return {"per_request": round(per, 1), "expected": round(per * requests), "low": round(per * requests),
                "high": round(per * requests), "source": earlier.source}
    guess = output_guess(spec.category, _max_tokens(spec, rendered.max_tokens))
    return {"per_request": guess.expected, "expected": guess.expected * requests, "low": guess.low * requests,
            "high": guess.high * requests, "source": f"default: {guess.why}, {guess.low}-{guess.high}/request"}


def _provider_key(spec: Any) -> str:
    """The throughput table's key: the litellm provider, or ``hosted_vllm`` for any server with its own URL."""
    provider = spec.litellm_model.partition("/")[0]
    return "hosted_vllm" if (spec.api_base or spec.api_base_env) and spec.local is None else provider


def _wall(spec: Any, requests: int, per_request_out: float, connections: int,
          earlier: Optional[Earlier]) -> tuple[float, str]:
    if earlier is not None and earlier.seconds_per_request is not None:
        return requests * earlier.seconds_per_request, f"earlier run: {earlier.seconds_per_request:.2f} s/request"
    speed = throughput(_provider_key(spec), spec.local is not None)
    busy = requests * speed.seconds_per_request(per_request_out) / connections
    limited = requests / speed.rpm * 60 if speed.rpm else 0.0
    return max(busy, limited), f"default: {speed.why}, {speed.tokens_per_s:g} tok/s"


def connections_for(spec: Any, max_connections: Optional[int]) -> int:
    """What the run would use: ``--max-connections``, else 1 for the local model, else Inspect's default."""
    return max_connections or (1 if spec.local is not None else DEFAULT_CONNECTIONS)


def plan_row(spec: Any, rendered: RenderedTaskSet, counter: Any, earlier: Optional[Earlier],
             max_connections: Optional[int], skip: Optional[str]) -> dict[str, Any]:
    """The bill of one model on one task set."""
    from finchain_tasks.models.batch import batch_api, resolve_batch_price
    from finchain_tasks.models.registry import resolve_price

    requests = rendered.requests
    prompt = counter.total(rendered.prompts) * rendered.epochs * rendered.candidates
    output = _output(spec, rendered, earlier)
    price, batch_price = resolve_price(spec), resolve_batch_price(spec)
    connections = connections_for(spec, max_connections)
    wall, wall_basis = _wall(spec, requests, output["per_request"], connections, earlier)
    api = batch_api(spec)
    return {
        "model": spec.name, "task_set": rendered.name, "provider": spec.litellm_model.partition("/")[0],
        "category": spec.category, "skip": skip,
        "samples": len(rendered.prompts), "epochs": rendered.epochs, "candidates": rendered.candidates,
        "requests": requests, "prompt_tokens": prompt, "tokenizer": counter.name, "tokenizer_exact": counter.exact,
        "output_tokens": output, "max_tokens": _max_tokens(spec, rendered.max_tokens),
        "price": _price_dict(price), "cost_usd": _cost(price, prompt, output),
        "batch": None if api is None else {"api": api.inspect_provider, "price": _price_dict(batch_price),
                                           "cost_usd": _cost(batch_price, prompt, output)},
        "connections": connections, "wall_s": round(wall, 1), "wall_basis": wall_basis,
        "answered_in_run_dir": earlier.answers if earlier is not None and earlier.source.startswith("earlier") else 0,
    }


# ------------------------------------------------------------------------------------------ totals
def totals(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Sums over rows: requests, tokens, the known costs (and which models' cost is unknown), the batch bill
    (batch price where the provider has one, list price elsewhere) and the wall time (models side by side:
    the slowest model's task sets one after another)."""
    def cost_sum(pick: Any) -> Optional[dict[str, float]]:
        """The known costs summed; None when no row has one (a sum of nothing is unknown, not $0)."""
        known = [c for r in rows if (c := pick(r)) is not None]
        return {k: round(sum(c[k] for c in known), 6) for k in ("expected", "low", "high")} if known else None

    def batch_or_list(r: dict[str, Any]) -> Optional[dict[str, float]]:
        return (r["batch"] or {}).get("cost_usd") or r["cost_usd"]

    per_model: dict[str, float] = defaultdict(float)
    for r in rows:
        per_model[r["model"]] += r["wall_s"]
    return {
        "rows": len(rows), "models": len({r["model"] for r in rows}), "requests": sum(r["requests"] for r in rows),
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "output_tokens": {k: sum(r["output_tokens"][k] for r in rows) for k in ("expected", "low", "high")},
        "cost_usd": cost_sum(lambda r: r["cost_usd"]),
        "unknown_cost_models": sorted({r["model"] for r in rows if r["cost_usd"] is None}),
        "batch_cost_usd": cost_sum(batch_or_list),
        "wall_s": round(max(per_model.values(), default=0.0), 1),
    }


# ------------------------------------------------------------------------------------------ the plan
def build_plan(specs: Sequence[Any], plans: Sequence[Any], skipped: Sequence[tuple[Any, list[str]]] = (),
               limit: Optional[int] = None, max_connections: Optional[int] = None,
               run_dir: Optional[Path] = None) -> dict[str, Any]:
    """The bill of every model (ready or skipped) on every task set; see the module docstring."""
    from finchain_tasks.runs.tokens import Counters

    reasons = {spec.name: f"{', '.join(missing)} not set" for spec, missing in skipped}
    rendered = [render_task_set(p, limit) for p in plans]
    candidates = {r.name: r.candidates for r in rendered}
    from_summary = earlier_from_summary(run_dir, candidates)
    from_cache = earlier_from_cache(run_dir)
    counters = Counters()
    rows = []
    for spec in specs:
        counter = counters.for_model(spec)
        for r in rendered:
            earlier = from_summary.get((spec.name, r.name)) or from_cache.get(spec.name) \
                or from_cache.get(spec.litellm_model)
            rows.append(plan_row(spec, r, counter, earlier, max_connections, reasons.get(spec.name)))
    ready = [r for r in rows if r["skip"] is None]
    return {
        "schema": SCHEMA, "run_dir": str(run_dir) if run_dir else None, "limit": limit,
        "max_connections": max_connections,
        "task_sets": [{"name": r.name, "task": r.task, "samples": len(r.prompts), "epochs": r.epochs,
                       "candidates": r.candidates, "max_tokens": r.max_tokens} for r in rendered],
        "rows": rows, "totals": totals(rows), "totals_ready": totals(ready),
        "skipped": [{"model": name, "reason": reason} for name, reason in reasons.items()],
    }
