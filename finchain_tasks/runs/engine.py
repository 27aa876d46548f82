"""Build and run the eval-set: task sets × models through ``inspect_ai.eval_set``, in one run directory.

Why eval-set: it already schedules many models at once (per-model connection pools), retries failed
tasks while re-using their completed samples, and resumes a run directory: a re-run of the same plan
skips finished tasks, recovers a crashed (SIGKILLed) log from Inspect's sample buffer, and runs only
the samples that were not finished. What it cannot save, answers received for samples that were still
being scored when the process died, the response cache (:mod:`finchain_tasks.runs.cache`) does.

Every model goes through our ``litellm/<litellm id>`` Inspect provider. What decides a task's identity
in the eval-set (and so whether a re-run resumes it) is kept free of anything that changes between runs:
the base URL travels as the model's ``base_url`` (the local model's port differs every run; Inspect does
not hash it), the key is read from its environment variable at call time (``api_key_env``), and
transport settings (connections, retries, timeouts) sit in the model's GenerateConfig fields that
Inspect leaves out of the identity.

Each registry model is its own identity: the model arg ``finchain_model=<registry name>`` (the provider
never sends it) and the task metadata name it, so two registry entries of one litellm id (the same
server at temperature 0 and 0.8) are distinct eval-set tasks, keep their own logs, cache entries and
numbers, and the summary keys every result by registry name.

Generation settings travel as Inspect generation config, so the log states what was sent: every task
is bound to its model (``task_with(model=...)``), the model's GenerateConfig holds the task's defaults
overridden by the registry's ``temperature``/``top_p``/``max_tokens``/``reasoning_effort`` (minus what the
registry drops), and the task's own config loses those fields (Inspect lets a task's config override a
model's, which would undo the registry).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.finchain import sampling
from finchain_tasks.models.registry import GENERATION_FIELDS, generation_of
from finchain_tasks.runs import CACHE, LOGS, MANIFEST
from finchain_tasks.runs.cache import set_aside_if_corrupt

TASK_SET_KEY = "finchain_task_set"
"""Task metadata key naming the registry task set a log belongs to."""
MODEL_KEY = "finchain_model"
"""Model arg and task metadata key naming the registry model a log belongs to."""


@dataclass(frozen=True)
class Options:
    """How to run. None of it changes what a model is asked, so changing it between runs keeps the resume
    (except ``retry_wait``, a test hook passed as a model arg: keep it the same across runs)."""

    limit: Optional[int] = None
    max_connections: Optional[int] = None
    max_retries: int = 6
    timeout: Optional[int] = None  # seconds per request attempt (Inspect's attempt_timeout)
    retry_attempts: int = 3
    retry_wait: Optional[float] = None
    display: Optional[str] = None
    log_level: Optional[str] = None
    batch: bool = False  # providers with a batch API through Inspect's batch mode (runs/batch_mode.py)
    batch_size: Optional[int] = None  # requests per batch before the send delay (Inspect's default: 100)
    batch_tick: Optional[float] = None  # seconds between batch polls (Inspect's default: 15; tests: 0.1)


@dataclass(frozen=True)
class TaskPlan:
    """One task set of the registry, its task and the arguments it runs with."""

    name: str
    task: str
    args: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------ models
def split_ready(specs: Sequence[Any]) -> tuple[list[Any], list[tuple[Any, list[str]]]]:
    """(models that can run, [(model, missing environment variables)]) - missing keys are skipped, not fatal."""
    from finchain_tasks.models.registry import AD_HOC, missing_env

    ready, skipped = [], []
    for spec in specs:
        missing = _litellm_missing(spec) if spec.category == AD_HOC else missing_env(spec)
        (skipped.append((spec, missing)) if missing else ready.append(spec))
    return ready, skipped


def _litellm_missing(spec: Any) -> list[str]:
    """For a model not in the registry, the keys it needs: from the provider table (no import), else litellm's
    own idea (best effort)."""
    from finchain_tasks.models.provider_keys import missing_provider_key

    known = missing_provider_key(spec.litellm_model)
    if known is not None:
        return known
    try:
        from finchain_tasks.inspect.litellm_provider import import_litellm

        check = import_litellm().validate_environment(model=spec.litellm_model)
        return list(check.get("missing_keys") or []) if not check.get("keys_in_environment") else []
    except Exception:
        return []


def needs_local_server(spec: Any) -> bool:
    """A model this machine serves (``local`` in the registry) whose base URL nobody has set."""
    from finchain_tasks.models.registry import api_base

    return spec.local is not None and not api_base(spec)


def inspect_model_name(spec: Any) -> str:
    return f"litellm/{spec.litellm_model}"


def build_model(spec: Any, options: Options, base_url: Optional[str] = None, task_config: Any = None):
    """The Inspect Model for a registry entry and a task's generation defaults (no key in it: the provider
    reads ``api_key_env`` per call)."""
    from inspect_ai.model import GenerateConfig, get_model

    from finchain_tasks.finchain import prompts
    from finchain_tasks.models.registry import KEYLESS_PLACEHOLDER, api_base

    if task_config is None:
        task_config = GenerateConfig(max_tokens=prompts.MAX_NEW_TOKENS)
    if options.batch:
        from finchain_tasks.runs import batch_mode

        batched = batch_mode.build_model(spec, options, task_config)
        if batched is not None:
            return batched
    generation, extra, _ = generation_of(spec, task_config)
    base = base_url or api_base(spec)
    model_args: dict[str, Any] = {**extra, MODEL_KEY: spec.name}
    if spec.api_key_env:
        model_args["api_key_env"] = spec.api_key_env
    if options.retry_wait is not None:
        model_args["retry_wait"] = options.retry_wait
    # a keyless OpenAI-compatible server gets a placeholder, so a real OPENAI_API_KEY never travels there
    keyless = not spec.api_key_env and base and spec.litellm_model.startswith("openai/")
    connections = options.max_connections or (1 if spec.local is not None else None)
    config = GenerateConfig(max_connections=connections, max_retries=options.max_retries,
                            attempt_timeout=options.timeout, **generation)
    return get_model(inspect_model_name(spec), base_url=base, api_key=KEYLESS_PLACEHOLDER if keyless else None,
                     config=config, memoize=False, **model_args)


def bound_task(plan: TaskPlan, spec: Any, options: Options, base_url: Optional[str] = None):
    """The task of ``plan`` bound to the model of ``spec``: the generation settings move from the task's
    config to the model's (see the module docstring), the registry name goes into the task metadata."""
    from inspect_ai import task_with

    task = build_task(plan, spec.name)
    model = build_model(spec, options, base_url, task.config)
    stripped = task.config.model_copy(update={k: None for k in GENERATION_FIELDS})
    return task_with(task, model=model, config=stripped)


