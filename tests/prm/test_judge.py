"""The ``judge`` backend against the fake OpenAI-compatible server, and spec loading in one place."""

from __future__ import annotations

import pytest

from finchain_tasks.models.registry import load_registry
from finchain_tasks.prm import check_spec, load_prm
from finchain_tasks.prm.judge import JudgeError, JudgePRM, judge_messages, parse_verdicts
from scorers.prm.base import NEUTRAL, PRMInput
from scorers.prm.calc import CalcPRM
from tests.support.fake_openai import FakeOpenAI, malformed, server_error

pytest.importorskip("litellm")

ITEM = PRMInput("What is 2 + 2, times 3?", ("2 + 2 = 4", "4 × 3 = 13"), "13")


def _registry(tmp_path, base_url):
    path = tmp_path / "r.yaml"
    path.write_text("\n".join([
        "version: 1", "models:",
        "  - {name: fake-judge, display_name: Fake judge, litellm_model: openai/fake-judge, category: general, "
        f"open_weights: false, api_base: '{base_url}'}}", ""]), encoding="utf-8")
    return load_registry(path)


def _last_user(body) -> str:
    return body["messages"][-1]["content"]


def test_prompt_numbers_the_steps():
    user = judge_messages(ITEM)[1]["content"]
    assert "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 13" in user and "Final answer: 13" in user


@pytest.mark.parametrize(("text", "expected"), [
    ("Step 1: GOOD\nStep 2: BAD\nTrajectory: BAD", ([1.0, 0.0], 0.0)),
    ("**Step 2**: bad\n\nstep 1 - Good\nTRAJECTORY: good\n", ([1.0, 0.0], 1.0)),
])
def test_parse_verdicts(text, expected):
    assert parse_verdicts(text, 2) == expected


@pytest.mark.parametrize("text", ["Step 1: GOOD\nTrajectory: BAD", "Step 1: GOOD\nStep 2: BAD",
                                  "Step 1: GOOD\nStep 1: BAD\nTrajectory: GOOD",
                                  "Step 1: GOOD\nStep 3: BAD\nTrajectory: BAD",
                                  "Step 1: GOOD\nStep 2: maybe\nTrajectory: BAD", "Sure! Step 1: GOOD", ""])
def test_parse_verdicts_is_strict(text):
    with pytest.raises(JudgeError):
        parse_verdicts(text, 2)


def test_judge_over_http_with_retries_and_cache(tmp_path):
    calls = []

    def reply(body):
        calls.append(body)
        return "I think step 2 is wrong." if len(calls) == 1 else "Step 1: GOOD\nStep 2: BAD\nTrajectory: BAD"

    with FakeOpenAI(script={1: server_error(503)}, reply=reply) as server:
        prm = JudgePRM("fake-judge", registry=_registry(tmp_path, server.base_url), cache_path=str(tmp_path / "c.db"),
                       agg="mean", concurrency=1)
        [score] = prm.score_batch([ITEM])
        # request 1: HTTP 503 (retried by the client), 2: malformed verdicts (we ask again), 3: a valid answer
        assert [r.answered for r in server.requests] == [False, True, True]
        assert server.requests[1].body["messages"] == server.requests[2].body["messages"]
        assert server.requests[0].body["temperature"] == 0.0
        assert score.step_probs == (1.0, 0.0) and score.p_traj == 0.0 and score.reward == 0.5
        assert score.prm == "judge:fake-judge" and score.extra == {"attempts": 2}
        again = JudgePRM("fake-judge", registry=_registry(tmp_path, server.base_url),
                         cache_path=str(tmp_path / "c.db"), agg="mean").score_batch([ITEM])
        assert len(server.requests) == 3          # answered from the cache: no new request
        assert again[0].step_probs == score.step_probs


def test_judge_that_never_answers_properly_gives_no_verdict(tmp_path):
    with FakeOpenAI(reply="no idea", script={2: malformed()}) as server:
        prm = JudgePRM("fake-judge", registry=_registry(tmp_path, server.base_url), retries=1, num_retries=0)
        [score] = prm.score_batch([ITEM])
    assert score.step_probs == (None, None) and score.n_unverified == 2 and score.reward == NEUTRAL
    assert score.extra["judge_error"]


