"""``hf``: the Fin-PRM architecture on any Hugging Face backbone (torch and transformers load lazily).

Input (the authors' release format, used by the ``dual`` and ``release`` modes)::

    ##Question\\n{question}\\n\\n##Thinking Trajectory\\n{step 1}<extra_0>{step 2}<extra_0>…<extra_0>
    \\n\\n##Final Answer\\n{answer}<extra_1>

The backbone's last hidden states are read at every ``<extra_0>`` (one per step) and at the
``<extra_1>`` after the final answer. Modes:

* ``dual`` (the paper, default): a step head ``Linear(h, 1)`` at the step placeholders and a trajectory
  head ``Linear(h, 1)`` at the answer placeholder, both read through a sigmoid.
* ``release`` (the authors' released code): one shared 2-class head ``Linear(h, 2)`` at both kinds of
  placeholder; P(good) is the softmax's class 1.
* ``qwen`` (Qwen2.5-Math-PRM-style checkpoints): the checkpoint's own 2-class head (loaded with its
  remote code, or a token-classification head), the chat format with steps joined by ``<extra_0>``;
  P(good) at each ``<extra_0>``, no trajectory probability.

Checkpoint layout written by :meth:`FinPRM.save_pretrained` and read by :meth:`FinPRM.from_pretrained`:
the backbone and tokenizer as ``save_pretrained`` writes them, ``prm_heads.safetensors`` (``dual``:
``step_head.weight/bias`` (1, h), ``traj_head.weight/bias`` (1, h); ``release``: ``score.weight/bias``
(2, h)) and ``prm_config.json`` (mode, placeholder tokens). A ``release`` directory without
``prm_config.json`` is read with the release defaults. The release's exact tensor names could not be
checked offline; ``score`` is Qwen2.5-Math-PRM's name for the same 2-class head.

Items are tokenised once, sorted by length and batched under a token budget (``batch_tokens``), so a
batch pads only to similar lengths. When ``max_length`` truncation drops a placeholder the item cannot
be scored: :class:`TruncationError` says which item and how many placeholders were lost.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRMInput, PRMScore, make_score

__all__ = ["ANSWER_TOKEN", "HEADS_FILE", "PRM_CONFIG", "STEP_TOKEN", "FinPRM", "TruncationError", "format_input"]

STEP_TOKEN = "<extra_0>"
ANSWER_TOKEN = "<extra_1>"
HEADS_FILE = "prm_heads.safetensors"
PRM_CONFIG = "prm_config.json"
MODES = ("dual", "release", "qwen")
QWEN_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."


class TruncationError(ValueError):
    """A placeholder was cut off by ``max_length``: its step would silently lose its score."""


def format_input(item: PRMInput, step_token: str = STEP_TOKEN, answer_token: str = ANSWER_TOKEN) -> str:
    """The release's input text for one candidate."""
    steps = "".join(f"{s}{step_token}" for s in item.steps)
    return (f"##Question\n{item.question}\n\n##Thinking Trajectory\n{steps}\n\n"
            f"##Final Answer\n{item.final_answer}{answer_token}")


def _qwen_input(item: PRMInput, tokenizer: Any, step_token: str) -> str:
    """Qwen2.5-Math-PRM's documented format: chat messages, steps each followed by ``<extra_0>``."""
    answer = "".join(f"{s}{step_token}" for s in item.steps)
    messages = [{"role": "system", "content": QWEN_SYSTEM}, {"role": "user", "content": item.question},
                {"role": "assistant", "content": answer}]
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
    return f"{QWEN_SYSTEM}\n\n{item.question}\n\n{answer}"


def _heads(mode: str, hidden: int):
    import torch

    if mode == "dual":
        return torch.nn.ModuleDict({"step_head": torch.nn.Linear(hidden, 1), "traj_head": torch.nn.Linear(hidden, 1)})
    return torch.nn.ModuleDict({"score": torch.nn.Linear(hidden, 2)})


