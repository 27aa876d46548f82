"""``finchain bon RUN_DIR``: Best-of-N curves from the pools a run logged (no model is called)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from finchain_tasks.cli.main import app, console, err_console, friendly


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
    bootstrap: int = typer.Option(1000, "--bootstrap", min=0, help="Cluster-bootstrap resamples for the 95% CI."),
    seed: int = typer.Option(0, "--seed", help="Seed of the subsets and the bootstrap."),
    plot: bool = typer.Option(True, "--plot/--no-plot", help="Also write bon_curves.png (needs matplotlib)."),
) -> None:
    """Accuracy and ChainEval against N for every selector: bon_curves.csv, bon_curves.md, bon_curves.png."""
    from finchain_tasks.prm.runs import load_pools, write_csv, write_markdown, write_plot
    from scorers.prm.curves import curves

    wanted = _ns(ns)
    pools, prms = load_pools(run_dir)
    rows = curves(pools, wanted, subsamples=subsamples, bootstrap=bootstrap, seed=seed)
    target = out or run_dir
    target.mkdir(parents=True, exist_ok=True)
    write_csv(rows, target / "bon_curves.csv")
    write_markdown(rows, target / "bon_curves.md", prms)
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
    console.print(f"{len(pools)} pools; wrote {', '.join(written)} to {target}")
