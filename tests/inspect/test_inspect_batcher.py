"""The micro-batcher: concurrent callers share one call, each gets its own result or the batch's error."""

import threading

import anyio
import pytest

from finchain_tasks.inspect.batcher import MicroBatcher


class Recorder:
    """A batched function that squares its items and remembers every batch it was called with."""

    def __init__(self, fail: bool = False) -> None:
        self.batches: list[list[int]] = []
        self.threads: set[int] = set()
        self.fail = fail

    def __call__(self, items: list[int]) -> list[int]:
        self.batches.append(list(items))
        self.threads.add(threading.get_ident())
        if self.fail:
            raise ValueError("embedding model exploded")
        return [i * i for i in items]


async def _submit_all(batcher: MicroBatcher, items: list[int]) -> dict[int, object]:
    results: dict[int, object] = {}

    async def one(i: int) -> None:
        try:
            results[i] = await batcher.submit(i)
        except Exception as exc:  # collected to check every caller saw it
            results[i] = exc

    async with anyio.create_task_group() as tg:
        for i in items:
            tg.start_soon(one, i)
    return results


def test_concurrent_callers_share_one_call_in_a_worker_thread():
    fn = Recorder()
    batcher = MicroBatcher(fn, max_size=10, max_wait=30.0)  # fills by size, never by time
    results = anyio.run(_submit_all, batcher, list(range(10)))
    assert results == {i: i * i for i in range(10)}
    assert len(fn.batches) == 1 and sorted(fn.batches[0]) == list(range(10))
    assert threading.get_ident() not in fn.threads
    assert batcher.batch_sizes == [10]


def test_batches_are_capped_at_max_size():
    fn = Recorder()
    batcher = MicroBatcher(fn, max_size=4, max_wait=1.0)  # size decides; only the last, short batch waits
    results = anyio.run(_submit_all, batcher, list(range(10)))
    assert results == {i: i * i for i in range(10)}
    assert sorted(len(b) for b in fn.batches) == [2, 4, 4]
    assert sorted(x for b in fn.batches for x in b) == list(range(10))


def test_a_lone_caller_is_answered_after_the_wait():
    fn = Recorder()
    batcher = MicroBatcher(fn, max_size=64, max_wait=0.01)
    assert anyio.run(batcher.submit, 7) == 49
    assert fn.batches == [[7]]


def test_every_caller_of_a_failed_batch_sees_the_error():
    batcher = MicroBatcher(Recorder(fail=True), max_size=3, max_wait=30.0)
    results = anyio.run(_submit_all, batcher, [1, 2, 3])
    assert all(isinstance(r, ValueError) and "exploded" in str(r) for r in results.values())


def test_a_wrong_number_of_results_is_an_error_not_a_misalignment():
    batcher = MicroBatcher(lambda items: items[:-1], max_size=2, max_wait=30.0)
    results = anyio.run(_submit_all, batcher, [1, 2])
    assert all(isinstance(r, RuntimeError) for r in results.values())


def test_cancelling_the_leader_still_answers_the_followers():
    fn = Recorder()
    batcher = MicroBatcher(fn, max_size=3, max_wait=30.0)

    async def main() -> tuple[int, int, bool]:
        leader_cancelled = False
        out: dict[str, int] = {}

        async def leader(scope_ready: anyio.Event, holder: list) -> None:
            nonlocal leader_cancelled
            with anyio.CancelScope() as scope:
                holder.append(scope)
                scope_ready.set()
                await batcher.submit(10)
            leader_cancelled = scope.cancelled_caught

        async def follower(name: str, item: int) -> None:
            out[name] = await batcher.submit(item)

        ready, holder = anyio.Event(), []
        async with anyio.create_task_group() as tg:
            tg.start_soon(leader, ready, holder)
            await ready.wait()
            await anyio.sleep(0)  # let the leader open the batch
            holder[0].cancel()  # the leader's sample is cancelled while its batch is open
            tg.start_soon(follower, "a", 2)
            tg.start_soon(follower, "b", 3)  # fills the batch (size 3)
        return out["a"], out["b"], leader_cancelled

    a, b, cancelled = anyio.run(main)
    assert (a, b) == (4, 9)
    assert cancelled
    assert sorted(fn.batches[0]) == [2, 3, 10]


def test_max_size_must_be_positive():
    with pytest.raises(ValueError):
        MicroBatcher(Recorder(), max_size=0)
