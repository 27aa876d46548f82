"""Issue 25, leaderboard ranks: a board of the published size (54 rows) still separates a clear leader, rank
intervals from the template bootstrap, and rows sharing too few templates are "not comparable", never tied."""

import numpy as np
import pytest

from finchain_tasks.leaderboard import stats, table
from finchain_tasks.leaderboard.board import Board, BoardError, Statistics, parse_board
from finchain_tasks.leaderboard.ingest import to_frame


def _frame(models: dict[str, dict[int, list[float]]]):
    """``{model: {template: [scores of its seeds]}}`` as the per-sample table."""
    rows = []
    for model, templates in models.items():
        for t, scores in templates.items():
            for k, score in enumerate(scores):
                rows.append({"model": model, "harness": "inspect", "task": "finchain", "sample_id": f"t{t}/{k}",
                             "epoch": 1, "domain": "d", "topic": "p", "template": f"t{t}", "level": "easy",
                             "chaineval": score, "fresh": False})
    return to_frame(rows)


def _board(**kw) -> Board:
    return Board(name="t", title="t", metrics=("chaineval",), statistics=Statistics(resamples=400, **kw))


def _placed(frame, board):
    rows = table.model_rows(frame, board)
    comparisons = table.tie_groups(frame, rows, board)
    table.rank_intervals(frame, rows, board)
    return {r["model"]: r for r in rows}, comparisons, table.ordered(rows, board)


def test_exact_sign_flip_and_the_t_test_are_not_floored_by_the_resample_count():
    # 12 templates, all in favour of a: exact 2 / 2^12, far below the 1/2001 floor of a 2,000-resample test
    assert stats.sign_flip_p(np.ones(12)) == pytest.approx(2 / 4096)
    # 40 templates differing by 0.2 +- noise: the t test's p is ~1e-20, not 1/(resamples + 1)
    rng = np.random.default_rng(0)
    d = 0.2 + rng.normal(0, 0.1, 40)
    p = stats.paired_test(d, np.zeros(40), np.arange(40), resamples=100).p_value
    assert p < 1e-10
    # hand-computed CR1: d = [1, -1, 1, -1, 2] (one sample per cluster) -> mean 0.4, residual SS 7.2,
    # var = 5/4 * 7.2 / 25 = 0.36, t = 0.4 / 0.6 = 0.667 on 4 df -> two-sided p = 0.5415
    assert stats.cluster_t_p(np.array([1.0, -1, 1, -1, 2]), np.ones(5)) == pytest.approx(0.5415, abs=1e-3)


def test_a_54_row_board_with_a_clear_leader_has_more_than_one_group():
    rng = np.random.default_rng(25)
    difficulty = rng.uniform(0.3, 0.7, 20)  # 20 templates of 2 seeds: the cluster-robust t test
    models = {}
    for m in range(54):
        shift = 0.2 if m == 0 else 0.0
        models[f"m{m:02d}"] = {t: list(np.clip(difficulty[t] + shift + rng.normal(0, 0.05, 2), 0, 1))
                               for t in range(20)}
    by_model, comparisons, order = _placed(_frame(models), _board())
    groups = {r["tie_group"] for r in by_model.values()}
    assert len(groups) > 1
    assert by_model["m00"]["tie_group"] == 1 and order[0]["model"] == "m00"
    assert all(r["tie_group"] != 1 for m, r in by_model.items() if m != "m00")
    assert by_model["m00"]["rank_low"] == by_model["m00"]["rank_high"] == 1  # the leader's rank is certain
    assert all(c["verdict"] == "different" for c in comparisons if c["group_of_leader"] == 1)


def test_rank_intervals_are_certain_for_separated_rows_and_span_for_equal_ones():
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.6, 30)
    noise = lambda: rng.normal(0, 0.1, 30)  # noqa: E731
    models = {"a": base + 0.3 + noise(), "b": base + 0.3 + noise(), "c": base + noise()}
    frame = _frame({m: {t: [float(v[t])] for t in range(30)} for m, v in models.items()})
    by_model, _, _ = _placed(frame, _board())
    # a and b are equal in expectation: each is ranked 1 in some draws and 2 in others; c is last in every draw
    assert (by_model["a"]["rank_low"], by_model["a"]["rank_high"]) == (1, 2)
    assert (by_model["b"]["rank_low"], by_model["b"]["rank_high"]) == (1, 2)
    assert (by_model["c"]["rank"], by_model["c"]["rank_low"], by_model["c"]["rank_high"]) == (3, 3, 3)


