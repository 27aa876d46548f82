"""The explorer's plain functions: problems by id and permalink, a verdict laid out row by row, escaped
views, run filters and the model call's errors (no Gradio, no browser)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finchain_tasks.explore import problems, run_samples, views
from finchain_tasks.explore.verdict import MAX_OUTPUT_CHARS, check_output, score_output
from tests.explore.conftest import wrong_at

HOSTILE = '<img src=x onerror="window.__xss=1"> Step 1: 2 + 2 = 4 <script>alert(1)</script>\nFinal answer: 4'


def test_problem_ids_round_trip_through_a_permalink(problem):
    case = problems.Case(problem.template_id, problem.seed, model="gpt-4.1-mini", profile="reference")
    link = problems.permalink("http://127.0.0.1:7860", case)
    from urllib.parse import parse_qsl, urlsplit

    assert problems.case_from_query(dict(parse_qsl(urlsplit(link).query))) == case
    assert problems.parse_problem_id(problem.id) == (problem.template_id, problem.seed)


@pytest.mark.parametrize("bad", ["", "finchain/a/b", "finchain/no/such/template/1", "x/y/z/w",
                                 "finchain/investment_analysis/irr/modified_irr/-1"])
def test_bad_problem_ids_are_one_line_errors(bad):
    with pytest.raises(ValueError) as err:
        problems.parse_problem_id(bad)
    assert "\n" not in str(err.value)


def test_seeds_outside_the_generator_range_are_refused():
    for bad in (-1, 2**32, "ten", 1.5):
        with pytest.raises(ValueError, match="seed"):
            problems.check_seed(bad)
    assert problems.check_seed("12") == 12
    assert problems.fresh_seed() >= 1_000_000


def test_the_gold_solution_has_no_error_and_scores_one(problem):
    v = score_output(problem, problem.solution, "paper")
    assert v.result.chaineval == 1.0 and v.result.fac == 1.0 and v.result.first_error_step is None
    assert all(r.matched for r in v.rows) and len(v.rows) == len(problem.steps)
    n, m = len(problem.steps), v.result.n_pred_steps
    assert len(v.matrices["score"]) == n and all(len(line) == m for line in v.matrices["score"])


def test_a_wrong_step_is_the_first_error_and_is_marked_on_its_row(problem):
    v = score_output(problem, wrong_at(problem.solution, 2), "paper")
    assert v.result.first_error_step == 2
    marked = [r for r in v.rows if r.first_error]
    assert [r.gold_index for r in marked] == [2] and not marked[0].matched
    assert marked[0].pred_index in (None, 2) and marked[0].calc in (False, None)
    html = views.verdict_html(v)
    assert "data-first-error='2'" in html and "class='first-error'" in html


def test_the_explorer_verdict_is_the_scorer_verdict(problem):
    """Number for number what the hosts compute (scorers.chaineval.score with the same profile)."""
    from scorers.chaineval import score

    output = wrong_at(problem.solution, 3)
    for profile in ("paper", "reference"):
        assert score_output(problem, output, profile).result.scores() == score(problem.gold(), output,
                                                                               profile).scores()


def test_model_text_is_shown_as_text(problem):
    v = score_output(problem, HOSTILE, "paper")
    for html in (views.verdict_html(v), views.compare_html([("<b>x</b>", v), ("y", v)])):
        assert "<img" not in html and "<script" not in html and "<b>x" not in html
        assert "&lt;img src=x onerror=" in html


@pytest.mark.parametrize("text, reason", [("", "empty"), ("   \n", "empty"),
                                          ("x" * (MAX_OUTPUT_CHARS + 1), "characters"),
                                          ("\x00\x01\x02\x03 1 + 1 = 2", "not look like text"),
                                          ("\ufffd" * 50 + "Step 1: 1 = 1", "not look like text"),
                                          (None, "empty")])
def test_pastes_that_cannot_be_scored_get_a_message(problem, text, reason):
    with pytest.raises(ValueError, match=reason):
        score_output(problem, text, "paper")


@given(st.text(max_size=400))
def test_any_text_either_scores_or_gets_a_one_line_message(text):
    try:
        check_output(text)
    except ValueError as exc:
        assert "\n" not in str(exc)


def test_two_answers_compare_side_by_side(problem):
    from finchain_tasks.explore.actions import compare

    html = compare(problem.id, [problem.solution, wrong_at(problem.solution, 2)], ["gold", "wrong"], "paper")
    assert html.count("fx-verdict") == 2 and "data-first-error='2'" in html and "data-first-error=''" in html
    assert "at least two" in compare(problem.id, [problem.solution, ""], ["a", "b"], "paper")


def test_the_heat_map_outlines_the_path(problem):
    v = score_output(problem, problem.solution, "paper")
    html = views.heatmap_html(v)
    assert html.count("outline:") == len(v.result.alignment)
    assert html.count("<td style=") == len(problem.steps) * v.result.n_pred_steps


ROWS = [
    {"model": "a", "sample_id": "finchain/d/t/x/0", "epoch": 1, "domain": "d", "level": "easy", "chaineval": 0.9,
     "fac": 1.0, "first_error_step": None},
    {"model": "a", "sample_id": "finchain/d/t/x/1", "epoch": 1, "domain": "d", "level": "advanced",
     "chaineval": 0.2, "fac": 0.0, "first_error_step": 2},
    {"model": "b", "sample_id": "finchain/d/t/x/0", "epoch": 1, "domain": "d", "level": "easy", "chaineval": 0.1,
     "fac": 0.0, "first_error_step": 1},
    {"model": "b", "sample_id": "finchain/d/t/x/1", "epoch": 1, "domain": "d", "level": "advanced",
     "chaineval": 0.3, "fac": 0.0, "first_error_step": 1},
    {"model": "b", "sample_id": "finchain/e/t/x/2", "epoch": 1, "domain": "e", "level": "easy",
     "chaineval": float("nan"), "fac": float("nan"), "first_error_step": None},
]


def test_run_filters():
    F = run_samples.Filters
    assert [r["sample_id"] for r in run_samples.apply(ROWS, F(model="a", wrong_answer=True))] == ["finchain/d/t/x/1"]
    assert len(run_samples.apply(ROWS, F(first_error=1))) == 2
    assert len(run_samples.apply(ROWS, F(first_error=0))) == 2
    assert run_samples.apply([{**ROWS[0], "first_error_step": 6}], F(first_error=4)) != []
    assert [r["model"] for r in run_samples.apply(ROWS, F(level="advanced", model="b"))] == ["b"]
    pairs = run_samples.apply(ROWS, F(model="a", versus="b"))
    assert [round(r["difference"], 2) for r in pairs] == [0.8, -0.1]  # largest disagreement first
    assert run_samples.models(ROWS) == ["a", "b"]
    assert "<th>difference</th>" in views.samples_html(pairs) and "<th>difference</th>" not in views.samples_html(ROWS)


def test_unreadable_sources_are_listed_and_the_rest_still_load(tmp_path):
    bad = tmp_path / "not-a-run"
    bad.write_text("hello")
    rows, problems_ = run_samples.load_samples([bad, tmp_path / "missing"])
    assert rows == [] and len(problems_) == 2 and all("\n" not in p for p in problems_)


def test_parameters_typed_in_the_page_reach_the_scorer_and_bad_ones_are_a_message(problem):
    from finchain_tasks.explore.actions import verdict_views

    plain, _, _ = verdict_views(problem.id, problem.solution, "paper", "", "")
    strict, _, _ = verdict_views(problem.id, problem.solution, "paper", "", "match_threshold=1.0, step_tol=0.0")
    assert "ChainEval 1.000" in plain and "ChainEval 1.000" not in strict
    bad, heat, link = verdict_views(problem.id, problem.solution, "paper", "", "step_tol=lots")
    assert "step_tol must be a number" in bad and heat == link == ""
