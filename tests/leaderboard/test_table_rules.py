"""The board table's user-visible rules, one table-driven test per rule (issue 39.3): the fields each row, cell,
comparison and gap carries (the site, the CSV and the JSON read them by name), when a metric has a mean, when a
cost is known, and that a paired comparison counts only the templates both rows answered. Built on a hand-made
per-sample table of a few rows (200 resamples): fast."""

from __future__ import annotations

import numpy as np
import pytest

from finchain_tasks.leaderboard import stats, table
from finchain_tasks.leaderboard.board import Board, Statistics
from finchain_tasks.leaderboard.ingest import to_frame

METRIC_FIELDS = {"mean", "low", "high", "n", "clusters", "naive_low", "naive_high"}
RESOURCE_FIELDS = {"input_tokens", "output_tokens", "cost_usd", "cost_per_sample", "latency_s"}


def _sample(model, template, seed, score, fresh=False, **extra):
    return {"model": model, "harness": "inspect", "task": "finchain", "sample_id": f"t{template}/{seed}",
            "epoch": 1, "domain": "d", "topic": "p", "template": f"t{template}", "level": "easy",
            "chaineval": score, "fresh": fresh, **extra}


def _board(**kw) -> Board:
    return Board(name="t", title="t", metrics=("chaineval", "fac"), statistics=Statistics(resamples=200, **kw))


def _row(samples, board=None):
    rows = table.model_rows(to_frame(samples), board or _board())
    assert len(rows) == 1
    return rows[0]


# ------------------------------------------------------------------------------------ a row's metrics

@pytest.mark.parametrize(("scores", "mean", "n"), [
    ([None, None], None, 0),    # no value at all: no mean, n 0
    ([0.25, None], 0.25, 1),    # one value is enough for a mean
    ([0.25, 0.75], 0.5, 2),
])
def test_a_metric_has_a_mean_as_soon_as_one_sample_has_a_value(scores, mean, n):
    row = _row([_sample("m", k, 0, 0.5, fac=s) for k, s in enumerate(scores)])
    stats_ = row["metrics"]["fac"]
    assert stats_["mean"] == (None if mean is None else pytest.approx(mean)) and stats_["n"] == n
    assert set(stats_) == ({"mean", "n"} if mean is None else METRIC_FIELDS)


def test_each_metric_carries_both_intervals_and_its_counts():
    row = _row([_sample("m", k, s, 0.1 * k + 0.05 * s) for k in range(3) for s in range(2)])
    got = row["metrics"]["chaineval"]
    assert set(got) == METRIC_FIELDS
    assert got["n"] == 6 and got["clusters"] == 3
    assert got["low"] <= got["mean"] <= got["high"] and got["naive_low"] <= got["mean"] <= got["naive_high"]


# ----------------------------------------------------------------------------------- a row's resources

@pytest.mark.parametrize(("costs", "total", "per_sample"), [
    ([0.5], 0.5, 0.5),                 # one sample with a cost: known
    ([0.5, 0.25], 0.75, 0.375),
    ([0.5, None], None, None),         # one cost missing: the total is unknown, never a partial sum
])
def test_a_cost_is_known_only_when_every_sample_has_one(costs, total, per_sample):
    row = _row([_sample("m", k, 0, 0.5, cost=c, input_tokens=10 + k, output_tokens=3, latency_s=1.0 + k)
                for k, c in enumerate(costs)])
    assert set(RESOURCE_FIELDS) <= set(row)
    assert row["cost_usd"] == (None if total is None else pytest.approx(total))
    assert row["cost_per_sample"] == (None if per_sample is None else pytest.approx(per_sample))
    assert row["input_tokens"] == sum(10 + k for k in range(len(costs)))
    assert row["output_tokens"] == 3 * len(costs)
    assert row["latency_s"] == pytest.approx(1.0 + (len(costs) - 1) / 2)


# ---------------------------------------------------------------------------------------- comparisons

def _compared(frame, board):
    rows = table.model_rows(frame, board)
    return rows, table.tie_groups(frame, rows, board)


