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
    assert cell["low"] < cell["mean"] < cell["high"]  # two templates: an interval on either side
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


# ------------------------------------------------------------------------------ the resampling unit

@pytest.mark.parametrize(("sub_task", "exam", "template", "cluster"), [
    (None, None, None, "s"),                    # nothing groups it: the sample is its own unit
    ("st", None, None, "sub_task:st"),          # CFLUE application: its sub-task
    (None, "ex", None, "exam:ex"),              # CFLUE: its exam
    ("st", "ex", None, "exam:ex"),              # the exam wins over the sub-task
    (None, None, "t", "d/p/t"),                 # FinChain: domain/topic/template
    ("st", "ex", "t", "d/p/t"),                 # the template wins over both
])
def test_rule_a_samples_cluster_is_its_template_else_its_exam_else_its_sub_task_else_itself(
        sub_task, exam, template, cluster):
    frame = to_frame([{"model": "m", "sample_id": "s", "domain": "d", "topic": "p", "template": template,
                       "exam": exam, "sub_task": sub_task}])
    assert table.clusters_of(frame).tolist() == [cluster]


@pytest.mark.parametrize(("error", "fresh", "kept"), [
    (None, False, True), (None, None, True),    # a sample without the fresh mark is canonical
    ("boom", False, False),                     # failed: not scored
    (None, True, False),                        # a fresh seed: only the contamination gap reads it
])
def test_rule_only_answered_samples_of_canonical_seeds_are_scored(error, fresh, kept):
    frame = to_frame([_sample("m", 0, 0, 0.5, fresh=fresh, error=error), _sample("m", 1, 0, 0.5)])
    assert table.scored(frame)["template"].tolist() == (["t0", "t1"] if kept else ["t1"])
    assert table.scored(frame)["cluster"].tolist()[-1] == "d/p/t1"


# ------------------------------------------------------------------------------------ a row's facts

def test_rule_a_rows_facts_are_the_first_recorded_of_its_samples_and_its_latest_date():
    facts = {"category": "reasoning", "open_weights": True, "params_b": 7, "harness_version": "0.3",
             "task_version": "2.1", "profile": "paper", "finchain_tasks_version": "3.1.0"}
    samples = [_sample("m", 0, 0, 0.5, date="2026-01-02"), _sample("m", 1, 0, 0.5, date="2026-03-04", **facts),
               _sample("m", 1, 1, 0.5, **{**facts, "category": "other"})]
    row = _row(samples)
    assert {k: row[k] for k in facts} == {**facts, "params_b": 7.0}
    assert (row["model"], row["harness"], row["task"], row["display_name"]) == ("m", "inspect", "finchain", "m")
    assert (row["date"], row["n"], row["templates"]) == ("2026-03-04", 3, 2)


@pytest.mark.parametrize(("extra", "field", "value"), [
    ({"display_name": "Model M"}, "display_name", "Model M"), ({}, "display_name", "m"),  # else its name
    ({"open_weights": False}, "open_weights", False), ({}, "open_weights", None),        # unknown is not closed
    ({}, "params_b", None), ({}, "date", None), ({}, "category", None),
    ({}, "input_tokens", None), ({}, "output_tokens", None), ({}, "cost_usd", None), ({}, "latency_s", None),
])
def test_rule_a_rows_missing_fact_stays_unknown_and_its_display_name_falls_back_to_the_model(extra, field, value):
    assert _row([_sample("m", 0, 0, 0.5, **extra)])[field] == value


def test_rule_one_row_per_model_harness_and_task_in_that_order():
    samples = [_sample(m, 0, 0, 0.5, harness=h, task=t) for m in ("b", "a") for h in ("lm-eval", "inspect")
               for t in ("finchain", "cflue")]
    rows = table.model_rows(to_frame(samples), _board())
    assert [(r["model"], r["harness"], r["task"]) for r in rows] == [
        ("a", "inspect", "cflue"), ("a", "inspect", "finchain"), ("a", "lm-eval", "cflue"),
        ("a", "lm-eval", "finchain"), ("b", "inspect", "cflue"), ("b", "inspect", "finchain"),
        ("b", "lm-eval", "cflue"), ("b", "lm-eval", "finchain")]


