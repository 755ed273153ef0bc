"""``raise_if_cancelled`` raises without keeping its task: the raising frame
held the task, whose kept CancelledError's traceback holds that frame — a
cycle, freed only by a full collection (``server.runtime.gcpolicy``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref

from server.runtime.cancel import raise_if_cancelled


async def test_a_task_ended_by_raise_if_cancelled_is_freed_at_once() -> None:
    started = asyncio.Event()

    async def body() -> None:
        with contextlib.suppress(asyncio.CancelledError):  # swallowed, as 3.11's wait_for may
            started.set()
            await asyncio.sleep(10)
        raise_if_cancelled()
        await asyncio.sleep(10)  # not reached

    gc.collect()
    gc.disable()
    try:
        task = asyncio.create_task(body())
        await started.wait()
        task.cancel()
        await asyncio.wait([task], timeout=5)  # does not take the task's exception
        assert task.cancelled()
        gone = weakref.ref(task)
        del task
        assert gone() is None
    finally:
        gc.enable()
