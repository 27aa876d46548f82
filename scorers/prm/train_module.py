"""The backbone and the heads of a :class:`~scorers.prm.hf.FinPRM` as one ``torch.nn.Module``.

Why a module: data-parallel wrappers (DDP, DeepSpeed) synchronise the gradients of what runs through their
``forward``; the heads sit outside the backbone, so training runs both through this one module. It holds the
PRM's own backbone and heads (no copy), so the PRM is trained in place and saves as before. Imports torch at
module level: import it lazily (:func:`scorers.prm.training.train` does).
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["PlaceholderLogits"]


class PlaceholderLogits(torch.nn.Module):
    """``forward(input_ids, attention_mask)`` -> (outputs at the step placeholders, outputs at the answer
    placeholder), in batch order: logits of shape (steps,) and (traces,) for ``dual``, (n, 2) for ``release``."""

    def __init__(self, prm: Any):
        super().__init__()
        self.backbone, self.heads = prm.backbone, prm.heads
        self.mode, self.step_id, self.answer_id = prm.mode, prm.step_id, prm.answer_id

    def forward(self, input_ids, attention_mask):
        out = self.backbone(input_ids=input_ids, attention_mask=attention_mask)
        hidden = out.last_hidden_state if hasattr(out, "last_hidden_state") else out[0]
        steps, answers = hidden[input_ids == self.step_id], hidden[input_ids == self.answer_id]
        if self.mode == "dual":
            step_out = self.heads["step_head"](steps).squeeze(-1)
            traj_out = self.heads["traj_head"](answers).squeeze(-1)
        else:
            step_out, traj_out = self.heads["score"](steps), self.heads["score"](answers)
        return step_out.float(), traj_out.float()  # the losses in float32 (a no-op unless the weights are bf16)