def test_rule_a_rows_resources_count_its_failed_samples_too():
    """Tokens and cost were spent on a failed sample too: the row's resources are over all its samples."""
    samples = [_sample("m", 0, 0, 0.5, cost=0.5, input_tokens=10), _sample("m", 1, 0, None, cost=0.25,
                                                                           input_tokens=5, error="x")]
    row = _row(samples)
    assert (row["n"], row["input_tokens"], row["cost_usd"]) == (1, 15, pytest.approx(0.75))


# -------------------------------------------------------------------------------- coverage and order

def _placed_rows(frame, board):
    rows = table.model_rows(frame, board)
    table.tie_groups(frame, rows, board)
    table.rank_intervals(frame, rows, board)
    return {r["model"]: r for r in rows}


@pytest.mark.parametrize(("kept", "coverage", "partial"), [(10, 1.0, False), (9, 0.9, True), (5, 0.5, True)])
def test_rule_a_rows_coverage_is_its_templates_over_the_most_any_row_has(kept, coverage, partial):
    samples = [_sample("a", k, 0, 0.5 + 0.01 * k) for k in range(10)]
    samples += [_sample("b", k, 0, 0.4 + 0.01 * k) for k in range(kept)]
    rows = table.model_rows(to_frame(samples), _board())
    table.coverage(to_frame(samples), rows, _board())
    by = {r["model"]: r for r in rows}
    assert (by["a"]["coverage"], by["a"]["partial"]) == (1.0, False)
    assert (by["b"]["coverage"], by["b"]["partial"]) == (pytest.approx(coverage), partial)


def test_rule_only_rows_of_the_boards_first_task_with_a_primary_mean_are_placed():
    samples = [_sample("a", k, 0, 0.9) for k in range(4)] + [_sample("b", k, 0, None, fac=1.0) for k in range(4)]
    samples += [_sample("c", k, 0, 0.5, task="cflue") for k in range(4)]
    by = _placed_rows(to_frame(samples), _board())
    assert (by["a"]["tie_group"], by["a"]["rank"], by["a"]["coverage"]) == (1, 1, 1.0)
    for model in ("b", "c"):
        assert "tie_group" not in by[model] and "coverage" not in by[model]
        assert (by[model]["rank"], by[model]["rank_low"], by[model]["rank_high"]) == (None, None, None)


@pytest.mark.parametrize(("kept", "ranked"), [(10, True), (5, True), (4, False)])  # min_overlap 0.5
def test_rule_a_row_is_ranked_only_when_its_coverage_reaches_the_minimum_overlap(kept, ranked):
    samples = [_sample("a", k, 0, 0.5 + 0.01 * k) for k in range(10)]
    samples += [_sample("b", k, 0, 0.4 + 0.01 * k) for k in range(kept)]
    by = _placed_rows(to_frame(samples), _board())
    assert (by["b"]["rank"] is not None) is ranked and by["a"]["rank"] == 1


@pytest.mark.parametrize(("shared", "comparable"), [(1, False), (2, True)])  # min_shared 2, min_overlap 0
def test_rule_two_rows_are_comparable_from_the_minimum_number_of_shared_templates(shared, comparable):
    st = Statistics(min_shared=2, min_overlap=0.01)
    assert table._comparable(set(range(shared)), set(range(shared)), st) is comparable


@pytest.mark.parametrize(("a", "b", "comparable"), [
    (4, 8, True),    # 4 shared of the larger row's 8: exactly half
    (3, 8, False),   # 3 of 8: under half
    (8, 4, True), (8, 3, False),  # either row's templates count
])
def test_rule_two_rows_are_comparable_only_when_they_share_the_minimum_overlap_of_either_rows_templates(
        a, b, comparable):
    assert table._comparable(set(range(a)), set(range(b)), Statistics(min_shared=2, min_overlap=0.5)) is comparable


def _ordered_row(model, task="finchain", group=1, partial=False, mean=0.5, harness="inspect"):
    return {"model": model, "harness": harness, "task": task, "tie_group": group, "partial": partial,
            "metrics": {"chaineval": {"mean": mean}}}


