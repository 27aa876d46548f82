"""Where :func:`scorers.prm.training.train` runs: :class:`OneDevice`, the plain PyTorch loop on one device.

Why a runtime object and not ``if accelerator`` through the loop: there is one training loop, written against
the few operations a data-parallel run changes (prepare the module, optimizer and batches; accumulate and
back-propagate; average a figure over processes; score an evaluation set; who logs). This class does each the
way the loop always did, so a run without accelerate is the same computation, bit for bit, as before; the
accelerate runtime (``finchain_tasks.prm.accelerate_train``, which imports accelerate) does each through an
``accelerate.Accelerator``. The method names follow accelerate's where one exists, so that adapter is thin.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

__all__ = ["OneDevice"]


class OneDevice:
    """One process, one device (``cpu`` or ``cuda``); gradients accumulated over ``grad_accum`` micro-batches.

    The interface another runtime fills in (duck-typed): ``num_processes``, ``is_main_process``, ``device``,
    ``grad_accum`` and the methods below."""

    num_processes = 1
    is_main_process = True

    def __init__(self, device: str = "cpu", grad_accum: int = 1):
        self.device, self.grad_accum = device, grad_accum

    def describe(self) -> dict | None:
        """What a summary records about the runtime: nothing for the plain loop (its summary is unchanged)."""
        return None

    def place(self, prm: Any) -> None:
        """Put the PRM on the device (a no-op on the default ``cpu``)."""
        prm.backbone.to(self.device)
        prm.heads.to(self.device)

    def prepare(self, module: Any, optimizer: Any, batches: Any) -> tuple[Any, Any, Any]:
        module.to(self.device)
        return module, optimizer, batches

    def accumulate(self, module: Any) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    def backward(self, loss: Any) -> None:
        (loss / self.grad_accum).backward()

    def mean(self, value: float) -> float:
        """The mean of ``value`` over processes: itself."""
        return value

    def score(self, prm: Any, items: Sequence[Any]) -> list:
        return prm.score_batch(items)

    def autocast(self) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    def wait(self) -> None:
        """Barrier: nothing to wait for."""
