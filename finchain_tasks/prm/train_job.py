"""``finchain prm train``: a labelled file (``finchain prm label``'s JSONL) -> a Fin-PRM checkpoint.

The backbone is any Hugging Face model (``--base`` a local path or hub id; placeholders are added to its
tokenizer and the embeddings resized) or ``tiny`` (the seeded offline model of :mod:`scorers.prm.tiny`).
A share of the groups (FinChain templates, else traces) is held out for evaluation during training, so
the reported AUCs are on templates the model never saw. The checkpoint loads with ``hf:<out>``.
With ``lora_r`` the backbone trains through LoRA adapters (peft, the ``lora`` extra), merged into the
weights before saving so the checkpoint is a plain one.

``tiny`` is a plumbing check: a randomly initialised two-layer model with a 32-wide hidden state and no
pretraining, so its AUCs say the loop, the labels and the checkpoint work, not that a PRM was learned (on
new templates it stays near chance). The run says so at its start and in its summary (``plumbing_check``).
The held-out AUCs are on whole templates (:func:`scorers.prm.training.group_of`), named in the summary
(``held_out``). Under ``accelerate launch`` the same job runs data parallel
(:mod:`finchain_tasks.prm.accelerate_train`); the summary then says how (``accelerate``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from finchain_tasks.plumbing.jsonl import read_jsonl
from scorers.prm.hf import ANSWER_TOKEN, STEP_TOKEN, FinPRM, _heads
from scorers.prm.one_device import OneDevice
from scorers.prm.training import Example, TrainConfig, add_lora, evaluate, examples_from_labels, merge_lora, train

__all__ = ["TINY_NOTE", "build_prm", "read_labels", "run_train", "split_by_group"]

TINY_NOTE = ("--base tiny is a plumbing check (a randomly initialised 2-layer model, hidden 32, no pretraining): "
             "its AUCs show the loop runs, not that a PRM was learned; train a real backbone with --base <hf model>")


def read_labels(path: str | Path) -> list[dict]:
    return read_jsonl(path)


def split_by_group(examples: list[Example], eval_share: float, seed: int = 0) -> tuple[list[Example], list[Example]]:
    """(train, eval) with whole groups on one side: held-out templates, not held-out seeds."""
    groups = sorted({e.group for e in examples})
    random.Random(seed).shuffle(groups)
    held = set(groups[:round(len(groups) * eval_share)]) if eval_share > 0 else set()
    return [e for e in examples if e.group not in held], [e for e in examples if e.group in held]


def build_prm(base: str, mode: str = "dual", seed: int = 0, max_length: int = 4096) -> FinPRM:
    """A fresh Fin-PRM: the tiny offline model, or heads on a pretrained backbone."""
    if base == "tiny":
        from scorers.prm.tiny import tiny_prm

        return tiny_prm(mode, seed=seed, max_length=max_length)
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(base)
    tokenizer.add_special_tokens({"additional_special_tokens": [STEP_TOKEN, ANSWER_TOKEN]})
    backbone = AutoModel.from_pretrained(base)
    backbone.resize_token_embeddings(len(tokenizer))
    return FinPRM(backbone, tokenizer, mode, _heads(mode, backbone.config.hidden_size), max_length=max_length,
                  name=f"hf:{base}:{mode}")


def run_train(labels: str | Path, out: str | Path, base: str = "tiny", mode: str = "dual",
              config: TrainConfig | None = None, eval_share: float = 0.2, max_length: int = 4096,
              log: Callable[[Any], None] | None = None, lora_r: int = 0, runtime: Any = None) -> dict:
    """Train, evaluate, save; returns (and writes to ``out/train_summary.json``) the history and counts.

    ``runtime``: the plain loop on ``config.device`` when None; :func:`finchain_tasks.prm.accelerate_train.
    make_runtime` under ``accelerate launch``, where every process trains and only the main one logs and saves
    (the weights are whole on every process: DDP replicates them, ZeRO-2 shards only gradients and optimizer)."""
    config = config or TrainConfig()
    runtime = runtime or OneDevice(config.device, config.grad_accum)
    log = log if runtime.is_main_process else None
    if lora_r:
        try:
            import peft  # noqa: F401
        except ImportError:
            raise ValueError("--lora-r needs peft (not installed): pip install 'finchain-tasks[lora]'") from None
    rows = read_labels(labels)
    examples = examples_from_labels(rows)
    if not examples:
        raise ValueError(f"{labels}: no trace with a known label")
    train_set, eval_set = split_by_group(examples, eval_share, config.seed)
    if base == "tiny" and log:
        log(TINY_NOTE)
    prm = build_prm(base, mode, config.seed, max_length)
    if lora_r:
        add_lora(prm, lora_r)
    runtime.place(prm)
    before = evaluate(prm, eval_set, runtime) if eval_set else {}
    history = train(prm, train_set, config, eval_set, log=log, runtime=runtime)
    if lora_r:
        merge_lora(prm)
    summary = {"base": base, "mode": mode, "rows": len(rows), "skipped_unknown": len(rows) - len(examples),
               "train": len(train_set), "eval": len(eval_set), "lambda": config.lam, "steps": config.steps,
               "lora_r": lora_r, "step_average": config.step_average, "plumbing_check": base == "tiny",
               "held_out": {"unit": "template", "groups": len({e.group for e in eval_set}),
                            "train_groups": len({e.group for e in train_set})},
               "before": before, "final": history[-1], "history": history, "spec": f"hf:{out}:{mode}"}
    spread = runtime.describe()
    if spread is not None:  # the plain loop's summary is as it always was
        summary["accelerate"] = {**spread, "batch_size": config.batch_size,
                                 "effective_batch": config.batch_size * config.grad_accum * runtime.num_processes}
    if base == "tiny":
        summary["note"] = TINY_NOTE
    if runtime.is_main_process:
        prm.save_pretrained(out)
        (Path(out) / "train_summary.json").write_text(json.dumps(summary, indent=1))
    runtime.wait()
    return summary
