"""``hf``: the Fin-PRM architecture on any Hugging Face backbone (torch and transformers load lazily).

Input, the authors' training format (``DataCollatorForProcessReward`` in ``DianJin-PRM/src/prm_trainer/
prm_train.py`` of https://github.com/aliyun/qwen-dianjin, commit fd9b511), used by ``dual`` and ``release``::

    ##Question\\n{question}\\n{choices}\\n\\n##Thinking Trajectory\\n{step 1}<extra_0>…{step n}<extra_0>
    \\n\\n##Final Answer\\n{answer}<extra_1>

(``choices`` is empty for a question without options, which leaves a blank line, as the release's
f-string does.) The release splits the trace at blank lines; here the steps are ChainEval's
(:mod:`scorers.steps`), so the PRM and ChainEval read the same steps. The backbone's last hidden states
are read at every ``<extra_0>`` (one per step) and at the ``<extra_1>`` after the final answer. Modes:

* ``dual`` (the paper, default): a step head ``Linear(h, 1)`` at the step placeholders and a trajectory
  head ``Linear(h, 1)`` at the answer placeholder, both read through a sigmoid.
* ``release`` (the released model, ``Qwen3ForProcessRewardModel`` in ``DianJin-PRM/src/model/fin_prm.py``):
  one head ``score = Sequential(Linear(h, h), ReLU, Linear(h, 2))`` at both kinds of placeholder, trained
  with cross-entropy on labels 0 (bad) / 1 (good); P(good) is the softmax's class 1, read at every
  ``<extra_0>`` (steps) and at ``<extra_1>`` (trajectory), as its ``make_step_rewards`` does.
* ``qwen`` (Qwen2.5-Math-PRM-style checkpoints): a 2-class head, the chat format with steps joined by
  ``<extra_0>``; P(good) at each ``<extra_0>``, no trajectory probability. The head is, in this order: a
  stock ``*ForTokenClassification`` model; else the ``score.0``/``score.2`` MLP read from the weights under
  a stock backbone (no remote code); else, only with ``trust_remote_code=True``, the checkpoint's own class.

Files from elsewhere never run code (docs/security.md). The mode the caller names wins; a checkpoint's
``prm_config.json`` only fills it in when none is named, and no mode runs code by itself. A checkpoint's
own Python (``auto_map`` in ``config.json``) runs only with ``trust_remote_code=True`` (``--trust-remote-code``
on the CLI, ``-T prm_trust_remote_code=true`` in Inspect, ``finchain_prm_trust_remote_code`` /
``cflue_prm_trust_remote_code`` in lm-eval's metadata). Weights load from safetensors only; a folder whose
weights are only pickle files (``.bin``, ``.pt``) is refused unless ``allow_pickle=True`` (``--allow-pickle``).
Which Qwen PRM checkpoints name remote code: ``Qwen/Qwen2.5-Math-PRM-7B``, ``Qwen/Qwen2.5-Math-PRM-72B``
and ``Qwen/Qwen2.5-Math-7B-PRM800K`` declare ``Qwen2ForProcessRewardModel`` in ``auto_map`` (and their model
cards load them with ``trust_remote_code=True``); that class is a stock ``Qwen2Model`` under
``score = Sequential(Linear(h, h), ReLU, Linear(h, 2))``, so ``qwen`` mode reads them **without** it (the
head's tensors straight from the safetensors). The DianJin Fin-PRM release (``Qwen3ForProcessRewardModel``)
is read the same way by ``release``. Only a checkpoint whose head is in neither layout needs the flag.
(The layouts were checked against public re-implementations of these classes; the checkpoints themselves
could not be downloaded here, so a real one is worth one load before a long run.)

Checkpoint layouts. ``release``: the directory ``save_pretrained`` of the release's model writes: a
``config.json`` (``model_type: qwen3``; the release's also names its remote code in ``auto_map``, which is
not needed: the backbone is a stock ``Qwen3Model``), the weights in ``model.safetensors`` (or shards listed
in ``model.safetensors.index.json``) with the backbone under ``model.`` and the head as ``score.0.weight``
(h, h), ``score.0.bias``, ``score.2.weight`` (2, h), ``score.2.bias``, and a tokenizer with ``<extra_0>``
and ``<extra_1>`` added as special tokens. It is read without remote code; :meth:`FinPRM.save_pretrained`
writes the same layout. ``dual`` (this project's, the paper's heads were never released): the backbone
and tokenizer as ``save_pretrained`` writes them, ``prm_heads.safetensors`` (``step_head.weight/bias``,
``traj_head.weight/bias``) and ``prm_config.json`` (mode, placeholder tokens). A directory in neither
layout fails with the files expected and the files found.

The release's verl reward worker (GRPO) scores differently: the chat template, the whole response as one
step, the first placeholder's P(good); that is an RL shortcut, not the format the model was trained on,
and is not offered. No model card or released weights could be read offline (the README links the
Hugging Face organisation ``DianJin`` and ModelScope ``tongyi_dianjin``), so the layout above is the one
the released training code produces.

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

__all__ = ["ANSWER_TOKEN", "HEADS_FILE", "PRM_CONFIG", "RELEASE_HEAD_KEYS", "STEP_TOKEN", "WEIGHTS_FILE",
           "CheckpointLayoutError", "FinPRM", "TruncationError", "format_input"]

STEP_TOKEN = "<extra_0>"
ANSWER_TOKEN = "<extra_1>"
HEADS_FILE = "prm_heads.safetensors"
PRM_CONFIG = "prm_config.json"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_INDEX = "model.safetensors.index.json"
RELEASE_HEAD_KEYS = ("score.0.weight", "score.0.bias", "score.2.weight", "score.2.bias")
RELEASE_ARCH = "Qwen3ForProcessRewardModel"
BACKBONE_PREFIX = "model."
MODES = ("dual", "release", "qwen")
QWEN_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."


class TruncationError(ValueError):
    """A placeholder was cut off by ``max_length``: its step would silently lose its score."""


class CheckpointLayoutError(ValueError):
    """A checkpoint directory is not in the layout its mode reads (the message names expected and found files)."""


def format_input(item: PRMInput, step_token: str = STEP_TOKEN, answer_token: str = ANSWER_TOKEN) -> str:
    """The release's input text for one candidate (its collator's f-string, choices line included)."""
    steps = "".join(f"{s}{step_token}" for s in item.steps)
    return (f"##Question\n{item.question}\n{item.choices}\n\n##Thinking Trajectory\n{steps}\n\n"
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
    # the release's head: score.0 (h, h), ReLU, score.2 (2, h); the state-dict names are the checkpoint's
    return torch.nn.ModuleDict({"score": torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                                             torch.nn.Linear(hidden, 2))})


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
        if mode == "qwen":  # the checkpoint's own head (token classification), or its score.* head read here
            self.heads = heads.eval() if heads is not None else None
        else:
            self.heads = (heads or _heads(mode, backbone.config.hidden_size)).eval()
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
    def from_pretrained(cls, path: str, mode: str | None = None, *, trust_remote_code: bool = False,
                        allow_pickle: bool = False, **kwargs: Any) -> FinPRM:
        """Load from a local directory or a hub id (the hub only when the environment allows it).

        ``mode`` is the caller's: a checkpoint's ``prm_config.json`` only fills it in when the caller names
        none, and no mode a file names runs code. The checkpoint's own Python (``auto_map``) runs only with
        ``trust_remote_code=True``; weights load from safetensors only unless ``allow_pickle=True`` (a
        pickle-based ``.bin`` can run code as it loads). The layout is checked before any weight is read,
        so a wrong mode fails with one line naming the files expected and found."""
        from transformers import AutoModel, AutoTokenizer

        folder = _local_dir(path)
        saved = _saved_config(folder)
        mode = mode or (saved.get("mode") if saved.get("mode") in MODES else "dual")
        if mode not in MODES:
            raise ValueError(f"unknown hf PRM mode {mode!r}: use one of {', '.join(MODES)}")
        tokens = {k: saved[k] for k in ("step_token", "answer_token") if isinstance(saved.get(k), str)}
        safe = {"trust_remote_code": trust_remote_code, "use_safetensors": None if allow_pickle else True}
        if not allow_pickle:
            _refuse_pickle(folder, path)
        if mode == "qwen":
            backbone, heads = _qwen_model(folder, path, safe)
        elif mode == "release":
            head = _release_head(folder, path)
            backbone = _release_backbone(folder, path, safe)
            heads = _heads("release", backbone.config.hidden_size)
            heads.load_state_dict(head, strict=True)
        else:
            _check_dual(folder, path)
            backbone = AutoModel.from_pretrained(folder, **safe)
            heads = _heads(mode, backbone.config.hidden_size)
            heads.load_state_dict(_load_file(folder / HEADS_FILE), strict=True)
        tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=trust_remote_code)
        return cls(backbone, tokenizer, mode, heads, name=f"hf:{path}:{mode}", **tokens, **kwargs)

    def save_pretrained(self, path: str | Path) -> None:
        """The checkpoint in the layout :meth:`from_pretrained` reads for this mode (``release``: the
        authors' layout, one ``model.safetensors`` with ``model.*`` and ``score.*``)."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.tokenizer.save_pretrained(path)
        if self.mode == "release":
            self.backbone.config.save_pretrained(path)
            config = json.loads((path / "config.json").read_text())
            config.update(architectures=[RELEASE_ARCH], num_labels=2, alpha=config.get("alpha", 1.0))
            (path / "config.json").write_text(json.dumps(config, indent=2))
            tensors = {f"{BACKBONE_PREFIX}{k}": v for k, v in self.backbone.state_dict().items()}
            tensors.update(self.heads.state_dict())
            save_file({k: v.contiguous() for k, v in tensors.items()}, str(path / WEIGHTS_FILE),
                      metadata={"format": "pt"})
            return
        self.backbone.save_pretrained(path)
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
        # the release's collator tokenises with the tokenizer's defaults (Qwen's add no BOS/EOS)
        encoded = self.tokenizer([self._text(i) for i in items], add_special_tokens=self.mode == "release",
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
        device = next(self.backbone.parameters()).device  # where training (or the caller) put the model
        input_ids = torch.tensor([x + [pad] * (width - len(x)) for x in ids], device=device)
        mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids], device=device)
        out = self.backbone(input_ids=input_ids, attention_mask=mask)
        if self.mode == "qwen":
            if self.heads is not None:  # a stock backbone under the checkpoint's score.* head
                hidden = out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0]
                logits = self.heads["score"](hidden.float())
            else:
                logits = out.logits if hasattr(out, "logits") else out[0]
            good = torch.softmax(logits.float(), dim=-1)[..., 1]
            return [(good[b][input_ids[b] == self.step_id].tolist(), None) for b in range(len(ids))]
        hidden = out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0]
        return [self._read(hidden[b], input_ids[b]) for b in range(len(ids))]

    def _read(self, hidden: Any, ids: Any) -> tuple[list[float], float]:
        """Step and trajectory probabilities from one item's hidden states at its placeholders."""
        import torch

        # the heads' own dtype: float32 (a bf16 backbone, the release's, is read up), bf16 after DeepSpeed bf16
        hidden = hidden.to(next(self.heads.parameters()).dtype)
        steps, answer = hidden[ids == self.step_id], hidden[ids == self.answer_id]
        if self.mode == "dual":
            p_steps = torch.sigmoid(self.heads["step_head"](steps).squeeze(-1))
            p_traj = torch.sigmoid(self.heads["traj_head"](answer).squeeze(-1))
        else:
            p_steps = torch.softmax(self.heads["score"](steps), dim=-1)[:, 1]
            p_traj = torch.softmax(self.heads["score"](answer), dim=-1)[:, 1]
        return p_steps.float().tolist(), float(p_traj[-1])


