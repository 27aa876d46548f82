"""One per-sample table from what either host wrote.

Sources: ``finchain eval``/``bench`` run directories (their ``logs/`` and ``lm_eval/`` folders and
``run.json``), Inspect ``.eval`` logs (read through ``inspect_ai.log``), and lm-eval output folders
(``results_*.json`` with their ``samples_*.jsonl`` from ``--log_samples``). Every row is one sample of one
model: the same columns whichever host produced it, keyed by the stable sample id
(``finchain/<domain>/<topic>/<template>/<seed>``), so a row from lm-eval and a row from Inspect for the same
model and sample line up; ``harness`` says where each came from.

The table keeps no local paths and no keys: ``source`` is the run directory's name and the log's file name."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.leaderboard.realign import add_alignment
from finchain_tasks.plumbing.counts import MAX_COUNT, whole_count
from finchain_tasks.plumbing.jsonl import jsonl_lines
from finchain_tasks.plumbing.safe_files import UnreadableFile, load_json, read_text, walk
from scorers.params import METRIC_KEYS

CFLUE_KEYS = ("accuracy", "invalid_strict", "invalid_robust")
APP_KEYS = ("f1", "rouge_l", "sentence_bleu")
"""CFLUE application's per-record values (classification is ``accuracy``); each record has the one its task
type defines, the others are missing."""
COLUMNS = ("model", "display_name", "category", "open_weights", "params_b", "harness", "harness_version",
           "finchain_tasks_version", "task", "task_set", "task_version", "profile", "sample_id", "epoch", "domain",
           "topic", "template", "level", "seed", "exam", "sub_task", "fresh", *METRIC_KEYS, *CFLUE_KEYS, *APP_KEYS,
           "first_error_step", "n_gold_steps", "n_pred_steps", "input_tokens", "output_tokens", "cost", "latency_s",
           "date", "source", "question", "prompt", "gold_steps", "gold_answer", "output", "answer", "alignment",
           "error")
"""Every column, in order. Metrics a host did not report for a sample are missing (NaN), never 0."""


class IngestError(ValueError):
    """A source that cannot be read; one line naming it."""


class _ShapeError(IngestError):
    """A JSON value of the wrong shape, named by its field only (``sample: expected a JSON object``): the reader
    that meets it inside a file adds the file and line (:func:`_guarded`)."""


@dataclass(frozen=True)
class Skipped:
    """A file (or one line of a file) a build left out, and why, in one line. ``path`` is relative to the
    folder holding the source it came from (no local path reaches a page)."""

    path: str
    reason: str


Problems = Optional[list[Skipped]]
"""Where a reader records what it skipped; None: raise :class:`IngestError` at the first bad file instead."""


def reason_of(exc: BaseException) -> str:
    """One line saying why a file could not be read, whatever raised (never a traceback)."""
    if isinstance(exc, IngestError):
        return str(exc)
    if isinstance(exc, UnreadableFile):  # its reason only: the path is local, and the caller names the file
        return exc.reason
    if isinstance(exc, RecursionError):
        return "nested too deeply to be read"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, OSError):
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    text = " ".join(str(exc).split())
    return f"unexpected content ({type(exc).__name__}{': ' + text[:120] if text else ''})"


def _guarded(where: str, problems: Problems, rows_of: Callable[..., Iterable[dict]], *args: Any) -> list[dict]:
    """Every row of ``rows_of(*args)`` (one file), or none and the file listed in ``problems`` with its reason."""
    try:
        return list(rows_of(*args))
    except Exception as exc:
        if problems is None:  # an IngestError names its file, unless it is a field's
            located = isinstance(exc, IngestError) and not isinstance(exc, _ShapeError)
            raise exc if located else IngestError(f"{where}: {reason_of(exc)}") from None
        problems.append(Skipped(where, reason_of(exc).removeprefix(f"{Path(where).name}: ")))
        return []


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _ShapeError(f"{what}: expected a JSON object, found {type(value).__name__}")
    return value


# ------------------------------------------------------------------------------------------ Inspect
def _usage(sample: Any) -> tuple[Optional[int], Optional[int], Optional[float]]:
    usage = list((sample.model_usage or {}).values())
    if not usage:
        return None, None, None
    costs = [u.total_cost for u in usage]
    return (sum(u.input_tokens + (u.input_tokens_cache_read or 0) for u in usage),
            sum(u.output_tokens for u in usage), sum(costs) if all(c is not None for c in costs) else None)


def _gold_texts(gold: Any) -> list[str]:
    steps = gold.get("steps") if isinstance(gold, dict) else None
    return [str(s.get("text") or s.get("description") or "") for s in steps or [] if isinstance(s, dict)]


def _cflue_invalid(score: Any) -> dict[str, float]:
    invalid = (score.metadata or {}).get("invalid")
    return {f"invalid_{k}": float(bool(v)) for k, v in invalid.items()} if isinstance(invalid, dict) else {}


def _scores(sample: Any) -> tuple[dict[str, Any], Any]:
    """The metric columns of one Inspect sample and its main score (for answer and alignment)."""
    out: dict[str, Any] = {}
    main = None
    for name, score in (sample.scores or {}).items():
        main = main or score
        if isinstance(score.value, dict):
            out.update({k: float(v) for k, v in score.value.items() if isinstance(v, (int, float))})
            main = score
        elif isinstance(score.value, (int, float)):
            out["accuracy" if "cflue" in name or name == "match" else name.split("/")[-1]] = float(score.value)
        out.update(_cflue_invalid(score))
    return out, main


def _header_facts(header: Any, record: dict[str, Any]) -> dict[str, Any]:
    meta = header.eval.metadata or {}
    chaineval = meta.get("chaineval") if isinstance(meta.get("chaineval"), dict) else {}
    name = meta.get("finchain_model") or (header.eval.model_args or {}).get("finchain_model") or header.eval.model
    return {"model": str(name), "display_name": record.get("display_name"), "category": record.get("category"),
            "params_b": record.get("params_b"), "harness": "inspect",
            "harness_version": (header.eval.packages or {}).get("inspect_ai"),
            "finchain_tasks_version": meta.get("finchain_tasks_version") or meta.get("package_version"),  # CFLUE's
            "task": header.eval.task.split("/")[-1], "task_set": meta.get("finchain_task_set"),
            "task_version": str(meta.get("task_version") or header.eval.task_version),
            "profile": chaineval.get("profile") or meta.get("cflue_profile"), "fresh": bool(meta.get("fresh_seeds")),
            "date": header.eval.created}


def inspect_rows(log_path: Path, record: Optional[dict[str, Any]] = None, source: str = "") -> Iterator[dict]:
    """The rows of one Inspect ``.eval`` log (every sample, failed ones with their error and no scores)."""
    from inspect_ai.log import read_eval_log, read_eval_log_samples

    try:
        header = read_eval_log(str(log_path), header_only=True)
    except Exception as exc:  # a truncated or foreign file: name it, keep going with the others
        raise IngestError(f"{log_path.name}: not a readable Inspect log ({type(exc).__name__})") from None
    facts = _header_facts(header, record or {})
    # Inspect streams samples by the header's ids; a log without them (an older Inspect's, one written by hand)
    # is read whole rather than refused
    samples = (read_eval_log_samples(str(log_path), all_samples_required=False)
               if header.eval.dataset.sample_ids is not None else read_eval_log(str(log_path)).samples or [])
    for s in samples:
        scores, main = _scores(s)
        meta = s.metadata or {}
        smeta = (main.metadata or {}) if main is not None else {}
        tokens_in, tokens_out, cost = _usage(s)
        yield {**facts, **scores, "sample_id": str(s.id), "epoch": s.epoch, "domain": meta.get("domain"),
               "topic": meta.get("topic"), "template": meta.get("template"), "level": meta.get("level"),
               "seed": meta.get("seed"), "exam": meta.get("exam"), "sub_task": meta.get("sub_task"),
               "first_error_step": smeta.get("first_error_step"), "n_gold_steps": smeta.get("n_gold_steps"),
               "n_pred_steps": smeta.get("n_pred_steps"), "input_tokens": tokens_in, "output_tokens": tokens_out,
               "cost": cost, "latency_s": s.total_time, "source": f"{source}{log_path.name}",
               "question": s.input if isinstance(s.input, str) else _last_user(s.input),
               "prompt": inspect_prompt(s.messages) or (s.input if isinstance(s.input, str) else None),
               "gold_steps": _gold_texts(meta.get("gold")),
               "gold_answer": _gold_answer(meta.get("gold"), s.target),
               "output": s.output.completion if s.output else "", "answer": main.answer if main else None,
               "alignment": smeta.get("alignment"), "error": str(s.error.message) if s.error else None}


def inspect_prompt(messages: Any) -> Optional[str]:
    """What the model was sent: the messages before its first reply, each under its role (a system prompt, the
    task's wording around the question), as the sample page shows it."""
    sent = []
    for m in messages or []:
        if getattr(m, "role", None) == "assistant":
            break
        sent.append(f"[{m.role}]\n{m.text}")
    return "\n\n".join(sent) or None


def lm_eval_prompt(sample: dict[str, Any]) -> Optional[str]:
    """What lm-eval sent: the first argument of the sample's request (the full prompt text, or the chat
    messages as the harness rendered them)."""
    args = sample.get("arguments")
    first = next(iter(args.values()), None) if isinstance(args, dict) else (args[0] if isinstance(args, list) and args
                                                                             else None)
    sent = first.get("arg_0") if isinstance(first, dict) else (first[0] if isinstance(first, list) and first else None)
    if isinstance(sent, list) and len(sent) == 1 and isinstance(sent[0], str):  # lm-eval's JsonChatStr, a tuple
        sent = sent[0]
    if isinstance(sent, str) and sent.startswith("[{"):  # a chat backend logs the messages as JSON text
        try:
            sent = json.loads(sent)
        except ValueError:
            pass
    if isinstance(sent, list):  # chat messages: each under its role, as an Inspect prompt is shown
        parts = [f"[{m.get('role')}]\n{m.get('content')}" for m in sent if isinstance(m, dict)]
        return "\n\n".join(parts) or None
    return sent if isinstance(sent, str) else None


def _last_user(messages: Any) -> str:
    users = [m for m in messages or [] if getattr(m, "role", None) == "user"]
    return str(users[-1].text) if users else ""


def _gold_answer(gold: Any, target: Any) -> Optional[str]:
    """The gold final answer as a reader expects it: the rendered text where the task kept it (lm-eval's
    ``answer_text``), else the value in its unit's display (``$18,598,500.00``, ``1,283,008 shares``), else a
    one-line target."""
    if isinstance(gold, dict) and gold.get("answer_text"):
        return str(gold["answer_text"])
    if isinstance(gold, dict) and gold.get("answer") is not None:  # the templates' own display of the unit
        from finchain_tasks.engine.formatting import result_text

        return result_text(gold["answer"], str(gold.get("answer_unit") or ""))
    return target if isinstance(target, str) and "\n" not in target else None


def first_error_from_buckets(metrics: dict[str, float]) -> Optional[int]:
    """lm-eval logs the first broken step only as ChainEval's distribution keys (``err_1`` .. ``err_4plus``);
    turn them back into a position (4 means 4 or later). None when no step broke or nothing says."""
    for k, key in enumerate(("err_1", "err_2", "err_3", "err_4plus"), start=1):
        if metrics.get(key) == 1.0:
            return k
    return None


# ------------------------------------------------------------------------------------------ lm-eval
def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _lm_eval_facts(results: dict[str, Any], record: dict[str, Any], model: str) -> dict[str, Any]:
    """What a results file says of the run; a field of the wrong shape says nothing (the samples still count)."""
    configs = _object(results.get("configs"))
    first = _object(next(iter(configs.values()), {}))
    meta = _object(first.get("metadata"))
    run = _object(meta.get("finchain_run"))
    chaineval = _object(run.get("chaineval"))
    cflue = _object(meta.get("cflue_run") or meta.get("cflue_app_run"))
    date = results.get("date")
    return {"model": model, "display_name": record.get("display_name"), "category": record.get("category"),
            "params_b": record.get("params_b"), "harness": "lm-eval",
            "harness_version": results.get("lm_eval_version") or _lm_eval_version(),
            "finchain_tasks_version": (run.get("package_version") or run.get("finchain_tasks_version")
                                       or cflue.get("package_version")),  # a CFLUE run records its own way
            "task_version": _str_or_none(run.get("task_version") or cflue.get("task_version")),
            "profile": chaineval.get("profile") or cflue.get("cflue_profile"), "fresh": bool(run.get("fresh_seeds")),
            "date": _iso(date)}


def _str_or_none(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def _iso(stamp: Any) -> Optional[str]:
    """Seconds since the epoch as ISO text, text as logged; anything else (a flag, a list, NaN, a moment no
    calendar holds) is no date: a results file's samples never depend on it."""
    from datetime import datetime, timezone

    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
        try:
            return datetime.fromtimestamp(stamp, tz=timezone.utc).isoformat(timespec="seconds")
        except (OverflowError, ValueError, OSError):
            return None
    return stamp if isinstance(stamp, str) and stamp else None


def _lm_eval_version() -> Optional[str]:
    try:
        from importlib.metadata import version

        return version("lm_eval")
    except Exception:
        return None


def _resp_text(sample: dict[str, Any]) -> str:
    resps = sample.get("resps") or []
    while isinstance(resps, list) and resps:
        resps = resps[0]
    return resps if isinstance(resps, str) else ""


def lm_eval_rows(results_path: Path, record: Optional[dict[str, Any]] = None, model: Optional[str] = None,
                 source: str = "", problems: Problems = None, realign: bool = True) -> Iterator[dict]:
    """The rows of one lm-eval results file and the ``samples_*.jsonl`` written with it (``--log_samples``).
    A bad samples file or line is listed in ``problems`` (when given) and the rest are read; ``realign``
    recomputes the step alignment lm-eval does not log (:mod:`finchain_tasks.leaderboard.realign`)."""
    try:
        results = _mapping(load_json(results_path), "results")
    except (OSError, ValueError) as exc:
        raise IngestError(f"{results_path.name}: not a readable lm-eval results file ({reason_of(exc)})") from None
    name = model or (record or {}).get("name") or _lm_eval_model(results)
    facts = _lm_eval_facts(results, record or {}, name)
    stamp = results_path.stem.removeprefix("results_")
    for path in walk(results_path.parent, (f"samples_*_{stamp}.jsonl",), recurse=False).files:  # no link out
        task = path.name.removeprefix("samples_").removesuffix(f"_{stamp}.jsonl")
        where = f"{source}{path.name}"
        yield from _guarded(where, problems, _samples_file, path, facts, task, where, problems, realign)


def _samples_file(path: Path, facts: dict[str, Any], task: str, where: str, problems: Problems,
                  realign: bool) -> Iterator[dict]:
    """One ``samples_*.jsonl``. Lines end at ``\n`` only: a model's answer may hold U+2028, NEL or a form feed,
    which ``str.splitlines`` would cut inside a JSON string. A bad line is listed and skipped."""
    rows: list[dict] = []
    docs: list[dict] = []
    for number, line in jsonl_lines(read_text(path)):
        got = _guarded(f"{where}:{number}", problems, _sample_line, line, facts, task, where)
        rows.extend(got)
        docs.extend(r.pop("_doc") for r in got)
    if realign and rows and rows[0]["task"] == "finchain":
        try:
            add_alignment(rows, docs)
        except Exception:  # the viewer then says the log has no alignment; the scores stand as logged
            pass
    yield from rows


def _lm_eval_model(results: dict[str, Any]) -> str:
    """The model a results file names: ``model=`` (API backends) or ``pretrained=`` (hf, vLLM) of its model args;
    else the backend itself with its args (``finchain-oracle``, ``finchain-oracle (mode=wrong)``), as lm-eval's
    ``model_name`` is then a random word; else that ``model_name``."""
    config = _object(results.get("config"))
    raw = config.get("model_args") or ""
    pairs = ([f"{k}={v}" for k, v in raw.items()] if isinstance(raw, dict)
             else [p.strip() for p in str(raw).split(",") if p.strip()])
    for key in ("model=", "pretrained="):
        for part in pairs:
            if part.startswith(key):
                return part.removeprefix(key)
    backend = config.get("model")
    if isinstance(backend, str) and backend:
        return f"{backend} ({', '.join(pairs)})" if pairs else backend
    return str(results.get("model_name") or "unknown")


def _task_of(leaf: str) -> str:
    for task in ("cflue_application", "cflue"):
        if leaf.startswith(task):
            return task
    return "finchain"


def _application_values(doc: dict[str, Any], response: str) -> dict[str, float]:
    """lm-eval's CFLUE application leaves log each record's corpus-metric input, not a value of its own; the
    record's value is the one the Inspect scorer gives (the same function on the same gold and response)."""
    from scorers.cflue.application import record_scores

    gold = doc.get("output")
    try:
        gold = json.loads(gold) if isinstance(gold, str) else gold
    except ValueError:
        pass  # a plain-text reference
    return record_scores(doc["task_slug"], doc.get("sub_task") or "", gold, response, doc.get("profile") or "default")


def _sample_line(line: str, facts: dict[str, Any], task: str, where: str) -> list[dict]:
    return [_lm_eval_row(_mapping(json.loads(line), "sample"), facts, task, where)]


def _filtered_answer(sample: dict[str, Any]) -> Optional[str]:
    """The final answer the task's filter read from the reply (``filtered_resps``: ChainEval's filter hands on
    the answer it parsed), or None when the log has none."""
    value = sample.get("filtered_resps")
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) and value else None


def _lm_eval_row(s: dict[str, Any], facts: dict[str, Any], leaf: str, source: str) -> dict[str, Any]:
    doc = _mapping(s.get("doc") or {}, "sample doc")
    metrics = {k: float(s[k]) for k in (*METRIC_KEYS, *CFLUE_KEYS, "acc") if isinstance(s.get(k), (int, float))}
    if "acc" in metrics:
        metrics["accuracy"] = metrics.pop("acc")
    task = _task_of(leaf)
    if task == "cflue_application" and doc.get("task_slug"):
        metrics = _application_values(doc, _resp_text(s))
    counts = {k: c for k in ("n_gold_steps", "n_pred_steps") if (c := whole_count(s.get(k))) is not None}
    steps = doc.get("steps")
    if isinstance(steps, str) and steps.startswith("["):
        try:
            steps = json.loads(steps)
        except ValueError:  # left as text, so shown as no gold steps below; the line's scores still count
            pass
    steps = steps if isinstance(steps, list) else []
    return {**facts, **metrics, **counts, "task": task,
            "task_set": leaf, "sample_id": str(doc.get("id", s.get("doc_id"))), "epoch": 1,
            "domain": doc.get("domain"), "topic": doc.get("topic"), "template": doc.get("template"),
            "level": doc.get("level"), "seed": doc.get("seed"), "exam": doc.get("exam"),
            "sub_task": doc.get("sub_task"), "question": doc.get("question") or doc.get("prompt"),
            "prompt": lm_eval_prompt(s),
            "gold_steps": _gold_texts({"steps": steps}), "gold_answer": _gold_answer(doc, doc.get("reference")),
            "first_error_step": first_error_from_buckets(metrics),
            "output": _resp_text(s), "answer": _filtered_answer(s), "source": source, "error": None, "_doc": doc}


# ------------------------------------------------------------------------------------------ run directories
def _manifest_records(run_dir: Path) -> dict[str, dict[str, Any]]:
    path = run_dir / "run.json"
    if not path.is_file():
        return {}
    try:
        manifest = load_json(path)
    except (OSError, ValueError) as exc:
        raise IngestError(f"run.json: {reason_of(exc)}") from None
    manifest = _mapping(manifest, "run.json")
    models = manifest.get("models") or []
    if not isinstance(models, list):
        raise IngestError(f"run.json: models: expected a list, found {type(models).__name__}")
    return {str(m["name"]): m for m in models if isinstance(m, dict) and isinstance(m.get("name"), str)}


def newest_inspect_logs(log_dir: Path, problems: Problems = None, prefix: str = "") -> list[Path]:
    """The newest log of each task of an eval-set folder (the run summary's rule: by last write per task id).
    A log whose header cannot be read is listed in ``problems`` (when given) and the others are still picked."""
    if not Path(log_dir).is_dir():
        return []
    from inspect_ai.log import read_eval_log

    newest: dict[str, tuple[float, str, Path]] = {}
    for path, mtime in inspect_log_files(Path(log_dir), problems, prefix):  # bench --ray: sub-dirs
        try:
            header = read_eval_log(str(path), header_only=True)
            key = str(header.eval.task_id)
        except Exception as exc:
            if problems is None:
                raise IngestError(f"{path.name}: not a readable Inspect log ({type(exc).__name__})") from None
            problems.append(Skipped(f"{prefix}{path.name}", f"not a readable Inspect log ({reason_of(exc)})"))
            continue
        if key not in newest or mtime >= newest[key][0]:
            newest[key] = (mtime, str(header.eval.created), path)
    return [p for _, _, p in sorted(newest.values(), key=lambda t: (t[1], str(t[2])))]


_INSPECT_JSON_LOG = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")
"""Inspect's own name for a JSON log (a timestamp first); any ``.eval`` is a log."""


def inspect_log_files(log_dir: Path, problems: Problems = None, prefix: str = "") -> list[tuple[Path, float]]:
    """(log, mtime) of every Inspect log under ``log_dir``, found as Inspect's listing finds them but without
    following a link out of the folder; what was skipped is listed in ``problems``."""
    found = walk(log_dir, ("*.eval", "*.json"))
    _note_skipped(found.skipped, log_dir, problems, prefix)
    return [(p, p.stat().st_mtime) for p in found.files if p.suffix == ".eval" or _INSPECT_JSON_LOG.match(p.name)]


def _note_skipped(skipped: list[tuple[Path, str]], root: Path, problems: Problems, prefix: str) -> None:
    """List what a walk did not follow (a link out of the folder, a FIFO or device), relative to ``root``."""
    if problems is None:
        return
    for path, why in skipped:
        problems.append(Skipped(f"{prefix}{path.relative_to(root).as_posix()}", why.split(" (to ")[0]))


def newest_lm_eval_results(folder: Path, problems: Problems = None, prefix: str = "") -> list[Path]:
    """The newest ``results_*.json`` of each lm-eval output folder under ``folder`` (no link out of it)."""
    found = walk(folder, ("results_*.json",))
    _note_skipped(found.skipped, folder, problems, prefix)
    newest: dict[Path, Path] = {}
    for path in sorted(found.files, key=lambda p: p.stat().st_mtime):
        newest[path.parent] = path
    return sorted(newest.values())


def run_dir_rows(run_dir: Path, problems: Problems = None, realign: bool = True) -> Iterator[dict]:
    """Every row of a ``finchain eval``/``bench`` run directory (Inspect logs and lm-eval outputs). A bad
    ``run.json`` costs only the model records it would add (names, sizes, prices); a bad log only itself."""
    prefix = f"{run_dir.name}/"
    try:
        records = _manifest_records(run_dir)
    except IngestError as exc:
        if problems is None:
            raise IngestError(f"{run_dir.name}/{exc}") from None
        problems.append(Skipped(f"{prefix}run.json", str(exc).removeprefix("run.json: ")))
        records = {}
    for log in newest_inspect_logs(run_dir / "logs", problems, f"{prefix}logs/"):
        rows = _guarded(f"{prefix}logs/{log.name}", problems, inspect_rows, log, None, prefix)
        yield from _with_record(rows, records)
    lm_root = run_dir / "lm_eval"
    if lm_root.is_dir():
        for results in newest_lm_eval_results(lm_root, problems, f"{prefix}lm_eval/"):
            parts = results.relative_to(lm_root).parts
            model, task_set = parts[0], (parts[1] if len(parts) > 2 else None)
            rows = _guarded(f"{prefix}lm_eval/{'/'.join(parts)}", problems, lm_eval_rows, results, records.get(model),
                            model, prefix, problems, realign)
            for row in rows:
                yield {**row, "task_set": task_set or row["task_set"]}


def _with_record(rows: Iterable[dict], records: dict[str, dict[str, Any]]) -> Iterator[dict]:
    """Add the run's record of the model (display name, category, size) and, where the log has tokens but no
    cost, the cost at the registry price the run recorded (as the run summary does)."""
    for row in rows:
        rec = records.get(row["model"], {})
        row = {**row, **{k: rec.get(k) for k in ("display_name", "category", "params_b") if rec.get(k) is not None}}
        price = rec.get("price")
        if row.get("cost") is None and isinstance(price, dict) and row.get("input_tokens") is not None:
            try:
                row["cost"] = (row["input_tokens"] * float(price["input"])
                               + (row["output_tokens"] or 0) * float(price["output"])) / 1e6
            except (KeyError, TypeError, ValueError):
                pass  # a price the run recorded badly: the cost stays unknown, never a guess
        yield row


def source_rows(path: Path, problems: Problems = None, realign: bool = True) -> Iterator[dict]:
    """The rows of one source: a run directory, an Inspect log or folder of logs, or an lm-eval output folder.
    With ``problems`` (a list), every file that cannot be read is listed there with its reason and the rest
    are read; without, the first such file raises :class:`IngestError`."""
    if not path.exists():
        raise IngestError(f"source {path.name!r} does not exist ({path.resolve()}): "
                          "run `finchain bench` or pass --source")
    here = f"{path.parent.name}/"
    if path.is_file() and path.suffix == ".eval":
        yield from _guarded(f"{here}{path.name}", problems, inspect_rows, path, None, here)
    elif path.is_file() and path.name.startswith("results_") and path.suffix == ".json":
        yield from _guarded(f"{here}{path.name}", problems, lm_eval_rows, path, None, None, here, problems, realign)
    elif _is_run_dir(path):
        yield from run_dir_rows(path, problems, realign)
    elif any(path.glob("*.eval")):
        for log in newest_inspect_logs(path, problems, f"{path.name}/"):
            yield from _guarded(f"{path.name}/{log.name}", problems, inspect_rows, log, None, f"{path.name}/")
    elif path.is_dir() and not _holds_runs(path) and walk(path, ("results_*.json",)).files:
        for results in newest_lm_eval_results(path, problems, f"{path.name}/"):
            folder = "/".join((path.name, *results.parent.relative_to(path).parts)) + "/"
            yield from _guarded(f"{folder}{results.name}", problems, lm_eval_rows, results, None, None, folder,
                                problems, realign)
    elif path.is_dir():  # a folder of run directories (./finchain-runs), or of log folders
        children = [c for c in _run_dirs(path, problems) if _is_run_dir(c) or walk(c, SOURCE_FILES).files]
        if not children:  # a mistyped folder would otherwise build an empty board without a word
            raise IngestError(f"source {path.name!r}: holds no run directory, Inspect log or lm-eval output")
        for child in children:
            yield from source_rows(child, problems, realign)
    else:
        raise IngestError(f"source {path.name!r}: not a run directory, Inspect log or lm-eval output")


SOURCE_FILES = ("*.eval", "results_*.json", "run.json")
"""The files that make a folder a source somewhere below it: an Inspect log, an lm-eval results file, a run's
manifest."""


def _is_run_dir(path: Path) -> bool:
    """What ``finchain eval``/``bench`` leave in a run directory: its manifest, Inspect logs or lm-eval outputs."""
    return (path / "run.json").is_file() or (path / "logs").is_dir() or (path / "lm_eval").is_dir()


def _holds_runs(folder: Path) -> bool:
    """Whether a folder holds run directories (``./finchain-runs``): then it is read run by run, though their
    ``lm_eval/`` folders hold results files as a bare lm-eval output folder does (read as one, it would lose
    every run's Inspect logs and manifest)."""
    return any(_is_run_dir(child) for child in _run_dirs(folder, []))


def _run_dirs(path: Path, problems: Problems) -> list[Path]:
    """The folders in ``path``, never a link out of it (a link to ``/`` would have the build read the disk):
    such a link is listed in ``problems`` (or raises without) and the others are read."""
    children = []
    for child in sorted(p for p in path.iterdir() if p.is_dir()):
        if child.is_symlink() and path.resolve() not in child.resolve().parents:
            why = "a link out of the source folder (not followed)"
            if problems is None:
                raise IngestError(f"{path.name}/{child.name}: {why}")
            problems.append(Skipped(f"{path.name}/{child.name}", why))
            continue
        children.append(child)
    return children


def enrich(rows: list[dict], registry: Any) -> list[dict]:
    """Fill what the logs do not hold from the registry: display name, category, size, open weights."""
    models = getattr(registry, "models", {})  # None (no registry) has none
    for row in rows:
        spec = models.get(row["model"])
        if spec is not None:
            for key, value in (("display_name", spec.display_name), ("category", spec.category),
                               ("params_b", spec.params_b), ("open_weights", spec.open_weights)):
                if row.get(key) is None:
                    row[key] = value
        row["display_name"] = row.get("display_name") or row["model"]
    return rows


def to_frame(rows: list[dict]):
    """The rows as a pandas DataFrame with every column of :data:`COLUMNS` (lists and dicts as JSON text)."""
    import pandas as pd

    frame = pd.DataFrame([{k: row.get(k) for k in COLUMNS} for row in rows], columns=list(COLUMNS))
    for col in ("gold_steps", "alignment"):
        frame[col] = frame[col].map(lambda v: None if v is None else json.dumps(v, ensure_ascii=False))
    for col in (*METRIC_KEYS, *CFLUE_KEYS, *APP_KEYS, "params_b", "cost", "latency_s", "first_error_step"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    for col in ("input_tokens", "output_tokens", "n_gold_steps", "n_pred_steps", "epoch", "seed"):
        values = pd.to_numeric(frame[col], errors="coerce").astype(float)
        # whole_count's rule, over a column: anything else (an infinity, 1.5, 1e300 from a broken log) is missing,
        # where casting it would fail the whole build
        frame[col] = values.where(values.between(0, MAX_COUNT) & values.eq(values.round())).astype("Int64")
    frame["open_weights"] = frame["open_weights"].astype("boolean")
    frame["fresh"] = frame["fresh"].astype("boolean")
    return frame


def ingest(paths: Iterable[Path], registry: Any = None, problems: Problems = None, realign: bool = True):
    """Every source's rows, enriched from the registry, as one DataFrame (see :data:`COLUMNS`). With
    ``problems`` (a list), a source or file that cannot be read is listed there (path and reason) and the
    build goes on with the rest; without, the first one raises :class:`IngestError`."""
    rows: list[dict] = []
    for path in paths:
        path = Path(path)
        if problems is None:
            rows.extend(source_rows(path, None, realign))
            continue
        if not path.exists():  # named, never with its local path (the list reaches the site)
            problems.append(Skipped(path.name, "does not exist"))
            continue
        try:
            rows.extend(source_rows(path, problems, realign))
        except IngestError as exc:  # nothing a host writes
            problems.append(Skipped(path.name, str(exc).removeprefix(f"source {path.name!r}: ")))
    return to_frame(enrich(redacted(rows), registry))


def redacted(rows: list[dict]) -> list[dict]:
    """The rows with every configured secret (and its last 12 characters) redacted from every text they hold.
    Runs redact what they write, but a log from an older version or another tool may still hold a key that a
    provider echoed: the board, its data release and its sample pages are built from these rows only."""
    from finchain_tasks.plumbing.redaction import configured_secrets, redact

    secrets = configured_secrets()
    if not secrets:
        return rows

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return redact(value, secrets)
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return [clean(row) for row in rows]
