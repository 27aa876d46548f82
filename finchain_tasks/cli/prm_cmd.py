"""``finchain prm label | train | select``: Fin-PRM labels, training and offline data selection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from finchain_tasks.cli.main import app, console, err_console, friendly
from finchain_tasks.cli.ray_options import RayBlockRowsOpt, RayGpusOpt, RayOpt, RayWorkersOpt, ray_settings

prm_app = typer.Typer(help="Fin-PRM: build step/trajectory labels, train a PRM, select SFT data with one.",
                      no_args_is_help=True)
app.add_typer(prm_app, name="prm")


@prm_app.command("label")
@friendly
def label(
    candidates: Path = typer.Argument(..., help="A run directory of either host, or a JSONL of candidates: question, "
                                      "output (or steps + final_answer), "
                                      "gold (problem_id, problem, gold_solution or gold_answer), knowledge."),
    out: Path = typer.Option(..., "--out", "-o", help="Labels JSONL (a .summary.json is written next to it)."),
    recipe: str = typer.Option("exact", "--recipe", help="exact (FinChain, no model) or fused (the paper's signals)."),
    policy: Optional[str] = typer.Option(None, "--policy", help="litellm model for the Monte Carlo rollouts."),
    judge: Optional[str] = typer.Option(None, "--judge", help="litellm model for the judges and concepts."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="OpenAI-compatible base URL for both models."),
    rollouts: int = typer.Option(8, "--rollouts", help="Rollouts per step (N)."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Call cache (default: next to --out)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Count the calls and tokens; make none."),
    ray: Optional[str] = RayOpt,
    ray_workers: Optional[int] = RayWorkersOpt,
    ray_gpus_per_worker: float = RayGpusOpt,
    ray_block_rows: int = RayBlockRowsOpt,
) -> None:
    """Step and trajectory labels for candidate traces."""
    from finchain_tasks.prm.labeling import Models, run_labels

    models = None
    if recipe == "fused":
        if not policy or not judge:
            raise ValueError("--recipe fused needs --policy and --judge (litellm model names)")
        models = Models(policy, judge, api_base, rollouts)
    if ray is not None and not dry_run:
        from finchain_tasks.scale.commands import label_on_ray

        settings = ray_settings(ray, ray_workers, ray_gpus_per_worker, ray_block_rows)
        console.print_json(json.dumps(label_on_ray(candidates, out, recipe, models, cache, settings)))
        return
    summary = run_labels(_items(candidates), out, recipe, models, cache, dry_run)
    console.print_json(json.dumps(summary))


def _items(source: Path) -> list:
    """The candidates of a JSONL file or a run folder, listing on stderr what a run folder's walk passed over (a
    link out of it, a FIFO, a device)."""
    from finchain_tasks.plumbing.safe_files import skipped_lines
    from finchain_tasks.prm.labeling import read_items

    skipped: list = []
    items = read_items(source, skipped)
    for line in skipped_lines(skipped):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    return items


@prm_app.command("train")
@friendly
def train_cmd(
    labels: Path = typer.Argument(..., help="Labels JSONL from `finchain prm label`."),
    out: Path = typer.Option(..., "--out", "-o", help="Checkpoint directory (load it with hf:<dir>)."),
    base: str = typer.Option("tiny", "--base", help="Backbone: a HF path or hub id, or `tiny` (offline test model)."),
    mode: str = typer.Option("dual", "--mode", help="dual (paper) or release (shared 2-class head)."),
    steps: int = typer.Option(300, "--steps"),
    batch_size: int = typer.Option(4, "--batch-size"),
    grad_accum: Optional[int] = typer.Option(None, "--grad-accum", help="Micro-batches per optimizer step "
                                             "(default 1, or the accelerate config's under accelerate launch)."),
    lr: float = typer.Option(1e-3, "--lr"),
    lam: float = typer.Option(1.0, "--lambda", help="Weight of the trajectory loss."),
    eval_share: float = typer.Option(0.2, "--eval-share", help="Share of templates held out for evaluation."),
    eval_every: int = typer.Option(100, "--eval-every"),
    device: Optional[str] = typer.Option(None, "--device", help="cpu or cuda (default cpu; under accelerate launch, "
                                         "accelerate's choice)."),
    mixed_precision: Optional[str] = typer.Option(None, "--mixed-precision", help="no, fp16 or bf16 (accelerate; "
                                                  "default: the accelerate config's when launched, else no)."),
    seed: int = typer.Option(0, "--seed"),
    max_length: int = typer.Option(4096, "--max-length"),
    lora_r: int = typer.Option(0, "--lora-r", help="LoRA rank (peft; 0: train the whole backbone)."),
    step_average: str = typer.Option("trace", "--step-average", help="trace (the paper: each trace's steps "
                                     "averaged, then the traces) or step (all steps of a batch at once)."),
) -> None:
    """Train a Fin-PRM on labelled traces and save a checkpoint the hf backend loads (``--base tiny``: a
    plumbing check, not a PRM). Runs data parallel under ``accelerate launch`` (docs/scaling-out.md)."""
    from finchain_tasks.prm.accelerate_train import make_runtime
    from finchain_tasks.prm.train_job import run_train
    from scorers.prm.training import TrainConfig

    runtime = make_runtime(device, mixed_precision, grad_accum)
    config = TrainConfig(steps=steps, batch_size=batch_size, lr=lr, lam=lam, seed=seed, eval_every=eval_every,
                         grad_accum=runtime.grad_accum, device=str(runtime.device), step_average=step_average)
    summary = run_train(labels, out, base, mode, config, eval_share, max_length,
                        log=lambda row: console.print(row, highlight=False), lora_r=lora_r, runtime=runtime)
    if runtime.is_main_process:
        console.print(f"checkpoint: {out}  (PRM spec {summary['spec']})")


@prm_app.command("select")
@friendly
def select_cmd(
    pool: Path = typer.Argument(..., help="JSONL of candidates (the same format as `prm label` reads)."),
    prm: str = typer.Option(..., "--prm", help="PRM spec: calc, judge:<model> or hf:<path>[:mode]."),
    out: Path = typer.Option(..., "--out", "-o", help="Output directory."),
    k: int = typer.Option(1, "--top-k", "-k", help="Candidates kept per question (or overall)."),
    overall: bool = typer.Option(False, "--overall", help="Top K over the whole pool, not per question."),
    agg: str = typer.Option("min", "--agg", help="Step aggregation: mean, min, prod or last."),
    zeta: float = typer.Option(1.0, "--zeta", help="Weight of the trajectory probability in R."),
    trust_remote_code: bool = typer.Option(False, "--trust-remote-code", help="Let an hf checkpoint run its own "
                                           "Python code (only if you trust its author; see docs/security.md)."),
    allow_pickle: bool = typer.Option(False, "--allow-pickle", help="Let an hf checkpoint load pickle-based .bin "
                                      "weights (they can run code; safetensors only by default)."),
    ray: Optional[str] = RayOpt,
    ray_workers: Optional[int] = RayWorkersOpt,
    ray_gpus_per_worker: float = RayGpusOpt,
    ray_block_rows: int = RayBlockRowsOpt,
) -> None:
    """Keep the top-K candidates by PRM reward as an SFT dataset and compare with random and outcome-only."""
    from finchain_tasks.prm import check_spec, load_prm
    from finchain_tasks.prm.data_selection import run_select
    mode = "overall" if overall else "per-question"
    if ray is not None:
        from finchain_tasks.scale.commands import select_on_ray

        check_spec(prm)  # a bad spec fails here, before Ray starts
        settings = ray_settings(ray, ray_workers, ray_gpus_per_worker, ray_block_rows)
        options = {"trust_remote_code": trust_remote_code, "allow_pickle": allow_pickle}
        summary = select_on_ray(pool, prm, agg, zeta, options, out, k, mode, settings, log=console.print)
    else:
        scorer = load_prm(prm, agg=agg, zeta=zeta, trust_remote_code=trust_remote_code, allow_pickle=allow_pickle)
        summary = run_select(_items(pool), scorer, prm, out, k, mode, log=console.print)
    console.print((Path(out) / "selection.md").read_text())
    console.print(f"kept {summary['kept']} of {summary['pool']} -> {out / 'sft.jsonl'}")