def test_rank_intervals_by_hand_on_two_templates():
    # a = [1, 0], b = [0.5, 0.5] on templates x, y: draws {x,x}: a first; {y,y}: b first; {x,y}: tie (both rank 1)
    out = stats.rank_intervals([[1.0, 0.0], [0.5, 0.5]], [["x", "y"], ["x", "y"]], resamples=400)
    assert [(r.rank, r.low, r.high) for r in out] == [(1, 1, 2), (1, 1, 2)]
    assert stats.rank_intervals([[float("nan")], [1.0]], [["x"], ["x"]], resamples=50)[0] is None


def test_a_row_sharing_two_samples_is_not_comparable_and_never_above_a_measured_row():
    # the case: a row measured on 2 samples (mean 0.017) against a leader and a row measured on all 36
    full = {t: [0.9] for t in range(36)}
    second = {t: [0.82 if t % 2 else 0.83] for t in range(36)}
    tiny = {0: [0.0], 1: [0.034]}
    by_model, comparisons, order = _placed(_frame({"lead": full, "second": second, "tiny": tiny}), _board())
    assert by_model["tiny"]["tie_group"] is None and by_model["tiny"]["partial"] is True
    assert by_model["tiny"]["coverage"] == pytest.approx(2 / 36) and by_model["tiny"]["rank_low"] is None
    assert by_model["second"]["tie_group"] == 2 and by_model["second"]["partial"] is False
    verdicts = {c["a"]: c["verdict"] for c in comparisons}
    assert verdicts == {"tiny (inspect)": "not comparable", "second (inspect)": "different"}
    assert [r["model"] for r in order] == ["lead", "second", "tiny"]


def test_a_partial_row_comes_after_the_full_rows_of_its_group():
    full = {t: [0.5 + 0.01 * (t % 3)] for t in range(10)}
    partial = {t: [0.52 + 0.01 * (t % 3)] for t in range(7)}  # 7 of 10 templates: comparable, higher on each
    by_model, comparisons, order = _placed(_frame({"full": full, "partial": partial}), _board())
    # shown better on its 7 templates (exact p = 2/128), but its mean is over other templates than the leader's:
    # it joins the leader's group, listed after the full row, never in a group below a leader it beat
    assert [c["verdict"] for c in comparisons] == ["better (partial coverage)"]
    assert by_model["partial"]["tie_group"] == 1 and by_model["partial"]["partial"] is True
    assert [r["model"] for r in order] == ["full", "partial"]


def test_comparability_settings_are_checked():
    with pytest.raises(BoardError, match="min_shared"):
        parse_board({"name": "x", "statistics": {"min_shared": 1}}, "x.yaml")
    with pytest.raises(BoardError, match="min_overlap"):
        parse_board({"name": "x", "statistics": {"min_overlap": 0}}, "x.yaml")


def test_simultaneous_rank_intervals_contain_the_marginal_ones():
    # Bonferroni over the rows: each row's range at 1 - 0.05 / 8, so never narrower than its 95% marginal one
    rng = np.random.default_rng(8)
    values = [rng.normal(0.5, 0.2, 30) for _ in range(8)]
    clusters = [list(range(30))] * 8
    both = [stats.rank_intervals(values, clusters, resamples=400, simultaneous=s) for s in (True, False)]
    assert all(s.low <= m.low and m.high <= s.high for s, m in zip(*both))
    assert sum(s.high - s.low for s in both[0]) > sum(m.high - m.low for m in both[1])


