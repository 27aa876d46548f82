"""From the per-sample table to what a board shows: one row per model × harness × task with intervals, tie
groups from paired tests, rank intervals from the template bootstrap, the table's order, domain × level cells,
and the fresh-seed gap. Statistics come from
:mod:`finchain_tasks.leaderboard.stats`; reported figures never enter here."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from finchain_tasks.leaderboard import stats
from finchain_tasks.leaderboard.board import Board

ROW_KEYS = ("model", "harness", "task")
"""One leaderboard row per model, harness and task: an lm-eval run and an Inspect run of one model are
two rows, side by side, each saying which harness its numbers came from."""


def clusters_of(frame) -> Any:
    """The resampling unit of each sample: its template for FinChain, its exam for CFLUE, its sub-task for
    CFLUE application (one source and instruction per sub-task), else the sample itself."""
    template = frame["domain"].astype(str) + "/" + frame["topic"].astype(str) + "/" + frame["template"].astype(str)
    out = frame["sample_id"].astype(str)
    for col, value in (("sub_task", "sub_task:" + frame["sub_task"].astype(str)),
                       ("exam", "exam:" + frame["exam"].astype(str)), ("template", template)):
        out = out.where(frame[col].isna(), value)  # later wins: template over exam over sub-task
    return out


def scored(frame):
    """Samples that were answered and scored, of canonical (not fresh) seeds; first epoch only is not
    assumed: every epoch is a sample of its template."""
    ok = frame["error"].isna() & frame.get("fresh", False).fillna(False).eq(False)
    return frame[ok].assign(cluster=clusters_of(frame[ok]))


def _num(value: Any) -> Optional[float]:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _first(group, col: str) -> Any:
    values = group[col].dropna()
    return values.iloc[0] if len(values) else None


def _metric_stats(group, metric: str, st) -> dict[str, Any]:
    if metric not in group or group[metric].notna().sum() == 0:
        return {"mean": None, "n": 0}
    values = group[metric].to_numpy(dtype=float)
    ci = stats.cluster_interval(values, group["cluster"].tolist(), st.confidence, st.resamples, st.seed)
    naive = stats.naive_interval(values, st.confidence, st.resamples, st.seed)
    return {"mean": _num(ci.mean), "low": _num(ci.low), "high": _num(ci.high), "n": ci.n, "clusters": ci.clusters,
            "naive_low": _num(naive.low), "naive_high": _num(naive.high)}


def _resources(group) -> dict[str, Any]:
    tokens_in = group["input_tokens"].dropna()
    tokens_out = group["output_tokens"].dropna()
    costs = group["cost"]
    known = costs.notna().all() and len(costs) > 0
    return {"input_tokens": int(tokens_in.sum()) if len(tokens_in) else None,
            "output_tokens": int(tokens_out.sum()) if len(tokens_out) else None,
            "cost_usd": float(costs.sum()) if known else None,
            "cost_per_sample": float(costs.mean()) if known else None,
            "latency_s": _num(group["latency_s"].mean())}


def model_rows(frame, board: Board) -> list[dict[str, Any]]:
    """One row per model × harness × task of the scored samples, each metric with both intervals."""
    data = scored(frame)
    rows = []
    for (model, harness, task), group in data.groupby(list(ROW_KEYS), sort=True, dropna=False):
        rows.append({
            "model": model, "harness": harness, "task": task,
            "display_name": _first(group, "display_name") or model, "category": _first(group, "category"),
            "open_weights": None if _first(group, "open_weights") is None else bool(_first(group, "open_weights")),
            "params_b": _num(_first(group, "params_b")), "harness_version": _first(group, "harness_version"),
            "task_version": _first(group, "task_version"), "profile": _first(group, "profile"),
            "finchain_tasks_version": _first(group, "finchain_tasks_version"),
            "date": str(group["date"].dropna().max()) if group["date"].notna().any() else None,
            "n": int(len(group)), "templates": int(group["cluster"].nunique()),
            "metrics": {m: _metric_stats(group, m, board.statistics) for m in board.metrics},
            **_resources(frame[(frame["model"] == model) & (frame["harness"] == harness) & (frame["task"] == task)]),
        })
    return rows


def _paired_values(frame, a: dict, b: dict, metric: str, by_row: Optional[dict] = None):
    """The two rows' values on the samples both answered (joined on sample id and epoch). ``by_row`` (from
    :func:`_split_rows`) saves filtering the whole frame for every comparison of a large board."""
    def pick(row):
        if by_row is not None:
            sel = by_row.get(_row_key(row))
            if sel is None:
                return frame.iloc[0:0][["sample_id", "epoch", "cluster", metric]]
        else:
            sel = _row_frame(frame, row)
        return sel[["sample_id", "epoch", "cluster", metric]].dropna(subset=[metric])

    joined = pick(a).merge(pick(b), on=["sample_id", "epoch"], suffixes=("_a", "_b"))
    return joined[f"{metric}_a"].to_numpy(float), joined[f"{metric}_b"].to_numpy(float), joined["cluster_a"].tolist()


def _split_rows(data) -> dict:
    """The scored frame split once by model × harness × task, keyed as :func:`_row_key` keys a row."""
    return {_row_key(dict(zip(ROW_KEYS, key))): g for key, g in data.groupby(list(ROW_KEYS), sort=False,
                                                                             dropna=False)}


def _row_key(row: dict) -> tuple:
    """A row's model, harness and task, an unrecorded one (NaN, as the groupby gives it) as None: two NaN are
    two keys of a dict (NaN never equals NaN), so a row whose harness was not recorded would find no samples."""
    return tuple(row[k] if isinstance(row[k], str) or _num(row[k]) is not None else None for k in ROW_KEYS)


def _row_frame(frame, row: dict):
    return frame[(frame["model"] == row["model"]) & (frame["harness"] == row["harness"])
                 & (frame["task"] == row["task"])]


def _picked(by_row: dict, row: dict):
    return by_row[_row_key(row)]


def _ranked_pool(rows: list[dict[str, Any]], board: Board) -> list[dict[str, Any]]:
    """The rows of the board's first task that have a mean of the primary metric, best first."""
    metric = board.primary
    pool = [r for r in rows if r["task"] == board.tasks[0] and r["metrics"].get(metric, {}).get("mean") is not None]
    return sorted(pool, key=lambda r: -r["metrics"][metric]["mean"])


