"""The LLM judge's rules that test_judge.py's server round trips leave open (issue 39, found by the literal pass):
the prompt's message shape, step numbers counted from 1, the bounds of ``max_off_format``, the number of
candidates from which an off-format judge fails the run, and that candidates are judged concurrently.

No server and no litellm: the judge's one transport call (``JudgePRM._ask``) is replaced by a function of the
request, so each rule is checked on the parsing and accounting the run does with the answers.

Below them, the rules mutmut's survivors showed open (issue 39): the request's fields (token cap, base URL,
attempt number on each ask again), how often an off-format answer is asked again, the record of an API failure,
the cache (a hit is the same score, one key per candidate, the key's fixed form), the messages of a malformed
answer, the defaults, the refusal of a judge whose key is not set, the concurrency bound, the off-format report.
The transport's own rules (num_retries, timeout, an empty answer, litellm's debug advice kept off stdout) go
through tests/support/fake_openai.py on 127.0.0.1: the first of them pays litellm's import (5-12 s here)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from finchain_tasks.models.registry import load_registry
from finchain_tasks.prm.judge import (
    MIN_JUDGED,
    SYSTEM,
    JudgeError,
    JudgeOffFormat,
    JudgePRM,
    _key,
    judge_messages,
    parse_verdicts,
)
from scorers.prm.base import PRMInput, make_score
from tests.support.fake_openai import FakeOpenAI, delay, null_content, server_error

ITEM = PRMInput("What is 2 + 2, times 3?", ("2 + 2 = 4", "4 × 3 = 12"), "12")
VALID = "Step 1: GOOD\nTrajectory: GOOD"


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    path = tmp_path_factory.mktemp("judge") / "r.yaml"
    path.write_text("version: 1\nmodels:\n  - {name: fake-judge, display_name: Fake judge, litellm_model: "
                    "openai/fake-judge, category: general, open_weights: false, api_base: 'http://127.0.0.1:9/v1'}\n",
                    encoding="utf-8")
    return load_registry(path)


def _judge(registry, answer, **kwargs) -> JudgePRM:
    """A judge whose model answers ``answer(request)`` (no network)."""
    prm = JudgePRM("fake-judge", registry=registry, retries=0, **kwargs)
    prm._ask = answer
    return prm


def test_the_prompt_is_a_system_message_then_a_user_message():
    messages = judge_messages(ITEM)
    assert [sorted(m) for m in messages] == [["content", "role"], ["content", "role"]]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == SYSTEM
    assert messages[1]["content"] == ("Question:\nWhat is 2 + 2, times 3?\n\nSolution steps:\nStep 1: 2 + 2 = 4\n"
                                      "Step 2: 4 × 3 = 12\n\nFinal answer: 12\n\nGive your 2 step verdicts and the "
                                      "trajectory verdict.")


@pytest.mark.parametrize("text, n_steps", [
    ("Step 0: GOOD\nStep 1: GOOD\nTrajectory: GOOD", 1),   # numbering starts at 1
    ("Step 0: GOOD\nTrajectory: GOOD", 1),
    ("Step 1: GOOD\nStep 0: BAD\nStep 2: GOOD\nTrajectory: GOOD", 2),
    ("Step 2: GOOD\nTrajectory: GOOD", 1),                  # past the last step
])
def test_step_numbers_outside_one_to_n_are_malformed(text, n_steps):
    with pytest.raises(JudgeError, match="out of range"):
        parse_verdicts(text, n_steps)


@pytest.mark.parametrize("text, n_steps, expected", [
    ("Step 1: BAD\nTrajectory: GOOD", 1, ([0.0], 1.0)),      # the first step is 1
    ("Step 3: GOOD\nStep 1: BAD\nStep 2: GOOD\nTrajectory: BAD", 3, ([0.0, 1.0, 1.0], 0.0)),  # the last is n
])
def test_step_numbers_one_to_n_in_any_order_are_read(text, n_steps, expected):
    assert parse_verdicts(text, n_steps) == expected


@pytest.mark.parametrize("share", [0.0, 0.2, 1.0])  # both ends of [0, 1] are allowed
def test_max_off_format_inside_zero_to_one_is_accepted(registry, share):
    assert JudgePRM("fake-judge", registry=registry, max_off_format=share).max_off_format == share


@pytest.mark.parametrize("share", [-0.05, -0.1, -1.0, 1.05, 1.1, 2.0])
def test_max_off_format_outside_zero_to_one_is_refused(registry, share):
    with pytest.raises(ValueError, match=r"max_off_format must lie in \[0, 1\]"):
        JudgePRM("fake-judge", registry=registry, max_off_format=share)


@pytest.mark.parametrize("judged, off, fails", [
    (MIN_JUDGED - 1, MIN_JUDGED - 1, False),  # every one off-format, but too few to judge the judge
    (MIN_JUDGED, MIN_JUDGED, True),           # from MIN_JUDGED candidates on, the share counts
    (MIN_JUDGED, 1, False),                   # 12.5%: under the 20% limit
    (10, 2, False),                           # 20%: at the limit is not over it
    (10, 3, True),                            # 30%
])
def test_an_off_format_judge_fails_the_run_from_eight_candidates_over_a_fifth(registry, judged, off, fails):
    items = [PRMInput(f"question {k}", ("2 + 2 = 4",), "4") for k in range(judged)]
    off_format = {f"question {k}" for k in range(off)}

    def answer(request):
        return "Looks fine." if request["messages"][1]["content"].split("\n")[1] in off_format else VALID

    prm = _judge(registry, answer, concurrency=1)
    if fails:
        with pytest.raises(JudgeOffFormat):
            prm.score_batch(items)
    else:
        assert sum(bool(s.extra.get("judge_off_format")) for s in prm.score_batch(items)) == off


def test_two_candidates_are_judged_at_the_same_time_with_a_concurrency_of_two(registry):
    # each answer waits until both requests are in flight; judged one after the other, the first waits in vain
    both = threading.Barrier(2, timeout=30)

    def answer(request):
        both.wait()
        return VALID

    scores = _judge(registry, answer, concurrency=2).score_batch([PRMInput(f"q{k}", ("2 + 2 = 4",), "4")
                                                                  for k in range(2)])
    assert [s.step_probs for s in scores] == [(1.0,), (1.0,)]


# ------------------------------------------------------------------------------------------ the request

def test_the_request_holds_the_models_id_the_token_cap_and_the_prompt_and_no_attempt_first(registry):
    request = JudgePRM("fake-judge", registry=registry, max_tokens=77).request(ITEM)
    assert request["model"] == "openai/fake-judge"
    assert request["max_tokens"] == 77
    assert request["messages"] == judge_messages(ITEM)
    assert "metadata" not in request  # the first ask: the cache key is the plain request's


@pytest.mark.parametrize("api_base, sent", [
    (None, "http://127.0.0.1:9/v1"),                     # the registry entry's
    ("http://127.0.0.1:7/v1", "http://127.0.0.1:7/v1"),  # the judge's own base URL overrides it
])
def test_the_request_goes_to_the_judges_base_url_else_the_registrys(registry, api_base, sent):
    assert JudgePRM("fake-judge", registry=registry, api_base=api_base).request(ITEM)["api_base"] == sent


def test_each_ask_again_carries_its_attempt_number_and_the_first_none(registry):
    sent = []

    def answer(request):
        sent.append(request.get("metadata"))
        return "Looks fine."

    prm = JudgePRM("fake-judge", registry=registry, retries=2)
    prm._ask = answer
    [score] = prm.score_batch([ITEM])
    assert sent == [None, {"finchain_judge_attempt": 1}, {"finchain_judge_attempt": 2}]
    assert score.extra == {"judge_error": "unexpected line 'Looks fine.'", "judge_off_format": True}


@pytest.mark.parametrize("retries, asks", [(0, 1), (1, 2), (3, 4)])
def test_an_off_format_answer_is_asked_again_retries_times(registry, retries, asks):
    sent = []
    prm = JudgePRM("fake-judge", registry=registry, retries=retries)
    prm._ask = lambda request: sent.append(request) or "Looks fine."
    prm.score_batch([ITEM])
    assert len(sent) == asks


@pytest.mark.parametrize("retries", [-1, -2])
def test_a_negative_number_of_retries_is_refused(registry, retries):
    with pytest.raises(ValueError, match=f"retries must be at least 0, got {retries}"):
        JudgePRM("fake-judge", registry=registry, retries=retries)


@pytest.mark.parametrize("error, recorded", [
    (RuntimeError("connection reset\nat line 2"), "RuntimeError: connection reset"),  # the first line only
    (RuntimeError(), "RuntimeError: "),
    (TimeoutError("x" * 130), "TimeoutError: " + "x" * 120),                           # at most 120 characters
])
def test_an_api_failure_gives_no_verdict_and_records_its_type_and_first_line(registry, error, recorded):
    def answer(request):
        raise error

    [score] = _judge(registry, answer).score_batch([ITEM])
    assert (score.step_probs, score.extra) == ((None, None), {"judge_error": recorded})


def test_a_candidate_without_steps_is_not_asked_and_gets_the_empty_score(registry):
    def answer(request):
        raise AssertionError("a candidate without steps was sent to the judge")

    prm = _judge(registry, answer, agg="mean", zeta=0.25)
    [score] = prm.score_batch([PRMInput("What is 2 + 2?", (), "4")])
    assert score == make_score([], None, agg="mean", zeta=0.25, prm="judge:fake-judge")
    assert (score.agg, score.zeta, score.prm, score.extra) == ("mean", 0.25, "judge:fake-judge", {})


# ------------------------------------------------------------------------------------------ the cache

def test_a_cached_verdict_is_the_same_score_marked_as_a_hit_and_asks_nothing(registry, tmp_path):
    items = [ITEM, PRMInput("What is 3 + 3?", ("3 + 3 = 6", "6 + 1 = 7"), "7")]
    answers = {ITEM.question: "Step 1: BAD\nStep 2: GOOD\nTrajectory: BAD",
               items[1].question: "Step 1: GOOD\nStep 2: GOOD\nTrajectory: GOOD"}
    sent = []

    def answer(request):
        sent.append(request)
        return answers[request["messages"][1]["content"].split("\n")[1]]

    cache = str(tmp_path / "judge.sqlite")
    first = _judge(registry, answer, cache_path=cache, agg="mean", zeta=0.5).score_batch(items)
    again = _judge(registry, answer, cache_path=cache, agg="mean", zeta=0.5).score_batch(items)
    assert Path(cache).is_file()  # the cache lives where it was asked to
    assert len(sent) == 2  # each candidate asked once, under a key of its own
    assert [s.step_probs for s in first] == [(0.0, 1.0), (1.0, 1.0)] and [s.p_traj for s in first] == [0.0, 1.0]
    assert again == first  # every field but extra (reward, p_traj, agg, zeta, prm)
    assert [(s.prm, s.agg, s.zeta) for s in [*first, *again]] == [("judge:fake-judge", "mean", 0.5)] * 4
    assert [s.extra for s in again] == [{"cache": "hit"}] * 2


def test_the_cache_key_of_a_request_is_the_one_earlier_versions_wrote():
    # versioned by the judge ("prm-judge-1"), not by the task: a rerun after a release reads the stored verdicts
    request = {"model": "openai/fake-judge", "messages": [{"role": "user", "content": "Step 1: 2 + 2 = 4"}],
               "max_tokens": 512}
    assert _key(request) == "ec683f88322bfc39fc29408dfea21baa2af14a5e968728ac83a6f66c417b6421"


# ------------------------------------------------------------------------------------------ the transport

@pytest.fixture(scope="module")
def server_registry(tmp_path_factory):
    def make(base_url):
        path = tmp_path_factory.mktemp("judge-http") / "r.yaml"
        path.write_text("version: 1\nmodels:\n  - {name: fake-judge, display_name: Fake judge, litellm_model: "
                        f"openai/fake-judge, category: general, open_weights: false, api_base: '{base_url}'}}\n",
                        encoding="utf-8")
        return load_registry(path)
    return make


@pytest.mark.parametrize("num_retries, requests, verdict", [
    (0, 1, None),   # no retry: the 503 is the answer, no verdict
    (1, 3, 1.0),    # retried (litellm's retry and its client's own) until the answer comes
])
def test_an_http_error_is_retried_only_num_retries_times(server_registry, capsys, num_retries, requests, verdict):
    with FakeOpenAI(script={1: server_error(503), 2: server_error(503)}, reply=VALID) as server:
        prm = JudgePRM("fake-judge", registry=server_registry(server.base_url), retries=0, num_retries=num_retries)
        [score] = prm.score_batch([PRMInput("q", ("2 + 2 = 4",), "4")])
    assert (len(server.requests), score.step_probs) == (requests, (verdict,))
    assert capsys.readouterr().out == ""  # litellm's own debug advice on an error is kept off the output


def test_an_answer_slower_than_the_timeout_gives_no_verdict(server_registry):
    with FakeOpenAI(script={1: delay(6)}, reply=VALID) as server:
        prm = JudgePRM("fake-judge", registry=server_registry(server.base_url), retries=0, num_retries=0, timeout=1)
        [score] = prm.score_batch([PRMInput("q", ("2 + 2 = 4",), "4")])
    assert score.step_probs == (None,) and score.extra["judge_error"].startswith("Timeout: ")


def test_an_empty_answer_is_off_format_with_no_line_read(server_registry):
    with FakeOpenAI(script={1: null_content()}, reply=VALID) as server:
        prm = JudgePRM("fake-judge", registry=server_registry(server.base_url), retries=0, num_retries=0)
        [score] = prm.score_batch([PRMInput("q", ("2 + 2 = 4",), "4")])
    assert score.extra == {"judge_error": "0 of 1 step verdicts, no trajectory", "judge_off_format": True}


# ------------------------------------------------------------------------------------------ reading an answer

@pytest.mark.parametrize("text, message", [
    ("", "0 of 1 step verdicts, no trajectory"),
    (None, "0 of 1 step verdicts, no trajectory"),                    # no text at all: nothing read
    ("Step 1: GOOD", "1 of 1 step verdicts, no trajectory"),
    ("Trajectory: GOOD", "0 of 1 step verdicts"),                      # the trajectory there: no mention of it
    ("Sure, here goes", "unexpected line 'Sure, here goes'"),
    ("  " + "y" * 70 + "  ", "unexpected line '" + "y" * 60 + "'"),  # stripped, at most 60 characters shown
])
def test_a_malformed_answer_says_what_is_missing_or_which_line_is_unexpected(text, message):
    with pytest.raises(JudgeError) as err:
        parse_verdicts(text, 1)
    assert str(err.value) == message


@pytest.mark.parametrize("text", [
    "Step 1: GOOD\n\nTrajectory: BAD",
    "\n\nStep 1: GOOD\n   \nTrajectory: BAD\n\n",
])
def test_blank_lines_between_verdicts_are_skipped(text):
    assert parse_verdicts(text, 1) == ([1.0], 0.0)


@pytest.mark.parametrize("text, n_steps, expected", [
    ("Trajectory: BAD\nStep 1: GOOD", 1, ([1.0], 0.0)),                        # read on after the trajectory
    ("Step 2: BAD\nTrajectory: GOOD\nStep 1: GOOD", 2, ([1.0, 0.0], 1.0)),
    ("Trajectory: BAD\nLooks fine.", 1, JudgeError),                           # and still strict after it
])
def test_the_trajectory_line_may_come_anywhere_and_every_line_is_read(text, n_steps, expected):
    if expected is JudgeError:
        with pytest.raises(JudgeError):
            parse_verdicts(text, n_steps)
    else:
        assert parse_verdicts(text, n_steps) == expected


# ------------------------------------------------------------------------------------------ settings

def test_the_judges_defaults(registry):
    prm = JudgePRM("fake-judge", registry=registry)
    assert (prm.retries, prm.num_retries, prm.timeout, prm.concurrency, prm.max_tokens) == (2, 3, 120.0, 8, 512)
    assert prm.request(ITEM)["max_tokens"] == 512


@pytest.mark.parametrize("api_base, refused", [(None, True), ("http://127.0.0.1:7/v1", False)])
def test_a_judge_whose_key_or_base_url_is_not_set_is_refused_unless_a_base_url_is_given(
        tmp_path, monkeypatch, api_base, refused):
    monkeypatch.delenv("FAKE_JUDGE_KEY", raising=False)
    monkeypatch.delenv("FAKE_JUDGE_BASE", raising=False)
    path = tmp_path / "r.yaml"
    path.write_text("version: 1\nmodels:\n  - {name: keyed-judge, display_name: Keyed judge, litellm_model: "
                    "openai/keyed-judge, category: general, open_weights: false, api_key_env: FAKE_JUDGE_KEY, "
                    "api_base_env: FAKE_JUDGE_BASE}\n", encoding="utf-8")
    registry = load_registry(path)
    if refused:
        with pytest.raises(ValueError) as err:
            JudgePRM("keyed-judge", registry=registry, api_base=api_base)
        assert str(err.value) == ("judge model 'keyed-judge' needs FAKE_JUDGE_KEY, FAKE_JUDGE_BASE set in the "
                                  "environment")
    else:
        assert JudgePRM("keyed-judge", registry=registry, api_base=api_base).request(ITEM)["api_base"] == api_base


@pytest.mark.parametrize("concurrency", [0, 1])
@pytest.mark.parametrize("n_items", [1, 2])
def test_a_concurrency_of_one_or_less_judges_the_candidates_in_turn(registry, concurrency, n_items):
    # 0 is not refused: it reads as "no parallelism" (a pool of 0 workers would be an error)
    seen = []
    prm = _judge(registry, lambda request: seen.append(request) or VALID, concurrency=concurrency)
    items = [PRMInput(f"q{k}", ("2 + 2 = 4",), "4") for k in range(n_items)]
    assert [s.step_probs for s in prm.score_batch(items)] == [(1.0,)] * n_items
    assert [r["messages"][1]["content"].split("\n")[1] for r in seen] == [f"q{k}" for k in range(n_items)]


@pytest.mark.parametrize("concurrency, n_items", [(0, 2), (1, 2), (1, 1), (2, 1), (8, 1), (2, 0)])
def test_work_one_thread_can_do_is_done_in_the_callers_thread(registry, concurrency, n_items):
    # one candidate, or one worker: no pool, so Ctrl-C stops the judge at once (a pool's exit would first wait
    # for the request in flight) and a debugger or profiler sees the call where it was made
    threads = []
    prm = _judge(registry, lambda request: threads.append(threading.get_ident()) or VALID, concurrency=concurrency)
    scores = prm.score_batch([PRMInput(f"q{k}", ("2 + 2 = 4",), "4") for k in range(n_items)])
    assert len(scores) == n_items and threads == [threading.get_ident()] * n_items


def test_at_most_concurrency_candidates_are_judged_at_once(registry):
    in_flight, peak, lock = [0], [0], threading.Lock()
    pairs = threading.Barrier(2, timeout=30)  # two at once for certain; a third would have to be let in

    def answer(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        pairs.wait()
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return VALID

    items = [PRMInput(f"q{k}", ("2 + 2 = 4",), "4") for k in range(6)]
    scores = _judge(registry, answer, concurrency=2).score_batch(items)
    assert peak[0] == 2 and [s.step_probs for s in scores] == [(1.0,)] * 6


# ------------------------------------------------------------------------------------------ the off-format account

def test_the_report_names_the_first_off_format_answer_and_the_failure_says_what_the_format_is(registry, capsys):
    def answer(request):
        question = request["messages"][1]["content"].split("\n")[1]
        return {"bad 1": "Looks fine.", "bad 2": "All good."}.get(question, VALID)

    prm = _judge(registry, answer, concurrency=1)
    prm.score_batch([PRMInput(f"good {k}", ("2 + 2 = 4",), "4") for k in range(4)])  # nothing to report yet
    assert capsys.readouterr().err == ""
    prm.score_batch([PRMInput("bad 1", ("2 + 2 = 4",), "4")])
    assert capsys.readouterr().err == ("judge:fake-judge: 1 of 5 candidates judged off-format so far (20%; limit "
                                       "20%), e.g. unexpected line 'Looks fine.'\n")
    with pytest.raises(JudgeOffFormat) as err:
        prm.score_batch([PRMInput(f"bad {k}", ("2 + 2 = 4",), "4") for k in (2, 2, 2)])
    line = ("judge:fake-judge: 4 of 8 candidates judged off-format so far (50%; limit 20%), e.g. unexpected line "
            "'Looks fine.'")
    assert str(err.value) == (f"{line}: the judge does not follow the verdict format (one 'Step k: GOOD|BAD' line "
                              "per step and a 'Trajectory:' line); use a model that does")


def test_a_judge_without_a_verdict_keeps_its_settings_in_the_score(registry):
    [score] = _judge(registry, lambda request: "Looks fine.", agg="mean", zeta=0.25).score_batch([ITEM])
    assert (score.step_probs, score.p_traj, score.agg, score.zeta, score.prm) == (
        (None, None), None, "mean", 0.25, "judge:fake-judge")


def test_an_answered_candidate_keeps_the_judges_settings_and_its_attempts(registry):
    [score] = _judge(registry, lambda request: "Step 1: GOOD\nStep 2: BAD\nTrajectory: GOOD", agg="mean",
                     zeta=0.25).score_batch([ITEM])
    assert (score.step_probs, score.p_traj, score.agg, score.zeta, score.prm, score.extra) == (
        (1.0, 0.0), 1.0, "mean", 0.25, "judge:fake-judge", {"attempts": 1})