@pytest.mark.parametrize(("rows", "order"), [
    # by the board's task order first (a task it does not list last), whatever the means
    ([_ordered_row("x", "other", mean=0.9), _ordered_row("c", "cflue", mean=0.9), _ordered_row("f", mean=0.1)],
     ["f", "c", "x"]),
    # then by tie group; a row with no group last
    ([_ordered_row("n", group=None, mean=0.9), _ordered_row("g2", group=2, mean=0.8), _ordered_row("g1", mean=0.1)],
     ["g1", "g2", "n"]),
    # inside a group: full coverage before partial, then the best mean, a row without a mean last
    ([_ordered_row("p", partial=True, mean=0.9), _ordered_row("y", mean=0.2), _ordered_row("z", mean=0.3),
      _ordered_row("none", mean=None)], ["z", "y", "none", "p"]),
    # equal means: by label (model, then harness)
    ([_ordered_row("b"), _ordered_row("a", harness="lm-eval"), _ordered_row("a")], ["a", "a", "b"]),
])
def test_rule_the_table_is_ordered_by_task_group_coverage_mean_and_label(rows, order):
    board = Board(name="t", title="t", tasks=("finchain", "cflue"), metrics=("chaineval",))
    got = table.ordered(rows, board)
    assert [r["model"] for r in got] == order
    if order == ["a", "a", "b"]:
        assert [r["harness"] for r in got[:2]] == ["inspect", "lm-eval"]


# ------------------------------------------------------------------------------------------ frontier

def _costed(model, cost, mean):
    return {"model": model, "harness": "inspect", "cost_per_sample": cost, "metrics": {"chaineval": {"mean": mean}}}


@pytest.mark.parametrize(("rows", "frontier"), [
    ([_costed("a", 1.0, 0.5), _costed("b", 2.0, 0.6), _costed("c", 3.0, 0.55)], ["a (inspect)", "b (inspect)"]),
    ([_costed("a", 1.0, 0.5), _costed("b", 2.0, 0.5)], ["a (inspect)"]),   # as good but dearer: off
    ([_costed("a", 1.0, 0.5), _costed("b", 1.0, 0.6)], ["b (inspect)"]),   # as cheap and better: only it
    ([_costed("a", None, 0.9), _costed("b", 1.0, None), _costed("c", 2.0, 0.1)], ["c (inspect)"]),  # unknowns out
    ([_costed("a", 0.0, 0.0)], ["a (inspect)"]),                              # free and scoring 0 is still on it
    ([], []),
])
def test_rule_the_frontier_holds_the_rows_no_cheaper_row_matches(rows, frontier):
    assert table.frontier(rows, "chaineval") == frontier


# ------------------------------------------------------------------------------------------ fresh gaps

@pytest.mark.parametrize(("change", "gaps"), [
    ({}, 1),
    ({"fresh_task": "cflue"}, 0),       # only FinChain has fresh seeds
    ({"fresh_error": "x"}, 0),          # a failed fresh sample is no draw
    ({"no_fresh": True}, 0),            # a model never run on fresh seeds has no gap
])
def test_rule_a_fresh_gap_needs_answered_finchain_samples_on_both_seed_kinds(change, gaps):
    samples = [_sample("m", k, 0, 0.8) for k in range(3)]
    if not change.get("no_fresh"):
        samples += [_sample("m", k, 9, 0.5, fresh=True, task=change.get("fresh_task", "finchain"),
                            error=change.get("fresh_error")) for k in range(3)]
    assert len(table.fresh_gaps(to_frame(samples), _board())) == gaps


def test_rule_the_cells_are_of_finchain_samples_per_domain_and_level():
    samples = [_sample("m", k, 0, 0.5, domain=d, level=lv) for k, (d, lv) in
               enumerate([("a", "easy"), ("a", "hard"), ("b", "easy")])]
    samples += [_sample("m", 9, 0, 0.5, task="cflue")]
    cells = table.cells(to_frame(samples), _board())
    assert sorted(cells["all"]) == ["a|easy", "a|hard", "b|easy"]
    assert sum(c["n"] for c in cells["all"].values()) == 3