def check_distinct(specs: Sequence[Any], plans: Sequence[TaskPlan]) -> None:
    """Refuse, in one line, two task sets that would ask a model for the same task (same task, same
    arguments): eval-set could not tell their logs apart."""
    seen: dict[str, str] = {}
    for plan in plans:
        key = json.dumps([plan.task, plan.args], sort_keys=True, default=str)
        if key in seen:
            models = ", ".join(s.name for s in specs)
            raise ValueError(f"task sets {seen[key]!r} and {plan.name!r} are the same task ({plan.task} with the "
                             f"same arguments) for {models}: eval-set cannot keep them apart; run one of them")
        seen[key] = plan.name


@contextlib.contextmanager
def local_servers(specs: Sequence[Any]) -> Iterator[dict[str, str]]:
    """Start a LocalModelServer for each model that needs one; yield name -> base URL; always stop them."""
    from finchain_tasks.models.local import LocalModelServer

    with contextlib.ExitStack() as stack:
        urls: dict[str, str] = {}
        for spec in specs:
            if needs_local_server(spec):
                local = spec.local
                alias = spec.litellm_model.split("/", 1)[1]
                server = stack.enter_context(LocalModelServer(local.gguf, alias=alias, n_ctx=local.n_ctx,
                                                              chat_template=local.chat_template))
                urls[spec.name] = str(server.base_url)
        yield urls