def _local_dir(path: str) -> Path:
    """A local checkpoint directory: ``path`` itself, or the hub snapshot of a hub id."""
    local = Path(path)
    if local.is_dir():
        return local
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(path))


def _load_file(file: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(file))


def _found(folder: Path) -> str:
    names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    return ", ".join(names) or "nothing"


def _layout_error(path: str, folder: Path, mode: str, expected: str, hint: str = "") -> CheckpointLayoutError:
    return CheckpointLayoutError(f"hf:{path} is not a {mode!r} checkpoint: expected {expected}; found {_found(folder)}"
                                 + (f"; {hint}" if hint else ""))


def _weight_files(folder: Path) -> dict[str, Path]:
    """Tensor name -> safetensors file, from the shard index or the single weights file (names only)."""
    from safetensors import safe_open

    index = folder / WEIGHTS_INDEX
    if index.is_file():
        return {k: folder / f for k, f in json.loads(index.read_text())["weight_map"].items()}
    single = folder / WEIGHTS_FILE
    if not single.is_file():
        return {}
    with safe_open(str(single), "pt") as fh:
        return {k: single for k in fh.keys()}


def _release_head(folder: Path, path: str) -> dict:
    """The ``score.*`` tensors of a release checkpoint, or a layout error naming what is missing."""
    from safetensors import safe_open

    expected = (f"config.json and {WEIGHTS_FILE} (or {WEIGHTS_INDEX}) holding the backbone under "
                f"'{BACKBONE_PREFIX}' and the head {', '.join(RELEASE_HEAD_KEYS)}")
    names = _weight_files(folder)
    missing = [k for k in RELEASE_HEAD_KEYS if k not in names]
    if not (folder / "config.json").is_file() or not names or missing:
        hint = f"this looks like a dual checkpoint: write hf:{path}" if (folder / HEADS_FILE).is_file() else ""
        if names and missing:
            hint = "; ".join(h for h in (f"missing tensors {', '.join(missing)}", hint) if h)
        raise _layout_error(path, folder, "release", expected, hint)
    head = {}
    for key in RELEASE_HEAD_KEYS:
        with safe_open(str(names[key]), "pt") as fh:
            head[key] = fh.get_tensor(key).float()
    return head


