"""Read a run directory's Inspect logs (and ``--harness lm-eval`` results) back into a summary: per model
and task set, overall, by domain, by level, tokens, cost and wall time, plus every sample that failed and why.

Only the latest log of each (task, model, task args) counts: eval-set keeps one per task, but a run
killed mid-way leaves a ``started`` log until the next run recovers it. Samples are read as summaries
(scores, usage, error, metadata), not with their transcripts, so large runs stay cheap to summarize.
Cost is the sum of logged per-sample costs when every sample has one, else tokens × the registry
price, else None: unknown is reported as unknown, never as 0. lm-eval's results and samples files
give scores, by domain and by level, and wall time; they hold no tokens, so tokens and cost are None. A
damaged Inspect log is skipped (eval-set rewrites it); a damaged lm-eval file fails its row, named as the
reason (lm-eval never rewrites it).

Results are keyed by **registry name** (the ``finchain_model`` task metadata / model arg of the log), never
by the Inspect model name, which two registry entries of one litellm id share. Every score comes with
its standard error (sample standard deviation / √n, as both hosts compute it) and a normal 95% interval
(``stats``); each result records the settings it ran with (ChainEval profile, task version, seeds, the
sample order and limit, max_tokens, temperature, top_p); the summary lists the models skipped and why and
the coverage (which domains have templates). CFLUE rows add ``invalid_strict`` and ``invalid_robust``:
the share of answers the official rule and the robust one could not read.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.plumbing.counts import whole_count
from finchain_tasks.plumbing.jsonl import jsonl_lines
from finchain_tasks.plumbing.redaction import write_redacted
from finchain_tasks.plumbing.safe_files import UnreadableFile, expect, load_json, parse_json, read_text, walk
from finchain_tasks.runs import CACHE, LM_EVAL, LOGS, SUMMARY
from finchain_tasks.runs.engine import MODEL_KEY, REQUEST_COUNTS, TASK_SET_KEY, read_manifest

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""
HEADLINE = ("chaineval", "fac", "fac_strict", "step_f1")
"""ChainEval keys shown in tables; the summary JSON keeps every numeric key of the scores. ``fac_strict``
(the final answer within rounding of the gold) stands beside ``fac`` (within 5%)."""
DETAIL = ("step_precision", "step_recall", "first_error_step", "parse_ok")
"""ChainEval keys kept in summary.json only."""
REFERENCE_NOTE = ("ChainEval profile `reference` follows the authors' script: an output whose steps match no gold "
                  "step still scores 0.75 there, where the `paper` profile gives 0.")
"""Shown beside the ChainEval score of every run scored in the ``reference`` profile."""


# ------------------------------------------------------------------------------------------ logs
def latest_logs(log_dir: Path) -> list[Any]:
    """The newest log header of each task of the eval-set in ``log_dir`` (by last write, as Inspect picks:
    every attempt's log is seeded from the previous one, so the newest holds everything)."""
    if not Path(log_dir).is_dir():  # before importing Inspect: an lm-eval-only run has no Inspect logs
        return []
    from inspect_ai.log import read_eval_log

    from finchain_tasks.leaderboard.ingest import inspect_log_files

    newest: dict[str, tuple[float, Any]] = {}
    # bench --ray: one eval-set per pair, in sub-dirs; never a link out of the folder, a FIFO or a device
    for path, mtime in inspect_log_files(Path(log_dir)):
        try:
            header = read_eval_log(str(path), header_only=True)
        except Exception:  # an unreadable log (a killed writer, a damaged copy) holds no result to report
            continue
        key = header.eval.task_id
        if key not in newest or mtime >= newest[key][0]:
            newest[key] = (mtime, header)
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
            "scores": {**numeric_scores(s.scores or {}), **invalid_rates(s.scores or {})},
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


def invalid_rates(scores: dict[str, Any]) -> dict[str, float]:
    """CFLUE: 1.0 where the strict (official) or the robust extraction read no answer, from the score metadata."""
    for score in scores.values():
        invalid = (score.metadata or {}).get("invalid")
        if isinstance(invalid, dict):
            return {f"invalid_{mode}": float(bool(flag)) for mode, flag in invalid.items()}
    return {}


def score_columns(summary: dict[str, Any]) -> list[str]:
    """The score keys a table shows: ChainEval's headline ones, then any other scorer's, where present."""
    present = {k for r in summary["results"] for k in r["scores"]}
    others = sorted(present - set(HEADLINE) - set(DETAIL))
    return [k for k in HEADLINE if k in present] + others or list(HEADLINE)


_RETRY_ERROR = re.compile(r"RetryError\(<Future at 0x[0-9a-f]+ state=finished raised (\w+)>\)")


def _first_line(text: str, limit: int = 300) -> str:
    """The first non-empty line of an error; tenacity's opaque ``RetryError(<Future ... raised X>)`` becomes
    ``retries ran out (X)``; Inspect's own providers' ``ModelGenerateError`` (the whole request, then the error,
    on one escaped line) becomes its error."""
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    if line.startswith("ModelGenerateError(") and "\\n\\n" in line:
        line = line.rsplit("\\n\\n", 1)[1].removesuffix("')").replace("\\'", "'")
    line = _RETRY_ERROR.sub(lambda m: f"retries ran out ({m.group(1)})", line)
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


def score_stats(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per score key: n, mean, standard error (sample sd with n-1 / √n; None below 2 samples) and the normal
    95% interval ``[mean - 1.96 se, mean + 1.96 se]``."""
    values: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for key, value in row["scores"].items():
            values[key].append(float(value))
    out = {}
    for key, xs in values.items():
        n, mean = len(xs), math.fsum(xs) / len(xs)
        se = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1) / n) if n > 1 else None
        ci = [mean - Z95 * se, mean + Z95 * se] if se is not None else None
        out[key] = {"n": n, "mean": mean, "stderr": se, "ci95": ci}
    return out


def _grouped(rows: list[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row[field] is not None:
            groups[str(row[field])].append(row)
    return {name: {"n": len(members), **_means(members)} for name, members in sorted(groups.items())}


def cost_of(rows: list[dict[str, Any]], price: Optional[dict[str, Any]], logged: bool = True) -> tuple[
        Optional[float], str]:
    """(USD, where it came from): logged per-sample costs (unless not ``logged``), else tokens × registry price,
    else (None, unknown)."""
    answered = [r for r in rows if r["input_tokens"] or r["output_tokens"]]
    if logged and answered and all(r["cost"] is not None for r in answered):
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


def settings_of(header: Any) -> dict[str, Any]:
    """The settings one Inspect log ran with: profile, versions, seeds, sample order and limit, and the
    generation parameters as sent (the model's generation config, else the task's)."""
    meta = header.eval.metadata or {}
    model_config = header.eval.model_generate_config
    plan_config = getattr(getattr(header, "plan", None), "config", None)

    def sent(name: str) -> Any:
        value = getattr(model_config, name, None)
        return value if value is not None else getattr(plan_config, name, None)

    chaineval = meta.get("chaineval") if isinstance(meta.get("chaineval"), dict) else {}
    return {"profile": chaineval.get("profile"), "task_version": meta.get("task_version") or header.eval.task_version,
            "seeds": meta.get("seeds"), "fresh_seeds": meta.get("fresh_seeds"),
            "sample_order": meta.get("sample_order"), "limit": header.eval.config.limit,
            "max_tokens": sent("max_tokens"), "temperature": sent("temperature"), "top_p": sent("top_p"),
            "extract": meta.get("extract_mode")}


def result_of(header: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The summary of one log (one model on one task set)."""
    rows = sample_rows(header)
    epochs = int(header.eval.config.epochs or 1)
    requested = {(str(i), e) for i in (header.eval.dataset.sample_ids or []) for e in range(1, epochs + 1)}
    seen = [(r["id"], r["epoch"]) for r in rows]
    scored = [r for r in rows if r["error"] is None and r["scores"]]
    failed = [r for r in rows if r["error"] is not None]
    # a batched log is priced at the batch price: Inspect's logged cost is the list price
    batched = bool(getattr(header.eval.model_generate_config, "batch", None))
    cost, cost_source = cost_of(rows, record.get("batch_price" if batched else "price"), logged=not batched)
    return {
        "model": registry_name(header) or record.get("name") or header.eval.model,
        "display_name": record.get("display_name"),
        "category": record.get("category"), "inspect_model": header.eval.model,
        "task_set": (header.eval.metadata or {}).get(TASK_SET_KEY) or header.eval.task.split("/")[-1],
        "task": header.eval.task, "log": Path(header.location).name, "status": header.status,
        "requested": len(requested), "completed": len(scored), "failed": len(failed),
        "missing": sorted(f"{i}#{e}" for i, e in requested - set(seen)),
        "duplicated": sorted({f"{i}#{e}" for i, e in seen if seen.count((i, e)) > 1}),
        "scores": _means(scored), "stats": score_stats(scored), "settings": settings_of(header),
        "by_domain": _grouped(scored, "domain"), "by_level": _grouped(scored, "level"),
        "input_tokens": sum(r["input_tokens"] for r in rows), "output_tokens": sum(r["output_tokens"] for r in rows),
        "cost_usd": cost, "cost_source": f"batch price: {cost_source}" if batched else cost_source, "batch": batched,
        "wall_s": _wall_s(header),
        "failures": [{"id": r["id"], "epoch": r["epoch"], "reason": r["error"]} for r in failed],
    }


def registry_name(header: Any) -> Optional[str]:
    """The registry name a log was run under (task metadata, else model arg); None for logs of older runs."""
    name = (header.eval.metadata or {}).get(MODEL_KEY) or (header.eval.model_args or {}).get(MODEL_KEY)
    return str(name) if name else None


def _record_for(header: Any, by_name: dict[str, dict[str, Any]], records: dict[str, dict[str, Any]]) -> dict[
        str, Any]:
    """The manifest's record of a log's model (by registry name, else by Inspect model name for logs of older
    runs), else the shipped registry's entry, else the bare name."""
    name, inspect_model = registry_name(header), header.eval.model
    if name is not None and name in by_name:
        return by_name[name]
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
    by_name = {m["name"]: m for m in manifest.get("models", [])}
    results = [{**result_of(h, _record_for(h, by_name, records)), "harness": "inspect"}
               for h in latest_logs(run_dir / LOGS)]
    results += [lm_eval_result(d, by_name.get(d.parent.name, {})) for d in lm_eval_dirs(run_dir / LM_EVAL)]
    sessions = manifest.get("sessions", [])
    last = sessions[-1] if sessions else {}
    return {
        "run_dir": str(run_dir.resolve()), "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "finchain_tasks_version": _version(), "results": results,
        "skipped": list(last.get("skipped") or []), "coverage": coverage(),
        "notes": notes(results), "warnings": list(last.get("warnings") or []),
        "sessions": len(sessions), "wall_s_total": round(sum(s.get("wall_s") or 0 for s in sessions), 3),
        "cached_responses": _cache_entries(run_dir / CACHE),
        "requests_resent": resent_counts(sessions),
    }


def resent_counts(sessions: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """{model: {count: n}} for each of ``engine.REQUEST_COUNTS`` over every session of the run (see
    ``engine.request_counts``): how many requests were sent (and paid) again, how many late answers were used."""
    total: dict[str, dict[str, int]] = {}
    for session in sessions:
        counts = session.get("requests_resent") if isinstance(session, dict) else None
        for model, entry in (counts.items() if isinstance(counts, dict) else ()):
            if not isinstance(entry, dict):
                continue
            into = total.setdefault(str(model), dict.fromkeys(REQUEST_COUNTS, 0))
            for key in into:
                value = entry.get(key)
                into[key] += value if isinstance(value, int) and not isinstance(value, bool) else 0
    return total


def coverage() -> dict[str, Any]:
    """Which domains of the taxonomy have templates (and how many), and which have none yet."""
    from finchain_tasks.engine import all_templates
    from finchain_tasks.finchain.taxonomy import domains

    counts: dict[str, int] = defaultdict(int)
    for tpl in all_templates().values():
        counts[tpl.domain] += 1
    known = list(domains())
    return {"templates": sum(counts.values()),
            "domains_with_templates": {d: counts[d] for d in [*known, *sorted(set(counts) - set(known))] if counts[d]},
            "domains_without_templates": [d for d in known if not counts[d]]}


def notes(results: list[dict[str, Any]]) -> list[str]:
    """Caveats a reader must see beside the scores (today: the ``reference`` profile's floor)."""
    profiles = {(r.get("settings") or {}).get("profile") for r in results}
    return [REFERENCE_NOTE] if "reference" in profiles else []


# ------------------------------------------------------------------------------------------ lm-eval
LM_EVAL_COUNTS = ("n_gold_steps", "n_pred_steps")
"""Per-sample ChainEval counts lm-eval reports as metrics; left out, as in the Inspect rows."""


def lm_eval_dirs(root: Path) -> list[Path]:
    """``lm_eval/<model>/<task set>/`` folders of ``--harness lm-eval`` (those with a status or a result)."""
    if not root.is_dir():
        return []
    return sorted(d for d in root.glob("*/*") if d.is_dir() and not d.is_symlink()
                  and (walk(d, ("results_*.json",)).files or (d / "status.json").is_file()))


def lm_eval_rows(results_path: Path) -> list[dict[str, Any]]:
    """Sample rows (as :func:`sample_rows`) from the samples files written with ``results_path``; tokens and
    cost are not in lm-eval's output (None: unknown)."""
    stamp = results_path.stem.removeprefix("results_")
    rows = []
    for path in walk(results_path.parent, (f"samples_*_{stamp}.jsonl",), recurse=False).files:  # no link out
        for number, line in jsonl_lines(read_text(path)):
            s = parse_json(line, f"{path.name}:{number}")
            if not isinstance(s, dict):
                raise UnreadableFile(f"{path.name}:{number}", "expected a JSON object")
            doc = expect(s.get("doc") or {}, dict, f"{path.name}:{number}", "doc")
            scores = {k: float(s[k]) for k in s.get("metrics", []) if isinstance(s.get(k), (int, float))
                      and k not in LM_EVAL_COUNTS}
            rows.append({"id": str(doc.get("id", s.get("doc_id"))), "epoch": 1, "domain": doc.get("domain"),
                         "level": doc.get("level"), "scores": scores, "error": None,
                         "input_tokens": None, "output_tokens": None, "cost": None})
    return rows


def lm_eval_settings(results: dict[str, Any]) -> dict[str, Any]:
    """The settings of an lm-eval run, from its results file: the first FinChain leaf's ``finchain_run``
    record and generation kwargs, and the run's limit or sample selection."""
    configs = results.get("configs") or {}
    first = next(iter(configs.values()), {})
    run = (first.get("metadata") or {}).get("finchain_run") or {}
    gen = first.get("generation_kwargs") or {}
    config = results.get("config") or {}
    chaineval = run.get("chaineval") if isinstance(run.get("chaineval"), dict) else {}
    return {"profile": chaineval.get("profile"), "task_version": run.get("task_version"), "seeds": run.get("seeds"),
            "fresh_seeds": run.get("fresh_seeds"), "sample_order": run.get("sample_order"),
            "limit": config.get("limit"), "max_tokens": gen.get("max_gen_toks"), "temperature": gen.get("temperature"),
            "top_p": gen.get("top_p"), "extract": None}


def _read_object(path: Path, problems: list[str]) -> dict[str, Any]:
    """The JSON object in ``path``, or {} where the file is damaged (a writer killed mid-write, a bad copy), the
    reason added to ``problems``: like an unreadable Inspect log, one damaged file must not stop the summary
    of everything else; unlike one, it is reported, since lm-eval never rewrites it."""
    try:
        data = load_json(path)  # a regular file only; bad JSON, UTF-8 or nesting is an UnreadableFile
    except UnreadableFile as exc:
        problems.append(f"{path.name} unreadable ({_first_line(exc.reason)})")
        return {}
    except (OSError, ValueError) as exc:
        problems.append(f"{path.name} unreadable ({_first_line(str(exc))})")
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path.name} unreadable (not a JSON object)")
        return {}
    return data


def _lm_eval_outputs(folder: Path) -> tuple[dict[str, Any], Optional[Path], dict[str, Any], list[dict[str, Any]],
                                            list[str]]:
    """(status, newest results file, its results, its sample rows, problems) of one lm-eval folder; a damaged
    file reads as empty and is named in the problems."""
    problems: list[str] = []
    status = _read_object(folder / "status.json", problems) if (folder / "status.json").is_file() else {}
    found = sorted(walk(folder, ("results_*.json",)).files, key=lambda p: p.stat().st_mtime)
    newest = found[-1] if found else None
    results = _read_object(newest, problems) if newest else {}
    try:
        rows = lm_eval_rows(newest) if newest else []
    except ValueError as exc:  # a damaged samples line
        rows = []
        problems.append(f"samples of {newest.name} unreadable ({_first_line(str(exc))})")
    return status, newest, results, rows, problems


def _requested(results: dict[str, Any], newest: Optional[Path], problems: list[str]) -> int:
    """The samples lm-eval was asked for (``n-samples``' ``effective`` per task). A count that is no whole
    number (NaN, text, an infinity from a damaged or edited file) counts 0 and is reported, like any damaged
    file: it must not stop the summary of everything else."""
    n_samples = results.get("n-samples", {})
    entries = list(n_samples.values()) if isinstance(n_samples, dict) else [n_samples]
    counts = [whole_count(n.get("effective", 0)) if isinstance(n, dict) else None for n in entries]
    if None in counts:  # results come only from a file: newest is set
        problems.append(f"{newest.name}: n-samples holds a count that is no whole number")
    return sum(c for c in counts if c is not None)


def lm_eval_result(folder: Path, record: dict[str, Any]) -> dict[str, Any]:
    """The summary row of one model × task set run by lm-eval: its newest results file, or its failure (the run's
    error, or the files that could not be read)."""
    status, newest, results, rows, problems = _lm_eval_outputs(folder)
    requested = _requested(results, newest, problems)
    failed = status.get("rc", 0) != 0
    wall = results.get("total_evaluation_time_seconds")
    return {
        "model": folder.parent.name, "display_name": record.get("display_name"), "category": record.get("category"),
        "harness": "lm-eval", "inspect_model": None, "task_set": folder.name, "task": folder.name,
        "log": str(newest.relative_to(folder.parent.parent)) if newest else None,
        "status": "error" if failed or problems else ("success" if newest else "started"),
        "requested": requested, "completed": len(rows), "failed": 0, "missing": [], "duplicated": [],
        "scores": _means(rows), "stats": score_stats(rows),
        "settings": {**lm_eval_settings(results), **({"limit": status["limit"]} if status.get("limit") else {})},
        "by_domain": _grouped(rows, "domain"), "by_level": _grouped(rows, "level"),
        "input_tokens": None, "output_tokens": None, "cost_usd": None, "cost_source": "unknown",
        "wall_s": round(float(wall), 3) if wall is not None else status.get("wall_s"),
        "failures": [{"id": "(lm-eval run)", "epoch": None, "reason": reason}
                     for reason in ([status.get("error")] if failed else []) + problems],
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
    write_redacted(tmp, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path


# ------------------------------------------------------------------------------------------ display
def _fmt(value: Optional[float], digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def tolerance_only_share(result: dict[str, Any]) -> float | None:
    """The share of a result's ``fac`` passes that pass only within the 5% tolerance, not within rounding
    (``1 - fac_strict / fac``); None where either score is missing or nothing passed."""
    fac, strict = result["scores"].get("fac"), result["scores"].get("fac_strict")
    if not isinstance(fac, (int, float)) or not isinstance(strict, (int, float)) or fac <= 0:
        return None
    return max(0.0, 1.0 - strict / fac)


def score_text(result: dict[str, Any], key: str, sep: str = " ") -> str:
    """``mean ±stderr`` of one score (the ``±`` part only where a standard error exists)."""
    stat = (result.get("stats") or {}).get(key)
    mean = result["scores"].get(key)
    if mean is None:
        return "-"
    if not stat or stat.get("stderr") is None:
        return _fmt(mean)
    return f"{_fmt(mean)}{sep}±{_fmt(stat['stderr'])}"


def interval_text(result: dict[str, Any], key: str) -> str:
    """``[lo, hi]``: the 95% interval of a score, or ``-``."""
    stat = (result.get("stats") or {}).get(key) or {}
    ci = stat.get("ci95")
    return "-" if not ci else f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"


def tokens_text(result: dict[str, Any]) -> str:
    """``in/out``, or ``unknown`` where the harness does not report tokens (lm-eval)."""
    if result["input_tokens"] is None:
        return "unknown"
    return f"{result['input_tokens']}/{result['output_tokens']}"


def cost_text(result: dict[str, Any]) -> str:
    """The cost cell: unknown, or dollars (marked ``batch`` when paid at a batch API's price)."""
    if result["cost_usd"] is None:
        return "unknown (batch)" if result.get("batch") else "unknown"
    return f"${result['cost_usd']:.4f}" + (" (batch)" if result.get("batch") else "")


def _table(title: str, heads: list[str], left: int = 1) -> Any:
    """A table that stays readable at 80 columns: headers never truncated (each column at least as wide as
    its header, ``fold`` wrapping in the text columns)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, title_justify="left", pad_edge=False, collapse_padding=True)
    for i, head in enumerate(heads):
        text = i < left
        table.add_column(escape(head), justify="left" if text else "right", min_width=len(head),
                         overflow="fold", no_wrap=not text)
    return table


SCORE_CELL = len("±0.000")
"""The widest line of a score cell (``0.500`` above ``±0.050``)."""
MODEL_MIN = 24
"""The narrowest the model column may fold to before score columns move to a further table."""


def _score_chunks(columns: list[str], width: int, fixed: list[str]) -> list[list[str]]:
    """The score columns split so that each table fits ``width``: a column costs its widest line, one space of
    padding and one rule; the model column (at least ``MODEL_MIN``) and the ``fixed`` cells (done, failed)
    come with every chunk. Never empty."""
    cost = [max(len(c), SCORE_CELL) + 2 for c in columns]
    room = max(width - 1 - (MODEL_MIN + 2) - sum(len(f) + 2 for f in fixed), max(cost, default=0))
    chunks: list[list[str]] = [[]]
    used = 0
    for column, c in zip(columns, cost):
        if chunks[-1] and used + c > room:
            chunks.append([])
            used = 0
        chunks[-1].append(column)
        used += c
    return chunks


def tables(summary: dict[str, Any], width: int = 80) -> list[Any]:
    """Rich tables: scores (mean ±stderr) per model and task set, resources, then ChainEval by domain and by
    level as long tables (one row per model and group), so that no table grows a column per domain. Score
    columns that would not fit ``width`` go to a further results table (the model column repeated): rich
    would otherwise squeeze the columns and crop their cells (``36/36`` shown as ``36/3``)."""
    from rich.markup import escape

    results = summary["results"]
    done = max([f"{r['completed']}/{r['requested']}" for r in results] + ["done"], key=len)
    failed = max([str(r["failed"] + len(r["missing"])) for r in results] + ["failed"], key=len)
    chunks = _score_chunks(score_columns(summary), width, [done, failed])
    out = []
    for i, chunk in enumerate(chunks):
        part = f" {i + 1}/{len(chunks)}" if len(chunks) > 1 else ""
        main = _table(f"FinChain results{part} ({summary['run_dir']})", ["model · task", "done", "failed", *chunk])
        for r in results:
            failed = f"[red]{r['failed'] + len(r['missing'])}[/]" if r["failed"] or r["missing"] else "0"
            main.add_row(escape(f"{r['model']} · {r['task_set']}"), f"{r['completed']}/{r['requested']}", failed,
                         *(score_text(r, k, "\n") for k in chunk))
        main.caption = "mean ±standard error; 95% intervals in the report"
        out.append(main)
    used = _table("Resources", ["model · task", "tokens in/out", "cost", "wall s"])
    for r in results:
        used.add_row(escape(f"{r['model']} · {r['task_set']}"), tokens_text(r), cost_text(r), _fmt(r["wall_s"], 1))
    out.append(used)
    for key, title in (("by_domain", "ChainEval by domain"), ("by_level", "ChainEval by level")):
        if any(r[key] for r in results):
            out.append(_group_table(results, key, title))
    return out


def _group_table(results: list[dict[str, Any]], key: str, title: str) -> Any:
    from rich.markup import escape

    table = _table(title, ["model · task", key.removeprefix("by_"), "n", "chaineval"], left=2)
    for r in results:
        for group, stats in r[key].items():
            table.add_row(escape(f"{r['model']} · {r['task_set']}"), escape(group), str(stats["n"]),
                          _fmt(stats.get("chaineval")))
    return table
