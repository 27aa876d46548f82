"""``finchain bench --harness lm-eval``: the model × task-set matrix through lm-eval, one subprocess per
model and task set, into the same run directory, summary and report as the Inspect harness.

Why a subprocess running ``finchain-lm-eval`` (``python -m finchain_tasks.lm_eval.cli``): it is exactly
the command a user runs by hand, a crash or a stuck backend ends one cell of the matrix and not the
bench, and lm-eval's global state (task registry, logging) starts clean for every model.

Only models reached over an OpenAI-compatible base URL run here: self-hosted ones (``api_base`` /
``api_base_env``) and the local model (started with :class:`LocalModelServer`). lm-eval's
``local-chat-completions`` backend sends them the chat messages (``--apply_chat_template``). Its key
comes from ``OPENAI_API_KEY``, which only the child process gets, set to the model's own key (or to a
placeholder for keyless servers, so a real OpenAI key never travels there); it is never on a command
line or in ``model_args``, so lm-eval cannot write it into a result. Hosted models without a base URL
would need lm-eval's ``litellm`` backend, which reads keys only by litellm's provider conventions
(not our ``api_key_env``) and cannot be tested offline: they are refused with a message.

Resume: lm-eval's ``--use_cache`` keeps every answer (SQLite, committed per answer), keyed by the prompt
and generation arguments; a re-run re-sends only unanswered requests. That cache is a SqliteDict of
*pickles*: opening one written by someone else runs their code. So it never lives in the run directory
(which is meant to be shared, copied and resumed from elsewhere) but in the user's cache directory,
``$XDG_CACHE_HOME/finchain-tasks/lm_eval/<run key>/<model>/`` (or under ``$FINCHAIN_LM_EVAL_CACHE_DIR``;
:func:`cache_prefix`; the run key is the run directory's name and a hash of its resolved path), in folders
only the user may write; a cache file or folder owned by anyone else is refused before lm-eval starts
(:func:`check_cache_owner`). An
``lm_eval_cache/`` left in a run directory by an older version is never opened (a warning says so).
Every run writes a fresh ``results_*.json``; the summary reads the newest one of each model × task set.

``--limit N`` on a FinChain task set means what it means with Inspect: the first N problems of the task
set's stratified order (:mod:`finchain_tasks.finchain.sampling`), the same for every model. lm-eval's own
``--limit`` is per leaf (domain × level), so the bench passes the chosen documents as ``--samples``: the
leaves' documents are in the same order, so the first N overall are a prefix of each leaf.

Progress: one line when a cell starts, a line every ``HEARTBEAT_S`` seconds while it runs (with the
answers in its cache so far), one when it ends; transformers' weight-loading bar is switched off.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.runs import LM_EVAL, LM_EVAL_CACHE

STATUS = "status.json"
"""Written next to lm-eval's files of one model × task set: exit code, error line, wall time, command."""
LOG = "lm_eval.log"
CACHE_NAME = "responses"
"""lm-eval appends ``_rank0.db`` to the ``--use_cache`` prefix."""
_FINCHAIN_ARGS = {"profile": "finchain_profile", "chaineval_params": "finchain_chaineval"}
_CFLUE_ARGS = {"path": "cflue_path", "exam": "cflue_exams", "prompt": "cflue_prompt", "extract": "cflue_extract",
               "n": "cflue_n", "analysis": "cflue_analysis", "profile": "cflue_profile"}
CFLUE_TYPES = ("single_choice", "multiple_choice", "true_false")
_CFLUE_APP_ARGS = {"path": "cflue_app_path", "sub_task": "cflue_app_sub_tasks", "comet": "cflue_app_comet",
                   "bertscore": "cflue_app_bertscore", "profile": "cflue_app_profile"}
HEARTBEAT_S = 30.0
"""Seconds between progress lines while one lm-eval run is under way."""
QUIET_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error", "TQDM_DISABLE": "1"}
"""Silences the child's progress bars (transformers' "Loading weights" uses huggingface_hub's switch)."""


