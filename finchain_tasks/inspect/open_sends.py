"""A request's sends that outlive the attempt that started them: a slow answer is used, a stalled send is raced.

Inspect's attempt timeout cancels the provider's ``generate``. Before, that cancelled the HTTP send too, and the
retry sent the request again: on a slow machine an answer that was on its way was paid twice (issue 40.4: six
re-sends in a 48-sample run at ``--timeout 3``). Waiting for the old send instead (the first fix) could never
save a sample whose server had stalled: every retry joined the stalled send until retries ran out.

The rule here tells the two apart by racing them, never by guessing a deadline:

1. An attempt runs its send as a task of its own, so the attempt timeout cancels the attempt, not the send: the
   send stays *open*.
2. The next attempt of the same request (same asyncio task, same request key) first looks at the open sends
   (:meth:`OpenSends.answered`, before any response cache). One that answered meanwhile is used at once: a *late
   answer*, nothing sent again. Inspect's backoff between attempts is the grace period: no wait is added, since
   a longer one would only delay recovery from a stall, and a send that answers later still wins the race below.
3. Otherwise it sends anew and races the new send against the open one: whichever answers first is used and the
   other is cancelled (its connection closed). A stalled send so never blocks recovery, and a slow one that
   answers first is used without waiting for, or paying for, the second full answer.
4. At most :data:`MAX_OPEN` sends of a request are open: a new send first cancels the oldest open one beyond
   that (the one most likely stalled) and waits for it to close.
5. A failure of the new send ends the attempt with that error, so Inspect's retry rules, ``Retry-After`` and
   backoff apply to it as before; the open send stays open for the next attempt. A failure of an older send only
   drops it from the race.
6. No send outlives the asyncio task that started it (an Inspect sample): when that task ends, for instance
   because retries ran out, its open sends are cancelled.

Only under asyncio: elsewhere (trio) a send is awaited in the attempt, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

MAX_OPEN = 2
"""The most sends of one request open at once: the send of a timed-out attempt and the new one racing it."""
CLOSE_WAIT = 5.0
"""Seconds a new send waits at most for a displaced send's cancellation to close it (it takes one loop turn)."""


def asyncio_running() -> bool:
    """True inside a running asyncio event loop (not trio, not outside any loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    try:
        import sniffio

        return sniffio.current_async_library() == "asyncio"
    except Exception:  # sniffio missing or undecided: the running loop is asyncio's
        return True


class OpenSends(Generic[T]):
    """The open sends of every request, per asyncio task that asked (see the module docstring)."""

    def __init__(self) -> None:
        self._open: dict[tuple[asyncio.Task[Any], str], list[asyncio.Task[T]]] = {}
        self._owners: set[asyncio.Task[Any]] = set()

    def answered(self, key: str) -> T | None:
        """The answer an earlier attempt's send of this request brought meanwhile, or None; when there is one, the
        request's other open sends are cancelled. (A caller checks this before its response cache: that send has
        cached the answer too, but it is this attempt's late answer, not another request's.)"""
        owner = asyncio.current_task()
        if owner is None:
            return None
        slot = (owner, key)
        answered = next((t for t in self._open.get(slot, []) if t.done() and not _failed(t)), None)
        if answered is None:
            return None
        self._close(slot, keep=answered)
        return answered.result()

    def discard(self, key: str) -> None:
        """Cancel the open sends of this request (its answer came from elsewhere, e.g. the response cache)."""
        owner = asyncio.current_task()
        if owner is not None:
            self._close((owner, key), keep=None)

    async def answer(self, key: str, start: Callable[[], Awaitable[T]],
                     on_send: Callable[[], None] = lambda: None) -> tuple[T, bool]:
        """(the answer, whether it is a late one: from a send an earlier attempt started), by a new send raced
        against this request's open ones (call :meth:`answered` first: an answer already there needs no send).
        ``start`` makes the new send; ``on_send`` is called when it is made."""
        owner = asyncio.current_task()
        if owner is None:  # not inside a task: nothing to outlive, send in place
            on_send()
            return await start(), False
        slot = (owner, key)
        sends = [t for t in self._open.get(slot, []) if not t.done()]
        displaced = sends[:max(len(sends) - MAX_OPEN + 1, 0)]
        if displaced:
            sends = sends[len(displaced):]
            self._open[slot] = sends
            for task in displaced:
                task.cancel()
            await asyncio.wait(displaced, timeout=CLOSE_WAIT)  # closed before the new send opens: never 3 at once
        on_send()
        fresh = asyncio.get_running_loop().create_task(_run(start))
        fresh.add_done_callback(_retrieve)
        sends.append(fresh)
        self._open[slot] = sends
        self._watch(owner)
        return await self._race(slot, fresh)

    async def _race(self, slot: tuple[asyncio.Task[Any], str], fresh: asyncio.Task[T]) -> tuple[T, bool]:
        """The first answer among the slot's open sends; the fresh send's failure is raised (the others stay
        open); an older send's failure drops it. Cancelling this wait (the attempt timeout) cancels no send."""
        while True:
            sends = self._open.get(slot) or [fresh]
            await asyncio.wait(sends, return_when=asyncio.FIRST_COMPLETED)
            sends = self._open.get(slot) or [fresh]
            winner = next((t for t in sends if t.done() and not _failed(t)), None)
            if winner is not None:
                self._close(slot, keep=winner)
                return winner.result(), winner is not fresh
            if fresh.done():
                rest = [t for t in sends if not t.done()]
                if rest:
                    self._open[slot] = rest
                else:
                    self._open.pop(slot, None)
                return fresh.result(), False  # raises: the fresh send's error (or its cancellation)
            self._open[slot] = [t for t in sends if not t.done()]

    def _close(self, slot: tuple[asyncio.Task[Any], str], keep: asyncio.Task[T] | None) -> None:
        for task in self._open.pop(slot, []):
            if task is not keep:
                task.cancel()

    def _watch(self, owner: asyncio.Task[Any]) -> None:
        if owner not in self._owners:
            self._owners.add(owner)
            owner.add_done_callback(self._release)

    def _release(self, owner: asyncio.Task[Any]) -> None:
        """The task that asked has ended: cancel what it left open."""
        self._owners.discard(owner)
        for slot in [s for s in self._open if s[0] is owner]:
            for task in self._open.pop(slot):
                task.cancel()


async def _run(start: Callable[[], Awaitable[T]]) -> T:
    return await start()


def _failed(task: asyncio.Task[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark a send's failure as seen: a dropped or cancelled send is not reported as "never retrieved"."""
    if not task.cancelled():
        task.exception()
