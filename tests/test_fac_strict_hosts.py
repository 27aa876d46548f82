"""Issue 38.3: ``fac_strict`` (the final answer within rounding of the gold) stands beside ``fac`` in every
place ``fac`` is reported: the scorer's metric keys (Inspect and lm-eval aggregate those), the shipped
lm-eval task YAML, ``finchain score``'s summary, run reports (with the share of tolerance-only passes),
the leaderboard's columns and the explorer's verdict. No model, no embeddings: a fixed ChainEvalResult."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scorers.chaineval import ChainEvalResult
from scorers.params import METRIC_KEYS


def _result(fac: float, strict: float) -> ChainEvalResult:
    return ChainEvalResult(chaineval=0.9, fac=fac, step_precision=1.0, step_recall=1.0, step_f1=1.0,
                           first_error_step=None, n_gold_steps=1, n_pred_steps=1, parse_ok=1.0, fac_strict=strict)


def test_fac_strict_follows_fac_in_the_metric_keys_every_host_aggregates():
    from finchain_tasks.inspect.scorer import METRICS, SCORE_KEYS

    assert METRIC_KEYS.index("fac_strict") == METRIC_KEYS.index("fac") + 1
    assert "fac_strict" in SCORE_KEYS and "fac_strict" in METRICS
    assert _result(1.0, 0.0).metrics()["fac_strict"] == 0.0


@pytest.mark.parametrize("leaf", ["corporate_finance/finchain_corporate_finance_easy.yaml",
                                  "views/finchain_easy.yaml"])
def test_shipped_lm_eval_tasks_aggregate_fac_strict(leaf):
    import finchain_tasks.lm_eval as lm

    text = (Path(lm.__file__).parent / "tasks" / leaf).read_text(encoding="utf-8").split("\n", 1)[1]
    config = yaml.load(text, Loader=yaml.BaseLoader)  # the !function tags stay strings
    names = [m["metric"] for m in config.get("metric_list") or config.get("aggregate_metric_list")]
    assert names.index("fac_strict") == names.index("fac") + 1


def test_lm_eval_process_results_reports_fac_strict():
    from types import SimpleNamespace

    from finchain_tasks.lm_eval.scoring import process_results

    out = process_results({}, [SimpleNamespace(metrics=_result(1.0, 0.0).metrics())])
    assert (out["fac"], out["fac_strict"]) == (1.0, 0.0)


def test_score_summary_board_and_report_carry_fac_strict():
    from finchain_tasks.leaderboard.board import METRICS, Board
    from finchain_tasks.runs.score_file import SUMMARY_KEYS
    from finchain_tasks.runs.summary import HEADLINE

    for keys in (SUMMARY_KEYS, HEADLINE, Board("b", "t").metrics):
        assert keys[keys.index("fac") + 1] == "fac_strict"
    assert "fac_strict" in METRICS


@pytest.mark.parametrize(("scores", "share"), [
    ({"fac": 0.5, "fac_strict": 0.3}, 0.4), ({"fac": 0.5, "fac_strict": 0.5}, 0.0),
    ({"fac": 0.0, "fac_strict": 0.0}, None), ({"fac": 0.5}, None),
])
def test_rule_tolerance_only_share_of_fac_passes(scores, share):
    from finchain_tasks.runs.report import _notes
    from finchain_tasks.runs.summary import tolerance_only_share

    result = {"scores": scores, "display_name": "m", "model": "m", "task_set": "finchain"}
    assert tolerance_only_share(result) == (pytest.approx(share) if share is not None else None)
    notes = _notes({"results": [result]})
    assert any("Tolerance-only passes" in n and "40.0%" in n for n in notes) is (share == 0.4)


@pytest.mark.parametrize(("fac", "strict", "words"), [(1.0, 1.0, "(within rounding)"), (1.0, 0.0, "(within 5% only)"),
                                                      (0.0, 0.0, "wrong</span> ·")])
def test_explorer_verdict_says_within_rounding_or_tolerance_only(fac, strict, words):
    from finchain_tasks.explore.verdict import Verdict
    from finchain_tasks.explore.views import verdict_html

    html = verdict_html(Verdict("p", "paper", _result(fac, strict), [], "1", "1", "", None))
    assert words in html


def test_inspect_explanation_says_within_rounding():
    from finchain_tasks.inspect.scorer import explain
    from scorers.records import GoldSolution, GoldStep

    gold = GoldSolution((GoldStep("Total", 1.0),), 1.0)
    assert "within rounding: no" in explain(_result(1.0, 0.0), gold, [], "paper")


def test_every_host_reads_what_each_question_asks_for_alike():
    """Inspect (sample metadata), lm-eval (the document) and the explorer (Problem.gold) agree, on every template,
    on what the question decides about reading the answer: a size (a VaR: '-$X' answers it) and a two-quantity
    question (graded on the gold's one)."""
    from finchain_tasks.engine import all_templates
    from finchain_tasks.finchain.generate import _flatten
    from finchain_tasks.inspect.tasks import sample_of
    from finchain_tasks.lm_eval.scoring import gold_row
    from scorers.records import MAGNITUDE
    from scorers.rows import gold_of

    seen = []
    for template in all_templates().values():
        problem = template.generate(0)
        golds = (gold_of({"id": problem.id, **sample_of(problem).metadata["gold"]}),
                 gold_of(gold_row(_flatten(problem.to_dict()))), problem.gold())  # the document as arrow holds it
        readings = {(g.answer_kind, g.asks_two) for g in golds}
        assert len(readings) == 1, (problem.id, readings)
        seen.append(readings.pop())
    assert any(kind == MAGNITUDE for kind, _ in seen) and any(two for _, two in seen)  # both readings occur