def test_rank_intervals_compare_a_partial_row_with_the_leader_on_the_templates_they_share():
    """Issue 42.1, exactly its case: a row that answered only the easiest 60% of the templates, 0.05 below the
    leader on every template they share. Bootstrapped each on its own samples, the partial row (a higher mean,
    over easier templates) was ranked [1, 1] and the leader [2, 2] while the paired test called the partial
    row worse; compared on the shared templates the ranks say what the test says."""
    rng = np.random.default_rng(42)
    difficulty = np.sort(rng.uniform(0.2, 0.9, 40))[::-1]  # template 0 the easiest
    lead = {t: list(np.clip(difficulty[t] + rng.normal(0, 0.01, 3), 0, 1)) for t in range(40)}
    partial = {t: [v - 0.05 for v in lead[t]] for t in range(24)}  # the easiest 60%
    by_model, comparisons, order = _placed(_frame({"lead": lead, "partial": partial}), _board())
    assert by_model["partial"]["metrics"]["chaineval"]["mean"] > by_model["lead"]["metrics"]["chaineval"]["mean"]
    (test,) = comparisons
    assert test["a"] == "partial (inspect)" and test["diff"] == pytest.approx(-0.05) and test["p_adjusted"] < 0.05
    assert test["verdict"] == "different" and by_model["partial"]["tie_group"] == 2
    ranks = {m: (r["rank"], r["rank_low"], r["rank_high"]) for m, r in by_model.items()}
    assert ranks == {"lead": (1, 1, 1), "partial": (2, 2, 2)}
    assert [r["model"] for r in order] == ["lead", "partial"]


def test_no_rank_interval_contradicts_a_paired_test_of_the_same_board():
    # full and partial rows of several sizes and offsets: whenever the board reports "a different from (below)
    # b", a's rank interval is never wholly above b's, and a's point rank is below b's
    rng = np.random.default_rng(7)
    difficulty = rng.uniform(0.2, 0.8, 30)
    models = {}
    for m, (shift, kept) in enumerate([(0.1, 30), (0.0, 30), (0.05, 18), (-0.05, 24), (0.0, 21), (-0.1, 30)]):
        models[f"m{m}"] = {t: list(np.clip(difficulty[t] + shift + rng.normal(0, 0.02, 2), 0, 1))
                           for t in sorted(rng.choice(30, kept, replace=False))}
    by_model, comparisons, _ = _placed(_frame(models), _board())
    checked = 0
    for c in comparisons:
        if c["verdict"] != "different":
            continue
        worse, better = by_model[c["a"].split()[0]], by_model[c["b"].split()[0]]
        assert c["diff"] < 0 and worse["rank"] > better["rank"]
        assert not worse["rank_high"] < better["rank_low"], (c, worse["rank_high"], better["rank_low"])
        checked += 1
    assert checked >= 3


def test_tie_groups_read_p_values_adjusted_over_every_pair_not_only_the_leaders():
    # issue 42.2: the family is all pairs. Raw p of row 1 against the leader 0.03: Holm over the two comparisons
    # with the leader gives 0.03 (different, the old rule); over the three pairs 0.06 (tied)
    means, partial = [0.9, 0.8, 0.7], [False] * 3
    diff = np.array([[0, 0.1, 0.2], [-0.1, 0, 0.1], [-0.2, -0.1, 0]])
    comparable = ~np.eye(3, dtype=bool)
    raw = {(0, 1): 0.03, (0, 2): 0.001, (1, 2): 0.3}
    assert stats.holm([raw[0, 1], raw[0, 2]])[0] == pytest.approx(0.03)
    adjusted = np.full((3, 3), np.nan)
    for (i, j), p in zip(raw, stats.holm(list(raw.values()))):
        adjusted[i, j] = adjusted[j, i] = p
    groups, steps = stats.tie_groups(means, partial, diff, adjusted, comparable)
    assert groups == [1, 1, 2]
    assert [(s.row, s.leader, s.group, s.verdict) for s in steps] == [(1, 0, 1, "tied"), (2, 0, 1, "different")]
    # a row not comparable with its leader gets no group and is not compared again
    comparable[2, 0] = comparable[0, 2] = False
    groups, steps = stats.tie_groups(means, partial, diff, adjusted, comparable)
    assert groups == [1, 1, None] and steps[-1].verdict == "not comparable"
    # a partial row shown better than the full-coverage leader joins its group
    adjusted[0, 1] = adjusted[1, 0] = 0.01
    groups, steps = stats.tie_groups([0.95, 0.9, 0.7], [True, False, False], diff, adjusted, ~np.eye(3, dtype=bool))
    assert groups[:2] == [1, 1] and (steps[0].row, steps[0].leader) == (0, 1)
    assert steps[0].verdict == "better (partial coverage)"
