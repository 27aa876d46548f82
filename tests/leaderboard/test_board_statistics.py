"""A board's ``statistics`` block: every field typed and bounded, refused in one line naming the file and the
field (issue 40.4: ``seed: abc`` ended in a TypeError, ``resamples: 1000000000000`` in an 87 TiB allocation)."""

from __future__ import annotations

import pytest

from finchain_tasks.leaderboard.board import BoardError, Statistics, load_board


@pytest.mark.parametrize(("stats", "field"), [
    ("{seed: abc}", "seed"), ("{seed: -1}", "seed"), ("{seed: 1.5}", "seed"), ("{seed: true}", "seed"),
    ("{seed: 99999999999999999999999}", "seed"), ("{seed: [1]}", "seed"),
    ("{resamples: 1000000000000}", "resamples"), ("{resamples: 99}", "resamples"),
    ("{resamples: '2000'}", "resamples"), ("{resamples: .nan}", "resamples"), ("{resamples: null}", "resamples"),
    ("{confidence: 1}", "confidence"), ("{confidence: 0}", "confidence"), ("{confidence: .nan}", "confidence"),
    ("{confidence: '0.95'}", "confidence"), ("{alpha: .inf}", "alpha"), ("{alpha: -0.05}", "alpha"),
    ("{min_shared: 1}", "min_shared"), ("{min_shared: 10000000000}", "min_shared"),
    ("{min_overlap: 0}", "min_overlap"), ("{min_overlap: 1.01}", "min_overlap"),
    ("{min_overlap: {a: 1}}", "min_overlap"),
    ("{correction: bonferroni}", "correction"), ("{correction: [holm]}", "correction"),
    ("{resample: 2000}", "resample"), ("[1, 2]", "statistics"), ("7", "statistics"),
])
def test_rule_each_statistics_field_is_typed_and_bounded(tmp_path, stats, field):
    path = tmp_path / "b.yaml"
    path.write_text(f"name: b\nstatistics: {stats}\n", encoding="utf-8")
    with pytest.raises(BoardError) as err:
        load_board(str(path))
    message = str(err.value)
    assert "\n" not in message and str(path) in message and field in message and len(message) < 300


@pytest.mark.parametrize(("stats", "expected"), [
    ("{}", Statistics()),
    ("{resamples: 100, seed: 0, confidence: 0.5, alpha: 0.01, min_shared: 2, min_overlap: 1}",
     Statistics(resamples=100, seed=0, confidence=0.5, alpha=0.01, min_shared=2, min_overlap=1)),
    ("{resamples: 100000, seed: 4294967295, correction: none}",
     Statistics(resamples=100_000, seed=2**32 - 1, correction="none")),
])
def test_rule_values_at_the_bounds_are_kept(tmp_path, stats, expected):
    path = tmp_path / "b.yaml"
    path.write_text(f"name: b\nstatistics: {stats}\n", encoding="utf-8")
    assert load_board(str(path)).statistics == expected
