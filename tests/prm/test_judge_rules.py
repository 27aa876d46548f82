"""The LLM judge's rules that test_judge.py's server round trips leave open (issue 39, found by the literal pass):
the prompt's message shape, step numbers counted from 1, the bounds of ``max_off_format``, the number of
candidates from which an off-format judge fails the run, and that candidates are judged concurrently.

No server and no litellm: the judge's one transport call (``JudgePRM._ask``) is replaced by a function of the
request, so each rule is checked on the parsing and accounting the run does with the answers."""

from __future__ import annotations

import threading

import pytest

from finchain_tasks.models.registry import load_registry
from finchain_tasks.prm.judge import (
    MIN_JUDGED,
    SYSTEM,
    JudgeError,
    JudgeOffFormat,
    JudgePRM,
    judge_messages,
    parse_verdicts,
)
from scorers.prm.base import PRMInput

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
