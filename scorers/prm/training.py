"""Training a Fin-PRM (``dual`` or ``release`` heads on a Hugging Face backbone) on labelled traces.

Loss, ``dual`` (the paper): BCE over the known step labels + λ · BCE over the known trajectory labels.
The step term follows the paper (Eq. 12: "the average BCE loss over all steps in a reasoning trace"): each
trace's known steps are averaged, then the traces (``step_average="trace"``, the default), so a long trace
weighs as much as a short one. ``step_average="step"`` averages over all the batch's steps at once (long
traces weigh more), the behaviour before; the summary names which one trained. ``release``: the shared
2-class head with cross-entropy at every placeholder, the trajectory's label at the answer placeholder
(the authors' collator mislabels trajectories; this one does not).
Unknown labels (``None``) are masked out, never guessed.

A plain PyTorch loop (AdamW, optional gradient accumulation): the tiny model trains on a CPU in seconds, a
real backbone on a GPU with the same code (``finchain prm train --device cuda``). The same loop runs data
parallel under ``accelerate launch`` through a runtime object (:mod:`scorers.prm.one_device` is the plain one;
``finchain_tasks.prm.accelerate_train`` the accelerate one), never a second copy of it. Evaluation
during training: step AUC, trajectory AUC and step accuracy at 0.5. The checkpoint is
:meth:`FinPRM.save_pretrained`'s layout, which the ``hf`` backend loads.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.prm.base import PRMInput

__all__ = ["STEP_AVERAGES", "DrawOrder", "Example", "TrainConfig", "add_lora", "auc", "evaluate",
           "examples_from_labels", "group_of", "joint_loss", "merge_lora", "step_loss", "train"]

STEP_AVERAGES = ("trace", "step")


@dataclass(frozen=True)
class Example:
    """One labelled trace: labels 1/0, None where unknown (masked)."""

    item: PRMInput
    step_labels: tuple[int | None, ...]
    traj_label: int | None
    group: str = ""


@dataclass
class TrainConfig:
    steps: int = 300
    batch_size: int = 4
    lr: float = 1e-3
    lam: float = 1.0
    seed: int = 0
    eval_every: int = 100
    grad_accum: int = 1
    device: str = "cpu"
    step_average: str = "trace"
    """``trace`` (the paper: mean over each trace's steps, then over traces) or ``step`` (over all steps)."""
    history: list[dict] = field(default_factory=list)


def add_lora(prm: Any, r: int = 8, alpha: int = 16, dropout: float = 0.0,
             target_modules: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj")) -> Any:
    """Wrap the backbone in LoRA adapters (peft): only the adapters and the heads train."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, target_modules=list(target_modules))
    prm.backbone = get_peft_model(prm.backbone, config)
    return prm


def merge_lora(prm: Any) -> Any:
    """Fold the adapters into the backbone weights, so the checkpoint is a plain one the hf backend loads."""
    if hasattr(prm.backbone, "merge_and_unload"):
        prm.backbone = prm.backbone.merge_and_unload()
    return prm


def examples_from_labels(rows: Sequence[dict]) -> list[Example]:
    """Examples from ``finchain prm label`` rows; traces with no known label at all are left out (counted
    by the caller as len(rows) - len(result))."""
    out = []
    for row in rows:
        labels = tuple(row.get("step_labels") or ())
        if not row.get("steps") or (all(v is None for v in labels) and row.get("traj_label") is None):
            continue
        item = PRMInput(row.get("question", ""), tuple(row["steps"]), row.get("final_answer", ""))
        out.append(Example(item, labels, row.get("traj_label"), group_of(row)))
    return out


def group_of(row: dict) -> str:
    """The unit a held-out evaluation keeps apart: the template (``meta.template``, else the template part of
    ``meta.problem_id`` or of a FinChain id ``finchain/<domain>/<topic>/<template>/<seed>``), else the id.
    Holding out traces of seen templates measures memory of the template, not a PRM that transfers."""
    meta = row.get("meta") or {}
    if meta.get("template"):
        return str(meta["template"])
    for ident in (meta.get("problem_id"), row.get("id")):
        parts = str(ident or "").split("/")
        if len(parts) >= 5 and parts[0] == "finchain":
            return "/".join(parts[1:4])
    return str(row.get("id", ""))


def auc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """ROC AUC by the Mann-Whitney count (ties count one half); None when a class is missing."""
    pos = [s for s, y in zip(scores, labels) if y == 1]
    neg = [s for s, y in zip(scores, labels) if y == 0]
    if not pos or not neg:
        return None
    ranked = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # average 1-based rank of the tie block
        rank_sum += mid * sum(1 for k in range(i, j) if ranked[k][1] == 1)
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def _batch_tensors(prm: Any, batch: Sequence[Example], device: str):
    import torch

    ids = prm.encode([e.item for e in batch])  # raises TruncationError when a placeholder is lost
    width = max(len(x) for x in ids)
    pad = prm.tokenizer.pad_token_id
    input_ids = torch.tensor([x + [pad] * (width - len(x)) for x in ids], device=device)
    mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids], device=device)
    return input_ids, mask


def _masked(labels: Sequence[int | None], device: str):
    import torch

    known = torch.tensor([v is not None for v in labels], dtype=torch.bool, device=device)
    target = torch.tensor([float(v or 0) for v in labels], device=device)
    return known, target


def forward_logits(prm: Any, batch: Sequence[Example], device: str = "cpu", module: Any = None):
    """(step outputs, trajectory outputs) at the placeholders, in batch order, with gradients; through
    ``module`` (the PRM as one module, possibly wrapped for data parallelism) when given."""
    from scorers.prm.train_module import PlaceholderLogits

    input_ids, mask = _batch_tensors(prm, batch, device)
    return (module if module is not None else PlaceholderLogits(prm))(input_ids, mask)


def step_loss(logits, labels: Sequence[int | None], trace_of: Sequence[int], mode: str = "dual",
              average: str = "trace"):
    """The step term: BCE (``dual``, logits of shape (steps,)) or cross-entropy (``release``, (steps, 2)) over
    the known labels, averaged per trace then over traces (``trace``), or over all known steps (``step``)."""
    import torch
    import torch.nn.functional as F

    if average not in STEP_AVERAGES:
        raise ValueError(f"step_average: {' or '.join(STEP_AVERAGES)}, got {average!r}")
    device = logits.device
    known, target = _masked(labels, str(device))
    if not known.any():
        return torch.zeros((), device=device)
    if mode == "dual":
        each = F.binary_cross_entropy_with_logits(logits[known], target[known], reduction="none")
    else:
        each = F.cross_entropy(logits[known], target[known].long(), reduction="none")
    if average == "step":
        return each.mean()
    trace = torch.tensor(list(trace_of), device=device)[known]
    n = int(trace.max()) + 1
    sums = torch.zeros(n, device=device).index_add(0, trace, each)
    counts = torch.zeros(n, device=device).index_add(0, trace, torch.ones_like(each))
    present = counts > 0
    return (sums[present] / counts[present]).mean()


def joint_loss(prm: Any, batch: Sequence[Example], lam: float = 1.0, device: str = "cpu", step_average: str = "trace",
               module: Any = None):
    """L_step + λ · L_traj: BCE (``dual``) or the shared head's cross-entropy (``release``); the step term per
    :func:`step_loss` (``step_average``); the forward pass through ``module`` when given."""
    import torch
    import torch.nn.functional as F

    step_out, traj_out = forward_logits(prm, batch, device, module)
    labels = [v for e in batch for v in e.step_labels]
    trace_of = [i for i, e in enumerate(batch) for _ in e.step_labels]
    step = step_loss(step_out, labels, trace_of, prm.mode, step_average)
    t_known, t_target = _masked([e.traj_label for e in batch], device)
    zero = torch.zeros((), device=device)
    if prm.mode == "dual":
        traj = F.binary_cross_entropy_with_logits(traj_out[t_known], t_target[t_known]) if t_known.any() else zero
    else:
        traj = F.cross_entropy(traj_out[t_known], t_target[t_known].long()) if t_known.any() else zero
    return step + lam * traj


def evaluate(prm: Any, examples: Sequence[Example], runtime: Any = None) -> dict:
    """Step AUC, trajectory AUC and step accuracy at 0.5, over known labels (the PRM's own scoring path; under a
    data-parallel ``runtime`` each process scores its share and the scores are gathered in order)."""
    items = [e.item for e in examples]
    scores = runtime.score(prm, items) if runtime is not None else prm.score_batch(items)
    sp, sl, tp, tl = [], [], [], []
    for e, s in zip(examples, scores):
        for p, y in zip(s.step_probs, e.step_labels):
            if y is not None and p is not None:
                sp.append(p)
                sl.append(y)
        if e.traj_label is not None and s.p_traj is not None:
            tp.append(s.p_traj)
            tl.append(e.traj_label)
    acc = sum((p >= 0.5) == bool(y) for p, y in zip(sp, sl)) / len(sl) if sl else None
    return {"step_auc": auc(sp, sl), "traj_auc": auc(tp, tl), "step_acc": acc, "n_steps": len(sl),
            "n_traj": len(tl)}


class DrawOrder:
    """The batches the loop trains on, as a batch sampler: each a ``batch_size`` draw from a seeded shuffle,
    refilled with fresh shuffles when fewer than a batch remain (the loop's order since it was written).
    ``batches`` draws in all, so a data-parallel loader (accelerate's) can deal them out: process k of N takes
    draws k, k + N, ...; one process with ``grad_accum`` N sees the same examples in each optimizer step as N
    processes with ``grad_accum`` 1."""

    def __init__(self, n: int, batch_size: int, seed: int, batches: int):
        self.n, self.batch_size, self.seed, self.batches = n, batch_size, seed, batches

    def __len__(self) -> int:
        return self.batches

    def __iter__(self):
        rng = random.Random(self.seed)
        order: list[int] = []
        for _ in range(self.batches):
            while len(order) < self.batch_size:  # `while`: a batch larger than the set repeats examples
                order.extend(rng.sample(range(self.n), self.n))
            yield [order.pop() for _ in range(self.batch_size)]


def train(prm: Any, examples: Sequence[Example], config: TrainConfig, eval_examples: Sequence[Example] = (),
          log=None, runtime: Any = None) -> list[dict]:
    """Train in place; returns the history (loss per step, evaluations every ``eval_every`` steps).

    ``runtime``: where it runs (:class:`scorers.prm.one_device.OneDevice` on ``config.device`` when None, the
    plain loop; ``finchain_tasks.prm.accelerate_train`` for accelerate). Its ``grad_accum`` must equal
    ``config.grad_accum``. The logged loss is the mean over processes; only the main process logs."""
    import torch

    from scorers.prm.one_device import OneDevice
    from scorers.prm.train_module import PlaceholderLogits

    if not examples:
        raise ValueError("no labelled examples to train on")
    runtime = runtime or OneDevice(config.device, config.grad_accum)
    if runtime.grad_accum != config.grad_accum:
        raise ValueError(f"gradient accumulation: the runtime has {runtime.grad_accum}, the config {config.grad_accum}")
    torch.manual_seed(config.seed)
    module = PlaceholderLogits(prm).train()
    opt = torch.optim.AdamW([p for p in module.parameters() if p.requires_grad], lr=config.lr)
    draws = DrawOrder(len(examples), config.batch_size, config.seed,
                      config.steps * config.grad_accum * runtime.num_processes)
    loader = torch.utils.data.DataLoader(list(examples), batch_sampler=draws, collate_fn=list)
    module, opt, loader = runtime.prepare(module, opt, loader)
    batches = iter(loader)
    for step in range(1, config.steps + 1):
        opt.zero_grad()
        total = 0.0
        for _ in range(config.grad_accum):
            batch = next(batches)
            with runtime.accumulate(module):
                loss = joint_loss(prm, batch, config.lam, runtime.device, config.step_average, module)
                runtime.backward(loss)
            total += float((loss / config.grad_accum).detach())
        opt.step()
        row = {"step": step, "loss": runtime.mean(total)}
        if eval_examples and (step % config.eval_every == 0 or step == config.steps):
            prm.backbone.eval()
            with runtime.autocast():
                row.update(evaluate(prm, eval_examples, runtime))
            prm.backbone.train()
        config.history.append(row)
        if log and runtime.is_main_process and (len(row) > 2 or step == 1):
            log(row)
    prm.backbone.eval()
    prm.heads.eval()
    if not all(math.isfinite(r["loss"]) for r in config.history):
        raise RuntimeError("training diverged (a loss is not finite): lower --lr")
    return config.history