def test_a_not_comparable_row_says_with_whom_and_how_many_templates_they_share():
    # a: templates 0-5; b: templates 5-9, one shared (min_shared 2): not comparable
    samples = [_sample("a", k, 0, 0.9) for k in range(6)] + [_sample("b", k, 0, 0.2) for k in range(5, 10)]
    _, comparisons = _compared(to_frame(samples), _board())
    assert comparisons == [{"a": "b (inspect)", "b": "a (inspect)", "verdict": "not comparable",
                            "shared_clusters": 1, "group_of_leader": 1}]


@pytest.mark.parametrize("templates", [6, 18])  # the exact sign-flip test, and the cluster-robust t test above 15
def test_a_paired_comparison_counts_only_the_templates_both_rows_answered(templates):
    """b did not answer template 4, which a did: the pair's test is over their shared templates alone (template 4
    is no empty cluster of theirs: it would count as a cluster in the t test's degrees of freedom), each of b's
    templates with one sample."""
    a = [_sample("a", k, s, 0.9 - 0.01 * k - 0.02 * s) for k in range(templates) for s in range(2)]
    b = [_sample("b", k, 0, 0.5 + 0.03 * k - 0.01 * (k % 3)) for k in range(templates) if k != 4]
    frame = to_frame(a + b)
    rows, comparisons = _compared(frame, _board(min_overlap=0.1))
    (got,) = [c for c in comparisons if c.get("verdict") != "not comparable"]
    assert got["shared_clusters"] == templates - 1
    by_row = table._split_rows(table.scored(frame))
    pool = table._ranked_pool(rows, _board())
    diff, raw = table._all_pairs(pool, by_row, "chaineval", np.ones((2, 2), dtype=bool))
    va, vb, clusters = table._paired_values(table.scored(frame), pool[0], pool[1], "chaineval", by_row)
    sums = {c: 0.0 for c in clusters}
    counts = {c: 0 for c in clusters}
    for d, c in zip(va - vb, clusters):
        sums[c] += d
        counts[c] += 1
    expected = stats.cluster_p_value(np.array(list(sums.values())), np.array(list(counts.values()), float))[0]
    assert raw[0, 1] == pytest.approx(expected) and diff[0, 1] == pytest.approx((va - vb).mean())


# ------------------------------------------------------------------------------- cells and fresh gaps

def test_each_cell_and_its_drill_down_carry_the_fields_the_heatmap_reads():
    samples = [_sample("m", k, s, 0.1 * k) for k in range(2) for s in range(2)]
    cells = table.cells(to_frame(samples), _board())
    assert list(cells) == ["all", "m (inspect)"]
    cell = cells["all"]["d|easy"]
    assert set(cell) == {"domain", "level", "n", "mean", "low", "high", "topics", "templates"}
    assert (cell["domain"], cell["level"], cell["n"]) == ("d", "easy", 4)
    assert cell["topics"] == [{"name": "p", "n": 4, "mean": pytest.approx(0.05)}]
    assert cell["templates"][1] == {"name": "t1", "n": 2, "mean": pytest.approx(0.1),
                                    "samples": ["t1/0", "t1/1"]}
    assert "samples" not in cells["m (inspect)"]["d|easy"]["templates"][1]  # only "all" lists the ids


def test_a_fresh_gap_carries_its_model_size_estimate_and_interval():
    samples = [_sample("m", k, 0, 0.8) for k in range(4)]
    samples += [_sample("m", k, 9, 0.5 + 0.01 * k, fresh=True) for k in range(4)]
    (gap,) = table.fresh_gaps(to_frame(samples), _board())
    assert set(gap) == {"model", "harness", "templates", "gap", "low", "high", "p_value"}
    assert (gap["model"], gap["harness"], gap["templates"]) == ("m", "inspect", 4)
    assert gap["gap"] == pytest.approx(0.8 - 0.515) and gap["low"] <= gap["gap"] <= gap["high"]