def coverage(frame, rows: list[dict[str, Any]], board: Board) -> dict[int, set]:
    """Mark each ranked row with ``coverage`` (its clusters over the most clusters any row of the task has)
    and ``partial`` (coverage below 1); return each row's set of clusters (keyed by ``id(row)``)."""
    by_row = _split_rows(scored(frame))
    pool = _ranked_pool(rows, board)
    covered = {id(r): set(_picked(by_row, r).dropna(subset=[board.primary])["cluster"]) for r in pool}
    most = max((len(c) for c in covered.values()), default=0)
    for r in pool:
        r["coverage"] = len(covered[id(r)]) / most if most else None
        r["partial"] = bool(most and len(covered[id(r)]) < most)
    return covered


def _comparable(a: set, b: set, st) -> bool:
    shared = len(a & b)
    return shared >= st.min_shared and shared >= st.min_overlap * max(len(a), len(b))


def tie_groups(frame, rows: list[dict[str, Any]], board: Board) -> list[dict[str, Any]]:
    """Assign ``tie_group`` (1 = not shown different from the leader) to each row of the board's first task.

    Every pair of rows sharing enough clusters (:class:`~finchain_tasks.leaderboard.board.Statistics`
    ``min_shared`` / ``min_overlap``) is compared by a paired test on their shared samples, and the p-values
    are Holm-corrected over **all** those pairs (family-wise error at ``alpha`` over every pairwise claim the
    board can be read to make; the leader is picked after looking, so a family of the comparisons with it
    alone would not hold its error). The groups are then :func:`finchain_tasks.leaderboard.stats.tie_groups`:
    the best full-coverage row leads, rows not shown different from it join, the rest repeat with their own
    leader. A row sharing too few clusters with its leader is "not comparable": no group, never "tied". A
    partial row shown better than the leader on their shared clusters joins the leader's group (its mean is
    over other templates, so it is listed after the full rows). Each reported comparison (a row with its
    leader) records its ``verdict`` (tied, different, better (partial coverage), not comparable), the number of
    clusters shared, its raw p-value and ``p_adjusted`` (over all pairs)."""
    st, metric = board.statistics, board.primary
    data = scored(frame)
    by_row = _split_rows(data)
    covered = coverage(frame, rows, board)
    pool = _ranked_pool(rows, board)
    if not pool:
        return []
    n = len(pool)
    comparable = _comparable_matrix(pool, covered, st)
    diff, raw = _all_pairs(pool, by_row, metric, comparable)
    upper = [(i, j) for i in range(n) for j in range(i + 1, n) if comparable[i, j]]
    adjusted = np.full((n, n), np.nan)
    family = stats.holm([raw[i, j] for i, j in upper]) if st.correction == "holm" else [raw[i, j] for i, j in upper]
    for (i, j), p in zip(upper, family):
        adjusted[i, j] = adjusted[j, i] = p
    groups, steps = stats.tie_groups([r["metrics"][metric]["mean"] for r in pool],
                                     [bool(r.get("partial")) for r in pool], diff, adjusted, comparable, st.alpha)
    for row, group in zip(pool, groups):
        row["tie_group"] = group
    comparisons: list[dict[str, Any]] = []
    for step in steps:
        row, leader = pool[step.row], pool[step.leader]
        if step.verdict == "not comparable":
            comparisons.append({"a": _label(row), "b": _label(leader), "verdict": "not comparable",
                                "shared_clusters": len(covered[id(row)] & covered[id(leader)]),
                                "group_of_leader": step.group})
            continue
        test = stats.paired_test(*_paired_values(data, row, leader, metric, by_row),
                                 names=(_label(row), _label(leader)), confidence=st.confidence,
                                 resamples=st.resamples, seed=st.seed)
        comparisons.append({**test.to_dict(), "p_adjusted": _num(adjusted[step.row, step.leader]),
                            "group_of_leader": step.group, "shared_clusters": test.clusters,
                            "verdict": step.verdict, "pairs_in_family": len(upper)})
    return comparisons


