"""One gold, one score (issue 33.9): ``Problem.gold()`` is the record the hosts build from the problem's row,
so the gold solution scored against it gives exactly 1.0 under both profiles (it gave 0.987-0.999 under
``reference``: its step texts lacked the closing period the solution shows, and reference embeds text as is)."""

from __future__ import annotations

from finchain_tasks.engine import all_templates
from scorers.chaineval import score_batch
from scorers.rows import gold_of

PROBLEMS = [t.generate(s) for t in all_templates().values() for s in (0, 7)]


def test_problem_gold_has_the_step_texts_the_hosts_build_for_every_template():
    """Texts, values and the answer agree exactly. (Units still differ for percentage-point
    steps: Problem.gold() says '%' via scorer_unit, a row says 'pp'; reported, left to the units' owner.)"""
    for p in PROBLEMS:
        mine, hosts = p.gold(), gold_of(p.to_dict())
        assert [(s.text, s.value) for s in mine.steps] == [(s.text, s.value) for s in hosts.steps], p.id
        assert (mine.answer, mine.problem_id) == (hosts.answer, hosts.problem_id)


def test_the_gold_solution_scores_exactly_one_against_problem_gold():
    """Reference only: paper strips punctuation and gave 1.0 before too."""
    chosen = {p.domain + p.level: p for p in PROBLEMS}  # one per domain x level: every step shape, 36 problems
    chosen.update({p.id: p for p in PROBLEMS if p.template in ("adjusted_current_ratio", "cash_conversion_cycle")})
    problems = list(chosen.values())
    results = score_batch([p.gold() for p in problems], [p.solution for p in problems], "reference")
    assert [(p.id, r.chaineval) for p, r in zip(problems, results) if r.chaineval != 1.0] == []