def test_rule_a_board_whose_first_task_has_no_scored_row_has_no_comparisons():
    frame = to_frame([_sample("a", k, 0, 0.5) for k in range(3)])
    board = Board(name="t", title="t", tasks=("cflue", "finchain"), metrics=("chaineval",),
                  statistics=Statistics(resamples=200))
    rows = table.model_rows(frame, board)
    assert table.tie_groups(frame, rows, board) == [] and "tie_group" not in rows[0]


def test_rule_rank_intervals_measure_coverage_themselves_when_it_was_not_yet_measured():
    samples = [_sample("a", k, 0, 0.9) for k in range(6)] + [_sample("b", k, 0, 0.1) for k in range(3)]
    frame = to_frame(samples)
    rows = table.model_rows(frame, _board())
    table.rank_intervals(frame, rows, _board())
    by = {r["model"]: r for r in rows}
    assert (by["a"]["coverage"], by["b"]["coverage"]) == (1.0, 0.5) and by["b"]["partial"] is True
    assert (by["a"]["rank"], by["b"]["rank"]) == (1, 2)


def test_rule_a_pairs_values_are_the_same_read_from_the_split_rows_or_the_whole_frame():
    samples = [_sample("a", k, s, 0.1 * k + s) for k in range(3) for s in range(2)]
    samples += [_sample("b", k, 1, 0.2 * k) for k in range(4)]
    data = table.scored(to_frame(samples))
    rows = table.model_rows(to_frame(samples), _board())
    by_row = table._split_rows(data)
    whole = table._paired_values(data, rows[0], rows[1], "chaineval")
    split = table._paired_values(data, rows[0], rows[1], "chaineval", by_row)
    assert [list(v) for v in whole] == [list(v) for v in split] == [[1.0, 1.1, 1.2], [0.0, 0.2, 0.4],
                                                                     ["d/p/t0", "d/p/t1", "d/p/t2"]]
    ghost = {**rows[0], "model": "nobody"}  # a row the split does not hold answered nothing
    assert [len(v) for v in table._paired_values(data, ghost, rows[0], "chaineval", by_row)] == [0, 0, 0]


def test_rule_a_pair_with_no_sample_in_common_has_no_difference_and_no_p_value():
    samples = [_sample("a", k, 0, 0.9) for k in range(3)] + [_sample("b", k, 1, 0.1) for k in range(3)]
    frame = to_frame(samples)
    rows = table.model_rows(frame, _board())
    pool = table._ranked_pool(rows, _board())
    diff, raw = table._all_pairs(pool, table._split_rows(table.scored(frame)), "chaineval", np.ones((2, 2), bool))
    assert np.isnan(diff).all() and np.isnan(raw).all()


def test_rule_a_rows_cost_is_unknown_never_zero_when_none_of_its_samples_is_found_for_it():
    """A sample without a recorded harness still makes a row; its resources, looked up by the row's keys, find no
    sample, and no sample is an unknown cost, not a free one."""
    rows = table.model_rows(to_frame([_sample("a", k, 0, 0.5, harness=None, cost=0.1) for k in range(2)]), _board())
    assert [(r["model"], r["n"], r["cost_usd"], r["cost_per_sample"]) for r in rows] == [("a", 2, None, None)]