# ------------------------------------------------------------------------------------------ tasks
def stratified_templates(per_domain: int = 1) -> list[str]:
    """``per_domain`` template ids per domain that has templates, spread over the levels (domain i starts at
    level i mod 3), deterministic; the default sample of ``finchain eval``."""
    from finchain_tasks.engine import LEVELS, all_templates

    by_domain: dict[str, list[Any]] = {}
    for tpl in sorted(all_templates().values(), key=lambda t: t.id):
        by_domain.setdefault(tpl.domain, []).append(tpl)
    chosen = []
    for i, templates in enumerate(by_domain.values()):
        order = [LEVELS[(i + k) % len(LEVELS)] for k in range(len(LEVELS))]
        ranked = sorted(templates, key=lambda t: (order.index(t.level) if t.level in order else len(order), t.id))
        picked, levels_seen = [], set()
        for tpl in ranked:  # first one template per level, then the rest
            if tpl.level not in levels_seen:
                picked.append(tpl)
                levels_seen.add(tpl.level)
        picked += [t for t in ranked if t not in picked]
        chosen += [t.id for t in picked[:per_domain]]
    return chosen


def task_factory(name: str) -> Any:
    """Our Inspect task function ``name``, from the package's Inspect entry point (the one list of them)."""
    import finchain_tasks._registry as inspect_registry

    factory = getattr(inspect_registry, name, None)
    if name.startswith("_") or factory is None or not callable(factory):
        raise ValueError(f"task {name!r} has no Inspect task in this version of finchain-tasks")
    return factory


def source_parameters(name: str) -> set[str]:
    """The parameter names of our Inspect task ``name`` read from the source (never executed), for when
    Inspect is not installed: ``_registry`` names the module, the module's ``def`` the parameters."""
    import ast
    import importlib.util

    def tree(module: str) -> ast.Module:
        spec = importlib.util.find_spec(module)
        return ast.parse(Path(str(spec.origin if spec else "")).read_text(encoding="utf-8"))

    for node in tree("finchain_tasks._registry").body:
        if isinstance(node, ast.ImportFrom) and node.module and any(a.name == name for a in node.names):
            for fn in tree(node.module).body:
                if isinstance(fn, ast.FunctionDef) and fn.name == name:
                    return {a.arg for a in (*fn.args.args, *fn.args.kwonlyargs)}
    raise ValueError(f"task {name!r} has no Inspect task in this version of finchain-tasks")


def plan_task_set(registry: Any, name: str, **overrides: Any) -> TaskPlan:
    """A registry task set with command-line overrides (None: not given); an override the task does not take
    (``--profile`` for a task without ChainEval) is left out."""
    import inspect

    if name not in registry.task_sets:
        raise ValueError(f"unknown task set {name!r} (known: {', '.join(registry.task_sets)})")
    ts = registry.task_sets[name]
    opted = [k for k in ("prm_trust_remote_code", "prm_allow_pickle") if ts.args.get(k) is not False and k in ts.args]
    if opted:  # a file never switches on a checkpoint's code (docs/security.md)
        raise ValueError(f"task set {name!r} sets {', '.join(opted)}: running a PRM checkpoint's own code or pickle "
                         "weights is opted into on the command line (inspect eval ... -T prm_trust_remote_code=true), "
                         "never by a registry file")
    try:
        accepted = set(inspect.signature(task_factory(ts.task)).parameters)
    except ModuleNotFoundError as exc:  # an lm-eval-only install plans task sets too (bench --harness lm-eval)
        if (exc.name or "").split(".")[0] != "inspect_ai":
            raise
        accepted = source_parameters(ts.task)
    extra = {k: v for k, v in overrides.items() if v is not None and k in accepted}
    return TaskPlan(name, ts.task, {**ts.args, **extra})


def build_task(plan: TaskPlan, model: Optional[str] = None):
    """The Inspect Task of a task set, tagged with the set's name and the registry model's (in task metadata,
    not in its identity)."""
    from inspect_ai import task_with

    task = task_factory(plan.task)(**plan.args)
    tags = {TASK_SET_KEY: plan.name, **({MODEL_KEY: model} if model else {})}
    return task_with(task, metadata={**(task.metadata or {}), **tags})


