"""``finchain eval`` (one model, default: the local one on a small sample) and ``finchain bench`` (a model ×
task-set matrix): Inspect eval-set runs into a resumable run directory, with a summary and a report."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from finchain_tasks.cli.main import app, console, err_console, friendly

RegistryOpt = typer.Option(None, "--registry", "-r", help="A registry YAML file (default: the shipped one).")
RunDirOpt = typer.Option(None, "--run-dir", help="Run directory; give an existing one to resume it "
                         "(default: ./finchain-runs/<time>-<name>).")
LimitOpt = typer.Option(None, "--limit", min=1, help="The first N problems of a seeded stratified order (spread "
                        "over domain × level × template), the same N for every model.")
ConnOpt = typer.Option(None, "--max-connections", min=1, help="Concurrent requests per model "
                       "(default: Inspect's adaptive default; 1 for the local model).")
TimeoutOpt = typer.Option(None, "--timeout", min=1, help="Seconds per request attempt before it is retried.")
RetriesOpt = typer.Option(6, "--max-retries", min=0, help="Retries of one request (rate limits, 5xx, timeouts).")
AttemptsOpt = typer.Option(3, "--retry-attempts", min=0, help="Times eval-set re-runs a task's failed samples.")
DisplayOpt = typer.Option(None, "--display", help="Inspect's display: full, rich, plain, log, none.")
RetryWaitOpt = typer.Option(None, "--retry-wait", hidden=True, help="First backoff in seconds (tests).")
ProfileOpt = typer.Option("paper", "--profile", help="ChainEval profile: paper or reference.")
PlanOpt = typer.Option(False, "--plan", help="Print the bill (requests, tokens, cost, batch cost, wall time) and "
                       "stop: nothing is sent, no server starts (docs/running-the-matrix.md).")
JsonOpt = typer.Option(False, "--json", help="With --plan: the plan as JSON on stdout.")
BatchOpt = typer.Option(False, "--batch", help="Send the requests of providers with a batch API (OpenAI, Anthropic, "
                        "Google, Together, xAI) as batches at the batch price, resumably; others run as usual.")
BatchSizeOpt = typer.Option(None, "--batch-size", min=1, help="Requests per batch (default: Inspect's, 100).")
BatchTickOpt = typer.Option(None, "--batch-tick", min=0.01, hidden=True, help="Seconds between batch polls (tests).")


def _options(limit, max_connections, timeout, max_retries, retry_attempts, retry_wait, display, batch=False,
             batch_size=None, batch_tick=None):
    from finchain_tasks.runs.engine import Options

    return Options(limit=limit, max_connections=max_connections, max_retries=max_retries, timeout=timeout,
                   retry_attempts=retry_attempts, retry_wait=retry_wait, display=display, batch=batch,
                   batch_size=batch_size, batch_tick=batch_tick)


def _default_run_dir(name: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "._-" else "-" for c in name)
    return Path("finchain-runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{safe}"


def _skipped_table(skipped: list[tuple[Any, list[str]]]) -> Table:
    table = Table(title=f"Skipped {len(skipped)} model(s): key or base URL not set")
    table.add_column("model")
    table.add_column("missing environment variable")
    for spec, missing in skipped:
        table.add_row(escape(spec.name), escape(", ".join(missing)))
    return table


def _finish(run_dir: Path, ok: bool, resume_hint: str) -> None:
    """Summary and reports from the logs (also after a partial run), the tables, and the exit code."""
    from finchain_tasks.runs.report import local_note, write_reports
    from finchain_tasks.runs.summary import summarize, tables, write_summary

    summary = summarize(run_dir)
    write_summary(run_dir, summary)
    md_path, html_path = write_reports(run_dir, summary)
    for table in tables(summary, console.width):
        console.print(table)
    for note in [local_note(summary), *summary.get("notes", [])]:
        if note:
            console.print(f"[yellow]{escape(note)}[/]")
    console.print(f"report: {escape(str(md_path))}, {escape(str(html_path))}", highlight=False)
    incomplete = [r for r in summary["results"] if r["failed"] or r["missing"] or r["status"] != "success"]
    if ok and not incomplete:
        return
    for r in incomplete:
        for f in r["failures"][:5]:
            err_console.print(f"[red]failed[/] {escape(r['model'])} {escape(f['id'])}: {escape(f['reason'] or '')}",
                              highlight=False)
    err_console.print(f"not every sample finished; re-run to retry them: {escape(resume_hint)}", highlight=False)
    raise typer.Exit(code=1)


def _plan(plan_only: bool, specs: list[Any], plans: list[Any], skipped: list[Any], limit: Optional[int],
          max_connections: Optional[int], run_dir: Optional[Path], as_json: bool) -> None:
    if not plan_only:
        raise ValueError("--json goes with --plan")
    from finchain_tasks.runs.plan_view import print_plan

    print_plan(specs, plans, skipped, limit, max_connections, run_dir, as_json, console)


def _resume_hint(run_dir: Path, given: Optional[Path]) -> str:
    argv = ["finchain", *sys.argv[1:]]
    return " ".join(argv) if given is not None else " ".join([*argv, "--run-dir", str(run_dir)])


@app.command("eval")
@friendly
def eval_cmd(
    model: Optional[str] = typer.Option(None, "--model", "-m", help="A registry name or a litellm provider/model "
                                        "id (default: the local model on one problem per domain)."),
    task: str = typer.Option("finchain", "--task", "-t", help="A task set of the registry."),
    limit: Optional[int] = LimitOpt,
    seeds: Optional[int] = typer.Option(None, "--seeds", min=1, help="Seeds per template (default: the task "
                                        "set's, 10 = the canonical split; 1 for the local model)."),
    fresh: bool = typer.Option(False, "--fresh", help="Fresh (never canonical) seeds: a contamination check."),
    profile: str = ProfileOpt,
    run_dir: Optional[Path] = RunDirOpt,
    registry: Optional[Path] = RegistryOpt,
    max_connections: Optional[int] = ConnOpt,
    timeout: Optional[int] = TimeoutOpt,
    max_retries: int = RetriesOpt,
    retry_attempts: int = AttemptsOpt,
    display: Optional[str] = DisplayOpt,
    retry_wait: Optional[float] = RetryWaitOpt,
    plan_only: bool = PlanOpt,
    as_json: bool = JsonOpt,
    batch: bool = BatchOpt,
    batch_size: Optional[int] = BatchSizeOpt,
    batch_tick: Optional[float] = BatchTickOpt,
) -> None:
    """Evaluate one model on FinChain; with no --model, the local model (no key, no network) on a small sample."""
    from finchain_tasks.models.registry import load_registry, resolve_model
    from finchain_tasks.runs import engine

    reg = load_registry(registry)
    spec = resolve_model(model, reg) if model else _local_spec(reg)
    ready, skipped = engine.split_ready([spec])  # a missing key fails here, before Inspect, litellm or torch load
    if skipped and not (plan_only or as_json):
        console.print(_skipped_table(skipped))
        raise ValueError(f"model {spec.name!r} cannot run: set {', '.join(skipped[0][1])}")
    import inspect_ai  # noqa: F401  (before the plan: a missing [inspect] extra is one line, before the embedder)

    overrides: dict[str, Any] = {"profile": profile, "fresh": True if fresh else None, "seeds": seeds}
    if model is None:
        overrides.update(template=engine.stratified_templates(), seeds=seeds or 1)
    plan = engine.plan_task_set(reg, task, **overrides)
    if plan_only or as_json:
        return _plan(plan_only, [spec], [plan], skipped, limit, max_connections, run_dir, as_json)
    given = run_dir
    run_dir = run_dir or _default_run_dir(spec.name)
    if engine.needs_local_server(spec):
        console.print("starting the local model (llama.cpp on 127.0.0.1) ...", style="dim")
    options = _options(limit, max_connections, timeout, max_retries, retry_attempts, retry_wait, display, batch,
                       batch_size, batch_tick)
    ok, _ = engine.run(run_dir, ready, [plan], options, argv=sys.argv)
    _finish(run_dir, ok, _resume_hint(run_dir, given))


def _local_spec(reg: Any) -> Any:
    local = [m for m in reg.models.values() if m.local is not None]
    if not local:
        raise ValueError("the registry has no local model; pass --model")
    return local[0]


def _check_bench_options(harness: str, batch: bool, ray: Optional[str], serve: Optional[str]) -> None:
    """Refuse combinations that cannot run, in one line, before anything loads or is planned."""
    if harness not in ("inspect", "lm-eval"):
        raise ValueError(f"--harness must be inspect or lm-eval, not {harness!r}")
    if batch and harness != "inspect":
        raise ValueError("--batch needs --harness inspect: lm-eval has no provider batch API "
                         "(docs/running-the-matrix.md)")
    if ray is None:
        return
    if harness != "inspect":
        raise ValueError("--ray runs the inspect harness; drop --harness lm-eval")
    if serve is not None:
        raise ValueError("--ray with --serve vllm is not supported yet: start each open-weight model with "
                         "`finchain serve vllm` on a GPU node, export the base-URL variable it prints, then run "
                         "`finchain bench --ray` (docs/scaling-out.md)")
    from finchain_tasks.scale.ray_map import check_address

    check_address(ray)  # a bad address fails before anything is planned


@app.command("bench")
@friendly
def bench(
    registry: Optional[Path] = RegistryOpt,
    models: Optional[str] = typer.Option(None, "--models", "-m", help="Comma-separated registry names or "
                                         "provider/model ids (default: every model of the registry)."),
    tasks: str = typer.Option("finchain", "--tasks", "-t", help="Comma-separated task sets of the registry."),
    harness: str = typer.Option("inspect", "--harness", help="inspect (eval-set) or lm-eval."),
    limit: Optional[int] = LimitOpt,
    seeds: Optional[int] = typer.Option(None, "--seeds", min=1, help="Seeds per template (default: the task set's)."),
    profile: str = ProfileOpt,
    run_dir: Optional[Path] = RunDirOpt,
    max_connections: Optional[int] = ConnOpt,
    timeout: Optional[int] = TimeoutOpt,
    max_retries: int = RetriesOpt,
    retry_attempts: int = AttemptsOpt,
    display: Optional[str] = DisplayOpt,
    retry_wait: Optional[float] = RetryWaitOpt,
    serve: Optional[str] = typer.Option(None, "--serve", help="vllm: serve each open-weight model with vLLM on this "
                                        "node in turn (docs/running-the-matrix.md)."),
    gpus: Optional[int] = typer.Option(None, "--gpus", min=1, help="With --serve: GPUs to use (default: all "
                                       "visible); models whose tensor-parallel sizes fit run at once."),
    plan_only: bool = PlanOpt,
    as_json: bool = JsonOpt,
    batch: bool = BatchOpt,
    batch_size: Optional[int] = BatchSizeOpt,
    batch_tick: Optional[float] = BatchTickOpt,
    ray: Optional[str] = typer.Option(None, "--ray", metavar="ADDRESS", help="Run each model × task set as a Ray "
                                      "task (local, auto, ray://HOST:PORT or HOST:PORT); the run directory must be "
                                      "on storage every node sees (docs/scaling-out.md). Needs the ray extra."),
) -> None:
    """Benchmark many models × task sets, resumably: re-run the same command with the same --run-dir to continue."""
    from finchain_tasks.models.registry import load_registry, resolve_model
    from finchain_tasks.runs import engine

    _check_bench_options(harness, batch, ray, serve)
    reg = load_registry(registry)
    names = [n.strip() for n in (models or "").split(",") if n.strip()] or list(reg.models)
    specs = [resolve_model(n, reg) for n in dict.fromkeys(names)]
    served: list[Any] = []
    if serve is not None:
        from finchain_tasks.runs.vllm_bench import split_served

        served, specs = split_served(specs, serve)
    elif gpus is not None:
        raise ValueError("--gpus goes with --serve vllm")
    ready, skipped = engine.split_ready(specs)  # before Inspect, litellm or torch load: a missing key fails fast
    if skipped and not (plan_only or as_json):
        console.print(_skipped_table(skipped))
    if not ready and not served and not (plan_only or as_json):
        raise ValueError("no model can run: every selected model lacks its key or base URL")
    if harness == "inspect":
        import inspect_ai  # noqa: F401  (before the plan: a missing [inspect] extra is one line, before the embedder)
    plans = [engine.plan_task_set(reg, t.strip(), profile=profile, seeds=seeds) for t in tasks.split(",") if t.strip()]
    if plan_only or as_json:  # served models are on the bill: --serve starts their servers
        return _plan(plan_only, [*served, *specs], plans, skipped, limit, max_connections, run_dir, as_json)
    given = run_dir
    run_dir = run_dir or _default_run_dir("bench")
    options = _options(limit, max_connections, timeout, max_retries, retry_attempts, retry_wait, display, batch,
                       batch_size, batch_tick)
    if ray is not None:
        from finchain_tasks.scale.ray_bench import run_on_ray

        ok, _ = run_on_ray(run_dir, ready, plans, options, ray, serve=None, argv=sys.argv, skipped=skipped)
        _finish(run_dir, ok, _resume_hint(run_dir, given))
        return
    if harness == "lm-eval":
        from finchain_tasks.runs import lm_eval_harness as engine  # the same run(); see its module docstring
    if served:
        from finchain_tasks.runs.vllm_bench import run_with_vllm

        ok = run_with_vllm(engine.run, run_dir, ready, served, plans, options, argv=sys.argv, skipped=skipped,
                           gpus=gpus, say=lambda line: console.print(escape(line), highlight=False, soft_wrap=True))
    else:
        ok, _ = engine.run(run_dir, ready, plans, options, argv=sys.argv, skipped=skipped)
    _finish(run_dir, ok, _resume_hint(run_dir, given))
