"""Read a run directory's Inspect logs (and ``--harness lm-eval`` results) back into a summary: per model
and task set, overall, by domain, by level, tokens, cost and wall time, plus every sample that failed and why.

Only the latest log of each (task, model, task args) counts: eval-set keeps one per task, but a run
killed mid-way leaves a ``started`` log until the next run recovers it. Samples are read as summaries
(scores, usage, error, metadata), not with their transcripts, so large runs stay cheap to summarize.
Cost is the sum of logged per-sample costs when every sample has one, else tokens × the registry
price, else None: unknown is reported as unknown, never as 0. lm-eval's results and samples files
give scores, by domain and by level, and wall time; they hold no tokens, so tokens and cost are None.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.runs import CACHE, LM_EVAL, LOGS, SUMMARY
from finchain_tasks.runs.engine import TASK_SET_KEY, read_manifest

HEADLINE = ("chaineval", "fac", "step_f1")
"""ChainEval keys shown in tables; the summary JSON keeps every numeric key of the scores."""
DETAIL = ("step_precision", "step_recall", "first_error_step", "parse_ok")
"""ChainEval keys kept in summary.json only."""


# ------------------------------------------------------------------------------------------ logs
def latest_logs(log_dir: Path) -> list[Any]:
    """The newest log header of each task of the eval-set in ``log_dir`` (by last write, as Inspect picks:
    every attempt's log is seeded from the previous one, so the newest holds everything)."""
    if not Path(log_dir).is_dir():  # before importing Inspect: an lm-eval-only run has no Inspect logs
        return []
    from inspect_ai.log import list_eval_logs, read_eval_log

    newest: dict[str, tuple[float, Any]] = {}
    for info in list_eval_logs(str(log_dir), recursive=False):
        header = read_eval_log(info.name, header_only=True)
        key = header.eval.task_id
        if key not in newest or (info.mtime or 0) >= newest[key][0]:
            newest[key] = (info.mtime or 0, header)
    return sorted((h for _, h in newest.values()), key=lambda h: (h.eval.model, h.eval.task, h.eval.created))


def sample_rows(header: Any) -> list[dict[str, Any]]:
    """One plain dict per sample of a log: id, epoch, domain, level, scores, tokens, cost, error."""
    from inspect_ai.log import read_eval_log_sample_summaries

    rows = []
    for s in read_eval_log_sample_summaries(header.location):
        usage = list((s.model_usage or {}).values())
        costs = [u.total_cost for u in usage]
        rows.append({
            "id": str(s.id), "epoch": s.epoch, "domain": s.metadata.get("domain"), "level": s.metadata.get("level"),
            "scores": numeric_scores(s.scores or {}),
            "error": _first_line(s.error) if s.error else None,
            "input_tokens": sum(u.input_tokens + (u.input_tokens_cache_read or 0) for u in usage),
            "output_tokens": sum(u.output_tokens for u in usage),
            "cost": sum(costs) if usage and all(c is not None for c in costs) else None,
        })
    return rows


def numeric_scores(scores: dict[str, Any]) -> dict[str, float]:
    """Every number of a sample's scores: the keys of a dict value (ChainEval), or the scorer's name for a
    plain number (e.g. CFLUE's exact match)."""
    out: dict[str, float] = {}
    for name, score in scores.items():
        value = score.value
        if isinstance(value, dict):
            out.update({k: float(v) for k, v in value.items() if isinstance(v, (int, float))})
        elif isinstance(value, (int, float)):
            out[name.split("/")[-1]] = float(value)
    return out


def score_columns(summary: dict[str, Any]) -> list[str]:
    """The score keys a table shows: ChainEval's headline ones, then any other scorer's, where present."""
    present = {k for r in summary["results"] for k in r["scores"]}
    others = sorted(present - set(HEADLINE) - set(DETAIL))
    return [k for k in HEADLINE if k in present] + others or list(HEADLINE)


def _first_line(text: str, limit: int = 300) -> str:
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


# ------------------------------------------------------------------------------------------ aggregation
def _means(rows: Iterable[dict[str, Any]]) -> dict[str, float]:
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        for key, value in row["scores"].items():
            sums[key] += value
            counts[key] += 1
    return {key: sums[key] / counts[key] for key in sums}


def _grouped(rows: list[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row[field] is not None:
            groups[str(row[field])].append(row)
    return {name: {"n": len(members), **_means(members)} for name, members in sorted(groups.items())}


def cost_of(rows: list[dict[str, Any]], price: Optional[dict[str, Any]]) -> tuple[Optional[float], str]:
    """(USD, where it came from): logged per-sample costs, else tokens × registry price, else (None, unknown)."""
    answered = [r for r in rows if r["input_tokens"] or r["output_tokens"]]
    if answered and all(r["cost"] is not None for r in answered):
        return sum(r["cost"] for r in answered), "litellm"
    if price:
        tokens_in = sum(r["input_tokens"] for r in rows)
        tokens_out = sum(r["output_tokens"] for r in rows)
        return (tokens_in * price["input"] + tokens_out * price["output"]) / 1e6, price.get("source") or "registry"
    return None, "unknown"


def _wall_s(header: Any) -> Optional[float]:
    try:
        start = datetime.fromisoformat(header.stats.started_at)
        end = datetime.fromisoformat(header.stats.completed_at)
        return round((end - start).total_seconds(), 3)
    except (TypeError, ValueError):
        return None


def result_of(header: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The summary of one log (one model on one task set)."""
    rows = sample_rows(header)
    epochs = int(header.eval.config.epochs or 1)
    requested = {(str(i), e) for i in (header.eval.dataset.sample_ids or []) for e in range(1, epochs + 1)}
    seen = [(r["id"], r["epoch"]) for r in rows]
    scored = [r for r in rows if r["error"] is None and r["scores"]]
    failed = [r for r in rows if r["error"] is not None]
    cost, cost_source = cost_of(rows, record.get("price"))
    return {
        "model": record.get("name") or header.eval.model, "display_name": record.get("display_name"),
        "category": record.get("category"), "inspect_model": header.eval.model,
        "task_set": (header.eval.metadata or {}).get(TASK_SET_KEY) or header.eval.task.split("/")[-1],
        "task": header.eval.task, "log": Path(header.location).name, "status": header.status,
        "requested": len(requested), "completed": len(scored), "failed": len(failed),
        "missing": sorted(f"{i}#{e}" for i, e in requested - set(seen)),
        "duplicated": sorted({f"{i}#{e}" for i, e in seen if seen.count((i, e)) > 1}),
        "scores": _means(scored), "by_domain": _grouped(scored, "domain"), "by_level": _grouped(scored, "level"),
        "input_tokens": sum(r["input_tokens"] for r in rows), "output_tokens": sum(r["output_tokens"] for r in rows),
        "cost_usd": cost, "cost_source": cost_source, "wall_s": _wall_s(header),
        "failures": [{"id": r["id"], "epoch": r["epoch"], "reason": r["error"]} for r in failed],
    }


def _record_for(inspect_model: str, records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The manifest's record of a model, else the shipped registry's entry, else the bare name."""
    if inspect_model in records:
        return records[inspect_model]
    try:
        from finchain_tasks.models.registry import load_registry, resolve_model
        from finchain_tasks.runs.engine import model_record

        return model_record(resolve_model(inspect_model.removeprefix("litellm/"), load_registry()))
    except Exception:
        return {"name": inspect_model, "display_name": inspect_model, "category": None, "price": None}


def summarize(run_dir: str | Path) -> dict[str, Any]:
    """The summary of everything in ``run_dir`` (see the module docstring)."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    records = {m["inspect_model"]: m for m in manifest.get("models", [])}
    results = [{**result_of(h, _record_for(h.eval.model, records)), "harness": "inspect"}
               for h in latest_logs(run_dir / LOGS)]
    by_name = {m["name"]: m for m in manifest.get("models", [])}
    results += [lm_eval_result(d, by_name.get(d.parent.name, {})) for d in lm_eval_dirs(run_dir / LM_EVAL)]
    sessions = manifest.get("sessions", [])
    return {
        "run_dir": str(run_dir.resolve()), "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "finchain_tasks_version": _version(), "results": results,
        "sessions": len(sessions), "wall_s_total": round(sum(s.get("wall_s") or 0 for s in sessions), 3),
        "cached_responses": _cache_entries(run_dir / CACHE),
    }


# ------------------------------------------------------------------------------------------ lm-eval
LM_EVAL_COUNTS = ("n_gold_steps", "n_pred_steps")
"""Per-sample ChainEval counts lm-eval reports as metrics; left out, as in the Inspect rows."""


def lm_eval_dirs(root: Path) -> list[Path]:
    """``lm_eval/<model>/<task set>/`` folders of ``--harness lm-eval`` (those with a status or a result)."""
    if not root.is_dir():
        return []
    return sorted(d for d in root.glob("*/*") if d.is_dir() and (any(d.rglob("results_*.json"))
                                                                 or (d / "status.json").is_file()))


def lm_eval_rows(results_path: Path) -> list[dict[str, Any]]:
    """Sample rows (as :func:`sample_rows`) from the samples files written with ``results_path``; tokens and
    cost are not in lm-eval's output (None: unknown)."""
    stamp = results_path.stem.removeprefix("results_")
    rows = []
    for path in sorted(results_path.parent.glob(f"samples_*_{stamp}.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            s = json.loads(line)
            doc = s.get("doc") or {}
            scores = {k: float(s[k]) for k in s.get("metrics", []) if isinstance(s.get(k), (int, float))
                      and k not in LM_EVAL_COUNTS}
            rows.append({"id": str(doc.get("id", s.get("doc_id"))), "epoch": 1, "domain": doc.get("domain"),
                         "level": doc.get("level"), "scores": scores, "error": None,
                         "input_tokens": None, "output_tokens": None, "cost": None})
    return rows


def lm_eval_result(folder: Path, record: dict[str, Any]) -> dict[str, Any]:
    """The summary row of one model × task set run by lm-eval: its newest results file, or its failure."""
    status = json.loads((folder / "status.json").read_text("utf-8")) if (folder / "status.json").is_file() else {}
    found = sorted(folder.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    newest = found[-1] if found else None
    results = json.loads(newest.read_text("utf-8")) if newest else {}
    rows = lm_eval_rows(newest) if newest else []
    requested = sum(int(n.get("effective", 0)) for n in results.get("n-samples", {}).values())
    failed = status.get("rc", 0) != 0
    wall = results.get("total_evaluation_time_seconds")
    return {
        "model": folder.parent.name, "display_name": record.get("display_name"), "category": record.get("category"),
        "harness": "lm-eval", "inspect_model": None, "task_set": folder.name, "task": folder.name,
        "log": str(newest.relative_to(folder.parent.parent)) if newest else None,
        "status": "error" if failed else ("success" if newest else "started"),
        "requested": requested, "completed": len(rows), "failed": 0, "missing": [], "duplicated": [],
        "scores": _means(rows), "by_domain": _grouped(rows, "domain"), "by_level": _grouped(rows, "level"),
        "input_tokens": None, "output_tokens": None, "cost_usd": None, "cost_source": "unknown",
        "wall_s": round(float(wall), 3) if wall is not None else status.get("wall_s"),
        "failures": [{"id": "(lm-eval run)", "epoch": None, "reason": status.get("error")}] if failed else [],
    }


def _version() -> str:
    import finchain_tasks

    return finchain_tasks.__version__


def _cache_entries(path: Path) -> Optional[int]:
    if not path.is_file():
        return None
    from finchain_tasks.runs.cache import open_cache

    return len(open_cache(str(path.resolve())))


def write_summary(run_dir: str | Path, summary: dict[str, Any]) -> Path:
    path = Path(run_dir) / SUMMARY
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


# ------------------------------------------------------------------------------------------ display
def _fmt(value: Optional[float], digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def tokens_text(result: dict[str, Any]) -> str:
    """``in/out``, or ``unknown`` where the harness does not report tokens (lm-eval)."""
    if result["input_tokens"] is None:
        return "unknown"
    return f"{result['input_tokens']}/{result['output_tokens']}"


def cost_text(result: dict[str, Any]) -> str:
    return "unknown" if result["cost_usd"] is None else f"${result['cost_usd']:.4f}"


def tables(summary: dict[str, Any]) -> list[Any]:
    """Rich tables: one row per model and task set, then ChainEval by domain and by level."""
    from rich.markup import escape
    from rich.table import Table

    columns = score_columns(summary)
    main = Table(title=f"FinChain results ({escape(summary['run_dir'])})")
    for col in ("model", "task", "done", "failed", *columns, "tokens in/out", "cost", "wall s"):
        main.add_column(col, justify="left" if col in ("model", "task") else "right")
    for r in summary["results"]:
        done = f"{r['completed']}/{r['requested']}"
        failed = f"[red]{r['failed'] + len(r['missing'])}[/]" if r["failed"] or r["missing"] else "0"
        main.add_row(escape(r["model"]), escape(r["task_set"]), done, failed,
                     *(_fmt(r["scores"].get(k)) for k in columns), tokens_text(r), cost_text(r), _fmt(r["wall_s"], 1))
    return [main, *(_group_table(summary, key, title) for key, title in
                    (("by_domain", "ChainEval by domain"), ("by_level", "ChainEval by level"))
                    if any(r[key] for r in summary["results"]))]


def _group_table(summary: dict[str, Any], key: str, title: str) -> Any:
    from rich.markup import escape
    from rich.table import Table

    groups = sorted({g for r in summary["results"] for g in r[key]})
    table = Table(title=title)
    table.add_column("model")
    for g in groups:
        table.add_column(escape(g), justify="right")
    for r in (r for r in summary["results"] if r[key]):
        cells = [_cell(r[key].get(g)) for g in groups]
        table.add_row(escape(f"{r['model']} · {r['task_set']}"), *cells)
    return table


def _cell(group: Optional[dict[str, Any]]) -> str:
    return "-" if not group else f"{_fmt(group.get('chaineval'))} (n={group['n']})"
