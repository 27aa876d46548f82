"""GRPO rewards: values by hand with the ``calc`` PRM, both prompt formats, and TRL's GRPOTrainer
running two steps with ``reward_funcs=[outcome, prm]`` and ``reward_weights=[1, δ]``."""

from __future__ import annotations

import pytest

from scorers.prm.calc import CalcPRM
from scorers.prm.reward import FinPRMReward, OutcomeReward, PRMReward, paper_grpo_kwargs

PROMPTS = ["What is (2 + 2) × 3?"] * 3
COMPLETIONS = ["Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 12",   # right, arithmetic holds
               "Step 1: 2 + 2 = 5\nStep 2: 5 × 3 = 15\nFinal answer: 15",   # wrong, step 1 fails calc
               "Step 1: 2 + 2 = 4\nStep 2: 4 × 3 = 12\nFinal answer: 13"]   # arithmetic holds, answer wrong


def test_outcome_and_prm_rewards_by_hand():
    answers = [12.0] * 3
    assert OutcomeReward()(PROMPTS, COMPLETIONS, answer=answers) == [1.0, 0.0, 0.0]
    # calc: min over steps, no trajectory head: 1, 0 (2 + 2 = 5 is wrong), 1
    assert PRMReward(CalcPRM())(PROMPTS, COMPLETIONS, answer=answers) == [1.0, 0.0, 1.0]
    assert FinPRMReward(CalcPRM(), delta=0.5)(PROMPTS, COMPLETIONS, answer=answers) == [1.5, 0.0, 0.5]
    assert FinPRMReward(CalcPRM(), prm_only=True)(PROMPTS, COMPLETIONS, answer=answers) == [1.0, 0.0, 1.0]


def test_conversational_format_reads_the_last_message():
    prompts = [[{"role": "user", "content": p}] for p in PROMPTS]
    completions = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    assert OutcomeReward()(prompts, completions, answer=[12] * 3) == [1.0, 0.0, 0.0]


def test_outcome_without_an_answer_column_is_one_clear_error():
    with pytest.raises(ValueError, match="dataset column 'answer'"):
        OutcomeReward()(PROMPTS, COMPLETIONS)


@pytest.mark.slow
def test_grpo_trainer_logs_both_rewards(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("trl")
    from datasets import Dataset
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    from scorers.prm.tiny import tiny_prm, tiny_tokenizer

    torch.manual_seed(0)
    tok = tiny_tokenizer()
    config = Qwen3Config(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, pad_token_id=tok.pad_token_id,
                         eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id)
    policy = Qwen3ForCausalLM(config)
    data = Dataset.from_dict({"prompt": ["What is 2 + 2?", "Rate 5% of 200?"] * 2, "answer": [4.0, 10.0] * 2})
    delta = 0.5
    defaults = {f.name: f.default for f in GRPOConfig.__dataclass_fields__.values()}
    # what reward.py's docstring says TRL defaults to (not the paper's objective): if TRL changes them, the
    # documentation must be read again; TRL takes the paper's settings as they are written there
    assert (defaults["beta"], defaults["loss_type"]) == (0.0, "dapo")
    paper = GRPOConfig(output_dir=str(tmp_path), report_to="none", use_cpu=True, **paper_grpo_kwargs(delta))
    assert (paper.beta, paper.loss_type, paper.reward_weights) == (0.04, "grpo", [1.0, delta])
    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=8, max_steps=2, logging_steps=1, report_to="none", use_cpu=True,
                      bf16=False, save_strategy="no", seed=0, reward_weights=[1.0, delta])
    trainer = GRPOTrainer(model=policy, reward_funcs=[OutcomeReward(), PRMReward(tiny_prm("dual", seed=0))],
                          args=args, train_dataset=data, processing_class=tok)
    trainer.train()
    logs = [row for row in trainer.state.log_history if "rewards/prm/mean" in row]
    assert len(logs) == 2
    for row in logs:
        assert 0.0 < row["rewards/prm/mean"] < 2.0  # min step prob + p_traj of the tiny dual PRM
        assert row["reward"] == pytest.approx(row["rewards/outcome/mean"] + delta * row["rewards/prm/mean"], abs=1e-5)
