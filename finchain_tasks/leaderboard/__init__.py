"""Leaderboards: board definitions (``leaderboards/<name>.yaml``), one per-sample table from the logs of either
host (Inspect ``.eval``, lm-eval results and samples, ``finchain eval``/``bench`` run directories), statistics
with honest uncertainty (template-clustered bootstrap intervals, paired tests, tie groups), a static site and a
versioned data release. Reported figures from papers are kept apart and never enter a statistic."""