@pytest.mark.parametrize("correction", ["holm", "none"])
def test_rule_each_comparison_carries_its_p_value_adjusted_over_every_comparable_pair(correction):
    samples = [_sample(m, k, 0, base + 0.02 * k + 0.05 * (k % 2) * (m == "b"))
               for m, base in (("a", 0.7), ("b", 0.5), ("c", 0.45)) for k in range(8)]
    frame = to_frame(samples)
    board = _board(correction=correction)
    rows, comparisons = _compared(frame, board)
    pool = table._ranked_pool(rows, board)
    _, raw = table._all_pairs(pool, table._split_rows(table.scored(frame)), "chaineval", ~np.eye(3, dtype=bool))
    family = [raw[0, 1], raw[0, 2], raw[1, 2]]
    adjusted = dict(zip([(0, 1), (0, 2), (1, 2)], stats.holm(family) if correction == "holm" else family))
    labels = [table._label(r) for r in pool]
    assert [(c["a"], c["b"], c["group_of_leader"]) for c in comparisons] == [
        ("b (inspect)", "a (inspect)", 1), ("c (inspect)", "a (inspect)", 1), ("c (inspect)", "b (inspect)", 2)]
    for c in comparisons:
        i, j = sorted((labels.index(c["a"]), labels.index(c["b"])))
        assert c["p_value"] == pytest.approx(raw[i, j]) and c["p_adjusted"] == pytest.approx(adjusted[i, j])
        assert (c["pairs_in_family"], c["shared_clusters"], c["n"]) == (3, 8, 8)
        assert c["verdict"] == ("tied" if c["p_adjusted"] >= 0.05 else "different")


def test_rule_the_drill_down_lists_topics_and_templates_by_name_and_the_models_in_order():
    samples = [_sample(m, k, 0, 0.5, topic=f"p{1 - k}", harness=h) for m, h in (("b", "x"), ("a", "z"), ("a", "y"))
               for k in (1, 0)]
    cells = table.cells(to_frame(samples), _board())
    assert list(cells) == ["all", "a (y)", "a (z)", "b (x)"]
    assert [t["name"] for t in cells["all"]["d|easy"]["topics"]] == ["p0", "p1"]
    assert [t["name"] for t in cells["all"]["d|easy"]["templates"]] == ["t0", "t1"]


def test_rule_fresh_gaps_are_listed_per_model_in_name_order_skipping_a_model_without_fresh_seeds():
    samples = []
    for model, fresh in (("c", True), ("b", False), ("a", True)):
        samples += [_sample(model, k, 0, 0.8, fresh=None) for k in range(3)]  # unmarked: canonical
        if fresh:
            samples += [_sample(model, k, 9, 0.5, fresh=True) for k in range(3)]
    gaps = table.fresh_gaps(to_frame(samples), _board())
    assert [(g["model"], g["templates"], round(g["gap"], 6)) for g in gaps] == [("a", 3, 0.3), ("c", 3, 0.3)]


def test_rule_every_comparable_pair_is_tested_whichever_pair_before_it_was_not():
    samples = [_sample(m, k, 0, base + 0.01 * k) for m, base in (("a", 0.8), ("b", 0.6), ("c", 0.4)) for k in range(6)]
    frame = to_frame(samples)
    rows = table.model_rows(frame, _board())
    pool = table._ranked_pool(rows, _board())
    comparable = np.array([[False, False, True], [False, False, True], [True, True, False]])
    diff, raw = table._all_pairs(pool, table._split_rows(table.scored(frame)), "chaineval", comparable)
    assert np.isnan(raw[0, 1]) and raw[0, 2] == pytest.approx(2 / 64) and raw[1, 2] == pytest.approx(2 / 64)
    assert diff[0, 2] == pytest.approx(0.4) and diff[2, 0] == pytest.approx(-0.4)


def test_rule_a_fresh_gaps_interval_is_the_same_on_every_build():
    samples = [_sample("m", k, 0, 0.5 + 0.03 * k) for k in range(8)]
    samples += [_sample("m", k, 9, 0.4 + 0.05 * ((k * 5) % 8), fresh=True) for k in range(8)]
    first, again = (table.fresh_gaps(to_frame(samples), _board()) for _ in range(2))
    assert first == again and first[0]["low"] < first[0]["high"]


def test_rule_every_pair_with_shared_samples_is_tested_whichever_pair_before_it_shared_none():
    samples = [_sample(m, k, seed, base + 0.01 * k)
               for m, seed, base in (("a", 0, 0.8), ("b", 1, 0.6), ("c", 0, 0.4)) for k in range(6)]
    frame = to_frame(samples)
    pool = table._ranked_pool(table.model_rows(frame, _board()), _board())
    diff, raw = table._all_pairs(pool, table._split_rows(table.scored(frame)), "chaineval", ~np.eye(3, dtype=bool))
    assert np.isnan(raw[0, 1]) and np.isnan(raw[1, 2]) and raw[0, 2] == pytest.approx(2 / 64)


