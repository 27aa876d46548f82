"""``finchain prm train`` under ``accelerate launch``: the runtime that runs the one training loop of
:func:`scorers.prm.training.train` through an ``accelerate.Accelerator`` (data parallel, mixed precision,
gradient accumulation, DeepSpeed ZeRO-2 when the launch config names it).

Why here and not in ``scorers``: the loop stays host- and launcher-free; this adapter only maps the loop's
few runtime operations (:class:`scorers.prm.one_device.OneDevice`) onto accelerate's. accelerate is imported
when a runtime is built, never at package import, and only when one is wanted: under ``accelerate launch``
(or torchrun), or when ``--mixed-precision`` is named. Otherwise the plain loop runs, unchanged.

Data parallel: the batches are drawn by :class:`scorers.prm.training.DrawOrder` in every process and dealt out
by accelerate's loader (process k of N takes draws k, k + N, ...), so N processes with per-process batch B
train on what one process with batch B and gradient accumulation N trains on; the logged loss is the mean
over processes. Evaluation is sharded and gathered in order; only the main process logs and saves.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorers.prm.one_device import OneDevice

__all__ = ["MIXED_PRECISIONS", "ZERO2_CONFIG", "AccelerateRuntime", "launched", "make_runtime"]

MIXED_PRECISIONS = ("no", "fp16", "bf16")
ZERO2_CONFIG = Path(__file__).resolve().parents[1] / "data" / "accelerate" / "zero2.yaml"
"""The shipped DeepSpeed ZeRO-2 accelerate config (7B backbones), used only when named with --config_file."""
TRAIN_EXTRA = "pip install 'finchain-tasks[train]'"


def launched() -> bool:
    """Whether this process was started by ``accelerate launch`` (which always sets the mixed-precision
    variable) or by torchrun with more than one process."""
    return "ACCELERATE_MIXED_PRECISION" in os.environ or int(os.environ.get("WORLD_SIZE", "1") or 1) > 1


def _deepspeed_named() -> bool:
    return os.environ.get("ACCELERATE_USE_DEEPSPEED", "false").lower() == "true"


def make_runtime(device: str | None = None, mixed_precision: str | None = None,
                 grad_accum: int | None = None) -> Any:
    """The plain :class:`OneDevice` loop unless launched by accelerate (or ``mixed_precision`` is named, which
    needs accelerate's autocast); explicit options win over the launch config's values."""
    if mixed_precision is not None and mixed_precision not in MIXED_PRECISIONS:
        raise ValueError(f"--mixed-precision: one of {', '.join(MIXED_PRECISIONS)}, got {mixed_precision!r}")
    if grad_accum is not None and grad_accum < 1:
        raise ValueError(f"--grad-accum must be at least 1, got {grad_accum}")
    if not launched() and mixed_precision in (None, "no"):
        return OneDevice(device or "cpu", grad_accum or 1)
    try:
        import accelerate  # noqa: F401
    except ImportError:
        raise ValueError(f"accelerate is not installed (needed under accelerate launch and for --mixed-precision): "
                         f"{TRAIN_EXTRA}") from None
    if _deepspeed_named():
        try:
            import deepspeed  # noqa: F401
        except ImportError:
            raise ValueError("the accelerate config names DeepSpeed, which is not installed: pip install deepspeed "
                             "(a CUDA build environment; see docs/scaling-out.md)") from None
    return AccelerateRuntime(_accelerator(device, mixed_precision, grad_accum))


def _accelerator(device: str | None, mixed_precision: str | None, grad_accum: int | None) -> Any:
    from accelerate import Accelerator
    from accelerate.utils import DistributedDataParallelKwargs, GradientAccumulationPlugin

    # a batch whose step labels are all unknown leaves the step head out of the graph: DDP must allow it
    kwargs: dict[str, Any] = {"kwargs_handlers": [DistributedDataParallelKwargs(find_unused_parameters=True)]}
    if grad_accum is not None:  # a plugin, so the option wins over ACCELERATE_GRADIENT_ACCUMULATION_STEPS
        kwargs["gradient_accumulation_plugin"] = GradientAccumulationPlugin(num_steps=grad_accum,
                                                                            sync_with_dataloader=False)
    return Accelerator(cpu=device == "cpu", mixed_precision=mixed_precision, **kwargs)


class AccelerateRuntime:
    """The loop's runtime operations through an ``accelerate.Accelerator``."""

    def __init__(self, accelerator: Any):
        self.acc = accelerator
        plugin = accelerator.state.deepspeed_plugin
        if plugin is not None and plugin.zero_stage == 3:
            raise ValueError("DeepSpeed ZeRO-3 shards the weights, which this loop saves whole: use ZeRO-2 "
                             "(finchain_tasks/data/accelerate/zero2.yaml)")

    @property
    def device(self) -> Any:
        return self.acc.device

    @property
    def num_processes(self) -> int:
        return self.acc.num_processes

    @property
    def is_main_process(self) -> bool:
        return self.acc.is_main_process

    @property
    def grad_accum(self) -> int:
        return self.acc.gradient_accumulation_steps

    def describe(self) -> dict:
        """What the summary records: how the run was spread and at which precision."""
        plugin = self.acc.state.deepspeed_plugin
        return {"processes": self.num_processes, "distributed_type": str(self.acc.distributed_type.value),
                "mixed_precision": self.acc.mixed_precision, "grad_accum": self.grad_accum,
                "zero_stage": plugin.zero_stage if plugin is not None else None}

    def place(self, prm: Any) -> None:
        prm.backbone.to(self.device)
        prm.heads.to(self.device)

    def prepare(self, module: Any, optimizer: Any, batches: Any) -> tuple[Any, Any, Any]:
        plugin = self.acc.state.deepspeed_plugin
        if plugin is not None:  # our batch sampler has no DataLoader.batch_size for DeepSpeed's "auto"
            plugin.deepspeed_config["train_micro_batch_size_per_gpu"] = batches.batch_sampler.batch_size
            plugin.deepspeed_config["gradient_accumulation_steps"] = self.grad_accum
        return self.acc.prepare(module, optimizer, batches)

    def accumulate(self, module: Any) -> Any:
        return self.acc.accumulate(module)

    def backward(self, loss: Any) -> None:
        self.acc.backward(loss)

    def mean(self, value: float) -> float:
        import torch

        return float(self.acc.reduce(torch.tensor(value, device=self.device), "mean"))

    def score(self, prm: Any, items: Sequence[Any]) -> list:
        """Each process scores its contiguous share; the shares are gathered in process order (= input order)."""
        from accelerate.utils import gather_object

        with self.acc.split_between_processes(list(items)) as share:
            mine = prm.score_batch(share) if share else []
        return gather_object(mine) if self.num_processes > 1 else mine

    def autocast(self) -> Any:
        return self.acc.autocast()

    def wait(self) -> None:
        self.acc.wait_for_everyone()
