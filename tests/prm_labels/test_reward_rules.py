"""Rules of the GRPO rewards that test_reward.py's hand-computed values leave open (issue 31.18, found by
mutation testing): the names TRL logs the rewards under, the paper's weights, one gold for every completion
or one per completion, the gold's unit, text golds, the prompt reaching the PRM, and which prompt or
completion shapes read as which text."""

from __future__ import annotations

from scorers.prm.base import PRMScore
from scorers.prm.calc import CalcPRM
from scorers.prm.reward import PAPER_GRPO, FinPRMReward, OutcomeReward, PRMReward, completion_text, paper_grpo_kwargs

PROMPTS = ["What is (2 + 2) × 3?"] * 3
COMPLETIONS = ["Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12",
               "Step 1: 2 + 2 = 5\nStep 2: 5 × 3 = 15\nFinal answer: 15",
               "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 13"]


def test_trl_logs_each_reward_under_its_own_name():
    # GRPOTrainer logs rewards/<__name__>/mean: these names are what a training log shows
    names = [OutcomeReward().__name__, PRMReward(CalcPRM()).__name__, FinPRMReward(CalcPRM()).__name__,
             FinPRMReward(CalcPRM(), prm_only=True).__name__]
    assert names == ["outcome", "prm", "finprm", "prm_only"]


def test_the_paper_weights_the_outcome_by_one_and_the_prm_by_delta():
    assert paper_grpo_kwargs() == {**PAPER_GRPO, "reward_weights": [1.0, 1.0]}
    assert paper_grpo_kwargs(0.25)["reward_weights"] == [1.0, 0.25]
    # FinPRMReward's default δ is the paper's 1: r = r_out + R
    assert FinPRMReward(CalcPRM())(PROMPTS, COMPLETIONS, answer=[12.0] * 3) == [2.0, 0.0, 1.0]


def test_one_gold_serves_every_completion_and_a_gold_per_completion_is_used_as_given():
    assert OutcomeReward()(PROMPTS, COMPLETIONS, answer=[12.0]) == [1.0, 0.0, 0.0]
    assert OutcomeReward()(PROMPTS, COMPLETIONS, answer=[12.0, 15.0, 13.0]) == [1.0, 1.0, 1.0]
    assert OutcomeReward()(PROMPTS, COMPLETIONS, answer=[13.0, 15.0, 12.0]) == [0.0, 1.0, 0.0]


def test_the_gold_unit_column_decides_how_a_unit_answer_reads():
    # "25 bp" is 0.25 against a gold in %, but 0.0025 (or a bare 25) against a plain gold of 0.25
    completion = ["Step 1: spread = 25 bp\nFinal answer: 25 bp"]
    assert OutcomeReward()(["spread?"], completion, answer=[0.25], answer_unit=["%"]) == [1.0]
    assert OutcomeReward()(["spread?"], completion, answer=[0.25]) == [0.0]
    assert OutcomeReward(unit_column="unit")(["spread?"], completion, answer=[0.25], unit=["%"]) == [1.0]


def test_a_text_gold_is_matched_against_the_answer_text():
    completions = ["Step 1: the ratio is above the limit\nFinal answer: reject",
                   "Step 1: the ratio is below the limit\nFinal answer: approve"]
    assert OutcomeReward()(["decide"] * 2, completions, answer=["approve"] * 2) == [0.0, 1.0]


VAR_ANSWER = ["Step 1: scale the quantile.\nThe one-day VaR is -$89,345.17."]


def test_rule_the_gold_kind_comes_from_the_kind_column_else_the_question_column_else_the_prompt():
    # a VaR is a magnitude: -$89,345.17 answers 89,345.17 when the question (or the kind) says what is asked
    reward = OutcomeReward()
    assert reward(["What is the one-day VaR of the portfolio?"], VAR_ANSWER, answer=[89345.17]) == [1.0]
    assert reward(["Answer in steps."], VAR_ANSWER, answer=[89345.17]) == [0.0]
    assert reward(["Answer in steps."], VAR_ANSWER, answer=[89345.17],
                  question=["What is the one-day VaR of the portfolio?"]) == [1.0]
    assert reward(["Answer in steps."], VAR_ANSWER, answer=[89345.17], answer_kind=["magnitude"]) == [1.0]
    # the kind column wins over the question's reading, both ways
    assert reward(["What is the one-day VaR of the portfolio?"], VAR_ANSWER, answer=[89345.17],
                  answer_kind=[""]) == [0.0]
    assert OutcomeReward(kind_column="kind", question_column="q")(
        ["x"], VAR_ANSWER, answer=[89345.17], kind=["magnitude"], question=["ignored"]) == [1.0]


def test_one_unit_or_kind_serves_every_completion():
    completions = ["Step 1: spread = 25 bp\nFinal answer: 25 bp"] * 2
    assert OutcomeReward()(["spread?"] * 2, completions, answer=[0.25], answer_unit=["%"]) == [1.0, 1.0]


class _QuestionLength:
    """A PRM that reads the question only: its reward is the question's length."""

    name = "question-length"

    def score_batch(self, items):
        return [PRMScore((), None, float(len(it.question)), "min", 0.0) for it in items]


def test_the_prm_reads_each_prompt_with_its_completion():
    prompts = ["short?", [{"role": "user", "content": "a longer question?"}]]
    assert PRMReward(_QuestionLength())(prompts, COMPLETIONS[:2]) == [6.0, 18.0]


def test_prompt_and_completion_shapes_and_their_text():
    assert completion_text("plain") == "plain"
    assert completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == "a"
    assert completion_text([{"role": "assistant", "content": None}]) == ""
    assert completion_text([]) == ""  # an empty conversation has no text
    assert completion_text(None) == ""
    assert completion_text(12) == "12"
