"""``--model finchain-oracle``: a deterministic backend that checks the pipeline, not a baseline.

It answers every FinChain request from the document lm-eval hands it: ``mode=gold`` with the gold
solution (ChainEval and final-answer correctness must come out 1), ``mode=wrong`` with one step and
a final answer that is certainly wrong (correctness 0), ``mode=empty`` with nothing (everything 0).
So ``finchain-lm-eval --tasks finchain --model finchain-oracle`` exercises loading, prompting,
filtering, scoring and aggregation offline, and shows the ceiling and floor of each metric.
CFLUE documents get the same three modes: the gold letters, a wrong option, nothing; CFLUE application
documents the gold output as text, a non-answer, nothing.
Importing this module registers the name (``finchain-lm-eval`` imports it first).
"""

from __future__ import annotations

import json
from typing import Any

import lm_eval.models  # noqa: F401  (first: lm-eval fills its own registry only while it is empty)
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from finchain_tasks.lm_eval.cflue import oracle_reply as cflue_reply
from finchain_tasks.lm_eval.cflue_application import BENCHMARK as CFLUE_APPLICATION
from finchain_tasks.lm_eval.cflue_application import oracle_reply as cflue_application_reply
from finchain_tasks.lm_eval.scoring import gold_row

MODES = ("gold", "wrong", "empty")


@register_model("finchain-oracle")
class FinChainOracle(LM):
    def __init__(self, mode: str = "gold", **_: Any) -> None:
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"finchain-oracle: mode must be one of {MODES}, got {mode!r}")
        self.mode = mode

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        return [self.reply(req.doc) for req in requests]

    def reply(self, doc: dict) -> str:
        """The text a model would generate after the prompt (so without the prompt's primer)."""
        if doc.get("benchmark") == "cflue":
            return cflue_reply(doc, self.mode)
        if doc.get("benchmark") == CFLUE_APPLICATION:
            return cflue_application_reply(doc, self.mode)
        if self.mode == "empty":
            return ""
        if self.mode == "wrong":
            wrong = wrong_answer(gold_row(doc)["answer"])
            text = f"Step 1: A guess = {wrong}\nFinal answer: {wrong}"
        else:
            text = doc["solution"]
        prefix = doc.get("response_prefix") or ""
        return text[len(prefix):] if prefix and text.startswith(prefix) else text

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("finchain-oracle only generates (FinChain tasks are generate_until)")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("finchain-oracle only generates (FinChain tasks are generate_until)")

    @property
    def tokenizer_name(self) -> str:
        return "finchain-oracle"

    def chat_template(self, chat_template: bool | str = False) -> str:
        return ""

    def apply_chat_template(self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        return json.dumps(chat_history, ensure_ascii=False)


def wrong_answer(answer: Any) -> str:
    """A value outside every tolerance of ``answer``: off by at least 100% (and by 1 near zero)."""
    if isinstance(answer, bool):
        return str(not answer)
    if isinstance(answer, (int, float)):
        return f"{answer + max(1.0, abs(answer)):.4f}"
    return "none of the options"