# ------------------------------------------------------------- the board's statistics settings (issue 39)

def _spread(model, base, step):
    """Two canonical seeds per each of 8 templates, scores spread (a pattern per ``step``) so every interval has
    width and the rows' order changes from template to template: their rank intervals are wider than one rank."""
    return [_sample(model, k, s, base + 0.1 * ((k * step + s) % 5)) for k in range(8) for s in range(2)]


@pytest.mark.parametrize("settings", [{"seed": 7}, {"confidence": 0.8}, {"resamples": 150}])
def test_rule_every_interval_follows_the_boards_statistics_settings_and_is_the_same_on_every_build(settings):
    """Each interval (a row's cluster and naive ones, a cell's, a fresh gap's, a comparison's, a rank's) is the
    statistics module's with the board's confidence, resamples and seed: none falls back to a default, and a
    second build gives the same figures."""
    samples = _spread("a", 0.5, 3) + _spread("b", 0.45, 2) + _spread("c", 0.35, 1)
    samples += [_sample("a", k, 9, 0.2 + 0.05 * ((k * 5) % 8), fresh=True) for k in range(8)]
    frame = to_frame(samples)
    board = Board(name="t", title="t", metrics=("chaineval", "fac"),
                  statistics=Statistics(**{"resamples": 200, **settings}))
    st = board.statistics

    def build():
        rows = table.model_rows(frame, board)
        comparisons = table.tie_groups(frame, rows, board)
        table.rank_intervals(frame, rows, board)
        return rows, comparisons, table.cells(frame, board), table.fresh_gaps(frame, board)

    rows, comparisons, cells, gaps = build()
    assert (rows, comparisons, cells, gaps) == build()
    data = table.scored(frame)
    args = (st.confidence, st.resamples, st.seed)
    for row in rows:
        g = data[data["model"] == row["model"]]
        ci = stats.cluster_interval(g["chaineval"].to_numpy(float), g["cluster"].tolist(), *args)
        naive = stats.naive_interval(g["chaineval"].to_numpy(float), *args)
        got = row["metrics"]["chaineval"]
        assert (got["low"], got["high"], got["naive_low"], got["naive_high"]) == pytest.approx(
            (ci.low, ci.high, naive.low, naive.high))
    cell = stats.cluster_interval(data["chaineval"].to_numpy(float), data["cluster"].tolist(), *args)
    assert (cells["all"]["d|easy"]["low"], cells["all"]["d|easy"]["high"]) == pytest.approx((cell.low, cell.high))
    a = frame[(frame["model"] == "a")].assign(cluster=table.clusters_of(frame[frame["model"] == "a"]))
    canon = a[~a["fresh"].astype(bool)].groupby("cluster")["chaineval"].mean()
    fresh = a[a["fresh"].astype(bool)].groupby("cluster")["chaineval"].mean()
    gap = stats.paired_test(canon.to_numpy(float), fresh.to_numpy(float), list(canon.index),
                            confidence=st.confidence, resamples=st.resamples, seed=st.seed)
    assert (gaps[0]["low"], gaps[0]["high"]) == pytest.approx((gap.low, gap.high))
    by_label = {table._label(r): r for r in rows}
    by_row = table._split_rows(data)
    for c in comparisons:
        test = stats.paired_test(*table._paired_values(data, by_label[c["a"]], by_label[c["b"]], "chaineval", by_row),
                                 confidence=st.confidence, resamples=st.resamples, seed=st.seed)
        assert (c["low"], c["high"]) == pytest.approx((test.low, test.high))
    pool = table._ranked_pool(rows, board)
    picked = [by_row[(r["model"], r["harness"], r["task"])] for r in pool]
    ranks = stats.rank_intervals([g["chaineval"].to_numpy(float) for g in picked],
                                 [g["cluster"].tolist() for g in picked], *args)
    assert [(r["rank"], r["rank_low"], r["rank_high"]) for r in pool] == [(x.rank, x.low, x.high) for x in ranks]