def pin_fresh_seeds(plan: TaskPlan, previous: Optional[dict[str, Any]]) -> TaskPlan:
    """Fresh seeds drawn once and written to the manifest, so a resumed run asks for the same problems."""
    args = dict(plan.args)
    if not args.get("fresh") or isinstance(args.get("seeds"), list):
        return plan
    count = int(args.get("seeds", 10))
    before = dict((previous or {}).get("args") or {})
    drawn = before.pop("seeds", None)
    same = (previous or {}).get("task") == plan.task and before == {k: v for k, v in args.items() if k != "seeds"}
    if same and isinstance(drawn, list) and len(drawn) == count:
        return TaskPlan(plan.name, plan.task, {**args, "seeds": drawn})
    from finchain_tasks.finchain.generate import seed_list

    return TaskPlan(plan.name, plan.task, {**args, "seeds": seed_list(count, fresh=True)})


def quiet_progress_bars() -> None:
    """No "Loading weights" bar from transformers when the embedder loads: it would cut into Inspect's display.
    transformers reads huggingface_hub's switch when it is imported, so set both the variable and, if it is
    already imported, its own switch."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if "transformers" in sys.modules:
        with contextlib.suppress(Exception):
            sys.modules["transformers"].utils.logging.disable_progress_bar()


def warm_scorers(plans: Sequence[TaskPlan]) -> None:
    """Score one gold solution against itself before the first request: it loads the sentence embedder and
    the numba kernel. Left to the first sample's scorer, those imports hold the GIL for seconds while
    requests are in flight; the event loop stalls, and an attempt timeout can fire on an answer that had
    already arrived (which is then paid for twice)."""
    from finchain_tasks.engine import all_templates
    from scorers.chaineval import score_batch
    from scorers.embeddings import shared_embedder
    from scorers.params import resolve

    problem = next(iter(all_templates().values())).generate(0)
    for plan in plans:
        if plan.task == "finchain":
            params = resolve(plan.args.get("profile", "paper"), **(plan.args.get("chaineval_params") or {}))
            score_batch([problem.gold()], [problem.solution], profile=params,
                        embedder=shared_embedder(params.embedding_model))


# ------------------------------------------------------------------------------------------ the manifest
def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's ``run.json`` ({} when there is none). A damaged one is one line naming it and how to recover;
    nothing is written over it (its logs and response cache stay as they are)."""
    from finchain_tasks.plumbing.safe_files import UnreadableFile, load_json

    path = Path(run_dir) / MANIFEST
    if not os.path.lexists(path):
        return {}
    try:
        manifest = load_json(path)
        if not isinstance(manifest, dict):
            raise UnreadableFile(path, f"expected a JSON object, found {type(manifest).__name__}")
    except UnreadableFile as exc:
        raise UnreadableFile(path, f"{exc.reason}. Nothing was changed: restore it from a copy, or move it aside "
                             f"(mv {path} {path}.damaged) and run again: the logs and the response cache are "
                             "kept and reused (fresh seeds it pinned are drawn anew)") from None
    return manifest


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    path = Path(run_dir) / MANIFEST
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


def model_record(spec: Any) -> dict[str, Any]:
    """What a report needs to know about a model (never its key: only the variable's name)."""
    from finchain_tasks.models.batch import resolve_batch_price
    from finchain_tasks.models.registry import resolve_price

    price, batch_price = resolve_price(spec), resolve_batch_price(spec)
    return {"name": spec.name, "display_name": spec.display_name, "litellm_model": spec.litellm_model,
            "inspect_model": inspect_model_name(spec), "category": spec.category, "params_b": spec.params_b,
            "api_key_env": spec.api_key_env, "price": asdict(price) if price else None,
            "batch_price": asdict(batch_price) if batch_price else None}


def skipped_records(skipped: Sequence[tuple[Any, list[str] | str]]) -> list[dict[str, str]]:
    """``[{model, reason}]`` for the models a run could not start: the variables not set, or a reason as written
    (e.g. a vLLM server that did not start)."""
    return [{"model": spec.name, "reason": why if isinstance(why, str) else f"{', '.join(why)} not set"}
            for spec, why in skipped]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ------------------------------------------------------------------------------------------ running
