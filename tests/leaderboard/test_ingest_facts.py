"""What ingest reads of a log that the board and release show (issue 45): the gold answer in its unit's display
(the templates' own rule, not ``%g``), the model an lm-eval results file names (never lm-eval's random word for a
backend without a model argument), and the package version a CFLUE run records its own way."""

import pytest

from finchain_tasks.engine.formatting import MINUS
from finchain_tasks.leaderboard.ingest import _gold_answer, _lm_eval_facts, _lm_eval_model


@pytest.mark.parametrize("gold, shown", [
    ({"answer": 18598500.0, "answer_unit": "$"}, "$18,598,500.00"),  # was $1.85985e+07
    ({"answer": 1283008, "answer_unit": "shares"}, "1,283,008 shares"),  # was 1283008shares
    ({"answer": -7.88, "answer_unit": "$"}, f"{MINUS}$7.88"),
    ({"answer": 12.5, "answer_unit": "%"}, "12.500000%"),
    ({"answer": 7, "answer_unit": "years"}, "7 years"),
    ({"answer": 1.3259047, "answer_unit": ""}, "1.325905"),
    ({"answer": "Project A", "answer_unit": ""}, "Project A"),
    ({"answer": 5.0, "answer_text": "$5.00"}, "$5.00"),  # lm-eval keeps the rendered text: it wins
])
def test_rule_a_gold_answer_is_shown_in_its_units_display(gold, shown):
    assert _gold_answer(gold, None) == shown


@pytest.mark.parametrize("config, model_name, named", [
    ({"model": "local-chat-completions", "model_args": "model=local,base_url=http://x/v1"}, "x", "local"),
    ({"model": "hf", "model_args": "pretrained=Qwen/Qwen3-0.6B,dtype=bfloat16"}, "x", "Qwen/Qwen3-0.6B"),
    ({"model": "hf", "model_args": {"pretrained": "Qwen/Qwen3-0.6B"}}, "x", "Qwen/Qwen3-0.6B"),
    ({"model": "finchain-oracle", "model_args": {}}, "qdpv68r5", "finchain-oracle"),  # was the random word
    ({"model": "finchain-oracle", "model_args": "mode=wrong"}, "qdpv68r5", "finchain-oracle (mode=wrong)"),
    ({}, "named-by-lm-eval", "named-by-lm-eval"),
    ({"model_args": ""}, None, "unknown"),
])
def test_rule_an_lm_eval_run_is_named_by_its_model_argument_else_its_backend(config, model_name, named):
    assert _lm_eval_model({"config": config, "model_name": model_name}) == named


def test_a_cflue_lm_eval_run_carries_the_package_and_task_version_it_recorded():
    results = {"configs": {"cflue_tf": {"metadata": {"cflue_run": {"package_version": "9.9.9", "task_version": "2.0",
                                                                   "cflue_profile": "reference"}}}}}
    facts = _lm_eval_facts(results, {}, "m")
    assert (facts["finchain_tasks_version"], facts["task_version"], facts["profile"]) == ("9.9.9", "2.0", "reference")


@pytest.mark.parametrize("arguments, prompt", [
    ({"gen_args_0": {"arg_0": "Problem: x\nStep 1:", "arg_1": {}}}, "Problem: x\nStep 1:"),
    ({"gen_args_0": {"arg_0": '[{"role": "user", "content": "Problem: x"}]'}}, "[user]\nProblem: x"),
    ({"gen_args_0": {"arg_0": ['[{"role": "user", "content": "Q"}]']}}, "[user]\nQ"),  # local-chat-completions
    ({"gen_args_0": {"arg_0": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]}},
     "[system]\nS\n\n[user]\nQ"),
    ([["Problem: x", {"until": []}]], "Problem: x"),  # an older lm-eval's list form
    ({}, None), (None, None),
])
def test_rule_the_prompt_is_what_lm_eval_sent_chat_messages_under_their_roles(arguments, prompt):
    from finchain_tasks.leaderboard.ingest import lm_eval_prompt

    assert lm_eval_prompt({"arguments": arguments}) == prompt