# ------------------------------------------------------------------------------------------ task sets
def _names(value: Any) -> list[str]:
    if value is None:
        return []
    return [v.strip() for v in (value.split(",") if isinstance(value, str) else value) if str(v).strip()]


def lm_eval_task(plan: Any) -> tuple[list[str], dict[str, Any]]:
    """(lm-eval task names, ``--metadata``) of a registry task set; ValueError for what lm-eval cannot select."""
    args = dict(plan.args)
    if plan.task == "cflue":
        types = _names(args.pop("type", None))
        unknown = [t for t in types if t not in CFLUE_TYPES]
        if unknown:
            raise ValueError(f"task set {plan.name!r}: --harness lm-eval knows the CFLUE types {CFLUE_TYPES}, "
                             f"not {unknown}")
        return _rest([f"cflue_{t}" for t in types] or ["cflue"], args, _CFLUE_ARGS, plan.name)
    if plan.task == "cflue_application":
        from scorers.cflue.application import TASKS

        tasks = _names(args.pop("task", None))
        unknown = [t for t in tasks if t not in TASKS.values()]
        if unknown:
            raise ValueError(f"task set {plan.name!r}: --harness lm-eval knows the CFLUE application tasks "
                             f"{tuple(TASKS.values())}, not {unknown}")
        return _rest([f"cflue_application_{t}" for t in tasks] or ["cflue_application"], args, _CFLUE_APP_ARGS,
                     plan.name)
    if plan.task != "finchain":
        raise ValueError(f"task set {plan.name!r}: task {plan.task!r} has no lm-eval task")
    return _finchain_task(plan.name, args)


