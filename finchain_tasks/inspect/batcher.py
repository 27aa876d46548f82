"""An async micro-batcher: many concurrent callers, one batched call in a worker thread.

Inspect scores samples one at a time (``async (state, target) -> Score``) but runs many samples
concurrently. ChainEval's cost is the embedding forward pass, which is far cheaper per item in a
batch, so the scorer hands each (gold, output) pair to a shared :class:`MicroBatcher`: the first
caller of a batch becomes its *leader*, waits up to ``max_wait`` seconds (or until ``max_size``
items have joined), then runs ONE ``fn(items)`` call in a worker thread (the event loop keeps
running model calls meanwhile) and hands every caller its own result (or the batch's error).

The leader's work is shielded from cancellation: if the leader's own sample is cancelled (a time
limit, an interrupted eval), the batch still completes for the other samples waiting on it and the
cancellation reaches the leader afterwards. Only ``anyio`` primitives are used, so it runs under
either of Inspect's async backends (asyncio, trio).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio
import anyio.lowlevel
import anyio.to_thread

T = TypeVar("T")
R = TypeVar("R")

MAX_SIZE = 64
"""Items per batch: a few embedding forward passes' worth (the embedder encodes 128 texts at once)."""
MAX_WAIT = 0.02
"""Seconds a batch stays open: short against a model call, long enough to catch samples that finish together."""


@dataclass
class _Slot(Generic[T, R]):
    item: T
    done: anyio.Event = field(default_factory=anyio.Event)
    result: R | None = None
    error: BaseException | None = None


@dataclass
class _Batch(Generic[T, R]):
    token: object
    slots: list[_Slot[T, R]] = field(default_factory=list)
    full: anyio.Event = field(default_factory=anyio.Event)


class MicroBatcher(Generic[T, R]):
    """Collect items from concurrent callers; call ``fn(list_of_items) -> list_of_results`` per batch."""

    def __init__(self, fn: Callable[[list[T]], Sequence[R]], max_size: int = MAX_SIZE,
                 max_wait: float = MAX_WAIT) -> None:
        if max_size < 1:
            raise ValueError(f"max_size must be at least 1, got {max_size}")
        self.fn = fn
        self.max_size = max_size
        self.max_wait = max_wait
        self._open: _Batch[T, R] | None = None
        self.batch_sizes: list[int] = []
        """Sizes of the batches run so far (for reports and tests)."""

    async def submit(self, item: T) -> R:
        """The result of ``fn`` for ``item``, computed in a batch with concurrent callers' items."""
        slot: _Slot[T, R] = _Slot(item)
        batch, leader = self._join(slot)
        if leader:
            with anyio.CancelScope(shield=True):
                await self._lead(batch)
        await slot.done.wait()
        if slot.error is not None:
            raise slot.error
        return slot.result  # type: ignore[return-value]

    def _join(self, slot: _Slot[T, R]) -> tuple[_Batch[T, R], bool]:
        """Add ``slot`` to the open batch of this event loop, or open one and lead it."""
        token = anyio.lowlevel.current_token()
        batch, leader = self._open, False
        if batch is None or batch.token != token:
            batch, leader = _Batch(token), True
            self._open = batch
        batch.slots.append(slot)
        if len(batch.slots) >= self.max_size:
            self._close(batch)
        return batch, leader

    def _close(self, batch: _Batch[T, R]) -> None:
        if self._open is batch:
            self._open = None
        batch.full.set()

    async def _lead(self, batch: _Batch[T, R]) -> None:
        with anyio.move_on_after(self.max_wait):
            await batch.full.wait()
        self._close(batch)
        slots = list(batch.slots)
        self.batch_sizes.append(len(slots))
        try:
            results = await anyio.to_thread.run_sync(self.fn, [s.item for s in slots])
            if len(results) != len(slots):
                raise RuntimeError(f"batched function returned {len(results)} results for {len(slots)} items")
            for slot, result in zip(slots, results):
                slot.result = result
        except BaseException as exc:  # every caller of the batch sees the batch's error
            for slot in slots:
                slot.error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            for slot in slots:
                slot.done.set()