def _comparable_matrix(pool: list[dict[str, Any]], covered: dict[int, set], st) -> np.ndarray:
    n = len(pool)
    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = _comparable(covered[id(pool[i])], covered[id(pool[j])], st)
    return out


def _all_pairs(pool: list[dict[str, Any]], by_row: dict, metric: str, comparable: np.ndarray):
    """Every comparable pair's mean difference on the samples both answered (joined on sample id and
    epoch, as :func:`_paired_values`) and the paired test's raw p-value
    (:func:`finchain_tasks.leaderboard.stats.cluster_p_value`), as (rows × rows) matrices, NaN elsewhere.
    One (rows × samples) table serves all pairs: a 54-row board has 1,431 of them."""
    import pandas as pd

    n = len(pool)
    parts = [_picked(by_row, r)[["sample_id", "epoch", "cluster", metric]].dropna(subset=[metric]) for r in pool]
    joined = pd.concat(parts, keys=range(n), names=["row", None]).reset_index(level=0)
    sample, _ = pd.factorize(joined["sample_id"].astype(str) + "\x00" + joined["epoch"].map(str))
    cluster, _ = pd.factorize(joined["cluster"].astype(str))
    values = np.full((n, sample.max() + 1 if len(sample) else 0), np.nan)
    values[joined["row"].to_numpy(), sample] = joined[metric].to_numpy(float)
    of_sample = np.zeros(values.shape[1], dtype=int)
    of_sample[sample] = cluster
    diff, raw = np.full((n, n), np.nan), np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            if not comparable[i, j]:
                continue
            both = ~(np.isnan(values[i]) | np.isnan(values[j]))
            if not both.any():
                continue
            d = values[i, both] - values[j, both]
            sums = np.bincount(of_sample[both], weights=d)
            counts = np.bincount(of_sample[both]).astype(float)
            keep = counts > 0
            diff[i, j], diff[j, i] = d.mean(), -d.mean()
            raw[i, j] = raw[j, i] = stats.cluster_p_value(sums[keep], counts[keep])[0]
    return diff, raw


def rank_intervals(frame, rows: list[dict[str, Any]], board: Board) -> None:
    """Set ``rank``, ``rank_low`` and ``rank_high`` on the rows of the first task whose coverage is at least
    ``min_overlap`` (:func:`finchain_tasks.leaderboard.stats.rank_intervals`: the template bootstrap's range of
    ranks, simultaneous over the rows, the calibrated statement about order). Two rows are compared on the
    templates they share, and only when they share enough to be compared at all (``min_shared`` /
    ``min_overlap``, as the tie groups), so a rank interval agrees with the paired test of the same pair: a
    partial row that answered the easy templates is not ranked above a row that beat it on each of them.
    Other rows get None."""
    st, metric = board.statistics, board.primary
    by_row = _split_rows(scored(frame))
    if any("coverage" not in r for r in _ranked_pool(rows, board)):
        coverage(frame, rows, board)
    pool = [r for r in _ranked_pool(rows, board) if (r.get("coverage") or 0) >= st.min_overlap]
    picked = [_picked(by_row, r) for r in pool]
    covered = {id(r): set(g.dropna(subset=[metric])["cluster"]) for r, g in zip(pool, picked)}
    found = stats.rank_intervals([g[metric].to_numpy(float) for g in picked], [g["cluster"].tolist() for g in picked],
                                 st.confidence, st.resamples, st.seed,
                                 compared=_comparable_matrix(pool, covered, st))
    for row in rows:
        row.update(rank=None, rank_low=None, rank_high=None)
    for row, ri in zip(pool, found):
        if ri is not None:
            row.update(rank=ri.rank, rank_low=ri.low, rank_high=ri.high)


