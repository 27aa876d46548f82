"""A tiny, seeded, randomly initialised ``hf`` PRM built offline: what tests and benchmarks use when
there is no GPU and no checkpoint (a Qwen3 config, 2 layers, hidden 32, and a byte-level BPE tokenizer
trained in code with ``tokenizers``, the placeholders added as special tokens)."""

from __future__ import annotations

from pathlib import Path

from scorers.prm.hf import ANSWER_TOKEN, STEP_TOKEN, FinPRM

__all__ = ["tiny_prm", "tiny_tokenizer"]

_CORPUS = ["##Question", "##Thinking Trajectory", "##Final Answer", "Step 1: 1,200 × 1.05 = 1,260",
           "The net present value is 14,600 × 1.3404 = 19,570.50 dollars.", "Final answer: 42%",
           "Interest, principal, rate, years, cash flow, discount, equity, ratio, margin, tax."]


def tiny_tokenizer(vocab_size: int = 300):
    """A byte-level BPE tokenizer trained on a few finance lines, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<pad>", "<eos>", STEP_TOKEN, ANSWER_TOKEN]
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_CORPUS * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>",
                                   additional_special_tokens=[STEP_TOKEN, ANSWER_TOKEN])


def tiny_prm(mode: str = "dual", seed: int = 0, save_to: str | Path | None = None, **kwargs) -> FinPRM:
    """A seeded random Fin-PRM (``dual`` or ``release``); saved to ``save_to`` when given."""
    import torch
    from transformers import AutoModel, Qwen3Config

    from scorers.prm.hf import _heads

    torch.manual_seed(seed)
    tokenizer = tiny_tokenizer()
    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, max_position_embeddings=4096,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    backbone = AutoModel.from_config(config)
    prm = FinPRM(backbone, tokenizer, mode, _heads(mode, config.hidden_size), name=f"hf:tiny:{mode}", **kwargs)
    if save_to is not None:
        prm.save_pretrained(save_to)
    return prm
