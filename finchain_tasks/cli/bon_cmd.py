"""``finchain bon RUN_DIR``: Best-of-N curves from the pools a run logged (no generating model is called).

The table, CSV and plot carry each selector's accuracy with an interval that holds with few clusters, and its
paired difference from majority vote and from random selection on the same subsets (docs/best-of-n.md).

``--prm SPEC`` re-scores the saved candidates with another PRM than the run's (cached per candidate in the
run directory, so a second invocation scores nothing); the output names the PRM that scored."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from finchain_tasks.cli.main import app, console, err_console, friendly
from finchain_tasks.cli.ray_options import RayBlockRowsOpt, RayGpusOpt, RayOpt, RayWorkersOpt, ray_settings


def _ns(text: str) -> list[int]:
    try:
        ns = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise ValueError(f"--ns takes a comma-separated list of positive integers, got {text!r}") from None
    if not ns or ns[0] < 1:
        raise ValueError(f"--ns takes a comma-separated list of positive integers, got {text!r}")
    return ns


@app.command("bon")
@friendly
def bon(
    run_dir: Path = typer.Argument(..., help="A run directory holding Inspect logs (-T samples=N -T prm=...) or "
                                   "lm-eval finchain_bon samples."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Where to write the files (default: RUN_DIR)."),
    ns: str = typer.Option("1,2,4,8,16", "--ns", help="The values of N."),
    subsamples: int = typer.Option(200, "--subsamples", min=1, help="Random subsets of N per problem."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=0, help="With --interval percentile: cluster-bootstrap "
                                  "resamples for the 95% CI (0: no interval)."),
    interval: str = typer.Option("t", "--interval", help="t: Korn-Graubard interval for the means, cluster-robust t "
                                 "for the paired differences (hold with few clusters; the default); percentile: the "
                                 "cluster bootstrap."),
    protocol: str = typer.Option("independent", "--protocol", help="independent: each N draws its own subsets; "
                                 "nested: the first N of one permutation per problem, paired across N."),
    seed: int = typer.Option(0, "--seed", help="Seed of the subsets and the bootstrap."),
    plot: bool = typer.Option(True, "--plot/--no-plot", help="Also write bon_curves.png (needs matplotlib)."),
    prm: Optional[str] = typer.Option(None, "--prm", help="Re-score the saved candidates with this PRM spec (calc, "
                                      "judge:<registry model>, hf:<path or hub id>[:release]) instead of the run's."),
    prm_agg: str = typer.Option("min", "--prm-agg", help="With --prm: the step aggregation (mean, min, prod, last)."),
    prm_zeta: float = typer.Option(1.0, "--prm-zeta", help="With --prm: ζ, the trajectory probability's weight."),
    registry: Optional[Path] = typer.Option(None, "--registry", "-r", help="With --prm judge:...: a registry YAML "
                                            "file (default: the shipped one)."),
    trust_remote_code: bool = typer.Option(False, "--trust-remote-code", help="With --prm hf:...: let the "
                                           "checkpoint run its own Python code (only if you trust its author)."),
    allow_pickle: bool = typer.Option(False, "--allow-pickle", help="With --prm hf:...: load pickle-based .bin "
                                      "weights (they can run code; safetensors only by default)."),
    ray: Optional[str] = RayOpt,
    ray_workers: Optional[int] = RayWorkersOpt,
    ray_gpus_per_worker: float = RayGpusOpt,
    ray_block_rows: int = RayBlockRowsOpt,
) -> None:
    """Accuracy and ChainEval against N for every selector, and each selector minus majority and minus random on
    the same problems (the paired claim): bon_curves.csv, bon_curves.md, bon_curves.png."""
    from finchain_tasks.plumbing.safe_files import skipped_lines
    from finchain_tasks.prm.runs import load_pools, write_csv, write_markdown, write_plot
    from scorers.prm.curves import curves

    wanted = _ns(ns)
    rescore = _rescore_request(prm, prm_agg, prm_zeta, registry, trust_remote_code, allow_pickle)
    if ray is not None:
        if rescore is None:
            raise ValueError("--ray scores candidates again: it needs --prm SPEC")
        rescore.ray = ray_settings(ray, ray_workers, ray_gpus_per_worker, ray_block_rows)
    skipped: list = []
    pools, prms = load_pools(run_dir, rescore=rescore, skipped=skipped)
    for line in skipped_lines(skipped):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    note = _note(rescore)
    rows = curves(pools, wanted, subsamples=subsamples, bootstrap=bootstrap, seed=seed, protocol=protocol,
                  interval=interval)
    target = out or run_dir
    target.mkdir(parents=True, exist_ok=True)
    write_csv(rows, target / "bon_curves.csv")
    write_markdown(rows, target / "bon_curves.md", prms, note)
    written = ["bon_curves.csv", "bon_curves.md"]
    if plot:
        try:
            write_plot(rows, target / "bon_curves.png", f"Best-of-N, PRM {', '.join(sorted(prms))}")
            written.append("bon_curves.png")
        except ImportError:
            err_console.print("no plot: this needs matplotlib: pip install 'finchain-tasks[plot]'", markup=False)
    for n in wanted:
        short = next(r.n_short for r in rows if r.n == n)
        if short:
            err_console.print(f"N={n}: {short} problem(s) have fewer than {n} candidates and are left out")
    if note:
        console.print(note, highlight=False, markup=False)
    console.print(f"{len(pools)} pools scored by PRM {', '.join(sorted(prms))}; wrote {', '.join(written)} to {target}",
                  highlight=False, markup=False)


def _rescore_request(prm: str | None, agg: str, zeta: float, registry: Path | None, trust_remote_code: bool = False,
                     allow_pickle: bool = False):
    """The re-scoring request of ``--prm`` (None without it); the registry is read only for a judge."""
    if prm is None:
        return None
    from finchain_tasks.prm.runs import Rescore

    options: dict = {"trust_remote_code": trust_remote_code, "allow_pickle": allow_pickle}
    if prm.strip().startswith("judge:"):
        from finchain_tasks.models.registry import load_registry

        options["registry"] = load_registry(registry)
    return Rescore(prm, agg, zeta, options)


def _note(rescore) -> str:
    """One line saying that the candidates were re-scored, by whom, instead of which PRM, and what it cost."""
    if rescore is None:
        return ""
    was = ", ".join(sorted(p for p in rescore.original if p)) or "unknown"
    return (f"Re-scored with PRM {rescore.spec} (R = {rescore.agg}(steps) + {rescore.zeta:g} · p_traj); the run used "
            f"{was}. {rescore.scored} candidate(s) scored now ({rescore.distinct} distinct), "
            f"{rescore.from_cache} from the cache.")