def ordered(rows: list[dict[str, Any]], board: Board) -> list[dict[str, Any]]:
    """The table's order: by task, then placed rows by tie group (full coverage before partial inside a group,
    then best mean), then the rows with no group (not comparable with their leader) last. A row is never
    above one it was not shown to equal: a group is above the next only because its leader was shown better."""
    tasks = {t: i for i, t in enumerate(board.tasks)}

    def key(r: dict[str, Any]):
        mean = (r["metrics"].get(board.primary) or {}).get("mean")
        return (tasks.get(r["task"], len(tasks)), r.get("tie_group") is None, r.get("tie_group") or 0,
                bool(r.get("partial")), -(mean if mean is not None else -math.inf), _label(r))

    return sorted(rows, key=key)


def _label(row: dict[str, Any]) -> str:
    return f"{row['model']} ({row['harness']})"


def cells(frame, board: Board) -> dict[str, Any]:
    """Per model × harness (and ``all``): domain × level cells with mean, interval and count, and the
    topics and templates inside each cell (mean and count) for the drill-down. Only ``all`` lists each
    template's sample ids (the per-model drill-down links through it): ``data.js`` is loaded by every page,
    and the ids repeated per model would make it megabytes at paper size (26 × 2,900)."""
    data = scored(frame[frame["task"] == "finchain"])
    metric, st = board.primary, board.statistics
    out: dict[str, Any] = {}
    keyed = [("all", data)] + [(f"{m} ({h})", g) for (m, h), g in data.groupby(["model", "harness"], sort=True)]
    for key, group in keyed:
        grid = {}
        for (domain, level), g in group.groupby(["domain", "level"], sort=True):
            ci = stats.cluster_interval(g[metric].to_numpy(float), g["cluster"].tolist(), st.confidence,
                                        st.resamples, st.seed)
            grid[f"{domain}|{level}"] = {
                "domain": domain, "level": level, "n": ci.n, "mean": _num(ci.mean), "low": _num(ci.low),
                "high": _num(ci.high),
                "topics": _breakdown(g, "topic", metric, False),
                "templates": _breakdown(g, "template", metric, key == "all")}
        out[key] = grid
    return out


def _breakdown(group, col: str, metric: str, with_samples: bool) -> list[dict[str, Any]]:
    rows = []
    for name, g in group.groupby(col, sort=True):
        row = {"name": str(name), "n": int(g[metric].notna().sum()), "mean": _num(g[metric].mean())}
        if with_samples:
            row["samples"] = sorted(set(g["sample_id"].astype(str)))
        rows.append(row)
    return rows


def fresh_gaps(frame, board: Board) -> list[dict[str, Any]]:
    """Per model × harness run on both canonical and fresh seeds: canonical minus fresh on the primary metric,
    paired by template (each template's mean on either side), with its interval and p-value. A clearly positive
    gap means the canonical problems are easier for the model than new draws of the same templates: a
    contamination signal."""
    data = frame[frame["error"].isna() & (frame["task"] == "finchain")].assign(cluster=clusters_of(frame))
    metric, st = board.primary, board.statistics
    gaps = []
    for (model, harness), g in data.groupby(["model", "harness"], sort=True):
        fresh_mask = g["fresh"].fillna(False).astype(bool)
        canon = g[~fresh_mask].groupby("cluster")[metric].mean()
        fresh = g[fresh_mask].groupby("cluster")[metric].mean()
        shared = sorted(set(canon.index) & set(fresh.index))
        if not shared:
            continue
        test = stats.paired_test(canon[shared].to_numpy(float), fresh[shared].to_numpy(float), shared,
                                 names=("canonical", "fresh"), confidence=st.confidence, resamples=st.resamples,
                                 seed=st.seed)
        gaps.append({"model": model, "harness": harness, "templates": len(shared), "gap": _num(test.diff),
                     "low": _num(test.low), "high": _num(test.high), "p_value": _num(test.p_value)})
    return gaps


def frontier(rows: list[dict[str, Any]], metric: str) -> list[str]:
    """Labels of the rows on the score-versus-cost Pareto frontier (no other row is cheaper and at least as good)."""
    known = [r for r in rows if r.get("cost_per_sample") is not None and r["metrics"].get(metric, {}).get("mean")
             is not None]
    known.sort(key=lambda r: (r["cost_per_sample"], -r["metrics"][metric]["mean"]))
    best, out = -np.inf, []
    for r in known:
        if r["metrics"][metric]["mean"] > best:
            best = r["metrics"][metric]["mean"]
            out.append(_label(r))
    return out