def _release_backbone(folder: Path, path: str, safe: dict[str, Any]):
    """The stock ``AutoModel`` of the checkpoint's ``model_type`` (no remote code), all its weights present."""
    from transformers import AutoModel

    backbone, info = AutoModel.from_pretrained(folder, **{**safe, "trust_remote_code": False},
                                               output_loading_info=True)
    if info.get("missing_keys"):
        missing = sorted(info["missing_keys"])
        raise _layout_error(path, folder, "release", f"backbone tensors under '{BACKBONE_PREFIX}'",
                            f"missing {len(missing)}, e.g. {', '.join(missing[:3])}")
    return backbone


def _check_dual(folder: Path, path: str) -> None:
    """A dual checkpoint has its heads file; a release checkpoint given without ``:release`` is named as such."""
    if (folder / HEADS_FILE).is_file():
        return
    names = _weight_files(folder)
    hint = f"this looks like a release checkpoint (a score.* head in the weights): write hf:{path}:release" \
        if all(k in names for k in RELEASE_HEAD_KEYS) else ""
    raise _layout_error(path, folder, "dual", f"config.json, the backbone's weights and {HEADS_FILE}", hint)


def _saved_config(folder: Path) -> dict[str, Any]:
    """This project's ``prm_config.json`` (mode and placeholder tokens), or {} when absent or not an object."""
    file = folder / PRM_CONFIG
    if not file.is_file():
        return {}
    try:
        saved = json.loads(file.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointLayoutError(f"{file}: not JSON ({exc})") from None
    return saved if isinstance(saved, dict) else {}


PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")


def _refuse_pickle(folder: Path, path: str) -> None:
    """Refuse a checkpoint whose weights exist only in pickle files (loading them can run code)."""
    if any(folder.glob("*.safetensors")):
        return
    pickled = sorted(p.name for p in folder.iterdir() if p.suffix in PICKLE_SUFFIXES) if folder.is_dir() else []
    if pickled:
        raise CheckpointLayoutError(
            f"hf:{path} holds its weights only in pickle files ({', '.join(pickled)}), which can run code as "
            "they load: convert them to safetensors, or opt in with --allow-pickle (prm_allow_pickle=true) "
            "if you trust their author")


def _qwen_model(folder: Path, path: str, safe: dict[str, Any]) -> tuple[Any, Any]:
    """(model, head) of a Qwen-PRM-style checkpoint: a stock token-classification model; else a stock
    backbone under the ``score.0``/``score.2`` head read from the weights (Qwen2.5-Math-PRM's layout, no
    remote code); else, only with ``trust_remote_code``, the checkpoint's own class."""
    from transformers import AutoConfig, AutoModel, AutoModelForTokenClassification

    try:
        config = AutoConfig.from_pretrained(folder, trust_remote_code=safe["trust_remote_code"])
    except ValueError as exc:
        raise _remote_code_error(path, f"its config ({_one_line(exc)})") from None
    arch = (config.architectures or [""])[0]
    if arch.endswith("ForTokenClassification"):  # a stock class unless trust_remote_code picks the file's
        return AutoModelForTokenClassification.from_pretrained(folder, **safe), None
    names = _weight_files(folder)
    if all(k in names for k in RELEASE_HEAD_KEYS):
        head = _release_head(folder, path)
        heads = _heads("release", config.hidden_size)
        heads.load_state_dict(head, strict=True)
        return _release_backbone(folder, path, safe), heads
    if not safe["trust_remote_code"]:
        raise _remote_code_error(path, f"its architecture {arch or '(none)'}")
    loader = AutoModelForTokenClassification if arch.endswith("ForTokenClassification") else AutoModel
    return loader.from_pretrained(folder, **safe), None


def _remote_code_error(path: str, what: str) -> CheckpointLayoutError:
    return CheckpointLayoutError(
        f"hf:{path}:qwen: {what} needs the checkpoint's own Python code, and its weights hold no score.0/score.2 "
        "head to read without it; remote code runs only on request: pass --trust-remote-code "
        "(Inspect: -T prm_trust_remote_code=true; lm-eval: metadata prm_trust_remote_code) if you trust its author")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]