@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def prepare(run_dir: Path, specs: Sequence[Any], plans: Sequence[TaskPlan], argv: Sequence[str],
            skipped: Sequence[tuple[Any, list[str]]] = (), limit: Optional[int] = None) -> tuple[
        list[TaskPlan], dict[str, Any]]:
    """Write (or extend) the manifest: models, task sets with pinned fresh seeds, and a new session (its
    argv, the models skipped and why, the sample order and limit)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(run_dir)
    previous = manifest.get("task_sets", {})
    plans = [pin_fresh_seeds(p, previous.get(p.name)) for p in plans]
    models = {m["name"]: m for m in manifest.get("models", [])}
    models.update({spec.name: model_record(spec) for spec in specs})
    manifest.update({
        "run_dir": str(run_dir), "created": manifest.get("created", _now()),
        "models": list(models.values()),
        "task_sets": {**previous, **{p.name: {"task": p.task, "args": p.args} for p in plans}},
    })
    manifest.setdefault("sessions", []).append({
        "argv": list(argv), "started": _now(), "skipped": skipped_records(skipped),
        "sample_order": sampling.record(sampling.DEFAULT_SEED, limit)})
    write_manifest(run_dir, manifest)
    return plans, manifest


def request_paths(tasks: Sequence[Any]) -> dict[str, dict[str, str]]:
    """{registry model: {path, reason}}: how each model's requests are sent (the provider's own choice, see
    :mod:`finchain_tasks.inspect.openai_fast`), so a run records which client produced its answers."""
    paths: dict[str, dict[str, str]] = {}
    for task in tasks:
        api = getattr(getattr(task, "model", None), "api", None)
        name = (task.metadata or {}).get(MODEL_KEY)
        if name and hasattr(api, "request_path"):
            paths[name] = {"path": api.request_path, "reason": api.request_path_reason}
    return paths


REQUEST_COUNTS = {"resent": "request(s) sent again", "late_answers": "late answer(s) used"}
"""The provider's per-request counters a run records (``run.json`` sessions' ``requests_resent``, the summary's,
the report's line), each with the words the report uses: ``resent``, sends of a request sent before (each paid
again); ``late_answers``, attempts answered by the send of an earlier, timed-out attempt (paid once). The one
list every writer and reader of these counts goes by."""


def request_counts(tasks: Sequence[Any]) -> dict[str, dict[str, int]]:
    """{registry model: {count: n}} for each of :data:`REQUEST_COUNTS` in this session, from the providers'
    counters (a provider without them is left out; a counter it lacks counts 0)."""
    counts: dict[str, dict[str, int]] = {}
    for task in tasks:
        api = getattr(getattr(task, "model", None), "api", None)
        name = (task.metadata or {}).get(MODEL_KEY)
        if name and isinstance(getattr(api, "resent", None), int):
            entry = counts.setdefault(name, dict.fromkeys(REQUEST_COUNTS, 0))
            for count in REQUEST_COUNTS:
                value = getattr(api, count, 0)
                entry[count] += value if isinstance(value, int) and not isinstance(value, bool) else 0
    return counts


def _eval_set(run_dir: Path, tasks: list[Any], options: Options) -> bool:
    """Inspect's eval-set over the run's log dir. Sample errors do not stop a task (continue_on_fail); a task
    with errors is retried (only its unfinished samples) up to ``retry_attempts`` times. Other logs in the dir
    (models or task sets of earlier invocations) are allowed: a run dir can grow and be re-run in parts."""
    from inspect_ai import eval_set

    try:
        ok, _ = eval_set(tasks, log_dir=str(run_dir / LOGS), model=None, limit=options.limit,
                         retry_attempts=options.retry_attempts, fail_on_error=True, continue_on_fail=True,
                         log_dir_allow_dirty=True, display=options.display, log_level=options.log_level, score=True)
    except Exception as exc:
        if type(exc).__name__ == "PrerequisiteError":  # Inspect's one-message error, in rich markup
            from rich.text import Text

            text = Text.from_markup(str(getattr(exc, "message", exc))).plain
            raise RuntimeError(" ".join(text.split())) from None
        raise
    return ok


def run(run_dir: Path, specs: Sequence[Any], plans: Sequence[TaskPlan], options: Options,
        argv: Sequence[str] = (), skipped: Sequence[tuple[Any, list[str]]] = ()) -> tuple[bool, dict[str, Any]]:
    """Run every task set on every model into ``run_dir`` (resuming what is there); returns (all done, manifest)."""
    run_dir = Path(run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    with exclusive(run_dir):
        return _run_locked(run_dir, specs, plans, options, argv, skipped)


@contextlib.contextmanager
def exclusive(run_dir: Path) -> Iterator[None]:
    """One process per run directory: two runs resuming the same logs would each redo the other's samples."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    with open(run_dir / ".lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"{run_dir} is in use by another finchain run") from None
        yield


