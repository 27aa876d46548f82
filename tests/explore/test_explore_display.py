"""How the explorer writes numbers (issue 45): money with the minus sign before the dollar, metrics rounded
as the run report rounds them (3 decimals), counts whole."""

from __future__ import annotations

import re

import pytest

from finchain_tasks.explore import views
from finchain_tasks.explore.verdict import score_output, shown_value
from tests.explore.conftest import wrong_at


@pytest.mark.parametrize("value, unit, shown", [
    (-7.88, "$", "−$7.88"), (7.88, "$", "$7.88"), (-1234567.5, "$", "−$1,234,567.50"), (0.0, "$", "$0.00"),
    (-0.004, "$", "−$0.00"), (5, "$", "$5.00"), (None, "$", "—"), (True, "", "yes"), (2.5, "%", "2.5%"),
])
def test_rule_money_has_its_minus_before_the_dollar(value, unit, shown):
    assert shown_value(value, unit) == shown


@pytest.mark.parametrize("value, shown", [
    (0.8333333333333334, "0.833"), (1.0, "1.000"), (0.0, "0.000"), (0.12345, "0.123"), (3, "3"), (None, "—"),
    (True, "1"), (float("nan"), "—"),
])
def test_rule_metrics_are_rounded_as_in_the_run_report(value, shown):
    assert views.score_text(value) == shown


def test_rule_no_verdict_number_has_more_than_three_decimals(problem):
    v = score_output(problem, wrong_at(problem.solution, 2), "paper")
    for html in (views.verdict_html(v), views.compare_html([("a", v), ("b", v)])):
        cells = re.findall(r"<td class='num'>([^<]*)</td>", html)
        long = [c for c in cells if re.fullmatch(r"-?\d+\.\d{4,}", c)]
        assert cells and not long, long