def _finchain_task(name: str, args: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    from finchain_tasks.engine import LEVELS, all_templates

    if args.pop("fresh", False):
        raise ValueError(f"task set {name!r} uses fresh seeds, which lm-eval draws anew in every run (no resume): "
                         "use --harness inspect")
    meta: dict[str, Any] = {}
    seeds = args.pop("seeds", None)
    start = int(args.pop("start_seed", 0))
    if isinstance(seeds, list):
        if not seeds or seeds != list(range(seeds[0], seeds[0] + len(seeds))):
            raise ValueError(f"task set {name!r}: lm-eval takes consecutive seeds, not {seeds}")
        seeds, start = len(seeds), seeds[0]
    if seeds is not None:
        meta["finchain_seeds"] = int(seeds)
    if start:
        meta["finchain_start_seed"] = start
    domains = _names(args.pop("domain", None))
    levels = _names(args.pop("level", None))
    from finchain_tasks.engine import select
    from finchain_tasks.finchain.generate import CANONICAL_SEEDS, check_size

    check_size(len(select(domains=domains, levels=levels)), int(meta.get("finchain_seeds", len(CANONICAL_SEEDS))))
    if not domains and not levels:
        tasks = ["finchain"]
    else:
        known = sorted({t.domain for t in all_templates().values()})
        tasks = [f"finchain_{d}_{lv}" for d in (domains or known) for lv in (levels or LEVELS)]
    return _rest(tasks, args, _FINCHAIN_ARGS, name, meta)


def _rest(tasks: list[str], args: dict[str, Any], mapping: dict[str, str], name: str,
          meta: Optional[dict[str, Any]] = None) -> tuple[list[str], dict[str, Any]]:
    """Map the remaining task arguments to lm-eval metadata keys; refuse the ones lm-eval has no key for."""
    unsupported = sorted(k for k in args if k not in mapping)
    if unsupported:
        raise ValueError(f"task set {name!r}: --harness lm-eval cannot select by {', '.join(unsupported)}; "
                         "use --harness inspect")
    return tasks, {**(meta or {}), **{mapping[k]: v for k, v in args.items() if v is not None}}


# ------------------------------------------------------------------------------------------ models
def check_models(specs: Sequence[Any]) -> None:
    """Refuse hosted models without a base URL (see the module docstring), naming them all at once."""
    from finchain_tasks.models.registry import api_base
    from finchain_tasks.runs.engine import needs_local_server

    hosted = [s.name for s in specs if not api_base(s) and not needs_local_server(s)]
    if hosted:
        raise ValueError(f"--harness lm-eval runs models with an OpenAI-compatible base URL (self-hosted or the "
                         f"local model); {', '.join(hosted)} has none: use --harness inspect for hosted APIs")


def served_id(spec: Any) -> str:
    """The model id the server knows: the litellm id without its provider prefix."""
    return spec.litellm_model.split("/", 1)[1]


def model_args(spec: Any, base_url: str, options: Any) -> str:
    """``--model_args`` for ``local-chat-completions`` (never a key)."""
    from finchain_tasks.models.vllm_args import model_id_problem

    problem = model_id_problem(served_id(spec))
    if problem:  # a comma or space would add a model argument of the id's choosing
        raise ValueError(f"model {spec.name!r}: served id {served_id(spec)[:80]!r} {problem}")
    connections = options.max_connections or 1
    parts = [f"base_url={base_url.rstrip('/')}/chat/completions", f"model={served_id(spec)}",
             "tokenizer_backend=None", "tokenized_requests=False", f"num_concurrent={connections}",
             f"max_retries={max(1, options.max_retries)}"]
    if options.timeout:
        parts.append(f"timeout={options.timeout}")
    return ",".join(parts)


def gen_kwargs(spec: Any) -> list[str]:
    """The registry's generation parameters as lm-eval ``--gen_kwargs`` (max_tokens is lm-eval's max_gen_toks)."""
    from finchain_tasks.models.registry import generation_params

    params, _ = generation_params(spec)
    out = {"max_gen_toks" if k == "max_tokens" else k: v for k, v in params.items()
           if k in ("temperature", "top_p", "max_tokens")}
    return [f"{k}={v}" for k, v in out.items()]


def child_env(spec: Any) -> dict[str, str]:
    """The child's environment: ``OPENAI_API_KEY`` is the model's key, or a placeholder for keyless servers."""
    from finchain_tasks.models.registry import KEYLESS_PLACEHOLDER, api_key

    env = {**os.environ, **QUIET_ENV}
    env["OPENAI_API_KEY"] = (api_key(spec) if spec.api_key_env else None) or KEYLESS_PLACEHOLDER
    return env


def command(spec: Any, plan: Any, run_dir: Path, base_url: str, options: Any) -> list[str]:
    """The ``finchain-lm-eval`` command of one model × task set."""
    tasks, metadata = lm_eval_task(plan)
    cmd = [sys.executable, "-m", "finchain_tasks.lm_eval.cli", "--tasks", ",".join(tasks),
           "--model", "local-chat-completions", "--model_args", model_args(spec, base_url, options),
           "--apply_chat_template", "--log_samples", "--output_path", str(output_dir(run_dir, spec.name, plan.name)),
           "--use_cache", str(cache_prefix(run_dir, spec.name))]
    if options.limit and plan.task == "finchain":
        tasks, samples = stratified_selection(plan, metadata, options.limit)
        cmd[cmd.index("--tasks") + 1] = ",".join(tasks)
        cmd += ["--samples", json.dumps(samples)]
    elif options.limit:
        cmd += ["--limit", str(options.limit)]
    if metadata:
        cmd += ["--metadata", json.dumps(metadata)]
    kwargs = gen_kwargs(spec)
    return cmd + (["--gen_kwargs", *kwargs] if kwargs else [])


def stratified_selection(plan: Any, metadata: dict[str, Any], limit: int) -> tuple[list[str], dict[str, list[int]]]:
    """(leaf tasks, ``--samples``) holding the first ``limit`` problems of the task set's stratified order; a
    leaf gets the first k documents of its own (identically ordered) dataset."""
    from finchain_tasks.engine import select
    from finchain_tasks.finchain.generate import CANONICAL_SEEDS, check_size
    from finchain_tasks.finchain.sampling import leaf_counts, stratified_order
    from finchain_tasks.lm_eval.build import leaf_name

    args = plan.args
    templates = select(domains=_names(args.get("domain")), levels=_names(args.get("level")))
    seeds = int(metadata.get("finchain_seeds", len(CANONICAL_SEEDS)))
    check_size(len(templates), seeds)
    items = [(t.domain, t.level, t.id, k) for t in templates for k in range(seeds)]
    order = stratified_order(items, lambda x: x[:3], int(metadata.get("finchain_sample_seed", 0)))
    counts = leaf_counts(order, lambda x: leaf_name(x[0], x[1]), limit)
    return list(counts), {leaf: list(range(n)) for leaf, n in counts.items()}


def output_dir(run_dir: Path, model: str, task_set: str) -> Path:
    return Path(run_dir) / LM_EVAL / model / task_set


# ------------------------------------------------------------------------------------------ running
def run_one(spec: Any, plan: Any, run_dir: Path, base_url: str, options: Any, label: str = "",
            progress: Callable[[str], None] = print) -> bool:
    """One model × task set; its console output goes to ``lm_eval.log``, its outcome to ``status.json``,
    progress lines (start, a heartbeat while it runs, end) to ``progress``."""
    cmd = command(spec, plan, run_dir, base_url, options)
    out = output_dir(run_dir, spec.name, plan.name)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    name = f"{label}{spec.name} · {plan.name}"
    progress(f"{name}: lm-eval started (console output in {out / LOG})")
    with open(out / LOG, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, env=child_env(spec), stdout=log, stderr=subprocess.STDOUT)
        while True:
            try:
                rc = proc.wait(timeout=HEARTBEAT_S)
                break
            except subprocess.TimeoutExpired:
                answers = cached_answers(run_dir, spec.name)
                progress(f"{name}: running, {time.monotonic() - t0:.0f} s"
                         + (f", {answers} answers in its cache" if answers is not None else ""))
    progress(f"{name}: {'done' if rc == 0 else f'failed (exit {rc})'} in {time.monotonic() - t0:.0f} s")
    status = {"rc": rc, "error": None if rc == 0 else _last_error(out / LOG), "wall_s": round(time.monotonic() - t0, 3),
              "harness": "lm-eval", "limit": options.limit, "command": cmd[1:]}
    (out / STATUS).write_text(json.dumps(status, indent=2) + "\n", encoding="utf-8")
    return rc == 0


CACHE_DIR_ENV = "FINCHAIN_LM_EVAL_CACHE_DIR"
"""Where lm-eval's caches go instead of ``$XDG_CACHE_HOME/finchain-tasks/lm_eval`` (the test suite sets it)."""


def cache_root() -> Path:
    """The folder holding every run's lm-eval cache (see the module docstring)."""
    from finchain_tasks.models.local import cache_dir

    return Path(os.environ.get(CACHE_DIR_ENV) or cache_dir() / "lm_eval")


def cache_prefix(run_dir: Path, model: str) -> Path:
    """lm-eval's ``--use_cache`` prefix for ``model`` in this run: under the user's cache directory, never
    in the run directory (see the module docstring)."""
    import hashlib

    resolved = Path(run_dir).resolve()
    key = f"{resolved.name[:40]}-{hashlib.sha256(str(resolved).encode()).hexdigest()[:16]}"
    return cache_root() / key / model / CACHE_NAME


def check_cache_owner(run_dir: Path, model: str) -> Path:
    """Create the cache folder of ``model`` (mode 0700) and refuse a folder or file on its way that another
    user owns, that others may write, or that is a link: lm-eval unpickles what the file holds."""
    prefix = cache_prefix(run_dir, model)
    root = prefix.parents[2]
    for folder in [*reversed(prefix.parent.parents), prefix.parent]:  # every folder it creates is 0700
        if not folder.exists():
            folder.mkdir(mode=0o700, exist_ok=True)
    db = prefix.with_name(f"{CACHE_NAME}_rank0.db")
    for path in [*reversed(prefix.parent.relative_to(root).parents), prefix.parent.relative_to(root)]:
        _owned(root / path)
    for extra in ("", "-wal", "-shm", "-journal"):
        if os.path.lexists(f"{db}{extra}"):
            _owned(Path(f"{db}{extra}"))
    return prefix


def legacy_cache_warning(run_dir: Path) -> str:
    """The warning for an ``lm_eval_cache/`` in the run directory (an older version's, or planted), or ""."""
    legacy = Path(run_dir) / LM_EVAL_CACHE
    if not os.path.lexists(legacy):
        return ""
    return (f"warning: {legacy} (lm-eval's pickle cache, from an older version or from elsewhere) is never "
            "opened; its answers are requested again")


def _owned(path: Path) -> None:
    import stat

    st = os.lstat(path)
    why = ("is a link" if stat.S_ISLNK(st.st_mode) else
           f"is owned by uid {st.st_uid}, not you (uid {os.getuid()})" if st.st_uid != os.getuid() else
           "may be written by other users" if st.st_mode & 0o022 and not (stat.S_ISDIR(st.st_mode)
                                                                           and st.st_mode & stat.S_ISVTX) else "")
    if why:
        raise ValueError(f"lm-eval's response cache {path} {why}; it holds pickles, which run code when read: "
                         "refusing to open it (remove it to start a fresh cache)")


def cached_answers(run_dir: Path, model: str) -> Optional[int]:
    """Answers in lm-eval's response cache of ``model`` so far (its SQLite file), or None when unreadable."""
    import sqlite3

    prefix = cache_prefix(run_dir, model)
    path = prefix.with_name(f"{CACHE_NAME}_rank0.db")
    if not path.is_file():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            return sum(int(db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in tables)
    except sqlite3.Error:
        return None


def _last_error(path: Path) -> str:
    lines = [ln.strip() for ln in path.read_text("utf-8", errors="replace").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    return (errors or lines or ["lm-eval exited without output"])[-1][:300]


def run(run_dir: Path, specs: Sequence[Any], plans: Sequence[Any], options: Any,
        argv: Sequence[str] = (), skipped: Sequence[tuple[Any, list[str]]] = ()) -> tuple[bool, dict[str, Any]]:
    """Every task set on every model through lm-eval into ``run_dir``; returns (all done, manifest)."""
    from finchain_tasks.runs import engine

    check_models(specs)
    for plan in plans:
        lm_eval_task(plan)  # refuse an unsupported task set before anything starts
    run_dir = Path(run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        check_cache_owner(run_dir, spec.name)  # before anything starts: a foreign pickle cache is never opened
    if legacy_cache_warning(run_dir):
        _progress(legacy_cache_warning(run_dir))
    with engine.exclusive(run_dir):
        plans, manifest = engine.prepare(run_dir, specs, plans, argv, skipped, options.limit)
        manifest["sessions"][-1]["harness"] = "lm-eval"
        t0, ok = time.monotonic(), False
        try:
            with engine.local_servers(specs) as urls:
                from finchain_tasks.models.registry import api_base

                cells = [(spec, plan) for spec in specs for plan in plans]
                results = [run_one(spec, plan, run_dir, urls.get(spec.name) or api_base(spec), options,
                                   label=f"[{i}/{len(cells)}] ", progress=_progress)
                           for i, (spec, plan) in enumerate(cells, 1)]
            ok = all(results)
        finally:
            manifest["sessions"][-1].update({"finished": engine._now(), "wall_s": round(time.monotonic() - t0, 3),
                                             "ok": ok})
            engine.write_manifest(run_dir, manifest)
    return ok, manifest


def _progress(line: str) -> None:
    """A progress line on stderr, at once (the bench's tables go to stdout)."""
    print(line, file=sys.stderr, flush=True)
