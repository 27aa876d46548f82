"""The summary's small text rules (issue 31.18, found by mutation testing): a failure's reason is its first
non-empty line cut at 300 characters, where a cost comes from, and how the tables write a missing score,
token count or cost."""

from __future__ import annotations

from finchain_tasks.runs.summary import (
    HEADLINE,
    _first_line,
    cost_of,
    cost_text,
    interval_text,
    score_columns,
    score_text,
    tokens_text,
)


def test_a_failure_reason_is_its_first_nonempty_line_cut_at_300_characters():
    assert _first_line("") == "" and _first_line("\n  \n") == ""
    assert _first_line("\n  boom: bad key  \nTraceback ...") == "boom: bad key"
    assert _first_line("x" * 300) == "x" * 300
    assert _first_line("x" * 301) == "x" * 299 + "…"
    assert _first_line("y" * 10, limit=5) == "yyyy…"


def _row(tokens_in: int, tokens_out: int, cost):
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost": cost}


def test_a_logged_cost_counts_for_a_sample_with_input_tokens_only():
    # an answer cut at zero output tokens was still billed for its input
    assert cost_of([_row(10, 0, 0.25), _row(0, 0, None)], None) == (0.25, "litellm")


def test_a_registry_price_names_its_source_or_says_registry():
    rows = [_row(1_000_000, 500_000, None)]
    assert cost_of(rows, {"input": 1.0, "output": 2.0}) == (2.0, "registry")
    assert cost_of(rows, {"input": 1.0, "output": 2.0, "source": "openrouter"}) == (2.0, "openrouter")
    assert cost_of(rows, None) == (None, "unknown")


def test_missing_figures_read_as_a_dash_or_unknown_never_as_zero():
    result = {"scores": {"fac": 0.5}, "stats": {}, "input_tokens": None, "output_tokens": None, "cost_usd": None}
    assert score_text(result, "fac") == "0.500"  # no standard error: the mean alone
    assert score_text(result, "chaineval") == "-" and interval_text(result, "fac") == "-"
    assert tokens_text(result) == "unknown" and cost_text(result) == "unknown"
    known = {**result, "input_tokens": 12, "output_tokens": 34, "cost_usd": 0.123456}
    assert tokens_text(known) == "12/34" and cost_text(known) == "$0.1235"


def test_a_summary_without_scores_shows_the_headline_columns():
    assert score_columns({"results": []}) == list(HEADLINE)


def test_an_inspect_provider_error_reads_as_its_last_part_and_a_retry_error_names_its_cause():
    # ModelGenerateError writes the request, then the error, on one escaped line
    assert _first_line(r"ModelGenerateError('POST {...}\n\nold\n\nError code: 400 - it\'s bad')") == \
        "Error code: 400 - it's bad"
    assert _first_line(r"ValueError('a\n\nb')") == r"ValueError('a\n\nb')"  # only that error is unwrapped
    assert _first_line("RetryError(<Future at 0x7f3a state=finished raised RateLimitError>)") == \
        "retries ran out (RateLimitError)"


def test_a_cost_paid_at_a_batch_price_says_so():
    assert cost_text({"cost_usd": 0.012345, "batch": True}) == "$0.0123 (batch)"
    assert cost_text({"cost_usd": 0.012345}) == "$0.0123"


def test_re_sends_are_counted_over_sessions_and_shown_in_the_report(tmp_path):
    """Issue 40.4: requests sent again after an attempt timeout (paid twice) and late answers used instead."""
    import json
    from types import SimpleNamespace

    from finchain_tasks.runs.engine import MODEL_KEY, request_counts
    from finchain_tasks.runs.report import markdown
    from finchain_tasks.runs.summary import summarize

    def task(model, resent, late):
        return SimpleNamespace(metadata={MODEL_KEY: model}, model=SimpleNamespace(api=SimpleNamespace(
            resent=resent, late_answers=late)))

    first = request_counts([task("m", 2, 1), task("m", 1, 0), task("n", 0, 0), task("k", 0, 2)])
    assert first == {"m": {"resent": 3, "late_answers": 1}, "n": {"resent": 0, "late_answers": 0},
                     "k": {"resent": 0, "late_answers": 2}}
    sessions = [{"requests_resent": first}, {"requests_resent": {"m": {"resent": 1}, "n": {"resent": "x"}}}, {}]
    (tmp_path / "run.json").write_text(json.dumps({"sessions": sessions}), encoding="utf-8")
    summary = summarize(tmp_path)
    # a wrong-typed count adds 0, and so does one an older run did not record (late answers)
    assert summary["requests_resent"] == {"m": {"resent": 4, "late_answers": 1}, "n": {"resent": 0, "late_answers": 0},
                                          "k": {"resent": 0, "late_answers": 2}}
    text = markdown(summary)
    assert "m: 4 request(s) sent again, 1 late answer(s) used" in text and "n: 0" not in text
    assert "k: 0 request(s) sent again, 2 late answer(s) used" in text  # late answers alone are shown too