@contextlib.contextmanager
def _batches(run_dir: Path, specs: Sequence[Any], options: Options, session: dict[str, Any]) -> Iterator[None]:
    """Under ``--batch``: the batch journal of the run directory (runs/batch_mode.py), recorded in the session."""
    if not options.batch:
        yield
        return
    from finchain_tasks.runs import batch_mode

    batch_mode.check_distinct(specs)
    session["batch"] = batch_mode.session_record(specs)
    with batch_mode.journaled(run_dir) as journal:
        try:
            yield
        finally:
            session["batch_journal"] = journal.counts()


def set_aside_unreadable_logs(log_dir: Path) -> list[str]:
    """Rename every log in ``log_dir`` whose header cannot be read (``<name>.unreadable-<time>``), so a resumed
    eval-set starts from the readable ones instead of stopping on the first bad file; one warning line per log.
    Nothing is lost: the samples it held are asked again, and the response cache answers those it has."""
    if not Path(log_dir).is_dir():
        return []
    from inspect_ai.log import list_eval_logs, read_eval_log

    warnings = []
    for info in list_eval_logs(str(log_dir), recursive=False):
        path = Path(str(info.name).removeprefix("file://"))
        try:
            read_eval_log(str(path), header_only=True)
        except Exception as exc:
            target = path.with_name(f"{path.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
            path.replace(target)
            reason = " ".join(str(exc).split())[:160] or type(exc).__name__
            warnings.append(f"warning: the log {path} is unreadable ({reason}); set aside as {target.name}, its "
                            "samples are run again (answers in the response cache are not requested again)")
    return warnings


def _run_locked(run_dir: Path, specs: Sequence[Any], plans: Sequence[TaskPlan], options: Options,
                argv: Sequence[str], skipped: Sequence[tuple[Any, list[str]]]) -> tuple[bool, dict[str, Any]]:
    check_distinct(specs, plans)
    plans, manifest = prepare(run_dir, specs, plans, argv, skipped, options.limit)
    warnings = [w for w in (set_aside_if_corrupt(run_dir / CACHE), *set_aside_unreadable_logs(run_dir / LOGS)) if w]
    for warning in warnings:
        print(warning, file=sys.stderr, flush=True)
    if warnings:
        manifest["sessions"][-1]["warnings"] = warnings
    t0 = time.monotonic()
    ok, tasks = False, []
    try:
        quiet_progress_bars()
        warm_scorers(plans)
        with local_servers(specs) as urls, _env("FINCHAIN_RESPONSE_CACHE", str(run_dir / CACHE)), \
                _batches(run_dir, specs, options, manifest["sessions"][-1]):
            tasks = [bound_task(plan, spec, options, urls.get(spec.name)) for spec in specs for plan in plans]
            manifest["sessions"][-1]["request_paths"] = request_paths(tasks)
            ok = _eval_set(run_dir, tasks, options)
    finally:
        session = manifest["sessions"][-1]
        session.update({"finished": _now(), "wall_s": round(time.monotonic() - t0, 3), "ok": ok,
                        "requests_resent": request_counts(tasks)})
        write_manifest(run_dir, manifest)
    return ok, manifest