@pytest.mark.parametrize("alpha", [0.05, 0.5])
def test_rule_a_comparison_is_different_when_its_adjusted_p_value_is_under_the_boards_alpha(alpha):
    samples = [_sample(m, k, 0, base + 0.02 * k + 0.1 * (k % 2) * (m == "b"))
               for m, base in (("a", 0.7), ("b", 0.6), ("c", 0.45)) for k in range(8)]
    frame = to_frame(samples)
    _, comparisons = _compared(frame, _board(alpha=alpha))  # b with a: p adjusted 0.125
    verdicts = [c["verdict"] for c in comparisons]
    assert verdicts == [("tied" if c["p_adjusted"] >= alpha else "different") for c in comparisons]
    assert any(0.05 <= c["p_adjusted"] < 0.5 for c in comparisons)  # the setting decides at least one verdict


def test_rule_a_comparison_after_a_not_comparable_one_is_still_reported():
    # b shares 2 of a's 10 templates (min_overlap 0.5): not comparable; c, below it, shares all ten
    samples = [_sample("a", k, 0, 0.9) for k in range(10)] + [_sample("b", k, 0, 0.8) for k in range(8, 13)]
    samples += [_sample("c", k, 0, 0.1 + 0.01 * k) for k in range(10)]
    _, comparisons = _compared(to_frame(samples), _board())
    assert [(c["a"], c["b"], c["verdict"]) for c in comparisons][:2] == [
        ("b (inspect)", "a (inspect)", "not comparable"), ("c (inspect)", "a (inspect)", "different")]


@pytest.mark.parametrize("change", [{"harness": None}, {"epoch": None}])
def test_rule_rows_and_samples_with_an_unknown_harness_or_epoch_are_still_compared(change):
    """A row whose harness was not recorded is a row of its own (model_rows keeps it), and a sample with no
    epoch is paired with the other row's sample of no epoch: neither drops out of the comparisons."""
    samples = [_sample(m, k, 0, base + 0.01 * k, **change) for m, base in (("a", 0.8), ("b", 0.3)) for k in range(6)]
    frame = to_frame(samples)
    rows, comparisons = _compared(frame, _board())
    assert [(c["verdict"], c["n"], c["shared_clusters"]) for c in comparisons] == [("different", 6, 6)]
    pool = table._ranked_pool(rows, _board())
    diff, raw = table._all_pairs(pool, table._split_rows(table.scored(frame)), "chaineval", ~np.eye(2, dtype=bool))
    assert diff[0, 1] == pytest.approx(0.5) and raw[0, 1] == pytest.approx(2 / 64)


def test_rule_two_rows_not_comparable_do_not_rank_each_other():
    # b: templates 4-6 (coverage 0.5 of a's six: ranked), sharing 2 of them with a: under min_overlap 0.5 of 6
    samples = [_sample("a", k, 0, 0.5) for k in range(6)] + [_sample("b", k, 0, 0.9) for k in range(4, 7)]
    frame = to_frame(samples)
    rows = table.model_rows(frame, _board())
    table.rank_intervals(frame, rows, _board())
    assert sorted((r["model"], r["rank"], r["rank_low"], r["rank_high"]) for r in rows) == [
        ("a", 1, 1, 1), ("b", 1, 1, 1)]


def test_rule_the_cells_are_listed_by_domain_then_level():
    samples = [_sample("m", k, 0, 0.5, domain=d, level=lv) for k, (d, lv) in
               enumerate([("b", "easy"), ("a", "hard"), ("a", "easy")])]
    assert list(table.cells(to_frame(samples), _board())["all"]) == ["a|easy", "a|hard", "b|easy"]


def test_rule_a_row_without_the_metric_is_neither_placed_nor_on_the_frontier():
    bare = {"model": "x", "harness": "inspect", "task": "finchain", "cost_per_sample": 0.1, "metrics": {}}
    assert table.frontier([bare, _costed("a", 1.0, 0.5)], "chaineval") == ["a (inspect)"]
    assert table._ranked_pool([bare], _board()) == []