def test_batch_keeps_order(tmp_path):
    def reply(body):
        n = sum(line.startswith("Step ") for line in _last_user(body).splitlines())
        verdict = "GOOD" if "first" in _last_user(body) else "BAD"
        return "\n".join([f"Step {k}: {verdict}" for k in range(1, n + 1)] + [f"Trajectory: {verdict}"])

    items = [PRMInput("first", ("a",), "1"), PRMInput("second", ("a", "b"), "2"), PRMInput("first", ("x",), "3")]
    with FakeOpenAI(reply=reply) as server:
        scores = JudgePRM("fake-judge", registry=_registry(tmp_path, server.base_url), concurrency=3).score_batch(items)
    assert [s.step_probs for s in scores] == [(1.0,), (0.0, 0.0), (1.0,)]


def test_load_prm_builds_every_backend_from_one_string(tmp_path):
    assert isinstance(load_prm("calc", agg="mean"), CalcPRM)
    prm = load_prm("judge:fake-judge", registry=_registry(tmp_path, "http://127.0.0.1:9/v1"))
    assert isinstance(prm, JudgePRM) and prm.name == "judge:fake-judge"


@pytest.mark.parametrize(("spec", "message"), [
    ("judge:no-such-model", "unknown model 'no-such-model'"), ("nope:x", "unknown PRM backend 'nope'"),
    ("hf:/definitely/missing", "no such path"),
])
def test_bad_specs_fail_before_any_request(tmp_path, spec, message):
    with FakeOpenAI() as server:
        registry = _registry(tmp_path, server.base_url)
        with pytest.raises(ValueError, match=message) as info:
            load_prm(spec, registry=registry)
        assert not server.requests
    assert "\n" not in str(info.value)


def test_unknown_aggregation_fails_in_load_prm():
    with pytest.raises(ValueError, match="unknown aggregation 'avg'"):
        load_prm("calc", agg="avg")
    assert str(check_spec("calc")) == "calc"


def test_a_judge_off_format_is_reported_and_fails_the_run_above_the_limit(tmp_path, capsys):
    """Issue 31: a judge that never answers in format passed silently (every candidate at the neutral reward)."""
    from finchain_tasks.prm.judge import MIN_JUDGED, JudgeOffFormat

    items = [PRMInput(f"question {k}", ("2 + 2 = 4",), "4") for k in range(MIN_JUDGED + 2)]
    with FakeOpenAI(reply="Looks fine to me.") as server:
        prm = JudgePRM("fake-judge", registry=_registry(tmp_path, server.base_url), retries=0, concurrency=1)
        scores = prm.score_batch(items[:4])  # too few to judge the judge: reported, not fatal
        assert all(s.extra.get("judge_off_format") for s in scores)
        err = capsys.readouterr().err
        assert "judge:fake-judge: 4 of 4 candidates judged off-format so far (100%; limit 20%)" in err
        with pytest.raises(JudgeOffFormat, match=r"10 of 10 candidates judged off-format .*verdict format"):
            prm.score_batch(items[4:])


def test_a_few_off_format_answers_are_reported_and_the_run_goes_on(tmp_path, capsys):
    def reply(body):
        return "Hmm." if "question 0" in _last_user(body) else "Step 1: GOOD\nTrajectory: GOOD"

    items = [PRMInput(f"question {k}", ("2 + 2 = 4",), "4") for k in range(10)]
    with FakeOpenAI(reply=reply) as server:
        prm = JudgePRM("fake-judge", registry=_registry(tmp_path, server.base_url), retries=0, concurrency=1)
        scores = prm.score_batch(items)
    assert (prm.off_format, prm.judged) == (1, 10) and scores[1].step_probs == (1.0,)
    assert "1 of 10 candidates judged off-format so far (10%" in capsys.readouterr().err
    with pytest.raises(ValueError, match="max_off_format"):
        JudgePRM("fake-judge", registry=_registry(tmp_path, "http://127.0.0.1:9/v1"), max_off_format=1.5)
