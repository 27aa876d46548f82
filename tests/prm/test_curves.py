"""Best-of-N curves against a brute-force second implementation, short pools, intervals, and ``finchain bon``."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from scorers.prm.curves import Pool, curves
from scorers.prm.selectors import SELECTORS, Candidate, accuracy
from tests.support.prm_pools import random_pools

ROWS_SELECTORS = list(SELECTORS)


def _exact(pools: list[Pool], n: int) -> dict[str, float]:
    """Expected accuracy at N by enumerating every subset of N (kept in pool order) with scorers.prm.selectors."""
    totals = dict.fromkeys(SELECTORS, 0.0)
    for pool in pools:
        subsets = list(itertools.combinations(pool.candidates, n))
        for sub in subsets:
            for name, fn in SELECTORS.items():
                if name == "random":
                    totals[name] += sum(c.correct for c in sub) / n / len(subsets)
                else:
                    totals[name] += accuracy(sub, fn(sub)) / len(subsets)
    return {k: v / len(pools) for k, v in totals.items()}


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_curves_match_exhaustive_enumeration(n):
    pools = random_pools(1, 30, 6)
    exact = _exact(pools, n)
    rows = {r.selector: r for r in curves(pools, [n], subsamples=3000, bootstrap=0, seed=3)}
    for name in SELECTORS:
        tol = 0.0 if n == 6 and name != "random" else 0.02   # N = K: every subset is the whole pool
        assert rows[name].accuracy == pytest.approx(exact[name], abs=tol), name


def test_short_pools_are_reported_not_padded():
    pools = random_pools(2, 4, 6) + random_pools(3, 2, 3)
    rows = curves(pools, [2, 4], subsamples=10, bootstrap=0)
    at = {(r.n, r.selector): r for r in rows}
    assert (at[(2, "majority")].n_problems, at[(2, "majority")].n_short) == (6, 0)
    assert (at[(4, "majority")].n_problems, at[(4, "majority")].n_short) == (4, 2)
    assert curves(random_pools(4, 2, 3), [8], subsamples=5, bootstrap=0)[0].n_problems == 0


def test_interval_resamples_clusters():
    # two clusters: one always right, one always wrong -> bootstrap means lie in {0, 0.5, 1} with cluster draws
    pools = [Pool("right", [Candidate("a", True, 1.0, 1.0)] * 2)] * 5 + [Pool("wrong", [Candidate("b")] * 2)] * 5
    [row] = [r for r in curves(pools, [2], subsamples=5, bootstrap=2000, seed=1, interval="percentile")
             if r.selector == "majority"]
    assert row.accuracy == 0.5 and row.accuracy_lo == 0.0 and row.accuracy_hi == 1.0 and row.clusters == 2
    # one cluster says nothing about the next: no interval (not a zero-width one)
    one = [Pool("only", [Candidate("a", True, 1.0, 1.0), Candidate("b")])] * 4
    for interval in ("t", "percentile"):
        rows = curves(one, [2], subsamples=5, bootstrap=100, interval=interval)
        [row] = [r for r in rows if r.selector == "prm_best"]
        assert row.accuracy == 1.0 and row.accuracy_lo is None and row.accuracy_hi is None and row.clusters == 1


def _record(cluster: str, cands: list[tuple[str | None, bool, float, float]], prm: str = "calc") -> dict:
    return {"n": len(cands), "prm": prm, "agg": "min", "zeta": 1.0, "cluster": cluster,
            "candidates": [{"text": "t", "answer": k or "", "key": k, "correct": ok, "chaineval": ce, "reward": rw,
                            "step_probs": [], "p_traj": None, "n_unverified": 0} for k, ok, ce, rw in cands],
            "selected": {}, "values": {}}


def _lm_eval_run(tmp_path, n_problems: int = 6, k: int = 4):
    run = tmp_path / "run" / "model"
    run.mkdir(parents=True)
    lines = []
    for i in range(n_problems):
        cands = [("x", False, 0.2, 0.1)] * (k - 1) + [("y", True, 0.9, 0.9)]
        lines.append(json.dumps({"doc_id": i, "filter": "bon",
                                 "filtered_resps": [json.dumps(_record(f"tpl{i % 2}", cands))]}))
    (run / "samples_finchain_bon_2026.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "run"


def test_finchain_bon_command_writes_csv_markdown_and_plot(tmp_path, monkeypatch):
    import importlib.util

    from finchain_tasks.cli.main import app
    from finchain_tasks.prm import runs

    run = _lm_eval_run(tmp_path)
    result = CliRunner().invoke(app, ["bon", str(run), "--ns", "1,2,4,8", "--subsamples", "50", "--bootstrap", "100"])
    assert result.exit_code == 0, result.output
    assert "N=8: 6 problem(s) have fewer than 8 candidates" in result.output
    csv_rows = (run / "bon_curves.csv").read_text().splitlines()
    assert csv_rows[0].startswith("n,selector,accuracy") and len(csv_rows) == 1 + 4 * len(SELECTORS)
    at4 = {line.split(",")[1]: line.split(",") for line in csv_rows[1:] if line.startswith("4,")}
    # 3 × "x" (wrong, R 0.1) and 1 × "y" (right, R 0.9): majority is wrong, the PRM is right, all four are in
    assert float(at4["majority"][2]) == 0.0 and float(at4["prm_best"][2]) == 1.0 and float(at4["random"][2]) == 0.25
    assert "| 4 | 6 | 2 | 0 | all |" in (run / "bon_curves.md").read_text()  # N, problems, clusters, short, subsets
    if importlib.util.find_spec("matplotlib"):
        assert (run / "bon_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:  # without the plot extra: everything else is written, and one line says why there is no plot
        assert "pip install 'finchain-tasks[plot]'" in result.output and not (run / "bon_curves.png").exists()

    def no_reading(*_a, **_k):
        raise AssertionError("the logs were read again")

    monkeypatch.setattr(runs, "_read", no_reading)
    again = CliRunner().invoke(app, ["bon", str(run), "--no-plot", "--ns", "2", "-o", str(tmp_path / "out")])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "out" / "bon_curves.csv").is_file()


def test_finchain_bon_without_pools_is_one_clear_line(tmp_path):
    from finchain_tasks.cli.main import app

    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(app, ["bon", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "no Best-of-N pools found" in result.output
    result = CliRunner().invoke(app, ["bon", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such run directory" in result.output
    result = CliRunner().invoke(app, ["bon", str(tmp_path), "--ns", "0,2"])
    assert result.exit_code == 2 and "positive integers" in result.output


# ---- issue 42.3: the subset noise
@pytest.mark.parametrize("seed", [0, 1])
def test_random_and_best_of_selectors_are_exact_whatever_the_subsets_drawn(seed):
    # 6 candidates, N = 3: 20 subsets, 5 drawn; random and the best-of selectors are their exact expectation
    # (order statistics), the votes a mean over the 5 drawn subsets
    pools = random_pools(5, 30, 6)
    exact = _exact(pools, 3)
    rows = {r.selector: r for r in curves(pools, [3], subsamples=5, bootstrap=0, seed=seed)}
    for name in ("random", "prm_best", "oracle_chaineval", "pass_at_n"):
        assert rows[name].accuracy == pytest.approx(exact[name], abs=1e-12) and rows[name].subsets == "all", name
    assert rows["majority"].subsets == rows["weighted_vote"].subsets == "5"


def test_votes_are_exact_when_the_pool_has_no_more_subsets_than_the_draws():
    pools = random_pools(6, 30, 6)
    exact = _exact(pools, 3)
    for seed in (0, 1):
        rows = {r.selector: r for r in curves(pools, [3], subsamples=20, bootstrap=0, seed=seed)}
        for name in SELECTORS:
            assert rows[name].accuracy == pytest.approx(exact[name], abs=1e-12) and rows[name].subsets == "all", name


def test_a_vote_from_drawn_subsets_has_its_monte_carlo_error_in_the_interval():
    from scorers.prm.curves import _widen

    # the rule: each half-width h becomes sqrt(h^2 + (z * se)^2), se^2 = sum of variances / problems^2
    assert _widen((0.5, 0.4, 0.7), np.zeros(4), 0.95) == (0.5, 0.4, 0.7)
    mean, lo, hi = _widen((0.5, 0.4, 0.7), np.full(4, 0.01), 0.95)
    extra = (1.959964 * math.sqrt(0.04) / 4) ** 2
    assert (lo, hi) == (pytest.approx(0.5 - math.sqrt(0.01 + extra)), pytest.approx(0.5 + math.sqrt(0.04 + extra)))
    # on pools, over seeds: the exact majority-minus-random lies in every drawn run's interval
    pools = random_pools(7, 60, 6)
    truth = _exact(pools, 3)
    for seed in range(6):
        row = next(r for r in curves(pools, [3], subsamples=4, bootstrap=0, seed=seed) if r.selector == "majority")
        assert row.vs_random_lo <= truth["majority"] - truth["random"] <= row.vs_random_hi, seed