class FinPRM:
    """A PRM on a Hugging Face backbone; see the module docstring for modes, format and layout."""

    def __init__(self, backbone: Any, tokenizer: Any, mode: str = "dual", heads: Any = None, *,
                 max_length: int = 4096, batch_tokens: int = 16384, agg: str = DEFAULT_AGG,
                 zeta: float = DEFAULT_ZETA, name: str = "hf", step_token: str = STEP_TOKEN,
                 answer_token: str = ANSWER_TOKEN):
        if mode not in MODES:
            raise ValueError(f"unknown hf PRM mode {mode!r}: use one of {', '.join(MODES)}")
        self.backbone, self.tokenizer, self.mode = backbone.eval(), tokenizer, mode
        self.step_token, self.answer_token = step_token, answer_token
        self.heads = None if mode == "qwen" else (heads or _heads(mode, backbone.config.hidden_size)).eval()
        self.max_length, self.batch_tokens, self.agg, self.zeta, self.name = max_length, batch_tokens, agg, zeta, name
        self.step_id = self._token_id(step_token)
        self.answer_id = None if mode == "qwen" else self._token_id(answer_token)
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token or step_token

    def _token_id(self, token: str) -> int:
        ids = self.tokenizer.convert_tokens_to_ids([token])
        if not ids or ids[0] is None or ids[0] == self.tokenizer.unk_token_id:
            raise ValueError(f"the tokenizer has no placeholder token {token!r}: add it as a special token")
        return int(ids[0])

    # ---------------------------------------------------------------------------------- loading

    @classmethod
    def from_pretrained(cls, path: str, mode: str = "dual", **kwargs: Any) -> FinPRM:
        """Load from a local directory or a hub id (the hub only when the environment allows it)."""
        from transformers import AutoConfig, AutoModel, AutoModelForTokenClassification, AutoTokenizer

        local = Path(path)
        config_file = local / PRM_CONFIG
        saved = json.loads(config_file.read_text()) if config_file.is_file() else {}
        mode = saved.get("mode", mode)
        tokens = {k: saved[k] for k in ("step_token", "answer_token") if k in saved}
        tokenizer = AutoTokenizer.from_pretrained(path)
        if mode == "qwen":
            config = AutoConfig.from_pretrained(path, trust_remote_code=True)
            arch = (config.architectures or [""])[0]
            loader = AutoModelForTokenClassification if arch.endswith("ForTokenClassification") else AutoModel
            backbone = loader.from_pretrained(path, trust_remote_code=True)
            return cls(backbone, tokenizer, "qwen", name=f"hf:{path}:qwen", **tokens, **kwargs)
        backbone = AutoModel.from_pretrained(path)
        heads = _heads(mode, backbone.config.hidden_size)
        heads.load_state_dict(_read_heads(path), strict=True)
        return cls(backbone, tokenizer, mode, heads, name=f"hf:{path}:{mode}", **tokens, **kwargs)

    def save_pretrained(self, path: str | Path) -> None:
        """Backbone, tokenizer, heads and ``prm_config.json`` in the layout :meth:`from_pretrained` reads."""
        from safetensors.torch import save_file

        path = Path(path)
        self.backbone.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        if self.heads is not None:
            save_file({k: v.contiguous() for k, v in self.heads.state_dict().items()}, str(path / HEADS_FILE))
        (path / PRM_CONFIG).write_text(json.dumps({"mode": self.mode, "step_token": self.step_token,
                                                   "answer_token": self.answer_token}, indent=1))

    # ---------------------------------------------------------------------------------- scoring

    def _text(self, item: PRMInput) -> str:
        if self.mode == "qwen":
            return _qwen_input(item, self.tokenizer, self.step_token)
        return format_input(item, self.step_token, self.answer_token)

    def encode(self, items: Sequence[PRMInput]) -> list[list[int]]:
        """Token ids per item, truncated to ``max_length``; raises :class:`TruncationError` on a lost placeholder."""
        encoded = self.tokenizer([self._text(i) for i in items], add_special_tokens=False,
                                 truncation=True, max_length=self.max_length)["input_ids"]
        for k, (item, ids) in enumerate(zip(items, encoded)):
            want = len(item.steps) + (0 if self.mode == "qwen" else 1)
            got = ids.count(self.step_id) + (0 if self.answer_id is None else ids.count(self.answer_id))
            if got != want:
                raise TruncationError(f"item {k}: {want - got} of {want} placeholders lost to truncation "
                                      f"(max_length={self.max_length}); raise max_length or shorten the input")
        return encoded

    def batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Item indices grouped by length under the token budget (longest first, so memory peaks early)."""
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        out: list[list[int]] = []
        for i in order:
            if out and lengths[out[-1][0]] * (len(out[-1]) + 1) <= self.batch_tokens:
                out[-1].append(i)
            else:
                out.append([i])
        return out

    def score_batch(self, items: Sequence[PRMInput]) -> list[PRMScore]:
        """One score per item, computed in length-sorted batches without gradients."""
        import torch

        encoded = self.encode(items)
        results: list[PRMScore | None] = [None] * len(items)
        with torch.inference_mode():
            for batch in self.batches([len(e) for e in encoded]):
                for i, (probs, traj) in zip(batch, self._forward([encoded[i] for i in batch])):
                    results[i] = make_score(probs, traj, agg=self.agg, zeta=self.zeta, prm=self.name)
        return results  # type: ignore[return-value]

    def _forward(self, ids: list[list[int]]) -> list[tuple[list[float], float | None]]:
        import torch

        width = max(len(x) for x in ids)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([x + [pad] * (width - len(x)) for x in ids])
        mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids])
        out = self.backbone(input_ids=input_ids, attention_mask=mask)
        if self.mode == "qwen":
            logits = out.logits if hasattr(out, "logits") else out[0]
            good = torch.softmax(logits.float(), dim=-1)[..., 1]
            return [(good[b][input_ids[b] == self.step_id].tolist(), None) for b in range(len(ids))]
        hidden = out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0]
        return [self._read(hidden[b], input_ids[b]) for b in range(len(ids))]

    def _read(self, hidden: Any, ids: Any) -> tuple[list[float], float]:
        """Step and trajectory probabilities from one item's hidden states at its placeholders."""
        import torch

        steps, answer = hidden[ids == self.step_id], hidden[ids == self.answer_id]
        if self.mode == "dual":
            p_steps = torch.sigmoid(self.heads["step_head"](steps).squeeze(-1))
            p_traj = torch.sigmoid(self.heads["traj_head"](answer).squeeze(-1))
        else:
            p_steps = torch.softmax(self.heads["score"](steps), dim=-1)[:, 1]
            p_traj = torch.softmax(self.heads["score"](answer), dim=-1)[:, 1]
        return p_steps.float().tolist(), float(p_traj[-1])


def _read_heads(path: str) -> dict:
    """The heads' tensors from a local directory or, for a hub id, the cached file."""
    from safetensors.torch import load_file

    local = Path(path) / HEADS_FILE
    if not local.is_file():
        from huggingface_hub import hf_hub_download

        local = Path(hf_hub_download(path, HEADS_FILE))
    return load_file(str(local))
